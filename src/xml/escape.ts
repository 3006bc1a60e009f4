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

/** Every character XML 1.0 forbids, and any surrogate: where `forbiddenAt` looks closer. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 §2.2 forbids
const SUSPECT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/g;

/**
 * Where `text` first holds a character XML 1.0 cannot carry at all, not even as a
 * character reference (§2.2 Char: C0 controls but tab, LF and CR; U+FFFE, U+FFFF; a
 * surrogate not in a pair), or -1. One pass that jumps from one suspect character to the
 * next: an expression with lookarounds for the lone surrogates tries them at every
 * position, five times slower on a text of 9,000 characters with one emoji.
 */
export function forbiddenAt(text: string): number {
  SUSPECT.lastIndex = 0;
  for (let found = SUSPECT.exec(text); found !== null; found = SUSPECT.exec(text)) {
    const at = found.index;
    const code = text.charCodeAt(at);
    const next = text.charCodeAt(at + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      SUSPECT.lastIndex = at + 2;
      continue;
    }
    return at;
  }
  return -1;
}

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
