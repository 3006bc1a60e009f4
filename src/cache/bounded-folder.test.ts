import assert from 'node:assert/strict';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { scratch } from '../../test/support/bundles.ts';
import { runModule } from '../../test/support/same-instant.ts';
import { BoundedFolder, type BoundedFolderOptions, CacheDirError, evictionOrder } from './bounded-folder.ts';

const s = scratch();

const isEntry = (name: string) => name.endsWith('.bin');

function open(extra: Partial<BoundedFolderOptions> = {}): Promise<BoundedFolder> {
  return BoundedFolder.open({ cache: 'test cache', dir: s.dir(), maxBytes: 1_000, isEntry, ...extra });
}

/** Sets a file's mtime (its last use) `secondsAgo` in the past. */
function usedAgo(file: string, secondsAgo: number): void {
  const at = Date.now() / 1000 - secondsAgo;
  utimesSync(file, at, at);
}

const entries = (dir: string) => readdirSync(dir).filter(isEntry).sort();
const temporaries = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.tmp'));

describe('BoundedFolder: opening', () => {
  test('creates the folder and leaves no probe behind', async () => {
    const dir = path.join(s.dir(), 'a', 'b');
    const folder = await open({ dir });
    assert.equal(folder.dir, dir);
    assert.deepEqual(readdirSync(dir), []);
  });

  test('a folder that cannot be made is refused, naming the cache, the folder and the reason in one line', async () => {
    const file = path.join(s.dir(), 'a-file');
    writeFileSync(file, '');
    const dir = path.join(file, 'cache');
    await assert.rejects(open({ dir }), (error: unknown) => {
      assert.ok(error instanceof CacheDirError);
      assert.deepEqual([error.cache, error.dir], ['test cache', dir]);
      assert.match(error.reason, /ENOTDIR/);
      assert.match(error.message, /^the test cache folder .* cannot be used: ENOTDIR/);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    });
  });

  test('removes the temporaries a crash left, not one another process may be writing, nor anything else', async () => {
    const dir = s.dir();
    const crashed = path.join(dir, 'x.bin.0123456789ab.tmp');
    const writing = path.join(dir, 'y.bin.ba9876543210.tmp');
    writeFileSync(crashed, 'half written, an hour ago');
    usedAgo(crashed, 3600);
    writeFileSync(writing, 'being written');
    usedAgo(writing, 60);
    writeFileSync(path.join(dir, 'old.bin'), 'an entry');
    usedAgo(path.join(dir, 'old.bin'), 3600);
    writeFileSync(path.join(dir, 'notes.txt'), 'not the cache’s');
    await open({ dir });
    assert.deepEqual(readdirSync(dir).sort(), ['notes.txt', 'old.bin', 'y.bin.ba9876543210.tmp']);
  });
});

