/**
 * Help pages for people: an index of the endpoints, one page per endpoint listing its
 * operations, and one page per operation with its parameters, sample messages for each
 * registered binding and a test form that calls the operation through HTTP POST.
 */
import { ENDPOINTS, type Endpoint, type Operation, operationsAt } from '../contract/operations.ts';
import type { Field } from '../contract/schema.ts';
import { API_PREFIX, OPENAPI_PATH } from '../protocol/json/routes.ts';
import { API_REFERENCE_PATH } from './api-reference.ts';
import { type Html, html, page } from './html.ts';
import { samples } from './samples.ts';

function typeDescription(param: Field): string {
  const type = param.type;
  if (type.kind === 'array' && type.item.kind === 'enum') {
    return `list of ${type.item.name} (${type.item.values.join(', ')}); repeat the field or separate with commas`;
  }
  if (type.kind === 'scalar') return type.name === 'int' ? 'int (xs:int)' : type.name;
  return type.name;
}

function paramDoc(operation: Operation, param: Field): string {
  return (operation.paramDocs as Readonly<Record<string, string>>)[param.name] ?? '';
}

/** `httpAuth`: whether HTTP GET/POST calls need the token too (`SCOOP_HTTP_AUTH`). */
function tokenNote(endpoint: Endpoint, httpAuth: boolean): Html {
  if (!endpoint.requiresToken) return html`<p><span class="badge">public</span> No token needed.</p>`;
  return httpAuth
    ? html`<p><span class="badge">token required</span> SOAP: the <code>wsAuthHeader</code> header; HTTP GET/POST: <code>Authorization: Bearer &lt;token&gt;</code> (or a <code>token</code> form field on POST).</p>`
    : html`<p><span class="badge">token required for SOAP</span> SOAP: the <code>wsAuthHeader</code> header. HTTP GET/POST: no token needed on this server (<code>SCOOP_HTTP_AUTH=off</code>).</p>`;
}

function access(endpoint: Endpoint, httpAuth: boolean): Html {
  if (!endpoint.requiresToken) return html`<span class="badge">public</span>`;
  return httpAuth
    ? html`<span class="badge">token required</span>`
    : html`<span class="badge">token required for SOAP</span>`;
}

/** `httpAuth`: whether HTTP GET/POST calls need the token too (`SCOOP_HTTP_AUTH`). */
export function indexPage(httpAuth = true): string {
  const rows = ENDPOINTS.map(
    (e) =>
      html`<tr><td><a href="${e.path}">${e.path}</a></td><td>${access(e, httpAuth)}</td><td>${operationsAt(e).map((op) => html`<a href="${e.path}?op=${op.name}">${op.name}</a> `)}</td><td><a href="${e.path}?wsdl">WSDL</a></td></tr>`,
  );
  return page(
    'scoop — published CMS content',
    html`<header>
<h1>scoop</h1>
<p>Read-only web service for published CMS content (areas, articles, images, attachments, newsletters), over SOAP 1.1, SOAP 1.2, HTTP GET and HTTP POST, and as JSON.</p>
</header>
${
  httpAuth
    ? html`<p><code>scoop.asmx</code> endpoints need a token: in SOAP the <code>wsAuthHeader</code> header, over HTTP GET/POST <code>Authorization: Bearer &lt;token&gt;</code>. <code>public.asmx</code> needs none.</p>`
    : html`<p><code>scoop.asmx</code> endpoints need a token in SOAP (the <code>wsAuthHeader</code> header); over HTTP GET/POST no token is needed on this server (<code>SCOOP_HTTP_AUTH=off</code>). <code>public.asmx</code> needs none.</p>`
}
<table><thead><tr><th>Endpoint</th><th>Access</th><th>Operations</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>
<h2>JSON API</h2>
<p>The same operations as JSON under <code>${API_PREFIX}</code>, with images and attachments as plain files: the <a href="${API_REFERENCE_PATH}">API reference</a> and its <a href="${OPENAPI_PATH}">OpenAPI document</a>. Tokens go in <code>Authorization: Bearer &lt;token&gt;</code> there too.</p>`,
  );
}

/** A refusal of a help-page request, for a browser: the same status and catalogue code as the XML one. */
export function refusalPage(code: string, message: string): string {
  return page(
    `${code} — scoop`,
    html`<p><a href="/">All endpoints</a></p>
<h1>Not found</h1>
<p><code>${code}</code>: ${message}</p>`,
  );
}

export function endpointPage(endpoint: Endpoint, httpAuth: boolean): string {
  const items = operationsAt(endpoint).map(
    (op) => html`<li><a href="${endpoint.path}?op=${op.name}">${op.name}</a>: ${op.purpose}</li>`,
  );
  return page(
    `${endpoint.serviceName} v${endpoint.version}`,
    html`<p><a href="/">All endpoints</a></p>
<h1>${endpoint.serviceName} Web Service (v${endpoint.version})</h1>
<p><code>${endpoint.path}</code> — <a href="${endpoint.path}?wsdl">Service description (WSDL)</a></p>
${tokenNote(endpoint, httpAuth)}
<h2>Operations</h2>
<ul>${items}</ul>`,
  );
}

function testForm(operation: Operation, httpAuth: boolean): Html {
  const { endpoint } = operation;
  const fields = operation.params.map((p) => {
    const numeric = p.type.kind === 'scalar' && p.type.name === 'int';
    const attributes = numeric ? html` inputmode="numeric"` : html``;
    return html`<label>${p.name} <span class="hint">${typeDescription(p)}</span><input type="text" name="${p.name}"${attributes}></label>`;
  });
  // The form calls the operation through HTTP POST, which needs no token when httpAuth is off.
  const token =
    endpoint.requiresToken && httpAuth
      ? html`<label>token <span class="hint">sent as the token form field</span><input type="text" name="token" autocomplete="off"></label>`
      : html``;
  return html`<form id="test-form" method="post" action="${endpoint.path}/${operation.name}">
${fields}${token}
<button type="submit">Invoke</button>
</form>
<pre id="test-result" hidden></pre>`;
}

export function operationPage(operation: Operation, namespace: string, httpAuth: boolean): string {
  const { endpoint } = operation;
  const params =
    operation.params.length === 0
      ? html`<p>No parameters.</p>`
      : html`<table><thead><tr><th>Parameter</th><th>Type</th><th>Meaning and range</th></tr></thead><tbody>${operation.params.map(
          (p) =>
            html`<tr><td><code>${p.name}</code></td><td>${typeDescription(p)}</td><td>${paramDoc(operation, p)}</td></tr>`,
        )}</tbody></table>`;
  const sampleSections = samples(operation, namespace, endpoint.path).map(
    (s) => html`<h3>${s.title}</h3>
<p>Request (replace the placeholders with values):</p>
<pre><code>${s.request}</code></pre>
<p>Response:</p>
<pre><code>${s.response}</code></pre>`,
  );
  return page(
    `${operation.name} — ${endpoint.serviceName} v${endpoint.version}`,
    html`<p><a href="${endpoint.path}">${endpoint.serviceName} v${endpoint.version}</a></p>
<h1>${operation.name}</h1>
<p>${operation.purpose}.</p>
${tokenNote(endpoint, httpAuth)}
<h2>Parameters</h2>
${params}
<h2>Test</h2>
${testForm(operation, httpAuth)}
<h2>Sample messages</h2>
${sampleSections}`,
  );
}
