/**
 * An error as a message between the import's thread and its workers carries it
 * (encode-worker.ts, digest-worker.ts): a refusal keeps its record and detail, so that the
 * import reports exactly what its own thread would; another error its message and code.
 */
import { BundleError } from './validate.ts';

export type SentError =
  | { readonly refused: { readonly where: string; readonly detail: string } }
  | { readonly failed: { readonly message: string; readonly code?: string } };

export function sendError(error: unknown): SentError {
  if (error instanceof BundleError) return { refused: { where: error.where, detail: error.detail } };
  if (!(error instanceof Error)) return { failed: { message: String(error) } };
  const { message, code } = error as NodeJS.ErrnoException;
  return { failed: { message, ...(typeof code === 'string' ? { code } : {}) } };
}

export function receivedError(sent: SentError): Error {
  if ('refused' in sent) return new BundleError(sent.refused.where, sent.refused.detail);
  const error: NodeJS.ErrnoException = new Error(sent.failed.message);
  if (sent.failed.code !== undefined) error.code = sent.failed.code;
  return error;
}
