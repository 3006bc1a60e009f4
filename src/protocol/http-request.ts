/**
 * Decodes HTTP GET (query string only) and HTTP POST (form body only) requests
 * (service-spec.md 4.2). Parameter names match case-insensitively, as the original's
 * do; unknown names are ignored; list parameters repeat, and a comma-separated value
 * is split, as the original accepted `resizeModes=crop,fit`.
 */
import { ScoopError } from '../contract/errors.ts';
import type { Operation } from '../contract/operations.ts';
import { forbiddenAt } from '../xml/escape.ts';
import type { RawParameters } from './coerce.ts';
import { decodeBody, type MediaType } from './content-type.ts';

export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
/** The form field an HTML form (which cannot set headers) may carry the token in. */
export const TOKEN_FIELD = 'token';

export interface FormPair {
  readonly name: string;
  readonly value: string;
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new ScoopError('INVALID_ENCODING', 'The request holds invalid percent-encoding or invalid UTF-8.');
  }
}

/** application/x-www-form-urlencoded parsing (WHATWG URL §5.1), strict about bad escapes. */
export function parseForm(text: string): FormPair[] {
  const pairs: FormPair[] = [];
  if (text === '') return pairs;
  for (const piece of text.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = decodeComponent(eq < 0 ? piece : piece.slice(0, eq));
    const value = eq < 0 ? '' : decodeComponent(piece.slice(eq + 1));
    pairs.push({ name, value });
  }
  return pairs;
}

/**
 * A parameter value with a character XML 1.0 does not allow (§2.2 Char: C0 controls other
 * than tab, LF and CR; U+FFFE, U+FFFF) is not an xs:string (XML Schema part 2 §3.2.1), and
 * could not be carried in the SOAP bindings at all: refused, not passed on.
 */
function checkCharacters(name: string, value: string): void {
  const at = forbiddenAt(value);
  if (at >= 0) {
    const code = value.codePointAt(at)!.toString(16).toUpperCase().padStart(4, '0');
    throw new ScoopError(
      'INVALID_PARAMETER',
      `Parameter ${name} holds the character U+${code}, which XML does not allow.`,
    );
  }
}

export function formParameters(operation: Operation, pairs: readonly FormPair[]): RawParameters {
  const byName = new Map(operation.params.map((p) => [p.name.toLowerCase(), p] as const));
  const raw = new Map<string, string[]>();
  for (const { name, value } of pairs) {
    const param = byName.get(name.toLowerCase());
    if (!param) continue;
    checkCharacters(param.name, value);
    const values = raw.get(param.name) ?? [];
    if (param.type.kind === 'array') values.push(...value.split(','));
    else values.push(value);
    raw.set(param.name, values);
  }
  return raw;
}

/**
 * HTTP POST reads its parameters from the form body only, as the original did; one also in
 * the URL's query string would be ignored or taken, a guess either way, so it is refused.
 * Names the operation does not know are ignored, as everywhere (a cache-busting `?_=1`).
 */
export function refuseQueryParameters(operation: Operation, queryPairs: readonly FormPair[]): void {
  const known = new Set(operation.params.map((p) => p.name.toLowerCase()));
  const found = queryPairs.find((pair) => known.has(pair.name.toLowerCase()));
  if (found) {
    const param = operation.params.find((p) => p.name.toLowerCase() === found.name.toLowerCase())!;
    throw new ScoopError(
      'PARAMETER_IN_URL',
      `Parameter ${param.name} was sent in the URL of an HTTP POST; send it in the form body.`,
    );
  }
}

export function hasTokenField(pairs: readonly FormPair[]): boolean {
  return pairs.some((p) => p.name.toLowerCase() === TOKEN_FIELD);
}

/**
 * Whether a query string names a `token` field, for requests that do not otherwise read
 * their query (SOAP): a name that does not decode cannot be `token`, so it is passed over
 * rather than refused as INVALID_ENCODING.
 */
export function queryNamesToken(query: string): boolean {
  if (query === '') return false;
  for (const piece of query.split('&')) {
    const eq = piece.indexOf('=');
    let name: string;
    try {
      name = decodeURIComponent((eq < 0 ? piece : piece.slice(0, eq)).replace(/\+/g, ' '));
    } catch {
      continue;
    }
    if (name.toLowerCase() === TOKEN_FIELD) return true;
  }
  return false;
}

/** Tokens in URLs end up in access logs and proxies; only headers and bodies may carry them. */
export function refuseTokenInUrl(): never {
  throw new ScoopError('TOKEN_IN_URL', 'A token must not be sent in the URL; use the Authorization header.');
}

/** The token sent as a POST form field, refusing two of them. */
export function formToken(pairs: readonly FormPair[]): string | undefined {
  const tokens = pairs.filter((p) => p.name.toLowerCase() === TOKEN_FIELD);
  if (tokens.length > 1) throw new ScoopError('DUPLICATE_PARAMETER', 'The token was given more than once.');
  return tokens[0]?.value;
}

export function readFormBody(body: Uint8Array, mediaType: MediaType | undefined): FormPair[] {
  if (body.byteLength === 0) return [];
  if (mediaType?.essence !== FORM_MEDIA_TYPE) {
    throw new ScoopError(
      'UNSUPPORTED_MEDIA_TYPE',
      `HTTP POST takes ${FORM_MEDIA_TYPE}; the request was sent as ${mediaType ? mediaType.essence : 'no content type'}.`,
    );
  }
  return parseForm(decodeBody(body, mediaType));
}

/** RFC 6750 §2.1: `Authorization: Bearer <token>`. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}
