/** Media types (RFC 9110 §8.3.1) and request body text decoding. */
import { ScoopError } from '../contract/errors.ts';

export interface MediaType {
  /** Lower-cased `type/subtype`. */
  readonly essence: string;
  /** Parameters with lower-cased names; values unquoted. */
  readonly params: ReadonlyMap<string, string>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Clients send the same few Content-Type values over and over, so parsed values are kept
 * (MediaType is immutable). The table is bounded: once full it starts afresh, so a client
 * sending endless distinct values costs a re-parse, never memory.
 */
const PARSED = new Map<string, MediaType | undefined>();
const MAX_PARSED = 256;

export function parseMediaType(header: string | undefined): MediaType | undefined {
  if (header === undefined) return undefined;
  const known = PARSED.get(header);
  if (known !== undefined || PARSED.has(header)) return known;
  const parsed = parse(header);
  if (PARSED.size >= MAX_PARSED) PARSED.clear();
  PARSED.set(header, parsed);
  return parsed;
}

function parse(header: string): MediaType | undefined {
  const [head, ...rest] = splitParams(header);
  const essence = head!.trim().toLowerCase();
  if (!/^[^/\s]+\/[^/\s]+$/.test(essence)) return undefined;
  const params = new Map<string, string>();
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
      value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    }
    if (TOKEN.test(name) && !params.has(name)) params.set(name, value);
  }
  return { essence, params };
}

/**
 * Splits on `;` outside quoted strings (an `action` URI may be quoted and hold `;`).
 * Inside a quoted string a backslash escapes the next character (RFC 9110 §5.6.4
 * quoted-pair), so `"a\\"` ends at its last quote.
 */
function splitParams(header: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  let escaped = false;
  for (let i = 0; i < header.length; i++) {
    const ch = header[i]!;
    if (escaped) escaped = false;
    else if (quoted && ch === '\\') escaped = true;
    else if (ch === '"') quoted = !quoted;
    if (ch === ';' && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const LATIN1 = new TextDecoder('latin1');

/**
 * UTF-8 unless the Content-Type names another charset; ISO-8859-1 and US-ASCII are
 * accepted because the original accepts them. Invalid UTF-8 is refused, never repaired.
 */
export function decodeBody(body: Uint8Array, mediaType: MediaType | undefined): string {
  const charset = (mediaType?.params.get('charset') ?? 'utf-8').toLowerCase();
  if (charset === 'utf-8' || charset === 'utf8') {
    try {
      return UTF8.decode(body);
    } catch {
      throw new ScoopError('INVALID_ENCODING', 'The request body is not valid UTF-8.');
    }
  }
  if (charset === 'iso-8859-1' || charset === 'latin1' || charset === 'us-ascii') return LATIN1.decode(body);
  throw new ScoopError(
    'INVALID_ENCODING',
    `The charset ${JSON.stringify(charset.slice(0, 40))} is not supported; use utf-8.`,
  );
}
