import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import {
  Base64Cache,
  type Base64CacheOptions,
  type Base64Piece,
  type Base64Source,
  DEFAULT_MIN_BINARY_BYTES,
  KEPT_AFTER_IMPORT_BYTES,
  TEXT_NOW_BYTES,
  WHOLE_TEXT_BYTES,
} from './base64-cache.ts';
import { CacheDirError } from './bounded-folder.ts';

/** A binary whose stored base64 comes in pieces, as a store's chunked source gives it. */
function sourceOf(
  bytes: Buffer,
  options: { failAt?: number; contentId?: string } = {},
): Base64Source & { reads: number } {
  const text = Buffer.from(bytes.toString('base64'), 'latin1');
  const source = {
    size: bytes.length,
    contentId: options.contentId ?? createHash('sha256').update(bytes).digest('hex'),
    reads: 0,
    async *chunks() {
      yield bytes;
    },
    base64Text: () =>
      (async function* () {
        source.reads++;
        for (let at = 0; at < text.length; at += 96 * 1024) {
          if (options.failAt !== undefined && at >= options.failAt) throw new Error('the store went away');
          yield text.subarray(at, at + 96 * 1024);
        }
      })(),
  };
  return source;
}

/**
 * What xml/binary.ts's base64Chunks gives the server: the stored text as it is, or for a
 * binary stored raw, text encoded here in several pieces (strings).
 */
async function* encode(source: Base64Source): AsyncGenerator<Buffer | string> {
  if (source.base64Text) {
    for await (const piece of source.base64Text()) yield Buffer.from(piece);
    return;
  }
  const parts: Buffer[] = [];
  for await (const chunk of source.chunks()) parts.push(Buffer.from(chunk));
  const bytes = Buffer.concat(parts);
  for (let at = 0; at < bytes.length; at += 48 * 1024) {
    yield bytes.toString('base64', at, Math.min(at + 48 * 1024, bytes.length));
  }
}

async function collect(pieces: AsyncIterable<Base64Piece>): Promise<{ text: string; lent: number }> {
  let text = '';
  let lent = 0;
  for await (const piece of pieces) {
    text += typeof piece.bytes === 'string' ? piece.bytes : piece.bytes.toString('latin1');
    if (piece.release) {
      lent++;
      piece.release();
    }
  }
  return { text, lent };
}

let dir: string;
let errors: unknown[];
let lookups: string[];

function options(extra: Partial<Base64CacheOptions> = {}): Base64CacheOptions {
  return {
    dir,
    maxBytes: 64 * 1024 * 1024,
    encode,
    minBinaryBytes: 1024,
    onError: (error) => errors.push(error),
    onLookup: (result) => lookups.push(result),
    ...extra,
  };
}

