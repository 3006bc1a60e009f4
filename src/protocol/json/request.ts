/**
 * Decodes a JSON API request into the route it names and the operation's raw parameters:
 * path segments, query parameters (exact names, a list repeated, unknown names ignored as
 * on HTTP GET) and, for POST, one JSON object whose fields must all be the route's
 * (RFC 8259; UTF-8 only, §8.1). The token comes only from `Authorization: Bearer`.
 */
import { ScoopError } from '../../contract/errors.ts';
import type { Field } from '../../contract/schema.ts';
import { type HeaderValues, single } from '../binding.ts';
import type { RawParameters } from '../coerce.ts';
import type { MediaType } from '../content-type.ts';
import { bearerToken, parseForm, refuseTokenInUrl, TOKEN_FIELD } from '../http-request.ts';
import { JSON_MEDIA_TYPE } from './client-request.ts';
import { API_DOCUMENTS, API_PREFIX, type JsonRoute, matchRoute } from './routes.ts';

export interface JsonRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: HeaderValues;
  readonly mediaType: MediaType | undefined;
  readonly body: Buffer | undefined;
}

export interface DecodedJsonRequest {
  readonly route: JsonRoute;
  readonly parameters: RawParameters;
  readonly token: string | undefined;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeSegment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ScoopError('INVALID_ENCODING', 'The path holds invalid percent-encoding or invalid UTF-8.');
  }
}

/** The route of a path under API_PREFIX, or NOT_FOUND / METHOD_NOT_ALLOWED (with Allow). */
export function routeOf(
  method: string,
  path: string,
): { route: JsonRoute; pathValues: ReadonlyMap<string, string> } {
  if (API_DOCUMENTS.includes(path)) {
    throw new ScoopError('METHOD_NOT_ALLOWED', `This path takes GET, HEAD, not ${method.slice(0, 20)}.`, {
      headers: { allow: 'GET, HEAD' },
    });
  }
  const match = matchRoute(method, path.slice(API_PREFIX.length));
  if (match.kind === 'none') throw new ScoopError('NOT_FOUND', 'The JSON API has no route at this path.');
  if (match.kind === 'method') {
    throw new ScoopError(
      'METHOD_NOT_ALLOWED',
      `This path takes ${match.allow.join(', ')}, not ${method.slice(0, 20)}.`,
      {
        headers: { allow: match.allow.join(', ') },
      },
    );
  }
  return match;
}

function queryParameters(route: JsonRoute, query: string, raw: Map<string, string[]>): void {
  const pairs = parseForm(query);
  const byName = new Map<string, Field>(route.queryParams.map((p) => [p.name, p]));
  const inBody = new Set(route.bodyParams.map((p) => p.name.toLowerCase()));
  for (const { name, value } of pairs) {
    if (name.toLowerCase() === TOKEN_FIELD) refuseTokenInUrl();
    if (inBody.has(name.toLowerCase())) {
      throw new ScoopError(
        'PARAMETER_IN_URL',
        `Parameter ${name.slice(0, 40)} belongs in the JSON body, not the URL.`,
      );
    }
    if (!byName.has(name)) continue;
    const values = raw.get(name) ?? [];
    values.push(value);
    raw.set(name, values);
  }
  for (const [name, value] of Object.entries(route.defaults)) if (!raw.has(name)) raw.set(name, [value]);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * RFC 8259 §4 leaves an object with a name twice to the parser (JSON.parse keeps the
 * last): a field given twice is refused, as a parameter given twice is on every binding.
 * `text` is known to be one well-formed JSON object; its top-level names are read as
 * JSON strings (escapes decoded), nested values skipped.
 */
function refuseRepeatedMembers(text: string): void {
  const seen = new Set<string>();
  let depth = 0;
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (depth === 1 && expectName) {
        const name: string = JSON.parse(text.slice(i, end + 1));
        if (seen.has(name)) {
          throw new ScoopError(
            'DUPLICATE_PARAMETER',
            `The body field ${JSON.stringify(name.slice(0, 40))} was given more than once.`,
          );
        }
        seen.add(name);
        expectName = false;
      }
      i = end;
    } else if (ch === '{' || ch === '[') {
      depth++;
      expectName = depth === 1;
    } else if (ch === '}' || ch === ']') depth--;
    else if (ch === ',' && depth === 1) expectName = true;
  }
}

function bodyParameters(route: JsonRoute, request: JsonRequest, raw: Map<string, string[]>): void {
  const { mediaType, body } = request;
  if (mediaType?.essence !== JSON_MEDIA_TYPE) {
    throw new ScoopError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The JSON API takes ${JSON_MEDIA_TYPE}; the request was sent as ${mediaType ? mediaType.essence : 'no content type'}.`,
    );
  }
  const charset = mediaType.params.get('charset')?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ScoopError(
      'UNSUPPORTED_MEDIA_TYPE',
      'JSON is sent as UTF-8 (RFC 8259 §8.1); no other charset is read.',
    );
  }
  if (body === undefined || body.length === 0)
    throw new ScoopError('EMPTY_BODY', 'The request body is empty.');
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new ScoopError('INVALID_ENCODING', 'The request body is not valid UTF-8.');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ScoopError('MALFORMED_JSON', 'The request body is not well-formed JSON.');
  }
  if (!isObject(parsed)) throw new ScoopError('MALFORMED_JSON', 'The request body must be one JSON object.');
  refuseRepeatedMembers(text);
  const fields = new Map<string, Field>(route.bodyParams.map((p) => [p.name, p]));
  for (const [name, value] of Object.entries(parsed)) {
    const param = fields.get(name);
    if (!param) {
      const known = [...fields.keys()].join(', ');
      throw new ScoopError(
        'UNKNOWN_FIELD',
        `The body field ${JSON.stringify(name.slice(0, 40))} is not one of: ${known}.`,
      );
    }
    if (value === null) continue;
    if (typeof value !== 'string') {
      throw new ScoopError('INVALID_PARAMETER', `The body field ${name} must be a string.`);
    }
    raw.set(name, [value]);
  }
}

export function decodeJsonRequest(request: JsonRequest): DecodedJsonRequest {
  const { route, pathValues } = routeOf(request.method, request.path);
  const raw = new Map<string, string[]>();
  for (const [name, value] of pathValues) raw.set(name, [decodeSegment(value)]);
  queryParameters(route, request.query, raw);
  if (route.method === 'POST') bodyParameters(route, request, raw);
  return { route, parameters: raw, token: bearerToken(single(request.headers.authorization)) };
}