describe('BoundedFolder: a temporary, then a rename into place', () => {
  test('the name holds nothing until the temporary is complete and placed', async () => {
    const folder = await open();
    const temporary = await folder.openTemporary('a.bin');
    assert.match(path.basename(temporary.path), /^a\.bin\.[0-9a-f]{12}\.tmp$/);
    await temporary.handle.write(Buffer.alloc(100, 1));
    assert.ok(!existsSync(folder.path('a.bin')), 'a reader finds no half-written file');
    assert.deepEqual(await folder.entries(), [], 'a temporary is no entry');
    await temporary.handle.write(Buffer.alloc(100, 2));
    await temporary.handle.close();
    await folder.place(temporary.path, 'a.bin');
    assert.deepEqual(
      readFileSync(folder.path('a.bin')),
      Buffer.concat([Buffer.alloc(100, 1), Buffer.alloc(100, 2)]),
    );
    await folder.discard(temporary.path);
    assert.deepEqual(readdirSync(folder.dir), ['a.bin']);
  });

  test('two writers of one name each get a temporary of their own; the last rename wins, whole', async () => {
    const folder = await open();
    const [first, second] = await Promise.all([folder.openTemporary('a.bin'), folder.openTemporary('a.bin')]);
    assert.notEqual(first.path, second.path);
    await first.handle.write('first');
    await second.handle.write('second');
    await Promise.all([first.handle.close(), second.handle.close()]);
    await folder.place(first.path, 'a.bin');
    await folder.place(second.path, 'a.bin');
    assert.equal(readFileSync(folder.path('a.bin'), 'utf8'), 'second');
    await Promise.all([folder.discard(first.path), folder.discard(second.path)]);
    assert.deepEqual(temporaries(folder.dir), []);
  });

  test('bytes written whole to a temporary, placed synchronously (as under a lock); an unplaced one discarded', async () => {
    const folder = await open();
    const kept = await folder.writeTemporary('a.bin', Buffer.from('kept'));
    const dropped = await folder.writeTemporary('b.bin', Buffer.from('dropped'));
    folder.placeSync(kept, 'a.bin');
    await folder.discard(dropped);
    await folder.discard(kept);
    assert.deepEqual(readdirSync(folder.dir), ['a.bin']);
    assert.equal(readFileSync(folder.path('a.bin'), 'utf8'), 'kept');
  });

  test('a write that fails leaves no temporary', async () => {
    const folder = await open();
    await assert.rejects(folder.writeTemporary('no-such-folder/a.bin', Buffer.from('x')), /ENOENT/);
    assert.deepEqual(readdirSync(folder.dir), []);
  });
});

describe('BoundedFolder: the bound', () => {
  test('trim evicts the least recently used entries (by mtime) until the rest fit; other files are not counted', async () => {
    const folder = await open({ maxBytes: 250 });
    for (const [name, ago] of [
      ['newest.bin', 10],
      ['oldest.bin', 300],
      ['middle.bin', 200],
      ['older.bin', 250],
    ] as const) {
      writeFileSync(folder.path(name), Buffer.alloc(100));
      usedAgo(folder.path(name), ago);
    }
    writeFileSync(folder.path('index.db'), Buffer.alloc(10_000));
    await folder.trim();
    assert.deepEqual(entries(folder.dir), ['middle.bin', 'newest.bin']);
    assert.ok(existsSync(folder.path('index.db')));
    // At the bound exactly, nothing goes.
    await (await open({ dir: folder.dir, maxBytes: 200 })).trim();
    assert.deepEqual(entries(folder.dir), ['middle.bin', 'newest.bin']);
  });

  test('a use recorded by touch moves an entry to the back of the eviction order, at most once a minute', async () => {
    const folder = await open({ maxBytes: 100 });
    for (const [name, ago] of [
      ['a.bin', 120],
      ['b.bin', 90],
    ] as const) {
      writeFileSync(folder.path(name), Buffer.alloc(100));
      usedAgo(folder.path(name), ago);
    }
    const recent = Date.now() / 1000 - 30;
    utimesSync(folder.path('b.bin'), recent, recent);
    const [a, b] = await Promise.all([
      openFile(folder.path('a.bin'), 'r'),
      openFile(folder.path('b.bin'), 'r'),
    ]);
    await folder.touch(a, statSync(folder.path('a.bin')).mtimeMs);
    await folder.touch(b, statSync(folder.path('b.bin')).mtimeMs);
    await Promise.all([a.close(), b.close()]);
    assert.ok(Date.now() - statSync(folder.path('a.bin')).mtimeMs < 5_000, 'a is used now');
    assert.equal(
      Math.round(statSync(folder.path('b.bin')).mtimeMs / 1000),
      Math.round(recent),
      'b was used 30 s ago',
    );
    await folder.trim();
    assert.deepEqual(entries(folder.dir), ['a.bin']);
  });

  test('an entry evicted while a reader has it open stays readable to that reader', async () => {
    const folder = await open({ maxBytes: 100 });
    writeFileSync(folder.path('a.bin'), Buffer.alloc(100, 7));
    usedAgo(folder.path('a.bin'), 600);
    const fd = openSync(folder.path('a.bin'), 'r');
    try {
      writeFileSync(folder.path('b.bin'), Buffer.alloc(100, 8));
      await folder.trim();
      assert.deepEqual(entries(folder.dir), ['b.bin']);
      const read = Buffer.alloc(100);
      assert.equal(readSync(fd, read, 0, 100, 0), 100);
      assert.ok(read.every((byte) => byte === 7));
    } finally {
      closeSync(fd);
    }
  });

  test('evictionOrder: least recently used first, only as many as the bound needs, read lazily', () => {
    const pulled: string[] = [];
    function* byUse() {
      for (const [name, size] of [
        ['a', 40],
        ['b', 30],
        ['c', 20],
        ['d', 10],
      ] as const) {
        pulled.push(name);
        yield { name, size };
      }
    }
    assert.deepEqual(
      [...evictionOrder(byUse(), 100, 40)].map((e) => e.name),
      ['a', 'b'],
    );
    assert.deepEqual(pulled, ['a', 'b', 'c'], 'the third is read only to see that the rest fits');
    assert.deepEqual([...evictionOrder(byUse(), 100, 100)], []);
    assert.deepEqual(
      [...evictionOrder(byUse(), 100, 0)].map((e) => e.name),
      ['a', 'b', 'c', 'd'],
    );
  });

  test('synchronous removal, listing and stat for a cache with an index of its own; a file gone is no error', async () => {
    const folder = await open();
    writeFileSync(folder.path('a.bin'), Buffer.alloc(3));
    writeFileSync(folder.path('other'), '');
    mkdirSync(folder.path('sub.d'));
    assert.deepEqual(folder.namesSync(), ['a.bin']);
    assert.equal(folder.entrySync('a.bin')?.size, 3);
    assert.equal(folder.entrySync('gone.bin'), undefined);
    folder.removeSync('a.bin');
    folder.removeSync('a.bin');
    assert.deepEqual(folder.namesSync(), []);
    assert.ok(folder.fits(1_000) && !folder.fits(1_001));
  });
});