function keptFiles(): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.b64'));
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'scoop-base64-cache-'));
  errors = [];
  lookups = [];
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('Base64Cache', () => {
  test('a miss answers from the source and keeps the text; a hit answers from the file in lent buffers', async () => {
    const cache = await Base64Cache.open(options());
    const bytes = randomBytes(700_001);
    const source = sourceOf(bytes);
    assert.ok(cache.applies(source));

    const first = await collect(cache.text(source));
    assert.equal(first.text, bytes.toString('base64'));
    assert.equal(first.lent, 0, 'pieces of the source are not lent');
    await cache.settled();
    assert.deepEqual(keptFiles(), [`${source.contentId}.b64`]);
    assert.equal(readFileSync(path.join(dir, keptFiles()[0]!), 'latin1'), bytes.toString('base64'));

    const second = await collect(cache.text(source));
    assert.equal(second.text, bytes.toString('base64'));
    assert.ok(second.lent > 1, 'read in several reused buffers');
    assert.equal(source.reads, 1, 'the store is read once');
    assert.deepEqual(lookups, ['miss', 'hit']);
    assert.deepEqual(errors, []);
  });

  test('keep writes the missing files of the sources that apply, counting no lookups', async () => {
    const cache = await Base64Cache.open(options());
    const [a, b, small] = [
      sourceOf(randomBytes(300_000)),
      sourceOf(randomBytes(300_000)),
      sourceOf(randomBytes(500)),
    ];
    await collect(cache.text(a));
    await cache.settled();
    lookups.length = 0;
    assert.equal(await cache.keep([a, b, small]), 1);
    assert.deepEqual(keptFiles().sort(), [`${a.contentId}.b64`, `${b.contentId}.b64`].sort());
    assert.equal(readFileSync(path.join(dir, `${b.contentId}.b64`), 'latin1').length, 400_000);
    assert.equal(a.reads, 1, 'a file already there is not written again');
    assert.deepEqual(lookups, []);
  });

  test('a binary stored raw (encoded as it streams) is kept alike', async () => {
    const cache = await Base64Cache.open(options());
    const bytes = randomBytes(500_002);
    const raw: Base64Source = {
      size: bytes.length,
      contentId: createHash('sha256').update(bytes).digest('hex'),
      async *chunks() {
        for (let at = 0; at < bytes.length; at += 100_000) yield bytes.subarray(at, at + 100_000);
      },
    };
    assert.equal((await collect(cache.text(raw))).text, bytes.toString('base64'));
    await cache.settled();
    assert.equal(readFileSync(path.join(dir, `${raw.contentId}.b64`), 'latin1'), bytes.toString('base64'));
    assert.equal((await collect(cache.text(raw))).text, bytes.toString('base64'));
    assert.deepEqual(lookups, ['miss', 'hit']);
  });

  test('only large binaries identified by a SHA-256 that fit the bound go through it', async () => {
    const cache = await Base64Cache.open(options({ maxBytes: 4096, minBinaryBytes: 1000 }));
    assert.ok(cache.applies(sourceOf(randomBytes(1000))));
    assert.ok(!cache.applies(sourceOf(randomBytes(999))), 'below the minimum');
    assert.ok(!cache.applies(sourceOf(randomBytes(3500))), 'its text would not fit the bound');
    assert.ok(!cache.applies(sourceOf(randomBytes(2000), { contentId: 'variant:abc' })), 'not a SHA-256');
    assert.ok(!cache.applies(sourceOf(randomBytes(2000), { contentId: '../../etc/passwd' })));
    assert.ok(!Base64Cache.none().applies(sourceOf(randomBytes(2000))), 'no folder');
    assert.ok(!(await Base64Cache.open(options({ maxBytes: 0 }))).applies(sourceOf(randomBytes(2000))));
  });

  test('by default, a binary past one stored chunk streams from its file, and one of one chunk is kept whole', async () => {
    const { minBinaryBytes: _, ...defaults } = options();
    const cache = await Base64Cache.open(defaults);
    const oneChunk = sourceOf(randomBytes((WHOLE_TEXT_BYTES / 4) * 3));
    const twoChunks = sourceOf(randomBytes((WHOLE_TEXT_BYTES / 4) * 3 + 1));
    assert.ok(cache.keepsWhole(oneChunk) && !cache.applies(oneChunk));
    assert.ok(cache.applies(twoChunks) && !cache.keepsWhole(twoChunks));
    assert.ok(DEFAULT_MIN_BINARY_BYTES < KEPT_AFTER_IMPORT_BYTES, 'an import writes only the largest');
  });

  test('an answer given up half-way (client gone) keeps no file, nor a temporary one', async () => {
    const cache = await Base64Cache.open(options());
    const source = sourceOf(randomBytes(600_000));
    for await (const _piece of cache.text(source)) break;
    await cache.settled();
    assert.deepEqual(readdirSync(dir), []);
    const again = await collect(cache.text(source));
    assert.equal(again.text.length, 800_000);
    await cache.settled();
    assert.equal(keptFiles().length, 1, 'the next complete answer keeps it');
  });

  test('a source failing half-way fails the answer and keeps nothing', async () => {
    const cache = await Base64Cache.open(options());
    const source = sourceOf(randomBytes(600_000), { failAt: 300_000 });
    await assert.rejects(collect(cache.text(source)), /the store went away/);
    await cache.settled();
    assert.deepEqual(readdirSync(dir), []);
  });

  test('two answers of one binary at once in one process: both complete, one file is written', async () => {
    const cache = await Base64Cache.open(options());
    const bytes = randomBytes(900_000);
    const [a, b] = await Promise.all([
      collect(cache.text(sourceOf(bytes))),
      collect(cache.text(sourceOf(bytes))),
    ]);
    assert.equal(a.text, bytes.toString('base64'));
    assert.equal(b.text, a.text);
    await cache.settled();
    assert.equal(keptFiles().length, 1);
    assert.equal(readdirSync(dir).length, 1, 'no temporary file is left');
  });

  test('a kept file of the wrong length is removed and the answer comes from the source', async () => {
    const cache = await Base64Cache.open(options());
    const bytes = randomBytes(500_000);
    const source = sourceOf(bytes);
    writeFileSync(path.join(dir, `${source.contentId}.b64`), 'too short');
    const answer = await collect(cache.text(source));
    assert.equal(answer.text, bytes.toString('base64'));
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /holds 9 characters/);
    await cache.settled();
    assert.equal(statSync(path.join(dir, `${source.contentId}.b64`)).size, answer.text.length, 'made anew');
  });

  test('past the bound, the least recently used files go', async () => {
    // Each text is 400,000 characters; the bound holds two.
    const cache = await Base64Cache.open(options({ maxBytes: 900_000 }));
    const [a, b, c] = [
      sourceOf(randomBytes(300_000)),
      sourceOf(randomBytes(300_000)),
      sourceOf(randomBytes(300_000)),
    ];
    for (const source of [a, b]) {
      await collect(cache.text(source));
      await cache.settled();
    }
    // b was used long ago, a just now (a hit touches a file older than a minute).
    const longAgo = Date.now() / 1000 - 3600;
    utimesSync(path.join(dir, `${a.contentId}.b64`), longAgo - 60, longAgo - 60);
    utimesSync(path.join(dir, `${b.contentId}.b64`), longAgo, longAgo);
    await collect(cache.text(a));
    await collect(cache.text(c));
    await cache.settled();
    assert.deepEqual(keptFiles().sort(), [`${a.contentId}.b64`, `${c.contentId}.b64`].sort());
    assert.equal(
      keptFiles().reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0),
      800_000,
    );
  });

  test('a file placed does not make a trim (a read of every file) until this process has placed past the bound', async () => {
    // Texts of 400,000 characters; the bound holds two.
    const cache = await Base64Cache.open(options({ maxBytes: 900_000 }));
    const longAgo = Date.now() / 1000 - 3600;
    const age = (id: string | undefined, seconds: number) =>
      utimesSync(path.join(dir, `${id}.b64`), longAgo - seconds, longAgo - seconds);
    // Another process's file of 600,000 characters, placed after this one counted the folder.
    const bytes = randomBytes(450_000);
    const theirs = createHash('sha256').update(bytes).digest('hex');
    writeFileSync(path.join(dir, `${theirs}.b64`), bytes.toString('base64'));
    age(theirs, 300);
    const [a, b, c] = [
      sourceOf(randomBytes(300_000)),
      sourceOf(randomBytes(300_000)),
      sourceOf(randomBytes(300_000)),
    ];
    for (const [source, seconds] of [
      [a, 200],
      [b, 100],
    ] as const) {
      await collect(cache.text(source));
      await cache.settled();
      age(source.contentId, seconds);
    }
    assert.equal(keptFiles().length, 3, 'over the bound, but not as this process counts: no trim yet');
    await collect(cache.text(c));
    await cache.settled();
    assert.deepEqual(keptFiles().sort(), [`${b.contentId}.b64`, `${c.contentId}.b64`].sort(), 'trimmed');
  });

  test('opening removes temporary files a crash left, not a fill another process is writing, and trims', async () => {
    const old = path.join(dir, `${'a'.repeat(64)}.b64.0123456789ab.tmp`);
    const young = path.join(dir, `${'b'.repeat(64)}.b64.ba9876543210.tmp`);
    writeFileSync(old, 'x');
    writeFileSync(young, 'y');
    const hourAgo = Date.now() / 1000 - 3600;
    utimesSync(old, hourAgo, hourAgo);
    writeFileSync(path.join(dir, `${'c'.repeat(64)}.b64`), Buffer.alloc(3000));
    writeFileSync(path.join(dir, `${'d'.repeat(64)}.b64`), Buffer.alloc(3000));
    utimesSync(path.join(dir, `${'c'.repeat(64)}.b64`), hourAgo, hourAgo);
    writeFileSync(path.join(dir, 'notes.txt'), 'not the cache’s');
    await Base64Cache.open(options({ maxBytes: 4000 }));
    assert.ok(!existsSync(old));
    assert.ok(existsSync(young));
    assert.deepEqual(keptFiles(), [`${'d'.repeat(64)}.b64`]);
    assert.ok(existsSync(path.join(dir, 'notes.txt')), 'other files are left alone');
  });

  test('a folder that cannot be made is refused at open', async () => {
    const blocker = path.join(dir, 'a-file');
    writeFileSync(blocker, '');
    await assert.rejects(
      Base64Cache.open(options({ dir: path.join(blocker, 'binaries') })),
      (error: unknown) =>
        error instanceof CacheDirError && error.cache === 'base64 cache' && /ENOTDIR/.test(error.reason),
    );
  });

  test('a file the folder lost between answers is made again', async () => {
    const cache = await Base64Cache.open(options());
    const source = sourceOf(randomBytes(300_000));
    await collect(cache.text(source));
    await cache.settled();
    rmSync(path.join(dir, keptFiles()[0]!));
    mkdirSync(path.join(dir, 'sub'));
    const again = await collect(cache.text(source));
    assert.equal(again.text.length, 400_000);
    assert.deepEqual(lookups, ['miss', 'miss']);
    assert.deepEqual(errors, []);
  });

  test('files of contents no record has any more are forgotten, once the content version moves', async () => {
    const cache = await Base64Cache.open(options());
    const [kept, gone] = [sourceOf(randomBytes(30_000)), sourceOf(randomBytes(30_000))];
    for (const source of [kept, gone]) await collect(cache.text(source));
    await cache.settled();
    const inUse = new Set([kept.contentId, gone.contentId]);
    let version = 1;
    const checked: string[] = [];
    const stop = cache.watchContent(
      async () => version,
      async (id) => {
        checked.push(id);
        return inUse.has(id);
      },
      20,
    );
    try {
      await waitFor(() => checked.length === 2);
      inUse.delete(gone.contentId);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(keptFiles().length, 2, 'nothing is checked again while the version stays');
      assert.equal(checked.length, 2);
      version = 2;
      await waitFor(() => keptFiles().length === 1);
      assert.deepEqual(keptFiles(), [`${kept.contentId}.b64`]);
    } finally {
      stop();
    }
    assert.equal(await cache.forgetUnused(async () => false), 1);
    assert.deepEqual(keptFiles(), []);
  });
});

