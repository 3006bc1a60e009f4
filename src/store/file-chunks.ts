/**
 * A bundle file's stored chunks (blob-chunks.ts), read by the rules it was validated by
 * (bundle-file.ts) and hashed as they are read: a file that changed since it was hashed
 * is refused. Used by the import's thread and by the encoding worker (file-encoder.ts).
 */
import { createHash } from 'node:crypto';
import { encodedChunks, STORED_INPUT_BYTES } from './blob-chunks.ts';
import type { BundleFile } from './bundle/bundle.ts';
import { BundleError } from './bundle/validate.ts';
import type { EncodedBlob } from './content-store.ts';

/** A file's chunks, read into `scratch` (a buffer of STORED_INPUT_BYTES; encodedChunks copies what it keeps). */
export async function* fileChunks(
  file: BundleFile,
  onBytes: (n: number) => void,
  scratch: Buffer,
): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of encodedChunks(file.source.chunks(STORED_INPUT_BYTES, scratch), (piece) => {
    hash.update(piece);
    size += piece.length;
    onBytes(piece.length);
  }))
    yield chunk;
  if (size !== file.size || hash.digest('hex') !== file.sha256) {
    throw new BundleError(file.name, 'changed while it was being imported');
  }
}

/** A (small) file's chunks all at once. */
export async function encodeWhole(
  file: BundleFile,
  onBytes: (n: number) => void,
  scratch: Buffer,
): Promise<EncodedBlob> {
  const chunks: Buffer[] = [];
  for await (const chunk of fileChunks(file, onBytes, scratch)) chunks.push(chunk);
  return { sha256: file.sha256, size: file.size, chunks };
}
