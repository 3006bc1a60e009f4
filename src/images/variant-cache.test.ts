import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { scratch } from '../../test/support/bundles.ts';
import { atTheSameInstant, runModule } from '../../test/support/same-instant.ts';
import { CacheDirError } from '../cache/bounded-folder.ts';
import type { Binary } from '../xml/binary.ts';
import { type MadeVariant, VariantCache, type VariantCacheOptions } from './variant-cache.ts';

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

/** The variant files (not the index or temporary files). */
const files = (dir: string) => readdirSync(dir).filter((name) => /^[0-9a-f]{64}\.[a-z]+$/.test(name));
const bytesOnDisk = (dir: string) => files(dir).reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0);

/** A clock that moves only when told, starting now. */
function clock() {
  let at = Date.now();
  return {
    now: () => at,
    pass(ms: number) {
      at += ms;
    },
  };
}

const caches: VariantCache[] = [];
async function open(options: VariantCacheOptions): Promise<VariantCache> {
  const cache = await VariantCache.open(options);
  caches.push(cache);
  return cache;
}

describe('VariantCache', () => {
  test('a miss makes the variant and stores it; a hit reads it without making it again', async () => {
    const dir = s.dir();
    const cache = await open({ dir, maxBytes: 10_000 });
    const m = maker(100, 7);
    const first = await cache.getOrCreate('k1', m.create);
    const second = await cache.getOrCreate('k1', m.create);
    assert.equal(m.calls, 1);
    assert.deepEqual(await bytesOf(second.data), Buffer.alloc(100, 7));
    assert.deepEqual([second.format, second.size], [first.format, 100]);
    assert.equal(files(dir).length, 1);
    assert.match(files(dir)[0]!, /\.png$/);
  });

  test('onLookup hears a hit for a cached file or a resize under way, a miss for a resize of its own', async () => {
    const heard: string[] = [];
    const cache = await open({ dir: s.dir(), maxBytes: 10_000, onLookup: (result) => heard.push(result) });
    let release!: () => void;
    const slow = async (): Promise<MadeVariant> => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { bytes: Buffer.alloc(10), format: 'png' };
    };
    const made = cache.getOrCreate('k', slow);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const joined = cache.getOrCreate('k', slow);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await Promise.all([made, joined]);
    await cache.getOrCreate('k', maker(10).create);
    await cache.getOrCreate('other', maker(10).create);
    assert.deepEqual(heard, ['miss', 'hit', 'hit', 'miss']);
  });

  test('the cache survives a restart: a new instance on the folder hits', async () => {
    const dir = s.dir();
    const first = await open({ dir, maxBytes: 10_000 });
    await first.getOrCreate('k', maker(50).create);
    first.close();
    const reopened = await open({ dir, maxBytes: 10_000 });
    assert.deepEqual(reopened.stats, { entries: 1, bytes: 50 });
    const m = maker(50);
    await reopened.getOrCreate('k', m.create);
    assert.equal(m.calls, 0);
  });

  test('concurrent identical requests make the variant once', async () => {
    const cache = await open({ dir: s.dir(), maxBytes: 10_000 });
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
    const cache = await open({ dir: s.dir(), maxBytes: 10_000 });
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
    const time = clock();
    const cache = await open({ dir, maxBytes: 350, now: time.now });
    for (const key of ['a', 'b', 'c']) {
      await cache.getOrCreate(key, maker(100).create);
      time.pass(1);
    }
    // A hit records its use once a minute at most: a minute on, a is the most recently used.
    time.pass(60_000);
    await cache.getOrCreate('a', maker(100).create);
    time.pass(1);
    await cache.getOrCreate('d', maker(100).create); // 400 > 350: b goes
    assert.deepEqual(cache.stats, { entries: 3, bytes: 300 });
    assert.equal(files(dir).length, 3);
    time.pass(60_000);
    const again = { a: maker(100), b: maker(100), c: maker(100), d: maker(100) };
    // a, c, d are hits (no calls); b is made again, evicting a, by then the least recently used.
    for (const key of ['a', 'c', 'd', 'b'] as const) {
      time.pass(1);
      await cache.getOrCreate(key, again[key].create);
    }
    assert.deepEqual(
      Object.values(again).map((m) => m.calls),
      [0, 1, 0, 0],
    );
    const a = maker(100);
    await cache.getOrCreate('a', a.create);
    assert.equal(a.calls, 1);
    assert.ok(cache.stats.bytes <= 350);
    assert.equal(bytesOnDisk(dir), cache.stats.bytes);
  });

  test('a variant larger than the whole bound is returned but not stored', async () => {
    const dir = s.dir();
    const cache = await open({ dir, maxBytes: 100 });
    const v = await cache.getOrCreate('big', maker(101).create);
    assert.equal(v.size, 101);
    assert.deepEqual(files(dir), []);
  });

  test('on open, an over-full folder is trimmed oldest first; old temporary files go, fresh ones stay', async () => {
    const dir = s.dir();
    const first = await open({ dir, maxBytes: 1_000 });
    for (const key of ['old', 'mid', 'new']) {
      await first.getOrCreate(key, maker(100).create);
      await new Promise((resolve) => setTimeout(resolve, 15)); // distinct last uses
    }
    first.close();
    const crashed = path.join(dir, `${'0'.repeat(64)}.png.abc.tmp`);
    writeFileSync(crashed, 'half written, an hour ago');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(crashed, anHourAgo, anHourAgo);
    // Another process may be writing this one right now.
    const writing = path.join(dir, `${'1'.repeat(64)}.png.def.tmp`);
    writeFileSync(writing, 'being written');
    writeFileSync(path.join(dir, 'README'), 'not ours: left alone, not counted');
    const reopened = await open({ dir, maxBytes: 250 });
    assert.deepEqual(reopened.stats, { entries: 2, bytes: 200 });
    assert.deepEqual([existsSync(crashed), existsSync(writing)], [false, true]);
    assert.equal(existsSync(path.join(dir, 'README')), true);
    const old = maker(100);
    await reopened.getOrCreate('old', old.create);
    assert.equal(old.calls, 1, 'the oldest was evicted');
  });

  test('on open, files the index does not know are indexed and rows without a file forgotten', async () => {
    const dir = s.dir();
    const first = await open({ dir, maxBytes: 1_000 });
    await first.getOrCreate('kept', maker(10).create);
    await first.getOrCreate('lost', maker(20).create);
    first.close();
    const lost = files(dir).find((f) => statSync(path.join(dir, f)).size === 20)!;
    rmSync(path.join(dir, lost));
    // As a crash between the rename into place and the index's commit would leave it.
    writeFileSync(path.join(dir, `${'2'.repeat(64)}.webp`), Buffer.alloc(30));
    const reopened = await open({ dir, maxBytes: 1_000 });
    assert.deepEqual(reopened.stats, { entries: 2, bytes: 40 });
  });

  test('a variant held in memory is answered without reading its file, while its row is indexed', async () => {
    const dir = s.dir();
    const cache = await open({ dir, maxBytes: 1_000 });
    await cache.getOrCreate('k', maker(10, 7).create);
    for (const f of files(dir)) rmSync(path.join(dir, f));
    const m = maker(10);
    assert.deepEqual(await bytesOf((await cache.getOrCreate('k', m.create)).data), Buffer.alloc(10, 7));
    assert.deepEqual(await bytesOf(cache.held('k')!.data), Buffer.alloc(10, 7));
    assert.equal(m.calls, 0);
    assert.equal(cache.held('other'), undefined);
  });

  test('a variant file removed by hand is made again, and told (when not held in memory)', async () => {
    const dir = s.dir();
    const errors: unknown[] = [];
    const cache = await open({ dir, maxBytes: 1_000, memoryBytes: 0, onError: (e) => errors.push(e) });
    await cache.getOrCreate('k', maker(10).create);
    for (const f of files(dir)) rmSync(path.join(dir, f));
    const m = maker(10);
    await cache.getOrCreate('k', m.create);
    assert.equal(m.calls, 1);
    assert.equal(errors.length, 1);
    assert.deepEqual(cache.stats, { entries: 1, bytes: 10 });
  });

  test('a large variant is streamed from its file, and still reads whole after eviction unlinks it', async () => {
    const dir = s.dir();
    const size = 3 * 1024 * 1024 + 5;
    const cache = await open({ dir, maxBytes: size + 10 });
    await cache.getOrCreate('large', maker(size, 9).create);
    const hit = await cache.getOrCreate('large', maker(size).create);
    assert.ok(!(hit.data instanceof Uint8Array), 'a streaming source');
    await cache.getOrCreate('other', maker(20).create); // evicts 'large'
    assert.equal(files(dir).length, 1);
    const bytes = await bytesOf(hit.data);
    assert.equal(bytes.length, size);
    assert.ok(bytes.every((b) => b === 9));
  });

  test('a large variant has one content id, just made or read from its file (its ETag)', async () => {
    const dir = s.dir();
    const size = 1024 * 1024 + 1;
    const made = await (await open({ dir, maxBytes: 10 * size })).getOrCreate('large', maker(size).create);
    const read = await (await open({ dir, maxBytes: 10 * size })).getOrCreate('large', maker(size).create);
    const uncached = await VariantCache.none().getOrCreate('large', maker(size).create);
    const ids = [made, read, uncached].map((v) =>
      v.data instanceof Uint8Array ? undefined : v.data.contentId,
    );
    assert.match(ids[0] ?? '', /^variant:[0-9a-f]{64}$/);
    assert.deepEqual(ids, [ids[0], ids[0], ids[0]]);
    assert.deepEqual(await bytesOf(made.data), await bytesOf(read.data));
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

  test('a folder that cannot be created or written is refused at open, naming it', async () => {
    const file = path.join(s.dir(), 'not-a-folder');
    writeFileSync(file, '');
    const dir = path.join(file, 'variants');
    await assert.rejects(VariantCache.open({ dir, maxBytes: 1_000 }), (error: unknown) => {
      assert.ok(error instanceof CacheDirError);
      assert.equal(error.cache, 'variant cache');
      assert.equal(error.dir, dir);
      assert.match(error.reason, /ENOTDIR|EEXIST/);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    });
    // The bound 0 is "no cache": the folder is not touched at all.
    await VariantCache.open({ dir, maxBytes: 0 });
  });
});

describe('VariantCache: an image whose content changed or is gone', () => {
  test('a new content deletes the variants of the old one; the new one is kept', async () => {
    const dir = s.dir();
    const cache = await open({ dir, maxBytes: 10_000 });
    cache.imageContent('300', 'old-sha');
    await cache.getOrCreate('old 50x50', maker(10).create, 'old-sha');
    await cache.getOrCreate('old 60x60', maker(10).create, 'old-sha');
    assert.equal(files(dir).length, 2);
    cache.imageContent('300', 'new-sha');
    assert.deepEqual([files(dir).length, cache.stats.entries], [0, 0]);
    await cache.getOrCreate('new 50x50', maker(10).create, 'new-sha');
    cache.imageContent('300', 'new-sha');
    assert.equal(files(dir).length, 1);
  });

  test('content that another image still has keeps its variants until neither has it', async () => {
    const dir = s.dir();
    const cache = await open({ dir, maxBytes: 10_000 });
    cache.imageContent('300', 'shared');
    cache.imageContent('301', 'shared');
    await cache.getOrCreate('shared 50x50', maker(10).create, 'shared');
    cache.imageContent('300', 'other');
    assert.equal(files(dir).length, 1, '301 still has it');
    cache.imageContent('301', undefined);
    assert.equal(files(dir).length, 0, 'no image has it any more');
  });

  test('a deleted image loses its variants; one never resized changes nothing', async () => {
    const dir = s.dir();
    const cache = await open({ dir, maxBytes: 10_000 });
    cache.imageContent('300', 'sha');
    await cache.getOrCreate('300 50x50', maker(10).create, 'sha');
    cache.imageContent('999', undefined);
    assert.equal(files(dir).length, 1);
    cache.imageContent('300', undefined);
    assert.equal(files(dir).length, 0);
  });

  test('a variant finished after its image changed is answered but not kept', async () => {
    const dir = s.dir();
    const cache = await open({ dir, maxBytes: 10_000 });
    cache.imageContent('300', 'old-sha');
    let release!: () => void;
    const slow = cache.getOrCreate(
      'old 50x50',
      async () => {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return { bytes: Buffer.alloc(10), format: 'png' };
      },
      'old-sha',
    );
    await new Promise((resolve) => setImmediate(resolve));
    cache.imageContent('300', 'new-sha'); // the import happened while it was being made
    release();
    assert.equal((await slow).size, 10);
    assert.deepEqual([files(dir).length, cache.stats.entries], [0, 0]);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [],
    );
  });

  test("a process records an image's content once: a change another records later stands until this one sees the image change", async () => {
    const dir = s.dir();
    const a = await open({ dir, maxBytes: 10_000 });
    const b = await open({ dir, maxBytes: 10_000 });
    a.imageContent('300', 'one');
    b.imageContent('300', 'two');
    a.imageContent('300', 'one'); // seen before by a: the index still says two
    await b.getOrCreate('two 50x50', maker(10).create, 'two');
    assert.equal(files(dir).length, 1, "b's variant of two is kept");
    a.imageContent('300', 'three'); // a sees the image change: recorded, two's variants go
    assert.equal(files(dir).length, 0);
  });

  test('what one process learns, another acts on: the change is seen through the shared index', async () => {
    const dir = s.dir();
    const a = await open({ dir, maxBytes: 10_000 });
    const b = await open({ dir, maxBytes: 10_000 });
    a.imageContent('300', 'old-sha');
    await a.getOrCreate('old 50x50', maker(10).create, 'old-sha');
    b.imageContent('300', 'new-sha');
    const m = maker(10);
    await a.getOrCreate('old 50x50', m.create, 'old-sha');
    assert.equal(m.calls, 1, 'a does not find the old variant any more');
    assert.equal(files(dir).length, 0, 'and does not keep it: no image has that content');
  });
});

