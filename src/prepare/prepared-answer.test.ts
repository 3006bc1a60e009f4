import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { type Arguments, OPERATIONS } from '../contract/operations.ts';
import type { Snapshot, StoredBlob } from '../store/content-store.ts';
import { type BinarySource, base64Length } from '../xml/binary.ts';
import { wholeTextOrigin } from '../xml/binary-text.ts';
import { AnswerPack } from './answer-pack.ts';
import { binariesOf, keepMade, madeInside, type TextsAtHand } from './prepared-answer.ts';

/** The base64 cache's (cache/base64-cache.ts), which prepare/ may not import. */
const WHOLE_TEXT_BYTES = 256 * 1024;
const TEXT_NOW_BYTES = 2 * 1024 * 1024;

/** A binary of several chunks whose text is `textBytes` long. */
function longBlob(id: number, textBytes: number): StoredBlob {
  const size = (textBytes / 4) * 3;
  const source: BinarySource = {
    size,
    contentId: String(id).padStart(64, '0'),
    async *chunks() {
      yield new Uint8Array(size);
    },
  };
  return { id, sha256: source.contentId!, size, source };
}

/** Texts at hand for every binary: each read is recorded with whether a miss would count. */
function textsAtHand(reads: Array<[string, boolean]>): TextsAtHand {
  return {
    keepsWhole: (source) => base64Length(source.size) <= WHOLE_TEXT_BYTES,
    readsNow: (source) => base64Length(source.size) <= TEXT_NOW_BYTES,
    textNow(source, allocate = Buffer.allocUnsafe, countMiss = true) {
      reads.push([source.contentId!, countMiss]);
      return allocate(base64Length(source.size)).fill(0x41);
    },
    keepText: () => undefined,
    wholeBytesPerAnswer: TEXT_NOW_BYTES,
  };
}

test('longer texts are read whole up to TEXT_NOW_BYTES an answer, marked as their binary; the rest stream', async () => {
  const blobs = new Map([1, 2, 3].map((id) => [id, longBlob(id, 768 * 1024)]));
  const snapshot = { blob: async (id: number) => blobs.get(id) } as unknown as Snapshot;
  const reads: Array<[string, boolean]> = [];
  const parts = await binariesOf(snapshot, [1, 2, 3], textsAtHand(reads), undefined);
  assert.ok(parts);
  assert.ok(Buffer.isBuffer(parts[0]) && Buffer.isBuffer(parts[1]), 'two texts of 768 KiB fit in 2 MiB');
  assert.deepEqual(parts[2], { base64Of: blobs.get(3)!.source }, 'the third would not: it streams');
  assert.deepEqual(wholeTextOrigin(parts[0] as Buffer), {
    contentId: blobs.get(1)!.sha256,
    size: blobs.get(1)!.size,
  });
  assert.deepEqual(
    reads,
    [
      [blobs.get(1)!.sha256, false],
      [blobs.get(2)!.sha256, false],
    ],
    'a missing file would not be counted as a miss (the streamed text counts its own lookup)',
  );
});

test('a text longer than TEXT_NOW_BYTES is never read whole', async () => {
  const blob = longBlob(9, TEXT_NOW_BYTES + 4);
  const snapshot = { blob: async () => blob } as unknown as Snapshot;
  const reads: Array<[string, boolean]> = [];
  assert.deepEqual(await binariesOf(snapshot, [9], textsAtHand(reads), undefined), [
    { base64Of: blob.source },
  ]);
  assert.deepEqual(reads, []);
});

test('a made answer is kept only of the version the handler read, inside its envelope, and only for a call made so', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'scoop-made-'));
  const pack = AnswerPack.open({ dir, maxBytes: 1024 * 1024 });
  try {
    let version = 3;
    const answers = { pack, version: () => version };
    const getBild = OPERATIONS.find((op) => op.name === 'getBild')!;
    const resized: Arguments = { bildID: 7, width: 40, height: 0, resizeModes: ['standard'] };
    const envelope = () => [Buffer.from('<env>'), Buffer.from('</env>')] as const;
    const found = () => madeInside(getBild, resized, 'compact', 0, { answers })?.map(String).join('');
    keepMade(answers, getBild, { ...resized, width: 0 }, 'compact', 3, envelope, [
      Buffer.from('<env><b/></env>'),
    ]);
    keepMade(answers, getBild, resized, 'compact', 3, envelope, [Buffer.from('<other><b/></env>')]);
    keepMade(answers, getBild, resized, 'compact', 3, envelope, [Buffer.from('<env><b/></other>')]);
    keepMade(answers, getBild, resized, 'compact', 3, envelope, [Buffer.from('<env><b>\u0000</b></env>')]);
    version = 4;
    keepMade(answers, getBild, resized, 'compact', 3, envelope, [Buffer.from('<env><b/></env>')]);
    assert.equal(
      pack.size,
      0,
      'as stored (prepared, not made), outside the envelope (head, tail), a NUL, a version gone',
    );
    keepMade(answers, getBild, resized, 'compact', 4, envelope, [
      Buffer.from('<env><b>'),
      Buffer.from('QUJD</b></env>'),
    ]);
    assert.equal(found(), '<b>QUJD</b>');
    assert.equal(madeInside(getBild, { ...resized, height: 30 }, 'compact', 0, { answers }), undefined);
    assert.equal(madeInside(getBild, resized, 'indented', 0, { answers }), undefined, 'each layout its own');
  } finally {
    pack.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
