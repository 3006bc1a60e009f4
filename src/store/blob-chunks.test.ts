import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CHUNK_BYTES,
  ChunkedBlobSource,
  encodedChunks,
  fixedChunks,
  STORED_INPUT_BYTES,
} from './blob-chunks.ts';

async function* pieces(sizes: readonly number[]): AsyncGenerator<Uint8Array> {
  let n = 0;
  for (const size of sizes) yield Uint8Array.from({ length: size }, () => n++ & 0xff);
}

async function cut(sizes: readonly number[], size: number): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of fixedChunks(pieces(sizes), size)) chunks.push(chunk);
  return chunks;
}

test('pieces of any size come out as chunks of exactly the chunk size, the last one shorter', async () => {
  for (const sizes of [[10], [3, 3, 3, 1], [25], [1, 24, 7], [10, 10], [0, 4, 0, 9]]) {
    const total = sizes.reduce((a, b) => a + b, 0);
    const chunks = await cut(sizes, 10);
    assert.deepEqual(
      chunks.map((c) => c.length),
      [...Array(Math.floor(total / 10)).fill(10), ...(total % 10 ? [total % 10] : [])],
      sizes.join(','),
    );
    const joined = Buffer.concat(chunks);
    assert.ok(
      joined.every((byte, i) => byte === (i & 0xff)),
      `bytes out of order for ${sizes.join(',')}`,
    );
  }
});

test('nothing in, nothing out', async () => {
  assert.deepEqual(await cut([], 10), []);
});

test('a producer reusing its buffer does not change chunks already cut', async () => {
  const shared = new Uint8Array(4);
  async function* reusing() {
    for (let i = 1; i <= 3; i++) {
      shared.fill(i);
      yield shared;
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of fixedChunks(reusing(), 5)) chunks.push(chunk);
  assert.deepEqual(
    chunks.map((c) => [...c]),
    [
      [1, 1, 1, 1, 2],
      [2, 2, 2, 3, 3],
      [3, 3],
    ],
  );
});

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

test('a stored blob read from an offset reads only the chunks from the one holding it', async () => {
  const data = Buffer.from(
    Uint8Array.from({ length: 2 * STORED_INPUT_BYTES + 1000 }, (_, i) => (i * 7) & 0xff),
  );
  for (const encoding of ['base64', 'raw'] as const) {
    const stored: Buffer[] = [];
    if (encoding === 'base64') for await (const chunk of encodedChunks(once(data))) stored.push(chunk);
    else for await (const chunk of fixedChunks(once(data), CHUNK_BYTES)) stored.push(chunk);
    const read: number[] = [];
    const source = new ChunkedBlobSource(data.length, 'sha', stored.length, encoding, async (seq) => {
      read.push(seq);
      return stored[seq];
    });
    const perChunk = encoding === 'raw' ? CHUNK_BYTES : STORED_INPUT_BYTES;
    for (const offset of [0, 5, perChunk, perChunk + 5, data.length - 1]) {
      read.length = 0;
      const out: Uint8Array[] = [];
      for await (const chunk of source.chunksFrom(offset)) out.push(chunk);
      assert.ok(Buffer.concat(out).equals(data.subarray(offset)), `${encoding} from ${offset}`);
      assert.equal(
        read[0],
        Math.floor(offset / perChunk),
        `${encoding} from ${offset}: the first chunk read`,
      );
    }
  }
});
