/**
 * Whole texts read into lent buffers (support/buffer-pool.ts), each given back once its
 * answer is written and lent to the next: many answers at once, of texts of the same size
 * class, each carries its own binary, on every binding, as a server without the cache sends.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import type { BindingName } from '../src/protocol/binding.ts';
import { answerOf, BINDINGS, base64CachePair } from './support/binding-answer.ts';
import { DATABASES } from './support/databases.ts';
import { startFixture } from './support/fixture-server.ts';

/** Raw sizes whose texts fall in the pool's classes: four share the 64 KiB one. */
const SIZES = [3_500, 30_000, 33_000, 36_000, 40_000, 90_000, 150_000];
const FILES = SIZES.map((size) => randomBytes(size));
let bundleDir: string;

before(() => {
  bundleDir = mkdtempSync(path.join(tmpdir(), 'scoop-lent-texts-'));
  mkdirSync(path.join(bundleDir, 'files'));
  for (const [i, bytes] of FILES.entries()) writeFileSync(path.join(bundleDir, 'files', `f${i}.bin`), bytes);
  writeFileSync(
    path.join(bundleDir, 'bundle.json'),
    JSON.stringify({
      format: 'scoop-bundle/1',
      anhaenge: FILES.map((_, i) => ({
        anhangID: i + 1,
        file: `files/f${i}.bin`,
        filename: `f${i}.bin`,
        name: `File ${i}`,
        mimetype: 'application/octet-stream',
        sort: i,
      })),
    }),
  );
});

after(() => {
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

describe('whole texts in lent buffers', () => {
  for (const db of DATABASES) {
    describe(db.name, () => {
      const pair = base64CachePair(db, () => [bundleDir]);

      db.test('answers at once each carry their own text, on every binding', async () => {
        const expected = new Map<string, string>();
        const key = (binding: BindingName, id: number) => `${binding} ${id}`;
        for (const binding of BINDINGS)
          for (let id = 1; id <= FILES.length; id++) {
            const answer = await answerOf(pair.plain, binding, 'getAnhang', { anhangID: id });
            assert.ok(answer.startsWith('200 '), answer.slice(0, 200));
            assert.ok(answer.includes(FILES[id - 1]!.toString('base64')), `${binding} ${id}`);
            expected.set(key(binding, id), answer);
            // The first answer of each keeps its text in a file; the rest read it.
            await answerOf(pair.cached, binding, 'getAnhang', { anhangID: id });
          }
        await pair.cache.settled();
        // A server of its own: the first one's record cache holds the texts it read from the store.
        const fresh = await startFixture({ base64Cache: pair.cache, responseCacheBytes: 0 }, [bundleDir], db);
        const lookupsBefore = pair.lookups.length;
        try {
          for (let round = 0; round < 6; round++) {
            const calls = Array.from({ length: 32 }, (_, i) => ({
              binding: BINDINGS[(i + round) % BINDINGS.length]!,
              id: ((i * 5 + round) % FILES.length) + 1,
            }));
            const answers = await Promise.all(
              calls.map(({ binding, id }) => answerOf(fresh, binding, 'getAnhang', { anhangID: id })),
            );
            answers.forEach((answer, i) => {
              const { binding, id } = calls[i]!;
              assert.equal(answer, expected.get(key(binding, id)), `round ${round}: ${binding} ${id}`);
            });
          }
        } finally {
          await fresh.stop();
        }
        const read = pair.lookups.slice(lookupsBefore);
        assert.equal(read.length, 6 * 32, 'every answer read its text');
        assert.ok(
          read.every((lookup) => lookup === 'hit'),
          'from the files',
        );
        assert.deepEqual(pair.errors, []);
      });
    });
  }
});
