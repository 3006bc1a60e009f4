/** HTML building for the help pages: every inserted value goes through `escapeHtml`. */

import { escapeHtml } from '../xml/escape.ts';

/** A tagged template that escapes every interpolated value unless it is already `Html`. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export function html(
  strings: TemplateStringsArray,
  ...values: ReadonlyArray<string | number | Html | readonly Html[]>
): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    if (value instanceof Html) out += value.text;
    else if (Array.isArray(value)) out += value.map((v: Html) => v.text).join('');
    else out += escapeHtml(String(value));
    out += strings[i + 1]!;
  });
  return new Html(out);
}

export const ASSET_PREFIX = '/_scoop/';

export function page(title: string, body: Html): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${ASSET_PREFIX}help.css">
<script src="${ASSET_PREFIX}help.js" defer></script>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.text;
}

/**
 * Pages load only their own stylesheet and script, and the script may only call this
 * service: no inline script or style can run even if something slipped through escaping.
 */
export const HELP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
