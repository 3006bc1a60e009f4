/** What the file caches (image variants, binaries' text) share about their folders. */
import { randomBytes } from 'node:crypto';
import { unlinkSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

/** A temporary file this old was left by a crash; younger ones may be another process's write. */
const STALE_TEMPORARY_MS = 10 * 60_000;

/**
 * Creates the folder and writes a probe file in it, so a folder that cannot be used is
 * refused at start rather than on every request. Throws the file system's error.
 */
export async function prepareCacheFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const probe = path.join(dir, `.probe-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  writeFileSync(probe, '');
  unlinkSync(probe);
}

export function isStaleTemporary(mtimeMs: number, now: number): boolean {
  return now - mtimeMs > STALE_TEMPORARY_MS;
}
