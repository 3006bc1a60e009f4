/**
 * A prepared answer's fragment as stored: the markup of the answer's inside, with each
 * binary (an attachment's or image's data) left out and a reference to its blob in its
 * place, so a file's base64 is stored once, with its blob, and never copied into answers;
 * the reference says all that sending the blob needs, so a request reads the blob's chunk
 * and not its record. A reference is `NUL id/size/chunks/encoding/sha256 NUL`: NUL never
 * occurs in XML (XML 1.0 §2.2), so the markup needs no escaping around it.
 */
import type { BlobEncoding } from '../store/blob-chunks.ts';
import type { BlobReference } from '../store/content-store.ts';
import type { BinarySource } from '../xml/binary.ts';
import type { BodyPart } from '../xml/writer.ts';

const NUL = 0;

/** A record's binary as an import renders it: a reference to its blob, not its content. */
export class BinaryReference implements BinarySource {
  readonly size: number;

  constructor(readonly blob: BlobReference) {
    this.size = blob.size;
  }

  // biome-ignore lint/correctness/useYield: never read; the fragment keeps only the reference
  async *chunks(): AsyncGenerator<Uint8Array> {
    throw new Error(`blob ${this.blob.id} is a reference, not content`);
  }
}

/** Joins the parts the writer made of a result whose binaries are BinaryReferences. */
export function encodeFragment(parts: readonly BodyPart[]): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    if (Buffer.isBuffer(part)) {
      pieces.push(part);
      continue;
    }
    const source = 'base64Of' in part ? part.base64Of : undefined;
    if (!(source instanceof BinaryReference))
      throw new Error('a prepared answer holds a binary that is not a reference');
    const { id, size, chunkCount, encoding, sha256 } = source.blob;
    pieces.push(Buffer.from(`\u0000${id}/${size}/${chunkCount}/${encoding}/${sha256}\u0000`, 'latin1'));
  }
  return Buffer.concat(pieces);
}

const ENCODINGS: ReadonlySet<string> = new Set<BlobEncoding>(['raw', 'base64']);

function parseReference(text: string): BlobReference {
  const [id, size, chunkCount, encoding, sha256] = text.split('/');
  if (sha256 === undefined || !ENCODINGS.has(encoding!))
    throw new Error(`a prepared answer holds a bad reference: ${text}`);
  return {
    id: Number(id),
    size: Number(size),
    chunkCount: Number(chunkCount),
    encoding: encoding as BlobEncoding,
    sha256,
  };
}

/**
 * The fragment cut at its references: markup and references alternate, starting and ending
 * with markup (possibly empty). A fragment without binaries is one piece, not copied.
 */
export function splitFragment(fragment: Buffer): { markup: Buffer[]; references: BlobReference[] } {
  const markup: Buffer[] = [];
  const references: BlobReference[] = [];
  let from = 0;
  for (let at = fragment.indexOf(NUL); at !== -1; at = fragment.indexOf(NUL, from)) {
    const end = fragment.indexOf(NUL, at + 1);
    if (end === -1) throw new Error('a prepared answer ends inside a reference');
    markup.push(fragment.subarray(from, at));
    references.push(parseReference(fragment.toString('latin1', at + 1, end)));
    from = end + 1;
  }
  markup.push(from === 0 ? fragment : fragment.subarray(from));
  return { markup, references };
}
