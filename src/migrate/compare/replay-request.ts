/**
 * A request to send to two services — the baseline and the candidate of `compare`, or
 * the original that `serve --shadow` replays a client's request to — and how it looks
 * with each side's own token. A generated request (from a bundle or a requests file) is
 * encoded for each side by protocol/client-request.ts with that side's token; a captured
 * one (a HAR entry, a client's request) is sent as it came, its token replaced where
 * the wire carries one: the `wsAuthHeader` SOAP header, an `Authorization: Bearer`
 * header, a `token` form field.
 */
import { ENDPOINTS, OPERATIONS, type Operation } from '../../contract/operations.ts';
import type { BindingName } from '../../protocol/binding.ts';
import { type ClientArguments, encodeRequest } from '../../protocol/client-request.ts';
import { escapeText } from '../../xml/escape.ts';

/** One request as it goes out to one side. */
export interface SentRequest {
  readonly method: string;
  /** Path and query, appended to the side's base URL. */
  readonly path: string;
  /** Lower-case names; Host and Content-Length are the sender's. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export interface ReplayRequest {
  /** The operation's name, or `-` when the request names none the contract has. */
  readonly operation: string;
  readonly binding: BindingName;
  /** What reports show of it: the call with its arguments, or method and path. */
  readonly description: string;
  /** The request with `token` where it carries one; undefined leaves it as it is. */
  prepare(token: string | undefined): SentRequest;
}

/** The headers a captured request keeps; cookies, conditionals, encodings and the rest are dropped. */
export const KEPT_HEADERS = ['content-type', 'soapaction', 'authorization'] as const;

/** An operation called with `args` over `binding`, encoded for each side with its token. */
export function generatedRequest(
  binding: BindingName,
  operation: Operation,
  args: ClientArguments,
  namespace: string,
): ReplayRequest {
  const shown = operation.params
    .filter((f) => args[f.name] !== undefined)
    .map((f) => {
      const value = args[f.name];
      return `${f.name}=${Array.isArray(value) ? `[${value.join(',')}]` : String(value)}`;
    });
  return {
    operation: operation.name,
    binding,
    description: `${operation.name}(${shown.join(', ')})`,
    prepare(token) {
      const request = encodeRequest(binding, operation, args, { namespace, token });
      return { ...request, body: Buffer.from(request.body, 'utf8') };
    },
  };
}

/** The endpoint a path names, and the operation after it for HTTP GET/POST. */
function routeOf(path: string): { endpoint: string; operationName: string | undefined } | undefined {
  for (const endpoint of ENDPOINTS) {
    if (path === endpoint.path) return { endpoint: endpoint.path, operationName: undefined };
    if (path.startsWith(`${endpoint.path}/`)) {
      const name = path.slice(endpoint.path.length + 1);
      if (!name.includes('/')) return { endpoint: endpoint.path, operationName: name };
    }
  }
  return undefined;
}

const KNOWN_OPERATIONS = new Set(OPERATIONS.map((op) => op.name));

/** SOAP's operation: SOAPAction (1.1), the media type's `action` (1.2), else the Body's first element. */
function soapOperation(headers: Readonly<Record<string, string>>, body: Buffer): string | undefined {
  const action =
    headers.soapaction ?? /;\s*action\s*=\s*"?([^";]*)"?/i.exec(headers['content-type'] ?? '')?.[1];
  const fromAction = action?.replace(/^"|"$/g, '').split('/').pop();
  if (fromAction && KNOWN_OPERATIONS.has(fromAction)) return fromAction;
  const text = body.subarray(0, 64 * 1024).toString('latin1');
  return /<(?:[\w.-]+:)?Body\b[^>]*>\s*<(?:[\w.-]+:)?([\w.-]+)/.exec(text)?.[1];
}

/**
 * A request as a client sent it (`path` with its query, relative to the service's base),
 * when it calls the service: a POST to an endpoint (SOAP) or a GET or POST of an
 * endpoint's operation (HTTP). Anything else is not replayed: undefined.
 */
export function capturedRequest(
  method: string,
  path: string,
  headers: Readonly<Record<string, string>>,
  body: Buffer,
  known?: { readonly operation: string; readonly binding: BindingName },
): ReplayRequest | undefined {
  const q = path.indexOf('?');
  const route = routeOf(q < 0 ? path : path.slice(0, q));
  if (!route || (method !== 'GET' && method !== 'POST')) return undefined;
  let binding: BindingName;
  if (route.operationName === undefined) {
    if (method !== 'POST') return undefined;
    binding = /^\s*application\/soap\+xml/i.test(headers['content-type'] ?? '') ? 'soap12' : 'soap11';
  } else binding = method === 'GET' ? 'httpget' : 'httppost';
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) if (headers[name] !== undefined) kept[name] = headers[name];
  const named = route.operationName ?? soapOperation(kept, body);
  const operation = known?.operation ?? (named !== undefined && KNOWN_OPERATIONS.has(named) ? named : '-');
  const sent: SentRequest = { method, path, headers: kept, body: method === 'GET' ? Buffer.alloc(0) : body };
  return {
    operation,
    binding: known?.binding ?? binding,
    description: `${method} ${path}`,
    prepare: (token) => (token === undefined ? sent : withToken(sent, token)),
  };
}

const SOAP_TOKEN =
  /(<(?:[\w.-]+:)?wsAuthHeader\b[^>]*>[\s\S]*?<(?:[\w.-]+:)?token\b[^>/]*>)([^<]*)(<\/(?:[\w.-]+:)?token\s*>)/;
const FORM_TOKEN = /(^|&)(token=)([^&]*)/i;

/**
 * `request` with `token` wherever it carries one. Bodies are edited as latin1 text, which
 * keeps every byte: the markup matched is ASCII in UTF-8 and ISO-8859-1 bodies alike.
 */
export function withToken(request: SentRequest, token: string): SentRequest {
  const headers = { ...request.headers };
  if (headers.authorization !== undefined && /^\s*bearer\s/i.test(headers.authorization))
    headers.authorization = `Bearer ${token}`;
  let text = request.body.toString('latin1');
  const contentType = headers['content-type'] ?? '';
  if (/x-www-form-urlencoded/i.test(contentType))
    text = text.replace(
      FORM_TOKEN,
      (_m, lead: string, name: string) => `${lead}${name}${encodeURIComponent(token)}`,
    );
  else
    text = text.replace(
      SOAP_TOKEN,
      (_m, open: string, _old: string, close: string) => `${open}${escapeText(token)}${close}`,
    );
  return { ...request, headers, body: Buffer.from(text, 'latin1') };
}
