/**
 * `scoop serve` and the binary text cache's folder (server/text-file-cache.ts): a folder
 * the operator chose must be usable; the default one, when it is not, only turns the
 * cache off, with a warning, and the service starts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
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

describe('scoop serve and the binary cache folder', () => {
  test('refuses to start with one line naming SCOOP_BINARY_CACHE_DIR when the chosen folder cannot be used', async () => {
    const dir = path.join(blocker(), 'binaries');
    const serve = serves.start([], { SCOOP_DB: path.join(s.dir(), 'scoop.db'), SCOOP_BINARY_CACHE_DIR: dir });
    assert.equal(await serve.exited, 1);
    const lines = serve.stderr().trimEnd().split('\n');
    assert.equal(lines.length, 1, serve.stderr());
    assert.match(lines[0]!, /^scoop serve: SCOOP_BINARY_CACHE_DIR .* cannot be used/);
    assert.ok(lines[0]!.includes(dir), lines[0]);
    assert.match(lines[0]!, /ENOTDIR/);
    assert.match(lines[0]!, /SCOOP_BINARY_CACHE_BYTES=0/);
  });

  test('with SCOOP_BINARY_CACHE_BYTES=0 the chosen folder is not used, and it serves', async () => {
    const serve = serves.start([], {
      SCOOP_DB: path.join(s.dir(), 'scoop.db'),
      SCOOP_BINARY_CACHE_DIR: path.join(blocker(), 'binaries'),
      SCOOP_BINARY_CACHE_BYTES: '0',
    });
    await listeningUrl(serve);
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0);
  });

  test('an unusable default folder (beside variants/) turns the cache off with a warning, and it serves', async () => {
    const root = s.dir();
    mkdirSync(path.join(root, 'variants'));
    writeFileSync(path.join(root, 'binaries'), 'a file where the folder would be');
    const serve = serves.start([], {
      SCOOP_DB: path.join(root, 'scoop.db'),
      SCOOP_VARIANT_DIR: path.join(root, 'variants'),
    });
    await listeningUrl(serve);
    assert.ok(serve.lines.some((l) => l.msg === 'binary cache folder not usable; serving without it'));
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0);
  });
});
