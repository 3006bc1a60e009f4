import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type BinarySource, base64Chunks, base64Length, binarySize } from './binary.ts';

/** Deterministic bytes covering all 256 values, so every base64 digit shows up. */
function pattern(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 131 + 7) & 0xff;
  return bytes;
}

/**
 * A source yielding `bytes` in chunks of `chunkSize`, each a view into a larger buffer
 * (non-zero byteOffset), and claiming `size` bytes (default: the true length).
 */
function sourceOf(bytes: Uint8Array, chunkSize: number, size = bytes.byteLength): BinarySource {
  return {
    size,
    async *chunks() {
      for (let i = 0; i < bytes.byteLength; i += chunkSize) {
        const end = Math.min(i + chunkSize, bytes.byteLength);
        const padded = new Uint8Array(end - i + 2);
        padded.set(bytes.subarray(i, end), 1);
        yield padded.subarray(1, 1 + end - i);
      }
    },
  };
}

function sourceOfChunks(chunks: readonly Uint8Array[], size?: number): BinarySource {
  return {
    size: size ?? chunks.reduce((n, c) => n + c.byteLength, 0),
    async *chunks() {
      yield* chunks;
    },
  };
}

async function collect(source: BinarySource): Promise<string[]> {
  const out: string[] = [];
  for await (const chunk of base64Chunks(source)) out.push(chunk.toString('latin1'));
  return out;
}

async function encode(source: BinarySource): Promise<string> {
  return (await collect(source)).join('');
}

describe('base64Chunks', () => {
  const KIB = 1024;
  const chunkSizes = [1, 2, 3, 4, 5, 7, 64 * KIB - 1, 64 * KIB, 64 * KIB + 1];
  const lengths = [0, 1, 2, 3, 4, 5, 6, 7, 100, 64 * KIB + 2, 200_003];

  for (const chunkSize of chunkSizes) {
    test(`chunk size ${chunkSize} gives the same base64 as encoding the whole`, async () => {
      for (const length of lengths) {
        // Keep the 1-byte chunk case fast: it is about carrying, not volume.
        if (chunkSize < 8 && length > 100_000) continue;
        const bytes = pattern(length);
        const expected = Buffer.from(bytes).toString('base64');
        assert.equal(await encode(sourceOf(bytes, chunkSize)), expected, `length ${length}`);
      }
    });
  }

  test('encodes a 1 MB source in 64 KiB + 1 chunks exactly', async () => {
    const bytes = pattern(1_048_577);
    const encoded = await encode(sourceOf(bytes, 64 * KIB + 1));
    assert.equal(encoded.length, base64Length(bytes.byteLength));
    assert.equal(encoded, Buffer.from(bytes).toString('base64'));
  });

  test('yields no padding before the last chunk, and every chunk but the last is whole quads', async () => {
    const out = await collect(sourceOf(pattern(1000), 7));
    assert.ok(out.length > 1);
    for (const chunk of out.slice(0, -1)) {
      assert.equal(chunk.length % 4, 0);
      assert.equal(chunk.includes('='), false);
    }
    assert.equal(out.at(-1)!.endsWith('='), true, '1000 = 3·333 + 1 needs padding');
  });

  test('tolerates empty chunks between data', async () => {
    const source = sourceOfChunks([
      new Uint8Array(0),
      Uint8Array.of(1),
      new Uint8Array(0),
      Uint8Array.of(2, 3, 4),
      new Uint8Array(0),
    ]);
    assert.equal(await encode(source), Buffer.from([1, 2, 3, 4]).toString('base64'));
  });

  test('yields nothing for an empty source', async () => {
    assert.deepEqual(await collect(sourceOfChunks([])), []);
  });

  test('throws when the source yields fewer bytes than its size', async () => {
    const source = sourceOf(pattern(10), 4, 11);
    await assert.rejects(encode(source), /yielded 10 bytes, expected 11/);
  });

  test('throws when the source yields more bytes than its size', async () => {
    const source = sourceOf(pattern(12), 4, 11);
    await assert.rejects(encode(source), /yielded 12 bytes, expected 11/);
  });

  test('never yields the encoding of more bytes than the size promised', async () => {
    // Content-Length was computed from `size`; bytes beyond it would corrupt the connection.
    const out: string[] = [];
    const source = sourceOf(pattern(30), 6, 9);
    await assert.rejects(async () => {
      for await (const chunk of base64Chunks(source)) out.push(chunk.toString('latin1'));
    });
    const yielded = out.join('');
    assert.ok(yielded.length <= base64Length(9), `yielded ${yielded.length} base64 characters`);
    assert.equal(yielded, Buffer.from(pattern(9)).toString('base64').slice(0, yielded.length));
  });
});

describe('base64Length', () => {
  test('is 4 characters per started 3-byte group', () => {
    assert.equal(base64Length(0), 0);
    assert.equal(base64Length(1), 4);
    assert.equal(base64Length(2), 4);
    assert.equal(base64Length(3), 4);
    assert.equal(base64Length(4), 8);
    assert.equal(base64Length(300), 400);
    assert.equal(base64Length(200 * 1024 * 1024), 279_620_268);
  });

  test("equals the length of Buffer.toString('base64') for 0..300 bytes", () => {
    for (let n = 0; n <= 300; n++) {
      assert.equal(base64Length(n), Buffer.alloc(n).toString('base64').length, `${n} bytes`);
    }
  });
});

describe('binarySize', () => {
  test('is byteLength for bytes, honouring a view', () => {
    assert.equal(binarySize(new Uint8Array(5)), 5);
    assert.equal(binarySize(new Uint8Array(10).subarray(2, 5)), 3);
  });

  test('is the declared size for a source', () => {
    assert.equal(binarySize(sourceOf(pattern(3), 1, 3)), 3);
    assert.equal(binarySize(sourceOfChunks([], 42)), 42);
  });
});
