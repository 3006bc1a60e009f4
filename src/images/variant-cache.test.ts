import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { scratch } from '../../test/support/bundles.ts';
import type { Binary } from '../xml/binary.ts';
import { type MadeVariant, VariantCache } from './variant-cache.ts';

const s = scratch();

async function bytesOf(data: Binary): Promise<Buffer> {
  if (data instanceof Uint8Array) return Buffer.from(data);
  const parts: Buffer[] = [];
  for await (const chunk of data.chunks()) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** A `create` that counts its calls and makes `size` bytes of `fill`. */
function maker(size: number, fill = 1) {
  const made = { calls: 0 };
  const create = async (): Promise<MadeVariant> => {
    made.calls++;
    return { bytes: Buffer.alloc(size, fill), format: 'png' };
  };
  return Object.assign(made, { create });
}

const files = (dir: string) => readdirSync(dir).sort();

describe('VariantCache', () => {
  test('a miss makes the variant and stores it; a hit reads it without making it again', async () => {
    const dir = s.dir();
    const cache = await VariantCache.open({ dir, maxBytes: 10_000 });
    const m = maker(100, 7);
    const first = await cache.getOrCreate('k1', m.create);
    const second = await cache.getOrCreate('k1', m.create);
    assert.equal(m.calls, 1);
    assert.deepEqual(await bytesOf(second.data), Buffer.alloc(100, 7));
    assert.deepEqual([second.format, second.size], [first.format, 100]);
    assert.equal(files(dir).length, 1);
    assert.match(files(dir)[0]!, /^[0-9a-f]{64}\.png$/);
  });

  test('the cache survives a restart: a new instance on the folder hits', async () => {
    const dir = s.dir();
    await (await VariantCache.open({ dir, maxBytes: 10_000 })).getOrCreate('k', maker(50).create);
    const reopened = await VariantCache.open({ dir, maxBytes: 10_000 });
    assert.deepEqual(reopened.stats, { entries: 1, bytes: 50 });
    const m = maker(50);
    await reopened.getOrCreate('k', m.create);
    assert.equal(m.calls, 0);
  });

  test('concurrent identical requests make the variant once', async () => {
    const cache = await VariantCache.open({ dir: s.dir(), maxBytes: 10_000 });
    let calls = 0;
    let release!: () => void;
    const slow = async (): Promise<MadeVariant> => {
      calls++;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { bytes: Buffer.from('variant'), format: 'jpeg' };
    };
    const all = Array.from({ length: 8 }, () => cache.getOrCreate('same', slow));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const results = await Promise.all(all);
    assert.equal(calls, 1);
    for (const r of results) assert.equal(Buffer.from(r.data as Uint8Array).toString(), 'variant');
  });

  test('a failed make is not cached, and the next request tries again', async () => {
    const cache = await VariantCache.open({ dir: s.dir(), maxBytes: 10_000 });
    await assert.rejects(
      cache.getOrCreate('k', async () => {
        throw new Error('resize failed');
      }),
      /resize failed/,
    );
    const m = maker(10);
    await cache.getOrCreate('k', m.create);
    assert.equal(m.calls, 1);
  });

  test('eviction keeps the total under the bound, dropping the least recently used', async () => {
    const dir = s.dir();
    const cache = await VariantCache.open({ dir, maxBytes: 350 });
    for (const key of ['a', 'b', 'c']) await cache.getOrCreate(key, maker(100).create);
    await cache.getOrCreate('a', maker(100).create); // a is now the most recently used
    await cache.getOrCreate('d', maker(100).create); // 400 > 350: b goes
    assert.deepEqual(cache.stats, { entries: 3, bytes: 300 });
    await new Promise((resolve) => setTimeout(resolve, 20)); // unlink is not awaited
    assert.equal(files(dir).length, 3);
    const again = { a: maker(100), b: maker(100), c: maker(100), d: maker(100) };
    // a, c, d are hits (no calls); b is made again, evicting a, by then the least recently used.
    for (const key of ['a', 'c', 'd', 'b'] as const) await cache.getOrCreate(key, again[key].create);
    assert.deepEqual(
      Object.values(again).map((m) => m.calls),
      [0, 1, 0, 0],
    );
    assert.ok(cache.stats.bytes <= 350);
  });

  test('a variant larger than the whole bound is returned but not stored', async () => {
    const dir = s.dir();
    const cache = await VariantCache.open({ dir, maxBytes: 100 });
    const v = await cache.getOrCreate('big', maker(101).create);
    assert.equal(v.size, 101);
    assert.deepEqual(files(dir), []);
  });

  test('on open, an over-full folder is trimmed oldest first, and temporary files are removed', async () => {
    const dir = s.dir();
    const first = await VariantCache.open({ dir, maxBytes: 1_000 });
    for (const key of ['old', 'mid', 'new']) {
      await first.getOrCreate(key, maker(100).create);
      await new Promise((resolve) => setTimeout(resolve, 15)); // distinct mtimes
    }
    writeFileSync(path.join(dir, `${'0'.repeat(64)}.png.abc.tmp`), 'half written');
    writeFileSync(path.join(dir, 'README'), 'not ours: left alone, not counted');
    const reopened = await VariantCache.open({ dir, maxBytes: 250 });
    assert.deepEqual(reopened.stats, { entries: 2, bytes: 200 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(files(dir).filter((f) => f.endsWith('.tmp')).length, 0);
    const old = maker(100);
    await reopened.getOrCreate('old', old.create);
    assert.equal(old.calls, 1, 'the oldest was evicted');
  });

  test('a variant file removed behind its back is made again', async () => {
    const dir = s.dir();
    const errors: unknown[] = [];
    const cache = await VariantCache.open({ dir, maxBytes: 1_000, onError: (e) => errors.push(e) });
    await cache.getOrCreate('k', maker(10).create);
    for (const f of files(dir)) rmSync(path.join(dir, f));
    const m = maker(10);
    await cache.getOrCreate('k', m.create);
    assert.equal(m.calls, 1);
    assert.equal(errors.length, 1);
  });

  test('a large variant is streamed from its file, and still reads whole after eviction unlinks it', async () => {
    const dir = s.dir();
    const size = 3 * 1024 * 1024 + 5;
    const cache = await VariantCache.open({ dir, maxBytes: size + 10 });
    await cache.getOrCreate('large', maker(size, 9).create);
    const hit = await cache.getOrCreate('large', maker(size).create);
    assert.ok(!(hit.data instanceof Uint8Array), 'a streaming source');
    await cache.getOrCreate('other', maker(20).create); // evicts 'large'
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(files(dir).length, 1);
    const bytes = await bytesOf(hit.data);
    assert.equal(bytes.length, size);
    assert.ok(bytes.every((b) => b === 9));
  });

  test('without a folder nothing is stored, but concurrent identical requests still share one make', async () => {
    const cache = VariantCache.none();
    const m = maker(10);
    await Promise.all([cache.getOrCreate('k', m.create), cache.getOrCreate('k', m.create)]);
    assert.equal(m.calls, 1);
    await cache.getOrCreate('k', m.create);
    assert.equal(m.calls, 2);
    assert.equal(existsSync(path.join(s.root, 'variants')), false);
  });
});
