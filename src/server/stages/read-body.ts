/**
 * read body: under SCOOP_MAX_BODY_BYTES, judged from Content-Length first (body.ts), when
 * the binding reads it before decoding — so the answer cache can key on it. The body counts
 * against SCOOP_MAX_BODY_BYTES_IN_FLIGHT (body-budget.ts) until the response closes: when
 * the answer is written, the request refused, or the client gone. The wait is driven by
 * body.ts's callback: no promise is made for it.
 */
import type { AppContext } from '../app-context.ts';
import { collectBody } from '../body.ts';
import type { Exchange, RequestLike } from '../exchange.ts';
import type { Stage } from '../pipeline.ts';

/** A body left unread: its connection cannot carry another request, and is closed in stages. */
function closeUpload(app: AppContext, exchange: Exchange, req: RequestLike): void {
  exchange.res.setHeader('connection', 'close');
  app.afterRefusedUpload?.(req);
}

export function readBody(app: AppContext): Stage {
  return {
    name: 'read body',
    run(exchange) {
      if (!exchange.binding?.readsBody(exchange)) return;
      const claim = app.bodyBudget.claim();
      exchange.res.on('close', claim.release);
      return (resume, fail) =>
        collectBody(
          exchange.req,
          app.maxBodyBytes,
          claim,
          (error, body) => {
            if (error) return fail(error);
            exchange.body = body;
            exchange.observation.bytesIn = body!.length;
            resume();
          },
          (req) => closeUpload(app, exchange, req),
        );
    },
  };
}
