/**
 * Any failure is a catalogue error, rendered by the binding that received the request (the
 * call's binding once there is one): a SOAP 1.1 or 1.2 fault, or an HTTP status with a
 * small XML body. Unexpected exceptions become INTERNAL, are logged with their stack under
 * the request's id, and reach the client as a bare "An internal error occurred."
 */
import { isScoopError, ScoopError } from '../contract/errors.ts';
import { bindingNamed } from '../protocol/bindings/registry.ts';
import { renderHttpError } from '../protocol/faults.ts';
import { StoreUnavailableError } from '../store/content-store.ts';
import { closeIfDraining } from './answer-headers.ts';
import type { AppContext } from './app-context.ts';
import type { Exchange } from './exchange.ts';
import { sendParts } from './send.ts';

function toScoopError(app: AppContext, caught: unknown, exchange: Exchange): ScoopError {
  if (isScoopError(caught)) return caught;
  const reqId = exchange.observation.id;
  if (caught instanceof StoreUnavailableError) {
    app.logger.warn({ reqId, err: caught.message }, 'store unavailable');
    return new ScoopError('UNAVAILABLE', 'The service cannot reach its content store; retry shortly.', {
      retryAfterSeconds: 1,
    });
  }
  app.logger.error({ reqId, err: caught, path: exchange.path }, 'request failed');
  return new ScoopError('INTERNAL', 'An internal error occurred.');
}

/** What escapes the refusal itself (a bug): logged, and the connection cut. */
function unhandled(app: AppContext, exchange: Exchange, failure: unknown): void {
  app.logger.error({ err: failure }, 'unhandled request failure');
  exchange.res.destroy();
}

export function refuser(app: AppContext): (exchange: Exchange, caught: unknown) => void {
  return (exchange, caught) => {
    refuse(app, exchange, caught).catch((failure: unknown) => unhandled(app, exchange, failure));
  };
}

async function refuse(app: AppContext, exchange: Exchange, caught: unknown): Promise<void> {
  const error = toScoopError(app, caught, exchange);
  const { res, observation, call } = exchange;
  observation.outcome = error.code;
  exchange.answered = true;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const binding = call ? bindingNamed(call.binding) : exchange.binding;
  const rendered = binding ? binding.refusal(error, app.namespace) : renderHttpError(error, app.namespace);
  const headers: Record<string, string> = {
    'content-type': rendered.contentType,
    'cache-control': 'private',
    'x-content-type-options': 'nosniff',
    'x-request-id': observation.id,
    ...rendered.headers,
  };
  if (error.code === 'METHOD_NOT_ALLOWED') headers.allow = 'GET, HEAD, POST';
  Object.assign(headers, error.headers);
  // RFC 9110 §15.5.16 / §12.5.3: a 415 says which content codings a request may use.
  if (error.code === 'UNSUPPORTED_MEDIA_TYPE') headers['accept-encoding'] = 'identity';
  // RFC 9110 §10.2.3: tell a client that was refused for load or limits when to retry.
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  // The rest of an oversized body is never read, so this connection cannot be reused.
  if (error.code === 'BODY_TOO_LARGE') headers.connection = 'close';
  closeIfDraining(app, exchange);
  await sendParts(res, rendered.status, headers, [rendered.body], exchange.method !== 'HEAD', observation);
}
