/**
 * Which SQLite failures mean "the database cannot be used right now" rather than a bug:
 * they become StoreUnavailableError, answered as UNAVAILABLE (503) so clients retry, and
 * the next request simply tries again.
 */
import { StoreUnavailableError } from '../content-store.ts';

/** SQLite result codes (extended ones start with these): locked, unreadable, unwritable, not a database. */
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|NOTADB|CORRUPT|FULL|READONLY)/;

export function isUnavailableError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE_CODES.test(code);
}

/** The error as the rest of the program should see it. */
export function storeError(error: unknown): unknown {
  if (!isUnavailableError(error)) return error;
  const code = (error as { code: string }).code;
  return new StoreUnavailableError(`SQLite store unavailable (${code})`, { cause: error });
}

/** Runs `work` (better-sqlite3 is synchronous), turning those failures into StoreUnavailableError. */
export function unavailableOnIoError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw storeError(error);
  }
}
