/**
 * `scoop serve` and the base64 cache's folder (cache/base64-cache.ts): a folder the
 * operator chose must be usable; the default one, when it is not, only turns the cache
 * off, with a warning, and the service starts. The settings' old names still work.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { scratch } from './support/bundles.ts';
import { listeningUrl, serveProcesses } from './support/serve-process.ts';

const s = scratch();
const serves = serveProcesses();

/** A regular file where a folder would have to be made: ENOTDIR for anything under it. */
function blocker(): string {
  const file = path.join(s.dir(), 'a-file');
  writeFileSync(file, '');
  return file;
}

describe('scoop serve and the base64 cache folder', () => {
  for (const setting of ['SCOOP_BASE64_CACHE_DIR', 'SCOOP_BINARY_CACHE_DIR']) {
    test(`refuses to start with one line naming SCOOP_BASE64_CACHE_DIR when the folder chosen by ${setting} cannot be used`, async () => {
      const dir = path.join(blocker(), 'binaries');
      const serve = serves.start([], { SCOOP_DB: path.join(s.dir(), 'scoop.db'), [setting]: dir });
      assert.equal(await serve.exited, 1);
      const lines = serve.stderr().trimEnd().split('\n');
      assert.equal(lines.length, 1, serve.stderr());
      assert.match(lines[0]!, /^scoop serve: SCOOP_BASE64_CACHE_DIR .* cannot be used/);
      assert.ok(lines[0]!.includes(dir), lines[0]);
      assert.match(lines[0]!, /ENOTDIR/);
      assert.match(lines[0]!, /SCOOP_BASE64_CACHE_BYTES=0/);
    });
  }

  test('with SCOOP_BASE64_CACHE_BYTES=0 the chosen folder is not used, and it serves', async () => {
    const serve = serves.start([], {
      SCOOP_DB: path.join(s.dir(), 'scoop.db'),
      SCOOP_BASE64_CACHE_DIR: path.join(blocker(), 'binaries'),
      SCOOP_BASE64_CACHE_BYTES: '0',
    });
    await listeningUrl(serve);
    assert.ok(!serve.lines.some((l) => String(l.msg).includes('deprecated')));
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0);
  });

  test('an unusable default folder (beside variants/) turns the cache off with a warning, and it serves', async () => {
    const root = s.dir();
    mkdirSync(path.join(root, 'variants'));
    writeFileSync(path.join(root, 'binaries'), 'a file where the folder would be');
    const serve = serves.start([], {
      SCOOP_DB: path.join(root, 'scoop.db'),
      SCOOP_VARIANT_CACHE_DIR: path.join(root, 'variants'),
    });
    await listeningUrl(serve);
    assert.ok(serve.lines.some((l) => l.msg === 'base64 cache folder not usable; serving without it'));
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0);
  });

  test('the old names are read, each with one warning in the log naming the new one, however many workers', async () => {
    const root = s.dir();
    const serve = serves.start(['--workers', '2'], {
      SCOOP_DB: path.join(root, 'scoop.db'),
      SCOOP_VARIANT_DIR: path.join(root, 'old-variants'),
      // Unusable, so the start would fail were the bound of 0 not read.
      SCOOP_BINARY_CACHE_DIR: path.join(blocker(), 'binaries'),
      SCOOP_BINARY_CACHE_BYTES: '0',
    });
    await listeningUrl(serve, 2);
    assert.ok(
      existsSync(path.join(root, 'old-variants', 'index.sqlite')),
      'the variant folder is the one named',
    );
    const warnings = serve.lines.filter((l) => l.level === 'warn' && String(l.msg).includes('deprecated'));
    assert.deepEqual(
      warnings.map((l) => l.msg),
      [
        'SCOOP_BINARY_CACHE_DIR is deprecated: it is read as SCOOP_BASE64_CACHE_DIR, the name to use from now on',
        'SCOOP_BINARY_CACHE_BYTES is deprecated: it is read as SCOOP_BASE64_CACHE_BYTES, the name to use from now on',
        'SCOOP_VARIANT_DIR is deprecated: it is read as SCOOP_VARIANT_CACHE_DIR, the name to use from now on',
      ],
    );
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0);
  });
});
