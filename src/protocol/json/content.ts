/**
 * The answer of a content route: the bytes of a record's `data` as they are stored (or as
 * getBild resized them), typed by the record's mimetype and named by its filename (RFC
 * 6266 `inline`, the name in `filename*`, RFC 8187, with an ASCII `filename` for old
 * clients), and open to byte ranges. A binary too large to hold is streamed from the store.
 */
import type { Anhang, Bild } from '../../contract/types.ts';
import type { BodyPart } from '../../xml/writer.ts';
import type { RenderedAnswer } from '../binding.ts';
import { parseMediaType } from '../content-type.ts';

const OCTETS = 'application/octet-stream';
/** RFC 8187 attr-char: what `filename*` may carry unencoded. */
const ATTR_CHAR = /[A-Za-z0-9!#$&+.^_`|~-]/;

function extValue(name: string): string {
  let out = "UTF-8''";
  for (const ch of name) {
    if (ATTR_CHAR.test(ch)) out += ch;
    else
      for (const byte of Buffer.from(ch, 'utf8'))
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function contentDisposition(filename: string | null): string {
  if (!filename) return 'inline';
  // The quoted fallback holds printable ASCII only, without the quote and the backslash.
  const ascii = filename.replace(/[^\x20-\x7E]|["\\]/g, '_');
  return `inline; filename="${ascii}"; filename*=${extValue(filename)}`;
}

/** A stored mimetype that is not a well-formed media type is sent as bytes of no particular type. */
function contentType(mimetype: string | null): string {
  if (!mimetype || parseMediaType(mimetype) === undefined || /[^\x20-\x7E]/.test(mimetype)) return OCTETS;
  return mimetype;
}

export function renderContent(record: Anhang | Bild): RenderedAnswer {
  const { data } = record;
  const part: BodyPart =
    data instanceof Uint8Array
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : { bytesOf: data };
  const type = contentType(record.mimetype);
  const headers: Record<string, string> = {
    'content-type': type,
    'content-disposition': contentDisposition(record.filename),
    'accept-ranges': 'bytes',
  };
  // A stored HTML or SVG file opened from the API's origin runs as a page with no rights at
  // all (CSP sandbox); PDF is left out, as browsers' PDF viewers do not run sandboxed.
  if (type !== 'application/pdf') headers['content-security-policy'] = "sandbox; default-src 'none'";
  return { parts: [part], headers };
}
