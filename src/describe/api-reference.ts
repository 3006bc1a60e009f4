/**
 * The JSON API's reference page for people, at `/api/v1/`: Swagger UI (the swagger-ui-dist
 * package, served by scoop itself from memory, never from a CDN) reading the OpenAPI
 * document. Its script and stylesheet load from `/_scoop/` like the help pages' own, and
 * the page runs under the same Content-Security-Policy: no inline script or style, and
 * calls ("Try it out") only to this service. `validatorUrl: null` keeps Swagger UI from
 * asking an outside validator about the document.
 */
import { API_PREFIX } from '../protocol/json/routes.ts';
import { ASSET_PREFIX, html } from './html.ts';

export const API_REFERENCE_PATH = `${API_PREFIX}/`;

export const REFERENCE_ASSETS = {
  css: `${ASSET_PREFIX}swagger-ui.css`,
  bundle: `${ASSET_PREFIX}swagger-ui-bundle.js`,
  init: `${ASSET_PREFIX}api-reference.js`,
} as const;

export function apiReferencePage(): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>scoop JSON API — reference</title>
<link rel="stylesheet" href="${REFERENCE_ASSETS.css}">
<script src="${REFERENCE_ASSETS.bundle}" defer></script>
<script src="${REFERENCE_ASSETS.init}" defer></script>
</head>
<body>
<div id="reference"></div>
<noscript><p>This reference needs JavaScript; the API is described by <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p></noscript>
</body>
</html>
`.text;
}

/** Starts Swagger UI on the document beside the page (relative, so it works behind a path prefix too). */
export const API_REFERENCE_JS = `'use strict';
window.addEventListener('DOMContentLoaded', () => {
  SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
  });
});
`;

export interface ReferenceImage {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

/** A CSS `url(…)`: double- or single-quoted (with backslash escapes), or bare. */
const CSS_URL = /url\(\s*(?:"((?:\\.|[^"\\])*)"|'((?:\\.|[^'\\])*)'|([^)'"\s]+))\s*\)/g;
const DATA_URL = /^data:([^;,]+)((?:;[^;,]*)*),([\s\S]*)$/;

function dataBytes(params: string, data: string): Buffer {
  if (params.split(';').includes('base64')) return Buffer.from(data, 'base64');
  try {
    return Buffer.from(decodeURIComponent(data), 'utf8');
  } catch {
    return Buffer.from(data, 'utf8');
  }
}

/**
 * Swagger UI's stylesheet draws its icons from `data:` URLs, which the help pages' CSP
 * (`img-src 'self'`) refuses: each becomes a file of its own under `/_scoop/swagger-ui/`,
 * served from memory like the rest, and the stylesheet points there instead.
 */
export function imagesAsAssets(css: string): { css: string; images: ReferenceImage[] } {
  const images: ReferenceImage[] = [];
  const byUrl = new Map<string, string>();
  const rewritten = css.replace(CSS_URL, (whole: string, double?: string, single?: string, bare?: string) => {
    const url = (double ?? single ?? bare ?? '').replace(/\\(["'\\])/g, '$1');
    const data = DATA_URL.exec(url);
    if (!data) return whole;
    let path = byUrl.get(url);
    if (path === undefined) {
      const [, type = '', params = '', content = ''] = data;
      const extension = type.split('/')[1]!.split('+')[0]!;
      path = `${ASSET_PREFIX}swagger-ui/${images.length}.${extension}`;
      images.push({ path, contentType: type, body: dataBytes(params, content) });
      byUrl.set(url, path);
    }
    return `url("${path}")`;
  });
  return { css: rewritten, images };
}
