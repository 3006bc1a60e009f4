/** Creating a file's folder, and the folders above it, in a bounded number of steps. */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Like `mkdirSync(dir, { recursive: true })`, which on node 20 never returns for a path
 * such as `/proc/x/y` (each mkdir fails with ENOENT under a parent that exists, and it
 * tries again): each missing folder is made once, from the deepest that exists, and the
 * first failure is thrown with its code.
 */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  let at = path.resolve(dir);
  for (;;) {
    try {
      statSync(at);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    missing.push(at);
    const parent = path.dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (error) {
      // Made meanwhile by another process opening the same store: fine.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
