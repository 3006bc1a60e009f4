/**
 * A file opened now and read later, chunk by chunk, as a BinarySource: opening it before
 * the answer is written means the cache may evict (unlink) it meanwhile without cutting
 * the answer off. Read once; if it is never read (HEAD, 304), it is closed after a while.
 */
import { open } from 'node:fs/promises';
import type { BinarySource } from '../xml/binary.ts';

const CHUNK_BYTES = 256 * 1024;
const UNREAD_CLOSE_MS = 30_000;

export async function openedFile(file: string, size: number, contentId: string): Promise<BinarySource> {
  const handle = await open(file, 'r');
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    handle.close().catch(() => undefined);
  };
  const timer = setTimeout(close, UNREAD_CLOSE_MS);
  timer.unref();
  return {
    size,
    contentId,
    async *chunks() {
      clearTimeout(timer);
      if (closed) throw new Error(`${file} was closed before it was read`);
      try {
        let position = 0;
        while (position < size) {
          const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - position));
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
          if (bytesRead === 0) break;
          position += bytesRead;
          yield buffer.subarray(0, bytesRead);
        }
      } finally {
        close();
      }
    },
  };
}
