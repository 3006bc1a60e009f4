/**
 * After an import: the binary text cache's files (server/text-file-cache.ts) written for
 * the large binaries the store now has, so that a server using the same folder answers
 * even their first request from a file. On the machine of the import only (the folder of
 * a SQLite store, or SCOOP_BINARY_CACHE_DIR); servers elsewhere fill theirs on first use.
 */
import type { BinaryCacheSettings } from '../server/settings.ts';
import { TextCacheDirError, TextFileCache, worthKeeping } from '../server/text-file-cache.ts';
import type { ContentStore } from '../store/content-store.ts';
import type { BinarySource } from '../xml/binary.ts';

/** The files written; trouble is told through `warn` and never fails the import, which has committed. */
export async function keepLargeBinaries(
  store: ContentStore,
  settings: BinaryCacheSettings,
  warn: (line: string) => void,
): Promise<number> {
  if (settings.maxBytes <= 0) return 0;
  try {
    const sources = await store.read(async (snapshot) => {
      const byContent = new Map<string, BinarySource>();
      for (const kind of ['anhaenge', 'bilder'] as const)
        for (const { record } of await snapshot.all(kind)) {
          const source = record.blob?.source;
          if (source?.contentId && worthKeeping(source, settings.maxBytes))
            byContent.set(source.contentId, source);
        }
      return [...byContent.values()];
    });
    // No folder is made for a store without large binaries.
    if (sources.length === 0) return 0;
    const failures: unknown[] = [];
    const cache = await TextFileCache.open({
      dir: settings.dir,
      maxBytes: settings.maxBytes,
      onError: (error) => failures.push(error),
    });
    const written = await cache.keep(sources);
    if (failures.length > 0) warn(`binary cache: ${String(failures[0])}`);
    return written;
  } catch (error) {
    const reason = error instanceof TextCacheDirError ? error.reason : String(error);
    warn(`binary cache: files not written to ${settings.dir} (${reason.split('\n')[0]})`);
    return 0;
  }
}
