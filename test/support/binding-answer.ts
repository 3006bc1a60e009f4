/**
 * One call of an operation over one binding, as a client would make it
 * (protocol/client-request.ts), and what comes back in a form two servers' answers can be
 * compared by: the status, the headers a client sees (but the request's own id and the
 * date) and the body's bytes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { Base64Cache } from '../../src/cache/base64-cache.ts';
import { type Arguments, OPERATIONS } from '../../src/contract/operations.ts';
import type { BindingName } from '../../src/protocol/binding.ts';
import { encodeRequest } from '../../src/protocol/client-request.ts';
import { base64Chunks } from '../../src/xml/binary.ts';
import type { TestDatabase } from './databases.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './fixture-server.ts';

export const BINDINGS: readonly BindingName[] = ['soap11', 'soap12', 'httpget', 'httppost'];

export async function answerOf(
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

/** Two servers of the same content, one answering binaries through a base64 cache of its own. */
export interface CachePair {
  readonly plain: Fixture;
  readonly cached: Fixture;
  readonly cache: Base64Cache;
  /** The cache's folder. */
  readonly dir: string;
  /** The cache's lookups (`hit`, `miss`) and errors, in order. */
  readonly lookups: string[];
  readonly errors: unknown[];
}

/**
 * Starts the pair before the suite's tests (the cache at its default thresholds, a 64 MiB
 * bound) and stops it after. Both without the answer cache, so that every answer reads its
 * binaries again. `bundles` is asked for when they start (a suite may write its own first).
 */
export function base64CachePair(db: TestDatabase, bundles: () => string[]): CachePair {
  const pair = { lookups: [] as string[], errors: [] as unknown[] } as {
    -readonly [K in keyof CachePair]: CachePair[K];
  };
  before(async () => {
    if (db.skip) return;
    pair.dir = mkdtempSync(path.join(tmpdir(), 'scoop-base64-cache-pair-'));
    pair.cache = await Base64Cache.open({
      dir: pair.dir,
      maxBytes: 64 * 1024 * 1024,
      encode: base64Chunks,
      onLookup: (result) => pair.lookups.push(result),
      onError: (error) => pair.errors.push(error),
    });
    pair.plain = await startFixture({ responseCacheBytes: 0 }, bundles(), db);
    pair.cached = await startFixture({ base64Cache: pair.cache, responseCacheBytes: 0 }, bundles(), db);
  });
  after(async () => {
    await pair.plain?.stop();
    await pair.cached?.stop();
    if (pair.dir) rmSync(pair.dir, { recursive: true, force: true });
  });
  return pair;
}