test('three processes writing one folder at once: readers only ever see whole files, and it ends within the bound', async () => {
  const dir = s.dir();
  const bound = 48 * 1024;
  const module = path.resolve('src/cache/bounded-folder.ts');
  // Each child writes 40 entries of 1 to 8 KiB (every third under a name all share), each in
  // two halves with a pause between, and trims after each.
  const child = (n: number) => `
    const { BoundedFolder } = await import(${JSON.stringify(module)});
    const folder = await BoundedFolder.open({ cache: 'test cache', dir: ${JSON.stringify(dir)}, maxBytes: ${bound}, isEntry: (name) => name.endsWith('.bin') });
    for (let i = 0; i < 40; i++) {
      const size = 1024 * (1 + (i % 8));
      const name = (i % 3 === 0 ? 'shared' : 'own${n}') + '-' + i + '-' + size + '.bin';
      const bytes = Buffer.alloc(size, i);
      const temporary = await folder.openTemporary(name);
      await temporary.handle.write(bytes.subarray(0, size / 2));
      await new Promise((resolve) => setTimeout(resolve, 2));
      await temporary.handle.write(bytes.subarray(size / 2));
      await temporary.handle.close();
      await folder.place(temporary.path, name);
      await folder.trim();
      await folder.discard(temporary.path);
    }`;
  const children = Promise.all([1, 2, 3].map((n) => runModule(child(n))));
  let done = false;
  void children.finally(() => {
    done = true;
  });
  let seen = 0;
  while (!done) {
    for (const name of existsSync(dir) ? entries(dir) : []) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(path.join(dir, name));
      } catch {
        continue; // evicted between the listing and the read
      }
      const [, i, size] = /^\w+-(\d+)-(\d+)\.bin$/.exec(name)!;
      assert.equal(bytes.length, Number(size), name);
      assert.ok(
        bytes.every((byte) => byte === Number(i)),
        name,
      );
      seen++;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  for (const r of await children) assert.equal(r.code, 0, r.stderr);
  assert.ok(seen > 0, 'files were read while they were being written');
  const total = entries(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
  assert.ok(total <= bound, `${total} bytes`);
  assert.ok(total > 0);
  assert.deepEqual(temporaries(dir), []);
});
