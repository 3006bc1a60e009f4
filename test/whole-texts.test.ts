/**
 * Binaries of one stored chunk answered from the base64 cache's whole texts
 * (cache/base64-cache.ts `textNow`, prepare/prepared-answer.ts): the same bytes on every
 * binding as from the store, on SQLite and PostgreSQL; the first answer keeps the text,
 * later ones read it; a kept file of the wrong length goes and the store answers.
 */
import assert from 'node:assert/strict';
import { readdirSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { describe } from 'node:test';
import type { Arguments } from '../src/contract/operations.ts';
import { answerOf, BINDINGS, base64CachePair } from './support/binding-answer.ts';
import { DATABASES } from './support/databases.ts';
import { REFERENCE_BUNDLE, startFixture } from './support/fixture-server.ts';

const CALLS: ReadonlyArray<[string, Arguments]> = [
  ['getAnhang', { anhangID: 500 }],
  ['getAnhang', { anhangID: 501 }],
  ['getBild', { bildID: 200, width: 0, height: 0, resizeModes: ['standard'] }],
  ['getArtikelDetails', { artikelID: 100 }],
  ['getArtikelDetails', { artikelID: 101 }],
];

describe('binaries of one chunk from the base64 cache', () => {
  for (const db of DATABASES) {
    describe(db.name, () => {
      const pair = base64CachePair(db, () => [REFERENCE_BUNDLE]);

      db.test(
        'every binding answers alike with and without the cache, the first time and then from the files',
        async () => {
          for (const round of ['first', 'again']) {
            for (const binding of BINDINGS) {
              for (const [name, args] of CALLS) {
                assert.equal(
                  await answerOf(pair.cached, binding, name, args),
                  await answerOf(pair.plain, binding, name, args),
                  `${round}: ${name} ${JSON.stringify(args)} over ${binding}`,
                );
                // Each kept text in place before the next call: one answer may show another's binary.
                await pair.cache.settled();
              }
            }
            await pair.cache.settled();
          }
          const files = readdirSync(pair.dir).filter((file) => file.endsWith('.b64'));
          assert.ok(
            files.length >= 3,
            `the attachments' and the image's texts are kept: ${files.join(', ')}`,
          );
          assert.ok(pair.lookups.includes('miss') && pair.lookups.includes('hit'), pair.lookups.join(' '));
          assert.equal(
            pair.lookups.at(-1),
            'hit',
            `the last answers came from the files: ${pair.lookups.join(' ')}; errors: ${pair.errors.join('; ')}`,
          );
          assert.deepEqual(pair.errors, []);
        },
      );

      db.test('a kept text of the wrong length is removed, and the store answers', async () => {
        const files = readdirSync(pair.dir).filter((file) => file.endsWith('.b64'));
        for (const file of files) truncateSync(path.join(pair.dir, file), 10);
        // A server of its own: the first one's record cache still holds what it read from the store.
        const fresh = await startFixture(
          { base64Cache: pair.cache, responseCacheBytes: 0 },
          [REFERENCE_BUNDLE],
          db,
        );
        try {
          for (const [name, args] of CALLS) {
            assert.equal(
              await answerOf(fresh, 'soap11', name, args),
              await answerOf(pair.plain, 'soap11', name, args),
            );
          }
          assert.equal(pair.errors.length, files.length, 'each damaged file is told');
          assert.match(String(pair.errors[0]), /holds 10 characters, expected \d+: removed/);
          await pair.cache.settled();
          const kept = readdirSync(pair.dir).filter((file) => file.endsWith('.b64'));
          assert.equal(kept.length, files.length, 'kept anew');
          for (const [name, args] of CALLS) {
            assert.equal(
              await answerOf(fresh, 'httpget', name, args),
              await answerOf(pair.plain, 'httpget', name, args),
            );
          }
        } finally {
          await fresh.stop();
        }
      });
    });
  }
});
