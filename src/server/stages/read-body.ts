/**
 * read body: under SCOOP_MAX_BODY_BYTES, judged from Content-Length first (body.ts), when
 * the binding reads it before decoding — so the answer cache can key on it. The wait is
 * driven by body.ts's callback: no promise is made for it.
 */
import type { AppContext } from '../app-context.ts';
import { collectBody } from '../body.ts';
import type { Stage } from '../pipeline.ts';

export function readBody(app: AppContext): Stage {
  return {
    name: 'read body',
    run(exchange) {
      if (!exchange.binding?.readsBody(exchange)) return;
      return (resume, fail) =>
        collectBody(
          exchange.req,
          app.maxBodyBytes,
          (error, body) => {
            if (error) return fail(error);
            exchange.body = body;
            exchange.observation.bytesIn = body!.length;
            resume();
          },
          app.afterRefusedUpload,
        );
    },
  };
}
