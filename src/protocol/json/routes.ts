/**
 * The JSON API's routes (docs/json-api.md): each calls one operation of the contract, whose
 * name is its OpenAPI operationId. A route says only what the contract does not: its method
 * and path, whether it needs a token, and where its parameters travel (a `{name}` path
 * segment, the body; every other parameter is a query parameter). Routing, decoding, the
 * `contentUrl` links and the OpenAPI document are all read from this table.
 */
import { OPERATIONS, type Operation, type OperationName } from '../../contract/operations.ts';
import type { Field } from '../../contract/schema.ts';

export const API_PREFIX = '/api/v1';
/** The API's OpenAPI document: GET and HEAD of it are served by the describe layer, not a route. */
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
/** Paths under API_PREFIX that are documents about the API rather than routes: the document, the reference page. */
export const API_DOCUMENTS: readonly string[] = [OPENAPI_PATH, `${API_PREFIX}/`];

export type JsonMethod = 'GET' | 'HEAD' | 'POST';

export interface JsonRoute {
  /** The OpenAPI operationId: the contract operation's name. */
  readonly operationId: string;
  readonly operation: Operation;
  readonly method: JsonMethod;
  /** The path under API_PREFIX, with `{name}` segments for path parameters. */
  readonly path: string;
  /** Whether the call needs `Authorization: Bearer <token>`. */
  readonly token: boolean;
  readonly pathParams: readonly Field[];
  readonly queryParams: readonly Field[];
  /** The fields of the JSON request body (POST only). */
  readonly bodyParams: readonly Field[];
  /** Values of query parameters that may be left out, as their raw text. */
  readonly defaults: Readonly<Record<string, string>>;
  /**
   * How the answer is made: `json` the result's one member as JSON; `exists` a HEAD that
   * says by its status (200 or 404) whether the boolean result is true, with no body;
   * `content` the bytes of the record's `data`, as a file.
   */
  readonly answer: 'json' | 'exists' | 'content';
  /** The path split into its segments: literal text, or the name of a path parameter. */
  readonly segments: readonly Segment[];
}

export type Segment = { readonly literal: string } | { readonly param: string };

interface RouteOptions {
  readonly token: boolean;
  readonly body?: readonly string[];
  readonly defaults?: Readonly<Record<string, string>>;
  readonly answer?: JsonRoute['answer'];
}

function operationNamed(name: OperationName): Operation {
  return OPERATIONS.find((op) => op.name === name)!;
}

function parseSegments(path: string): Segment[] {
  return path
    .slice(1)
    .split('/')
    .map((part) => (part.startsWith('{') ? { param: part.slice(1, -1) } : { literal: part }));
}

function route(
  name: OperationName,
  method: JsonMethod,
  path: string,
  options: RouteOptions,
  operationId: string = name,
): JsonRoute {
  const operation = operationNamed(name);
  const segments = parseSegments(path);
  const inPath = new Set(segments.flatMap((s) => ('param' in s ? [s.param] : [])));
  const inBody = new Set(options.body ?? []);
  for (const name of [...inPath, ...inBody]) {
    if (!operation.params.some((p) => p.name === name))
      throw new Error(`route ${method} ${path}: ${operation.name} has no parameter ${name}`);
  }
  return {
    operationId,
    operation,
    method,
    path,
    token: options.token,
    pathParams: operation.params.filter((p) => inPath.has(p.name)),
    bodyParams: operation.params.filter((p) => inBody.has(p.name)),
    queryParams: operation.params.filter((p) => !inPath.has(p.name) && !inBody.has(p.name)),
    defaults: options.defaults ?? {},
    answer: options.answer ?? 'json',
    segments,
  };
}

