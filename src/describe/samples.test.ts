/**
 * The help pages' sample messages equal the original's (test/fixtures/reference/help,
 * Mono's "Message Layout" tab) block by block, except for the differences documented in
 * docs/wsdl.md, which the test applies to the reference explicitly. The original's pages
 * have no SOAP 1.2 sample; ours must be its SOAP 1.1 sample in SOAP 1.2 form.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { OPERATIONS } from '../contract/operations.ts';
import { escapeHtml } from '../xml/escape.ts';
import { operationPage } from './help-pages.ts';
import { samples } from './samples.ts';

const REFERENCE = path.resolve('test/fixtures/reference/help');
const REFERENCE_NS = 'http://scoop.example.org/api';
/** Ours are generated for another namespace, so a namespace written into samples.ts would show. */
const NS = 'urn:scoop:samples-test';

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&nbsp;': ' ' };

/** The text of each code panel of a reference page, in page order. */
function referenceBlocks(operation: string): string[] {
  const page = readFileSync(path.join(REFERENCE, `${operation}.msg.soap.html`), 'utf8');
  return [...page.matchAll(/<div class="codePanel"><div class="code-xml">([\s\S]*?)<\/div><\/div>/g)].map(
    (m) =>
      m[1]!
        .replaceAll('<br>', '\n')
        .replace(/<[^>]*>/g, '')
        .replace(/&(?:lt|gt|amp|nbsp);/g, (entity) => ENTITIES[entity]!),
  );
}

/** docs/wsdl.md, "Help pages": what scoop's samples say differently, and why. */
function withDocumentedDifferences(block: string, requiresToken: boolean): string {
  let out = block
    // The original's pages claim utf-16; both it and scoop send utf-8.
    .replaceAll('encoding="utf-16"', 'encoding="utf-8"')
    // scoop answers HTTP/1.1; the original's front end rewrote status lines to HTTP/1.0.
    .replace(/^HTTP\/1\.0 200 OK$/m, 'HTTP/1.1 200 OK');
  // HTTP GET/POST of scoop.asmx operations need a token.
  if (requiresToken && /^(GET|POST) \S+\.asmx\/\w+/.test(out)) {
    out = out.replace(/^Host: string$/m, 'Host: string\nAuthorization: Bearer string');
  }
  return out;
}

/** The SOAP 1.2 form of a SOAP 1.1 sample, as the .NET pages write it: no SOAPAction header. */
function asSoap12(block: string): string {
  return block
    .replace(/^SOAPAction: .*\n/m, '')
    .replaceAll('Content-Type: text/xml;', 'Content-Type: application/soap+xml;')
    .replaceAll(
      'xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"',
      'xmlns:soap12="http://www.w3.org/2003/05/soap-envelope"',
    )
    .replace(/<(\/?)soap:/g, '<$1soap12:');
}

for (const operation of OPERATIONS) {
  test(`samples of ${operation.name} match the original's help page`, () => {
    const reference = referenceBlocks(operation.name).map((b) =>
      withDocumentedDifferences(b, operation.endpoint.requiresToken),
    );
    assert.equal(reference.length, 6, 'Soap, HTTP Get and HTTP Post: request and response each');
    const [soapRequest, soapResponse, getRequest, getResponse, postRequest, postResponse] = reference;
    const ours = samples(operation, NS, operation.endpoint.path).map((s) => ({
      title: s.title,
      request: s.request.replaceAll(NS, REFERENCE_NS),
      response: s.response.replaceAll(NS, REFERENCE_NS),
    }));
    assert.deepEqual(ours, [
      { title: 'SOAP 1.1', request: soapRequest, response: soapResponse },
      { title: 'SOAP 1.2', request: asSoap12(soapRequest!), response: asSoap12(soapResponse!) },
      { title: 'HTTP GET', request: getRequest, response: getResponse },
      { title: 'HTTP POST', request: postRequest, response: postResponse },
    ]);
  });
}

test('the operation page shows every sample, escaped', () => {
  for (const operation of OPERATIONS) {
    const page = operationPage(operation, REFERENCE_NS, true);
    for (const s of samples(operation, REFERENCE_NS, operation.endpoint.path)) {
      assert.ok(
        page.includes(`<pre><code>${escapeHtml(s.request)}</code></pre>`),
        `${operation.name} ${s.title}`,
      );
      assert.ok(
        page.includes(`<pre><code>${escapeHtml(s.response)}</code></pre>`),
        `${operation.name} ${s.title}`,
      );
    }
  }
});
