/**
 * decode: the binding turns the request into a call (operation, raw parameter strings,
 * token): SOAP envelopes by soap-request.ts, query strings and forms by http-request.ts.
 */
import type { AppContext } from '../app-context.ts';
import type { Stage } from '../pipeline.ts';

export function decode(app: AppContext): Stage {
  return {
    name: 'decode',
    run(exchange) {
      const call = exchange.binding!.decode(exchange, app.decodeSettings);
      exchange.call = call;
      exchange.observation.operation = call.operation.name;
      exchange.observation.binding = call.binding;
    },
  };
}
