/**
 * After an import: the base64 cache's files (cache/base64-cache.ts) written for the large
 * binaries the store now has, so that a server using the same folder answers even their
 * first request from a file. On the machine of the import only (the folder of a SQLite
 * store, or SCOOP_BASE64_CACHE_DIR); servers elsewhere fill theirs on first use.
 */
import { Base64Cache, KEPT_AFTER_IMPORT_BYTES, worthKeeping } from '../cache/base64-cache.ts';
import { CacheDirError } from '../cache/bounded-folder.ts';
import type { Base64CacheSettings } from '../server/settings.ts';
import type { ContentStore } from '../store/content-store.ts';
import { type BinarySource, base64Chunks } from '../xml/binary.ts';

/** The files written; trouble is told through `warn` and never fails the import, which has committed. */
export async function keepLargeBinaries(
  store: ContentStore,
  settings: Base64CacheSettings,
  warn: (line: string) => void,
): Promise<number> {
  if (settings.maxBytes <= 0) return 0;
  try {
    const byContent = new Map<string, BinarySource>();
    for (const source of await store.largeBinaries(KEPT_AFTER_IMPORT_BYTES))
      if (source.contentId && worthKeeping(source, settings.maxBytes, KEPT_AFTER_IMPORT_BYTES))
        byContent.set(source.contentId, source);
    const sources = [...byContent.values()];
    // No folder is made for a store without large binaries.
    if (sources.length === 0) return 0;
    const failures: unknown[] = [];
    const cache = await Base64Cache.open({
      dir: settings.dir,
      maxBytes: settings.maxBytes,
      encode: base64Chunks,
      onError: (error) => failures.push(error),
    });
    const written = await cache.keep(sources);
    if (failures.length > 0) warn(`base64 cache: ${String(failures[0])}`);
    return written;
  } catch (error) {
    const reason = error instanceof CacheDirError ? error.reason : String(error);
    warn(`base64 cache: files not written to ${settings.dir} (${reason.split('\n')[0]})`);
    return 0;
  }
}
