/**
 * The first statement of an import's transaction that failed. An import writes answers
 * while it writes records, so statements are under way at once; on PostgreSQL every
 * statement after a failed one fails too ("current transaction is aborted"), so the first
 * failure, not the one that happened to be awaited, says what went wrong.
 */
import type { ImportTransaction } from './content-store.ts';

export interface WatchedTransaction {
  readonly tx: ImportTransaction;
  /** The first failure, if a statement failed. */
  first(): { readonly error: unknown } | undefined;
}

export function watchFailures(tx: ImportTransaction): WatchedTransaction {
  let first: { error: unknown } | undefined;
  const watched = new Proxy(tx, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        if (result instanceof Promise)
          result.catch((error: unknown) => {
            first ??= { error };
          });
        return result;
      };
    },
  });
  return { tx: watched, first: () => first };
}
