/**
 * `scoop import` writes the base64 cache's files (cache/base64-cache.ts) for the large
 * binaries it leaves in the store, where `scoop serve` on the same store looks for them;
 * trouble with the folder never fails an import that has committed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { bundleJson, pattern, scratch } from './support/bundles.ts';
import { runScoop } from './support/scoop-command.ts';

const s = scratch();
const LARGE = pattern(9 * 1024 * 1024 + 2, 7);
const SMALL = pattern(100_000, 8);
/** Past one stored chunk: its answers stream from a file too, but the first answer writes it, not the import. */
const MID = pattern(300_000, 9);
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The import's run, its stderr without the line that says a new store was made (cli tests check that). */
async function importBundle(db: string, env: Record<string, string> = {}) {
  const bundle = s.bundle(
    bundleJson({
      anhaenge: [
        { anhangID: 1, file: 'large.bin' },
        { anhangID: 2, file: 'small.bin' },
        { anhangID: 3, file: 'mid.bin' },
      ],
    }),
    { 'large.bin': LARGE, 'small.bin': SMALL, 'mid.bin': MID },
  );
  const run = await runScoop(['import', bundle, '--db', db], { env });
  return { ...run, stderr: run.stderr.replace(/^scoop import: created a new store at .*\n/m, '') };
}

describe('scoop import and the base64 cache', () => {
  test('the text of a binary of 8 MiB or more is written beside the store; smaller ones (of one chunk or a few) are not', async () => {
    const db = path.join(s.dir(), 'scoop.db');
    const run = await importBundle(db);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    const folder = path.join(path.dirname(db), 'binaries');
    assert.deepEqual(readdirSync(folder), [`${sha(LARGE)}.b64`]);
    assert.equal(readFileSync(path.join(folder, `${sha(LARGE)}.b64`), 'latin1'), LARGE.toString('base64'));
    // Imported again: nothing to write, nothing changed.
    const again = await importBundle(db);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(readdirSync(folder), [`${sha(LARGE)}.b64`]);
  });

  test('SCOOP_BASE64_CACHE_DIR is honoured, and SCOOP_BASE64_CACHE_BYTES=0 writes nothing', async () => {
    const chosen = path.join(s.dir(), 'text');
    const db = path.join(s.dir(), 'scoop.db');
    assert.equal((await importBundle(db, { SCOOP_BASE64_CACHE_DIR: chosen })).code, 0);
    assert.deepEqual(readdirSync(chosen), [`${sha(LARGE)}.b64`]);
    const off = path.join(s.dir(), 'scoop.db');
    assert.equal((await importBundle(off, { SCOOP_BASE64_CACHE_BYTES: '0' })).code, 0);
    assert.ok(!existsSync(path.join(path.dirname(off), 'binaries')));
  });

  test('the old names still work, each with one line on stderr naming the new one', async () => {
    const chosen = path.join(s.dir(), 'text');
    const run = await importBundle(path.join(s.dir(), 'scoop.db'), { SCOOP_BINARY_CACHE_DIR: chosen });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(readdirSync(chosen), [`${sha(LARGE)}.b64`]);
    assert.equal(
      run.stderr,
      'scoop import: SCOOP_BINARY_CACHE_DIR is deprecated: it is read as SCOOP_BASE64_CACHE_DIR, the name to use from now on\n',
    );
    const off = path.join(s.dir(), 'scoop.db');
    const offRun = await importBundle(off, { SCOOP_BINARY_CACHE_BYTES: '0' });
    assert.equal(offRun.code, 0, offRun.stderr);
    assert.ok(!existsSync(path.join(path.dirname(off), 'binaries')));
    assert.match(
      offRun.stderr,
      /^scoop import: SCOOP_BINARY_CACHE_BYTES is deprecated: .*SCOOP_BASE64_CACHE_BYTES/,
    );
  });

  test('a folder that cannot be used is told in one line; the import stands', async () => {
    const blocker = path.join(s.dir(), 'a-file');
    writeFileSync(blocker, '');
    const db = path.join(s.dir(), 'scoop.db');
    const run = await importBundle(db, { SCOOP_BASE64_CACHE_DIR: path.join(blocker, 'text') });
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Imported /);
    const lines = run.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0]!, /^base64 cache: files not written to .*a-file\/text \(.*ENOTDIR/);
  });
});
