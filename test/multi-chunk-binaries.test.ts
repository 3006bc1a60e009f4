/**
 * Binaries of more than one stored chunk but far below the size an import writes files for
 * (cache/base64-cache.ts DEFAULT_MIN_BINARY_BYTES, KEPT_AFTER_IMPORT_BYTES): the first
 * answer streams from the store and keeps the text on the way, later ones read the file
 * whole (TEXT_NOW_BYTES) and the answer pack keeps the answer; every binding's answer is
 * the same bytes, and the same entity tag, as a server without the cache gives.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { KEPT_AFTER_IMPORT_BYTES, TEXT_NOW_BYTES, WHOLE_TEXT_BYTES } from '../src/cache/base64-cache.ts';
import { AnswerPack } from '../src/prepare/answer-pack.ts';
import { answerOf, BINDINGS, base64CachePair } from './support/binding-answer.ts';
import { DATABASES } from './support/databases.ts';
import { type Fixture, startFixture } from './support/fixture-server.ts';

/** Three chunks and a bit: more than one, far less than what an import keeps. */
const BYTES = randomBytes((WHOLE_TEXT_BYTES / 4) * 3 * 3 + 1001);
const SHA = createHash('sha256').update(BYTES).digest('hex');
let bundleDir: string;

before(() => {
  assert.ok(BYTES.length < KEPT_AFTER_IMPORT_BYTES);
  assert.ok(Math.ceil(BYTES.length / 3) * 4 <= TEXT_NOW_BYTES, 'a text read whole once its file is there');
  bundleDir = mkdtempSync(path.join(tmpdir(), 'scoop-multi-chunk-'));
  mkdirSync(path.join(bundleDir, 'files'));
  writeFileSync(path.join(bundleDir, 'files', 'plan.pdf'), BYTES);
  writeFileSync(
    path.join(bundleDir, 'bundle.json'),
    JSON.stringify({
      format: 'scoop-bundle/1',
      anhaenge: [
        {
          anhangID: 7,
          file: 'files/plan.pdf',
          filename: 'plan.pdf',
          name: 'Plan',
          mimetype: 'application/pdf',
          sort: 1,
        },
      ],
    }),
  );
});

after(() => {
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

describe('binaries of several chunks from the base64 cache', () => {
  for (const db of DATABASES) {
    describe(db.name, () => {
      const pair = base64CachePair(db, () => [bundleDir]);

      db.test(
        'the first answer keeps the text, the next ones read it, all alike on every binding',
        async () => {
          const first = await answerOf(pair.cached, 'soap11', 'getAnhang', { anhangID: 7 });
          assert.ok(first.startsWith('200 '), first.slice(0, 200));
          assert.ok(first.includes(BYTES.toString('base64')), 'the whole binary, in base64');
          assert.equal(first, await answerOf(pair.plain, 'soap11', 'getAnhang', { anhangID: 7 }));
          await pair.cache.settled();
          assert.deepEqual(readdirSync(pair.dir), [`${SHA}.b64`]);
          assert.equal(readFileSync(path.join(pair.dir, `${SHA}.b64`), 'latin1'), BYTES.toString('base64'));
          for (const binding of BINDINGS)
            assert.equal(
              await answerOf(pair.cached, binding, 'getAnhang', { anhangID: 7 }),
              await answerOf(pair.plain, binding, 'getAnhang', { anhangID: 7 }),
              binding,
            );
          assert.deepEqual(pair.lookups, ['miss', 'hit', 'hit', 'hit', 'hit']);
          assert.deepEqual(pair.errors, []);
        },
      );

      describe('with an answer pack', () => {
        const packLookups: string[] = [];
        let dir: string;
        let pack: AnswerPack;
        let packed: Fixture;
        before(async () => {
          if (db.skip) return;
          dir = mkdtempSync(path.join(tmpdir(), 'scoop-multi-chunk-pack-'));
          pack = AnswerPack.open({
            dir,
            maxBytes: 16 * 1024 * 1024,
            onLookup: (result) => packLookups.push(result),
          });
          packed = await startFixture(
            { base64Cache: pair.cache, answerPack: pack, responseCacheBytes: 0 },
            [bundleDir],
            db,
          );
        });
        after(async () => {
          await packed?.stop();
          pack?.close();
          if (dir) rmSync(dir, { recursive: true, force: true });
        });

        db.test('the text read whole puts the answer in the pack; its tag is the streamed one', async () => {
          // The text's file, made here too when this test runs alone.
          await answerOf(pair.cached, 'soap11', 'getAnhang', { anhangID: 7 });
          await pair.cache.settled();
          const cacheLookups = pair.lookups.length;
          for (const round of ['first', 'again', 'tags kept'])
            for (const binding of BINDINGS)
              assert.equal(
                await answerOf(packed, binding, 'getAnhang', { anhangID: 7 }),
                await answerOf(pair.plain, binding, 'getAnhang', { anhangID: 7 }),
                `${round}, ${binding}: the same bytes and entity tag as the streamed answer`,
              );
          assert.equal(pack.size, 2, 'both layouts of the answer are kept');
          assert.equal(pack.tagged, 1, 'the HTTP GET tag is kept with its slot');
          assert.deepEqual(
            pair.lookups.slice(cacheLookups),
            ['hit', 'hit'],
            'the file is read once a layout, then the pack answers',
          );
          // One miss, HTTP GET's first (the indented layout, read and kept then): every other
          // lookup finds the answer in the pack (the first answer, before the store's version
          // is known, does not look).
          assert.deepEqual(packLookups, ['hit', 'miss', 'hit', ...Array(2 * BINDINGS.length).fill('hit')]);
        });
      });
    });
  }
});
