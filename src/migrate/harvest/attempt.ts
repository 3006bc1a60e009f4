/**
 * One try at one job: the SOAP 1.1 request (protocol/client-request.ts), the answer read
 * as it streams in, and what it means for the harvest:
 *
 * - `answer`: the operation's result; `unknown`: an unknown id (refusal.ts), for the id sent;
 * - `retry`: worth another try later — no answer (connection refused, reset, timed out,
 *   cut off), a server-side fault (soap:Server, scoop's BUSY/UNAVAILABLE), a 5xx or 429
 *   that is not a fault of this wire; with the source's Retry-After when it sent one;
 * - `stop`: the source refuses what every request will ask (a client fault: the token, the
 *   namespace, the operation) or is not this service (an HTML page, a 404, another XML):
 *   the same request again gets the same answer, and so will all the others;
 * - `unreadable`: a success answer whose content the contract does not describe or the
 *   XML parser rejects (the original's control-character bug): this record is left out.
 */

import type { OperationName, ResultOf } from '../../contract/operations.ts';
import { encodeRequest } from '../../protocol/client-request.ts';
import type { Http1Body } from '../http1.ts';
import { describeRefusal, readRefusal } from '../refusal.ts';
import { eachChunk, readText, type WireClient, WireConnectionError } from '../wire-client.ts';
import { AnswerError, AnswerReader, type OpenBinary, operationNamed } from './answer-reader.ts';
import { retryAfterMs } from './pacer.ts';
import type { Job } from './plan.ts';

export type Outcome<N extends OperationName> =
  | { readonly kind: 'answer'; readonly result: ResultOf<N> }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'retry'; readonly reason: string; readonly waitMs: number | undefined }
  | {
      readonly kind: 'stop';
      readonly reason: string;
      readonly hint: 'token' | 'namespace' | 'endpoint' | undefined;
    }
  | { readonly kind: 'unreadable'; readonly reason: string };

export interface AttemptContext {
  readonly client: WireClient;
  readonly namespace: string;
  readonly token: string | undefined;
  /** Counts the answer bytes as they arrive. */
  readonly received: (bytes: number) => void;
}

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const AUTH_FAILED = /^(System\.Web\.Services\.Protocols\.SoapException: )?Authentication failed/;

function isXml(contentType: string | undefined): boolean {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return media === 'text/xml' || media === 'application/soap+xml' || media === 'application/xml';
}

/** One try at `job`, a call of `name`. */
export async function attempt<N extends OperationName>(
  context: AttemptContext,
  name: N,
  job: Job,
  openBinary: OpenBinary,
): Promise<Outcome<N>> {
  const operation = operationNamed(name);
  const request = encodeRequest('soap11', operation, job.args, {
    namespace: context.namespace,
    token: context.token,
  });
  let answer: Awaited<ReturnType<WireClient['send']>>;
  try {
    answer = await context.client.send(request);
  } catch (error) {
    if (error instanceof WireConnectionError)
      return { kind: 'retry', reason: error.message, waitMs: undefined };
    throw error;
  }
  const contentType = answer.headers['content-type'];
  if (answer.status === 200 && isXml(contentType)) return read(context, name, job, answer.body, openBinary);

  let text: string;
  try {
    text = await readText(answer);
  } catch (error) {
    if (error instanceof WireConnectionError)
      return { kind: 'retry', reason: error.message, waitMs: undefined };
    throw error;
  }
  context.received(Buffer.byteLength(text));
  const refusal = readRefusal(answer.status, contentType ?? '', text);
  const waitMs = retryAfterMs(answer.headers['retry-after']);
  // A SOAP endpoint answers its faults with 500: a 404 or 405 says the path is not one, whatever its body.
  if ((answer.status === 404 || answer.status === 405) && refusal.kind !== 'unknown-id')
    return {
      kind: 'stop',
      reason: `${context.client.urlOf(request.path)} is not an endpoint of this service: it answered ${refusal.kind === 'other' ? '' : `HTTP ${answer.status}, `}${describeRefusal(refusal)}`,
      hint: 'endpoint',
    };
  switch (refusal.kind) {
    case 'unknown-id': {
      const parameter = operation.params[0]?.name;
      if (refusal.parameter === parameter && refusal.id === job.id) return { kind: 'unknown' };
      return {
        kind: 'stop',
        reason: `${job.label} was answered ${JSON.stringify(refusal.message)}: the service did not read the id sent`,
        hint: 'namespace',
      };
    }
    case 'fault':
      if (refusal.side === 'server') return { kind: 'retry', reason: describeRefusal(refusal), waitMs };
      if (refusal.code === 'AUTH_FAILED' || AUTH_FAILED.test(refusal.message))
        return { kind: 'stop', reason: `the token was refused: ${describeRefusal(refusal)}`, hint: 'token' };
      return {
        kind: 'stop',
        reason: `${job.label} was refused: ${describeRefusal(refusal)}`,
        hint: refusal.side === 'client' ? 'namespace' : undefined,
      };
    case 'other':
      if (RETRY_STATUSES.has(answer.status))
        return { kind: 'retry', reason: describeRefusal(refusal), waitMs };
      return {
        kind: 'stop',
        reason: `${context.client.urlOf(request.path)} is not an endpoint of this service: it answered ${describeRefusal(refusal)}`,
        hint: 'endpoint',
      };
  }
}

async function read<N extends OperationName>(
  context: AttemptContext,
  name: N,
  job: Job,
  body: Http1Body,
  openBinary: OpenBinary,
): Promise<Outcome<N>> {
  const reader = new AnswerReader(name, context.namespace, openBinary);
  try {
    try {
      await eachChunk(body, (chunk) => {
        context.received(chunk.length);
        return reader.push(chunk);
      });
    } catch (error) {
      // The body stopped coming: cut off, reset, timed out.
      if (error instanceof WireConnectionError)
        return { kind: 'retry', reason: error.message, waitMs: undefined };
      throw error;
    }
    return { kind: 'answer', result: await reader.end() };
  } catch (error) {
    if (!(error instanceof AnswerError)) throw error;
    if (error.kind === 'namespace')
      return {
        kind: 'stop',
        reason: `the service answers in the namespace ${JSON.stringify(error.foundNamespace)}; pass --namespace ${error.foundNamespace}`,
        hint: undefined,
      };
    if (error.kind === 'envelope')
      return {
        kind: 'stop',
        reason: `${job.label} was not answered as this service answers: ${error.message}`,
        hint: 'endpoint',
      };
    return { kind: 'unreadable', reason: error.message };
  } finally {
    // An answer not read to its end cannot leave its connection for the next request.
    if (!body.complete) body.discard();
  }
}
