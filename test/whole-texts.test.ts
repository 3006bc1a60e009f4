/**
 * Binaries of one stored chunk answered from the base64 cache's whole texts
 * (cache/base64-cache.ts `textNow`, prepare/prepared-answer.ts): the same bytes on every
 * binding as from the store, on SQLite and PostgreSQL; the first answer keeps the text,
 * later ones read it; a kept file of the wrong length goes and the store answers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { Base64Cache } from '../src/cache/base64-cache.ts';
import { type Arguments, OPERATIONS } from '../src/contract/operations.ts';
import type { BindingName } from '../src/protocol/binding.ts';
import { encodeRequest } from '../src/protocol/client-request.ts';
import { base64Chunks } from '../src/xml/binary.ts';
import { DATABASES } from './support/databases.ts';
import { type Fixture, REFERENCE_BUNDLE, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

const CALLS: ReadonlyArray<[string, Arguments]> = [
  ['getAnhang', { anhangID: 500 }],
  ['getAnhang', { anhangID: 501 }],
  ['getBild', { bildID: 200, width: 0, height: 0, resizeModes: ['standard'] }],
  ['getArtikelDetails', { artikelID: 100 }],
  ['getArtikelDetails', { artikelID: 101 }],
];
const BINDINGS: readonly BindingName[] = ['soap11', 'soap12', 'httpget', 'httppost'];

/** Status, the headers a client sees (but the request's own id and the date), and the body. */
async function answer(
  fixture: Fixture,
  binding: BindingName,
  name: string,
  args: Arguments,
): Promise<string> {
  const operation = OPERATIONS.find((op) => op.name === name)!;
  const request = encodeRequest(binding, operation, args, {
    namespace: 'http://scoop.example.org/api',
    token: REFERENCE_TOKEN,
  });
  const res = await fetch(`${fixture.server.url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.method === 'POST' ? { body: request.body } : {}),
  });
  const headers = [...res.headers].filter(([header]) => header !== 'date' && header !== 'x-request-id');
  return `${res.status} ${JSON.stringify(headers)}\n${Buffer.from(await res.arrayBuffer()).toString('latin1')}`;
}

describe('binaries of one chunk from the base64 cache', () => {
  for (const db of DATABASES) {
    describe(db.name, () => {
      let plain: Fixture;
      let cached: Fixture;
      let cache: Base64Cache;
      let dir: string;
      const lookups: string[] = [];
      const errors: unknown[] = [];
      before(async () => {
        if (db.skip) return;
        dir = mkdtempSync(path.join(tmpdir(), 'scoop-whole-texts-'));
        cache = await Base64Cache.open({
          dir,
          maxBytes: 64 * 1024 * 1024,
          encode: base64Chunks,
          onLookup: (result) => lookups.push(result),
          onError: (error) => errors.push(error),
        });
        // Without the answer cache, so that every answer reads its binaries again.
        plain = await startFixture({ responseCacheBytes: 0 }, [REFERENCE_BUNDLE], db);
        cached = await startFixture({ base64Cache: cache, responseCacheBytes: 0 }, [REFERENCE_BUNDLE], db);
      });
      after(async () => {
        await plain?.stop();
        await cached?.stop();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      db.test(
        'every binding answers alike with and without the cache, the first time and then from the files',
        async () => {
          for (const round of ['first', 'again']) {
            for (const binding of BINDINGS) {
              for (const [name, args] of CALLS) {
                assert.equal(
                  await answer(cached, binding, name, args),
                  await answer(plain, binding, name, args),
                  `${round}: ${name} ${JSON.stringify(args)} over ${binding}`,
                );
              }
            }
            await cache.settled();
          }
          const files = readdirSync(dir).filter((file) => file.endsWith('.b64'));
          assert.ok(
            files.length >= 3,
            `the attachments' and the image's texts are kept: ${files.join(', ')}`,
          );
          assert.ok(lookups.includes('miss') && lookups.includes('hit'), lookups.join(' '));
          assert.equal(lookups.at(-1), 'hit', 'the last answers came from the files');
          assert.deepEqual(errors, []);
        },
      );

      db.test('a kept text of the wrong length is removed, and the store answers', async () => {
        const files = readdirSync(dir).filter((file) => file.endsWith('.b64'));
        for (const file of files) truncateSync(path.join(dir, file), 10);
        // A server of its own: the first one's record cache still holds what it read from the store.
        const fresh = await startFixture(
          { base64Cache: cache, responseCacheBytes: 0 },
          [REFERENCE_BUNDLE],
          db,
        );
        try {
          for (const [name, args] of CALLS) {
            assert.equal(
              await answer(fresh, 'soap11', name, args),
              await answer(plain, 'soap11', name, args),
            );
          }
          assert.equal(errors.length, files.length, 'each damaged file is told');
          assert.match(String(errors[0]), /holds 10 characters, expected \d+: removed/);
          await cache.settled();
          const kept = readdirSync(dir).filter((file) => file.endsWith('.b64'));
          assert.equal(kept.length, files.length, 'kept anew');
          for (const [name, args] of CALLS) {
            assert.equal(
              await answer(fresh, 'httpget', name, args),
              await answer(plain, 'httpget', name, args),
            );
          }
        } finally {
          await fresh.stop();
        }
      });
    });
  }
});
