/**
 * A log line when the serving process learns of new content (an import here or in
 * another process): operators see when an instance started answering from a new version.
 * Read through the store's own watch (knownVersion), once a second.
 */
import type { Logger } from 'pino';
import type { ContentStore } from '../store/content-store.ts';

const INTERVAL_MS = 1000;

/** Starts watching from `initial`; returns the function that stops it. */
export function logContentVersionChanges(store: ContentStore, logger: Logger, initial: number): () => void {
  let known = initial;
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    store
      .knownVersion()
      .then((version) => {
        if (version !== known)
          logger.info({ contentVersion: version, previous: known }, 'content version changed');
        known = version;
      })
      // An unreachable store is logged where it is met (store connection trouble); try again next time.
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }, INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
