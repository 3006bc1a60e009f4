/**
 * Text escaping as the original's XmlSerializer writes it (reference/SERIALIZER.md):
 * `&`, `<`, `>` become entities (so `]]>` comes out as `]]&gt;`), everything else is
 * written raw — including `"`, `'`, CR and characters outside the BMP. Characters
 * XML 1.0 forbids (§2.2 Char) are never written: the import refuses them, and as a
 * last line of defence they become U+FFFD here so a response is always well-formed.
 * Lone surrogates need no handling: UTF-8 encoding already turns them into U+FFFD.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 §2.2 forbids
const NEEDS_WORK = /[&<>\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 §2.2 forbids
const SPECIAL = /[&<>\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function replacement(ch: string): string {
  if (ch === '&') return '&amp;';
  if (ch === '<') return '&lt;';
  if (ch === '>') return '&gt;';
  return '\uFFFD';
}

export function escapeText(text: string): string {
  return NEEDS_WORK.test(text) ? text.replace(SPECIAL, replacement) : text;
}

/** Attribute values additionally escape `"` (we always quote with `"`). */
export function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;');
}

/** Characters XML 1.0 cannot carry at all, not even as a character reference. */
export const XML_FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 §2.2 forbids
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for HTML (pages, reports): safe in element content and in either kind of quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
}