describe('Base64Cache, whole texts (a binary of one stored chunk)', () => {
  const textOf = (bytes: Buffer) => Buffer.from(bytes.toString('base64'), 'latin1');

  test('only texts of one chunk named by a SHA-256, and only with a folder', async () => {
    const cache = await Base64Cache.open(options());
    assert.ok(cache.keepsFiles);
    assert.ok(cache.keepsWhole(sourceOf(randomBytes(1))));
    assert.ok(cache.keepsWhole(sourceOf(randomBytes((WHOLE_TEXT_BYTES / 4) * 3))));
    assert.ok(!cache.keepsWhole(sourceOf(randomBytes((WHOLE_TEXT_BYTES / 4) * 3 + 1))));
    assert.ok(!cache.keepsWhole(sourceOf(randomBytes(10), { contentId: 'not-a-sha256' })));
    assert.ok(!Base64Cache.none().keepsFiles);
    assert.ok(!Base64Cache.none().keepsWhole(sourceOf(randomBytes(10))));
    const bounded = await Base64Cache.open(options({ maxBytes: 100 }));
    assert.ok(!bounded.keepsWhole(sourceOf(randomBytes(76))), 'a text longer than the bound is not kept');
  });

  test('texts read whole when at hand: up to TEXT_NOW_BYTES, named by a SHA-256, within the bound', async () => {
    const cache = await Base64Cache.open(options());
    assert.ok(cache.readsNow(sourceOf(randomBytes(1))), 'a text of one chunk');
    assert.ok(cache.readsNow(sourceOf(randomBytes((TEXT_NOW_BYTES / 4) * 3))), 'one of several chunks');
    assert.ok(!cache.readsNow(sourceOf(randomBytes((TEXT_NOW_BYTES / 4) * 3 + 1))), 'a longer one streams');
    assert.ok(!cache.readsNow(sourceOf(randomBytes(10), { contentId: 'not-a-sha256' })));
    assert.ok(!Base64Cache.none().readsNow(sourceOf(randomBytes(10))));
    const bounded = await Base64Cache.open(options({ maxBytes: 100 }));
    assert.ok(!bounded.readsNow(sourceOf(randomBytes(76))), 'a text longer than the bound is never kept');
  });

  test('a missing file is not counted as a miss when the caller streams the text instead', async () => {
    const cache = await Base64Cache.open(options());
    const bytes = randomBytes(1000);
    const source = sourceOf(bytes);
    assert.equal(cache.textNow(source, undefined, false), undefined);
    assert.deepEqual(lookups, []);
    cache.keepText(source, textOf(bytes));
    await cache.settled();
    assert.deepEqual(cache.textNow(source, undefined, false), textOf(bytes));
    assert.deepEqual(lookups, ['hit'], 'a hit is counted');
    writeFileSync(path.join(dir, `${source.contentId}.b64`), 'too short');
    assert.equal(cache.textNow(source, undefined, false), undefined, 'a file of the wrong length');
    assert.deepEqual(lookups, ['hit'], 'is not counted either');
  });

  test('a miss finds nothing; the text kept is read back whole, and the lookups are counted', async () => {
    const cache = await Base64Cache.open(options());
    const bytes = randomBytes(100_000);
    const source = sourceOf(bytes);
    assert.equal(cache.textNow(source), undefined);
    cache.keepText(source, textOf(bytes));
    await cache.settled();
    assert.deepEqual(keptFiles(), [`${source.contentId}.b64`]);
    assert.deepEqual(cache.textNow(source), textOf(bytes));
    assert.deepEqual(lookups, ['miss', 'hit']);
    assert.deepEqual(errors, []);
    assert.equal(source.reads, 0, 'the source itself is never read');
    assert.deepEqual(
      readdirSync(dir).filter((name) => !name.endsWith('.b64')),
      [],
      'no temporary is left',
    );
  });

  test('reading a text records its use for the eviction order, at most once a minute', async () => {
    const cache = await Base64Cache.open(options());
    const bytes = randomBytes(3000);
    const source = sourceOf(bytes);
    cache.keepText(source, textOf(bytes));
    await cache.settled();
    const file = path.join(dir, `${source.contentId}.b64`);
    const hourAgo = Date.now() / 1000 - 3600;
    utimesSync(file, hourAgo, hourAgo);
    assert.ok(cache.textNow(source));
    const touched = statSync(file).mtimeMs;
    assert.ok(Date.now() - touched < 60_000, 'an old file is touched');
    const secondsAgo = Date.now() / 1000 - 5;
    utimesSync(file, secondsAgo, secondsAgo);
    assert.ok(cache.textNow(source));
    assert.equal(Math.round(statSync(file).mtimeMs / 1000), Math.round(secondsAgo), 'a recent one is not');
  });

  test('a text of the wrong length is not kept; a file of the wrong length is removed', async () => {
    const cache = await Base64Cache.open(options());
    const bytes = randomBytes(3000);
    const source = sourceOf(bytes);
    cache.keepText(source, textOf(bytes).subarray(1));
    await cache.settled();
    assert.deepEqual(keptFiles(), []);
    writeFileSync(path.join(dir, `${source.contentId}.b64`), 'too short');
    assert.equal(cache.textNow(source), undefined);
    assert.deepEqual(keptFiles(), []);
    assert.match(String(errors[0]), /holds 9 characters, expected 4000: removed/);
  });

  test('after a text could not be written, none is tried for a while, and the failure is told once', async () => {
    const cache = await Base64Cache.open(options());
    rmSync(dir, { recursive: true, force: true }); // the folder gone: every write fails
    const texts = [randomBytes(3000), randomBytes(3000), randomBytes(3000)];
    cache.keepText(sourceOf(texts[0]!), textOf(texts[0]!));
    await cache.settled();
    for (const bytes of texts.slice(1)) cache.keepText(sourceOf(bytes), textOf(bytes));
    await cache.settled();
    assert.equal(errors.length, 1, errors.map(String).join('\n'));
    assert.match(String(errors[0]), /ENOENT/);
    mkdirSync(dir);
    cache.keepText(sourceOf(texts[1]!), textOf(texts[1]!));
    await cache.settled();
    assert.deepEqual(keptFiles(), [], 'still paused');
  });

  test('texts past the bound are trimmed, least recently used first', async () => {
    // Each text is 40,000 characters; the bound holds two.
    const cache = await Base64Cache.open(options({ maxBytes: 90_000 }));
    const sources = [randomBytes(30_000), randomBytes(30_000), randomBytes(30_000)].map((bytes) => ({
      bytes,
      source: sourceOf(bytes),
    }));
    for (const [i, { bytes, source }] of sources.entries()) {
      cache.keepText(source, textOf(bytes));
      await cache.settled();
      const long = Date.now() / 1000 - 3600 + i;
      utimesSync(path.join(dir, `${source.contentId}.b64`), long, long);
    }
    assert.deepEqual(
      keptFiles().sort(),
      sources
        .slice(1)
        .map(({ source }) => `${source.contentId}.b64`)
        .sort(),
    );
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
