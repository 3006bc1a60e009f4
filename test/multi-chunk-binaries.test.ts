/**
 * Binaries of more than one stored chunk but far below the size an import writes files for
 * (cache/base64-cache.ts DEFAULT_MIN_BINARY_BYTES, KEPT_AFTER_IMPORT_BYTES): the first
 * answer streams from the store and keeps the text on the way, later ones stream from the
 * file; every binding's answer is the same bytes as a server without the cache gives.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { Base64Cache, KEPT_AFTER_IMPORT_BYTES, WHOLE_TEXT_BYTES } from '../src/cache/base64-cache.ts';
import { type Arguments, OPERATIONS } from '../src/contract/operations.ts';
import type { BindingName } from '../src/protocol/binding.ts';
import { encodeRequest } from '../src/protocol/client-request.ts';
import { base64Chunks } from '../src/xml/binary.ts';
import { DATABASES } from './support/databases.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

/** Three chunks and a bit: more than one, far less than what an import keeps. */
const BYTES = randomBytes((WHOLE_TEXT_BYTES / 4) * 3 * 3 + 1001);
const SHA = createHash('sha256').update(BYTES).digest('hex');
const BINDINGS: readonly BindingName[] = ['soap11', 'soap12', 'httpget', 'httppost'];
let bundleDir: string;

before(() => {
  assert.ok(BYTES.length < KEPT_AFTER_IMPORT_BYTES);
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

describe('binaries of several chunks from the base64 cache', () => {
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
        dir = mkdtempSync(path.join(tmpdir(), 'scoop-multi-chunk-cache-'));
        // The default threshold: nothing but the folder and its bound given.
        cache = await Base64Cache.open({
          dir,
          maxBytes: 64 * 1024 * 1024,
          encode: base64Chunks,
          onLookup: (result) => lookups.push(result),
          onError: (error) => errors.push(error),
        });
        // Without the answer cache, so that every answer reads its binary again.
        plain = await startFixture({ responseCacheBytes: 0 }, [bundleDir], db);
        cached = await startFixture({ base64Cache: cache, responseCacheBytes: 0 }, [bundleDir], db);
      });
      after(async () => {
        await plain?.stop();
        await cached?.stop();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      db.test(
        'the first answer keeps the text, the next ones read it, all alike on every binding',
        async () => {
          const first = await answer(cached, 'soap11', 'getAnhang', { anhangID: 7 });
          assert.ok(first.startsWith('200 '), first.slice(0, 200));
          assert.ok(first.includes(BYTES.toString('base64')), 'the whole binary, in base64');
          assert.equal(first, await answer(plain, 'soap11', 'getAnhang', { anhangID: 7 }));
          await cache.settled();
          assert.deepEqual(readdirSync(dir), [`${SHA}.b64`]);
          assert.equal(readFileSync(path.join(dir, `${SHA}.b64`), 'latin1'), BYTES.toString('base64'));
          for (const binding of BINDINGS)
            assert.equal(
              await answer(cached, binding, 'getAnhang', { anhangID: 7 }),
              await answer(plain, binding, 'getAnhang', { anhangID: 7 }),
              binding,
            );
          assert.deepEqual(lookups, ['miss', 'hit', 'hit', 'hit', 'hit']);
          assert.deepEqual(errors, []);
        },
      );
    });
  }
});