describe('VariantCache: several processes on one folder', () => {
  test('two caches on one folder share hits, one bound and one eviction order', async () => {
    const dir = s.dir();
    const time = clock();
    const a = await open({ dir, maxBytes: 300, now: time.now });
    const b = await open({ dir, maxBytes: 300, now: time.now });
    await a.getOrCreate('x', maker(100, 1).create);
    time.pass(1);
    const hit = maker(100);
    assert.deepEqual(await bytesOf((await b.getOrCreate('x', hit.create)).data), Buffer.alloc(100, 1));
    assert.equal(hit.calls, 0, 'b hits what a made');
    for (const [cache, key] of [
      [b, 'y'],
      [a, 'z'],
      [b, 'w'],
      [a, 'v'],
    ] as const) {
      time.pass(1);
      await cache.getOrCreate(key, maker(100).create);
      assert.ok(a.stats.bytes <= 300, `${a.stats.bytes} bytes`);
      assert.deepEqual(b.stats, a.stats);
      assert.equal(bytesOnDisk(dir), a.stats.bytes);
    }
    // x and y (the oldest, made by a and by b) went; both caches read the rest.
    for (const cache of [a, b]) {
      const again = { z: maker(100), w: maker(100), v: maker(100) };
      for (const key of ['z', 'w', 'v'] as const) await cache.getOrCreate(key, again[key].create);
      assert.deepEqual(
        Object.values(again).map((m) => m.calls),
        [0, 0, 0],
      );
    }
  });

  test('one cache evicting a variant another is about to read makes the reader make it again, untold', async () => {
    const dir = s.dir();
    const errors: unknown[] = [];
    const a = await open({ dir, maxBytes: 150, onError: (e) => errors.push(e) });
    const b = await open({ dir, maxBytes: 150, onError: (e) => errors.push(e) });
    await a.getOrCreate('x', maker(100).create);
    await b.getOrCreate('y', maker(100).create); // evicts x, a's variant
    const m = maker(100);
    await a.getOrCreate('x', m.create);
    assert.equal(m.calls, 1);
    assert.deepEqual(errors, []);
    assert.ok(a.stats.bytes <= 150);
    assert.equal(bytesOnDisk(dir), a.stats.bytes);
  });

  test('three processes writing at once stay within the bound, and the index matches the files', async () => {
    const dir = s.dir();
    const bound = 64 * 1024;
    const module = path.resolve('src/images/variant-cache.ts');
    // Each child makes 60 variants of 1 to 8 KiB, 20 of them shared by all (the same keys).
    const child = (n: number) => `
      const { VariantCache } = await import(${JSON.stringify(module)});
      const cache = await VariantCache.open({ dir: ${JSON.stringify(dir)}, maxBytes: ${bound}, onError: (e) => { console.error(String(e)); process.exitCode = 1; } });
      for (let i = 0; i < 60; i++) {
        const key = i % 3 === 0 ? 'shared ' + i : 'own ${n} ' + i;
        const size = 1024 * (1 + (i % 8));
        const got = await cache.getOrCreate(key, async () => ({ bytes: Buffer.alloc(size, i), format: 'png' }));
        if (got.size !== size) throw new Error('wrong size ' + got.size);
        if (cache.stats.bytes > ${bound}) throw new Error('over the bound: ' + cache.stats.bytes);
      }
      cache.close();`;
    const results = await Promise.all([1, 2, 3].map((n) => runModule(child(n))));
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    // 3 × 60 variants of 4.5 KiB on average, most distinct: far more than the bound was made.
    assert.ok(bytesOnDisk(dir) <= bound, `${bytesOnDisk(dir)} bytes on disk`);
    // Read as the children left it (opening a cache would mend it first).
    const index = new Database(path.join(dir, 'index.sqlite'), { readonly: true });
    try {
      const totals = index.prepare('SELECT entries, bytes FROM totals').get();
      assert.deepEqual(totals, { entries: files(dir).length, bytes: bytesOnDisk(dir) });
    } finally {
      index.close();
    }
  });
});

test('processes opening a new folder at the same instant all get the cache', async () => {
  // SQLite refuses one of two connections switching a new index to WAL together at once
  // (SQLITE_BUSY, no wait); this happened to two instances starting side by side.
  const base = s.dir();
  const results = await atTheSameInstant({
    processes: 4,
    rounds: 12,
    setup: `const { VariantCache } = await import(${JSON.stringify(path.resolve('src/images/variant-cache.ts'))});`,
    body: `(await VariantCache.open({ dir: ${JSON.stringify(base)} + '/' + round, maxBytes: 1 << 20 })).close();`,
  });
  for (const r of results) assert.equal(r.code, 0, r.stderr);
});

after(() => {
  for (const cache of caches) cache.close();
});