/** The routes, in the order of docs/json-api.md. GET routes also answer HEAD, without the body. */
export const JSON_ROUTES: readonly JsonRoute[] = [
  route('getArtikelDetails', 'GET', '/artikel/{artikelID}', { token: true }),
  route('getBereich', 'GET', '/bereiche/{bereichID}', { token: false }),
  route('getCityAppBereich', 'GET', '/city-app-bereiche/{cityAppBereichID}', { token: true }),
  route('getAnhang', 'GET', '/anhaenge/{anhangID}', { token: false }),
  // The attachment itself is public (getAnhang), so whether it exists is too.
  route('checkAnhangVorhanden', 'HEAD', '/anhaenge/{anhangID}', { token: false, answer: 'exists' }),
  route('getBild', 'GET', '/bilder/{bildID}', { token: false, defaults: { width: '0', height: '0' } }),
  route('getNewsletter', 'GET', '/newsletter', { token: true }),
  // An e-mail address is personal data: it travels in a body, never in a URL (logs, proxies).
  route('getAbonnierteNewsletter', 'POST', '/abonnements/suche', { token: true, body: ['email'] }),
  // The bytes of an attachment or an image (resized as getBild resizes), which the JSON
  // records link to as `contentUrl` instead of carrying them in base64.
  route(
    'getAnhang',
    'GET',
    '/anhaenge/{anhangID}/content',
    { token: false, answer: 'content' },
    'getAnhangContent',
  ),
  route(
    'getBild',
    'GET',
    '/bilder/{bildID}/content',
    { token: false, answer: 'content', defaults: { width: '0', height: '0' } },
    'getBildContent',
  ),
];

/** The content route of each record type with binary `data` (wsAnhang, wsBild). */
export const CONTENT_ROUTES: ReadonlyMap<string, JsonRoute> = new Map(
  JSON_ROUTES.filter((r) => r.answer === 'content').map((r) => [r.operation.result.fields[0]!.type.name, r]),
);

/**
 * A route's path and query, under `base`: each `{name}` segment from `pathValues`, each
 * query parameter from `queryValues` (a list repeated), leaving out those at their default
 * when `skipDefaults` is set.
 */
export function routeUrl(
  route: JsonRoute,
  base: string,
  pathValues: Readonly<Record<string, unknown>>,
  queryValues: Readonly<Record<string, unknown>>,
  skipDefaults: boolean,
): string {
  let path = base + API_PREFIX;
  for (const segment of route.segments)
    path += `/${'param' in segment ? encodeURIComponent(String(pathValues[segment.param])) : segment.literal}`;
  const query = new URLSearchParams();
  for (const { name } of route.queryParams) {
    const value = queryValues[name];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (!skipDefaults || String(item) !== route.defaults[name]) query.append(name, String(item));
    }
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/**
 * The URL of a record's content route: `base` (SCOOP_PUBLIC_URL, or empty for a
 * root-relative URL), the path with the record's id, and the query parameters of the call
 * that differ from their defaults (getBild's resize: the same bytes its content route sends).
 */
export function contentUrl(
  route: JsonRoute,
  base: string,
  record: Readonly<Record<string, unknown>>,
  args: Readonly<Record<string, unknown>>,
): string {
  return routeUrl(route, base, record, args, true);
}

export type RouteMatch =
  | { readonly kind: 'route'; readonly route: JsonRoute; readonly pathValues: ReadonlyMap<string, string> }
  | { readonly kind: 'method'; readonly allow: readonly string[] }
  | { readonly kind: 'none' };

/** The values of a path's parameter segments (still percent-encoded), when it has the route's shape. */
function matchPath(route: JsonRoute, parts: readonly string[]): Map<string, string> | undefined {
  const { segments } = route;
  if (segments.length !== parts.length) return undefined;
  const values = new Map<string, string>();
  for (let i = 0; i < parts.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if ('param' in segment) {
      if (part === '') return undefined;
      values.set(segment.param, part);
    } else if (segment.literal !== part) return undefined;
  }
  return values;
}

/** The methods a path allows: its routes', and HEAD wherever GET is (RFC 9110 §9.3.2). */
function allowed(routes: readonly JsonRoute[]): string[] {
  const methods = new Set<string>();
  for (const r of routes) {
    methods.add(r.method);
    if (r.method === 'GET') methods.add('HEAD');
  }
  return ['GET', 'HEAD', 'POST'].filter((m) => methods.has(m));
}

/** The route a request names by its method and path under API_PREFIX (`/bereiche/1`). */
export function matchRoute(method: string, path: string): RouteMatch {
  if (!path.startsWith('/')) return { kind: 'none' };
  const parts = path.slice(1).split('/');
  const found = JSON_ROUTES.flatMap((r) => {
    const values = matchPath(r, parts);
    return values ? [{ route: r, values }] : [];
  });
  if (found.length === 0) return { kind: 'none' };
  const exact = found.find((f) => f.route.method === method);
  const asGet = method === 'HEAD' ? found.find((f) => f.route.method === 'GET') : undefined;
  const chosen = exact ?? asGet;
  if (chosen) return { kind: 'route', route: chosen.route, pathValues: chosen.values };
  return { kind: 'method', allow: allowed(found.map((f) => f.route)) };
}
