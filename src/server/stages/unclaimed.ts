/**
 * unclaimed: what no binding takes. GET (and HEAD) of an endpoint answers with its help
 * page, WSDL or DISCO, GET of `/` with the index page and of the help pages' assets with
 * those (describe-routes.ts); every other request here is refused.
 */
import { type ErrorCode, isScoopError, ScoopError } from '../../contract/errors.ts';
import { closeIfDraining } from '../answer-headers.ts';
import type { AppContext } from '../app-context.ts';
import { type Document, prefersHtml } from '../describe-routes.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage } from '../pipeline.ts';
import { sendParts } from '../send.ts';

/** Refusals of a GET that a browser is shown as a page; other clients get the XML body. */
const PAGE_REFUSALS: ReadonlySet<ErrorCode> = new Set(['UNKNOWN_OPERATION', 'NOT_FOUND']);

function sendDocument(app: AppContext, exchange: Exchange, doc: Document, status = 200): Promise<void> {
  exchange.answered = true;
  closeIfDraining(app, exchange);
  return sendParts(
    exchange.res,
    status,
    {
      'content-type': doc.contentType,
      'cache-control': status === 200 ? 'no-cache' : 'private',
      'x-content-type-options': 'nosniff',
      'x-request-id': exchange.observation.id,
      ...doc.headers,
    },
    [typeof doc.body === 'string' ? Buffer.from(doc.body, 'utf8') : doc.body],
    exchange.method !== 'HEAD',
    exchange.observation,
  );
}

function answer(app: AppContext, exchange: Exchange, isRead: boolean): Promise<void> {
  const { target, method } = exchange;
  if (target.kind === 'none') {
    const doc = isRead ? app.describe.forPath(exchange.path) : undefined;
    if (!doc) throw new ScoopError('NOT_FOUND', 'There is nothing at this path.');
    return sendDocument(app, exchange, doc);
  }
  if (target.kind === 'endpoint') {
    if (isRead)
      return sendDocument(
        app,
        exchange,
        app.describe.forEndpoint(exchange.req, target.endpoint, exchange.query),
      );
    throw new ScoopError(
      'METHOD_NOT_ALLOWED',
      `${target.endpoint.path} takes SOAP requests by POST, and GET for its help page and WSDL.`,
    );
  }
  throw new ScoopError('METHOD_NOT_ALLOWED', `The method ${method} is not allowed here; use GET or POST.`);
}

export function unclaimed(app: AppContext): Stage {
  return {
    name: 'unclaimed',
    run(exchange) {
      if (exchange.binding !== undefined) return;
      const isRead = exchange.method === 'GET' || exchange.method === 'HEAD';
      try {
        return answer(app, exchange, isRead);
      } catch (caught) {
        if (
          !isRead ||
          !isScoopError(caught) ||
          !PAGE_REFUSALS.has(caught.code) ||
          !prefersHtml(exchange.req.headers.accept)
        )
          throw caught;
        exchange.observation.outcome = caught.code;
        return sendDocument(app, exchange, app.describe.refusal(caught), caught.spec.status);
      }
    },
  };
}
