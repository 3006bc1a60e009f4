/** An address that cannot be listened on is an operator's setting to change: one line, exit 2. */
import { UsageError } from './usage.ts';

const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the address is already in use',
  EACCES: 'this user may not listen on that port',
  EADDRNOTAVAIL: 'no interface of this machine has that address',
};

/** A usage error naming `setting` for a listen failure, or `error` itself for anything else. */
export function listenRefusal(error: unknown, address: string, setting: string): unknown {
  const code = (error as { code?: unknown }).code;
  const reason = typeof code === 'string' ? REASONS[code] : undefined;
  if (reason === undefined) return error;
  return new UsageError(`cannot listen on ${address}: ${reason} (${code}); set ${setting}`);
}
