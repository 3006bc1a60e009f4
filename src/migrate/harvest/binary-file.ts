/**
 * Where a harvested binary's decoded bytes go while its answer streams in: a temporary
 * file in the bundle's folder, written piece by piece (each write awaited, so a slow
 * disk slows the reading instead of filling memory), or nowhere when the record is
 * already in the bundle (an attachment listed by a second article). The first bytes are
 * kept for the media-type check an import makes (bundle-format.md: `mimetype` and the bytes).
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { SIGNATURE_BYTES } from '../../support/media-signature.ts';
import type { BinaryTarget } from './answer-reader.ts';

/** As many first bytes as media-signature.ts looks at. */
const HEAD_BYTES = SIGNATURE_BYTES;

export class BinaryFile implements BinaryTarget {
  /** Undefined when the bytes are not kept. */
  readonly temporary: string | undefined;
  size = 0;
  head: Buffer = Buffer.alloc(0);
  private handle: Promise<FileHandle> | undefined;
  private closed = false;

  get keeps(): boolean {
    return this.temporary !== undefined;
  }

  constructor(folder: string | undefined) {
    this.temporary =
      folder === undefined ? undefined : path.join(folder, `.part-${randomBytes(8).toString('hex')}`);
  }

  write(bytes: Buffer): Promise<void> {
    if (this.head.length < HEAD_BYTES)
      this.head = Buffer.concat([this.head, bytes.subarray(0, HEAD_BYTES - this.head.length)]);
    this.size += bytes.length;
    return this.opened().then(async (handle) => {
      await handle.write(bytes);
    });
  }

  async end(): Promise<void> {
    if (this.temporary === undefined || this.closed) return;
    // A 0-byte binary is a file too.
    const handle = await this.opened();
    this.closed = true;
    await handle.close();
  }

  /** Closes and removes the temporary file (a failed or unwanted answer). */
  async discard(): Promise<void> {
    if (this.temporary === undefined) return;
    if (this.handle && !this.closed) {
      this.closed = true;
      await (await this.handle.catch(() => undefined))?.close().catch(() => undefined);
    }
    await rm(this.temporary, { force: true });
  }

  /** The bytes written, read back from the file (empty when they were not kept). */
  async *chunks(): AsyncIterable<Uint8Array> {
    if (this.temporary === undefined) return;
    yield* createReadStream(this.temporary);
  }

  private opened(): Promise<FileHandle> {
    const file = this.temporary;
    if (file === undefined) throw new Error('no file for a binary that is not kept');
    this.handle ??= open(file, 'wx');
    return this.handle;
  }
}
