/**
 * Which PostgreSQL failures mean "the database cannot be used right now" rather than a
 * bug: they become StoreUnavailableError, answered as UNAVAILABLE (503) so clients retry,
 * and the next request simply tries again with a fresh connection.
 */
import { StoreUnavailableError } from '../content-store.ts';

/** Socket errors while connecting or talking to the server. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * SQLSTATE classes: 08 connection exception, 53 insufficient resources (too many
 * connections), 57 operator intervention (pg_terminate_backend, shutdown, cancel),
 * 28 invalid authorization and 3D000 no such database (a deployment not yet set up).
 */
const SQLSTATE = /^(08|53|57|28)|^3D000$/;

/** node-postgres and its pool report these without a code. */
const DRIVER_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end)/;

export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATE.test(code))) return true;
  return DRIVER_MESSAGES.test(error.message);
}

/** The error as the rest of the program should see it. */
export function storeError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isConnectionError(error)) return error;
  const code = (error as { code?: unknown }).code;
  const detail = typeof code === 'string' ? `${code}: ${(error as Error).message}` : (error as Error).message;
  return new StoreUnavailableError(`PostgreSQL store unavailable (${detail})`, { cause: error });
}

/** Runs `work`, turning connection failures into StoreUnavailableError. */
export async function unavailableOnConnectionError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storeError(error);
  }
}
