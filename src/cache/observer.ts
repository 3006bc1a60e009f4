/** What a cache tells about each lookup (the cache hit-rate metrics). */
export interface CacheObserver {
  lookup(result: 'hit' | 'miss'): void;
}
