/**
 * cached answer: whole successful answers, kept per content version (response-cache.ts).
 * A hit skips decoding, the store, the handler and the writer, but still authenticates its
 * token (a token revoked after its answer was cached is refused) and still answers
 * If-None-Match with 304. When the content version and the token are known at once, a hit
 * is answered synchronously.
 */
import { single } from '../../protocol/binding.ts';
import { answeredNotModified, closeIfDraining } from '../answer-headers.ts';
import type { AppContext } from '../app-context.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage } from '../pipeline.ts';
import { answerHead, type CachedAnswer, type ResponseCache, requestKey } from '../response-cache.ts';
import { authenticateCall } from './authenticate.ts';

function writeCached(app: AppContext, exchange: Exchange, hit: CachedAnswer): void {
  const { res, observation } = exchange;
  closeIfDraining(app, exchange);
  if (hit.conditional && exchange.headers['if-none-match'] !== undefined) {
    if (answeredNotModified(exchange, hit.headers)) return;
  }
  exchange.answered = true;
  observation.bytesOut = hit.body.length;
  res.writeHead(200, answerHead(hit, observation.id));
  res.end(exchange.method === 'HEAD' ? undefined : hit.body);
}

function lookUp(
  app: AppContext,
  responses: ResponseCache,
  exchange: Exchange,
  version: number,
): Promise<void> | undefined {
  exchange.version = version;
  const hit = responses.get(exchange.key!, version, app.now(), (length) =>
    exchange.borrow(app.textBuffers, length),
  );
  if (hit === undefined) return undefined;
  const { call } = hit;
  exchange.call = call;
  exchange.observation.operation = call.operation.name;
  exchange.observation.binding = call.binding;
  const verifying = call.authenticate ? authenticateCall(app, exchange, call.token) : undefined;
  if (verifying === undefined) {
    writeCached(app, exchange, hit);
    return undefined;
  }
  return verifying.then(() => writeCached(app, exchange, hit));
}

export function cachedAnswer(app: AppContext, responses: ResponseCache): Stage {
  return {
    name: 'cached answer',
    run(exchange) {
      const { headers } = exchange;
      // A cached answer is the whole content; a request for a part of it is answered anew.
      if (headers.range !== undefined) return;
      const key = requestKey(
        exchange.method,
        exchange.req.url ?? '/',
        {
          authorization: single(headers.authorization),
          contentType: single(headers['content-type']),
          soapAction: single(headers.soapaction),
        },
        exchange.body,
      );
      if (key === undefined) return;
      exchange.key = key;
      const version = app.store.peekVersion();
      if (version !== undefined) return lookUp(app, responses, exchange, version);
      return app.store.knownVersion().then((known) => lookUp(app, responses, exchange, known));
    },
  };
}
