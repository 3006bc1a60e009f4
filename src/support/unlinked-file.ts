import { closeSync, openSync, unlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * A new file in `dir`, open for reading and writing and removed from the folder at once, so
 * it never outlives the process that made it (nor is seen by another). Its pages are the
 * kernel's page cache, not the process's memory.
 */
export function openUnlinkedFile(dir: string, prefix: string): number {
  const file = path.join(dir, `.${prefix}-${process.pid}-${Date.now().toString(36)}.tmp`);
  const fd = openSync(file, 'wx+', 0o600);
  try {
    unlinkSync(file);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}
