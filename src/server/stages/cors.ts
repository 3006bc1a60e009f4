/**
 * cors: only with SCOOP_CORS_ORIGINS, and only for the JSON API (`/api/v1`). The named
 * browser origins may call it (Fetch standard, CORS protocol): every answer there varies
 * by `Origin`, an allowed origin's answers say so and expose the fields a client reads,
 * and a preflight (OPTIONS with `Access-Control-Request-Method`) from an allowed origin,
 * for a method its route takes, is answered here with 204. Any other preflight goes on and
 * is refused as an OPTIONS (405), without CORS fields, so the browser stops there. Nothing
 * outside `/api/v1` ever gets CORS fields.
 */
import { single } from '../../protocol/binding.ts';
import { isApiPath } from '../../protocol/bindings/json.ts';
import { API_PREFIX, matchRoute } from '../../protocol/json/routes.ts';
import { closeIfDraining } from '../answer-headers.ts';
import type { AppContext } from '../app-context.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage } from '../pipeline.ts';

/** Request fields a caller may send beyond the CORS-safelisted ones. */
const ALLOWED_HEADERS = 'authorization, content-type, if-none-match, if-range, range';
/** Answer fields a script may read beyond the safelisted ones. */
const EXPOSED_HEADERS =
  'etag, content-disposition, content-range, accept-ranges, retry-after, www-authenticate, x-request-id';
/** How long a browser may keep a preflight's answer (seconds; browsers cap it themselves). */
const PREFLIGHT_MAX_AGE = '600';

/** The methods a preflight may ask for on this path: its routes' (HEAD with GET). */
function methodsAt(path: string): readonly string[] {
  const probe = matchRoute('OPTIONS', path.slice(API_PREFIX.length));
  return probe.kind === 'method' ? probe.allow : [];
}

/** Answers a preflight the route allows; false for one it does not (refused later, as OPTIONS). */
function answerPreflight(app: AppContext, exchange: Exchange, origin: string, asked: string): boolean {
  const methods = methodsAt(exchange.path);
  if (!methods.includes(asked)) return false;
  const { res, observation } = exchange;
  exchange.answered = true;
  observation.binding = 'json';
  closeIfDraining(app, exchange);
  res.writeHead(204, {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': methods.join(', '),
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': PREFLIGHT_MAX_AGE,
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    'cache-control': 'no-store',
    'x-request-id': observation.id,
  });
  res.end();
  return true;
}

export function cors(app: AppContext, origins: ReadonlySet<string>): Stage {
  return {
    name: 'cors',
    run(exchange) {
      if (!isApiPath(exchange.path)) return;
      const { res } = exchange;
      // The answer differs by Origin, so no cache may hand one origin's answer to another.
      res.setHeader('vary', 'Origin');
      const origin = single(exchange.headers.origin);
      if (origin === undefined || !origins.has(origin)) return;
      const asked = single(exchange.headers['access-control-request-method']);
      if (exchange.method === 'OPTIONS' && asked !== undefined) {
        answerPreflight(app, exchange, origin, asked);
        return;
      }
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    },
  };
}
