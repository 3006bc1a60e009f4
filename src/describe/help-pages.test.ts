import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HtmlValidate } from 'html-validate';
import { ENDPOINTS, OPERATIONS } from '../contract/operations.ts';
import { escapeHtml } from '../xml/escape.ts';
import { endpointPage, indexPage, operationPage, refusalPage } from './help-pages.ts';
import { html } from './html.ts';

const NS = 'http://scoop.example.org/api';
const validator = new HtmlValidate({ extends: ['html-validate:recommended'] });

async function assertValid(name: string, page: string): Promise<void> {
  const report = await validator.validateString(page);
  const messages = report.results.flatMap((r) =>
    r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId}: ${m.message}`),
  );
  assert.deepEqual(messages, [], `${name} is not valid HTML`);
}

test('the index, endpoint and operation pages are valid HTML', async () => {
  await assertValid('index', indexPage());
  for (const endpoint of ENDPOINTS) await assertValid(endpoint.path, endpointPage(endpoint, true));
  for (const op of OPERATIONS) await assertValid(op.name, operationPage(op, NS, true));
});

test('every operation page has samples for the four bindings and a test form posting to the operation', () => {
  for (const op of OPERATIONS) {
    const page = operationPage(op, NS, true);
    for (const title of ['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST'])
      assert.ok(page.includes(`<h3>${title}</h3>`));
    assert.ok(page.includes(`action="${op.endpoint.path}/${op.name}"`));
    assert.equal(page.includes('name="token"'), op.endpoint.requiresToken, `${op.name} token field`);
    for (const p of op.params) assert.ok(page.includes(`name="${p.name}"`));
  }
});

test('with SCOOP_HTTP_AUTH=off the pages say HTTP needs no token, and the test form asks for none', async () => {
  for (const endpoint of ENDPOINTS) {
    const page = endpointPage(endpoint, false);
    await assertValid(endpoint.path, page);
    assert.equal(page.includes('no token needed on this server'), endpoint.requiresToken, endpoint.path);
    assert.equal(page.includes('Authorization: Bearer'), false, endpoint.path);
    assert.equal(endpointPage(endpoint, true).includes('no token needed on this server'), false);
  }
  for (const op of OPERATIONS) {
    const page = operationPage(op, NS, false);
    await assertValid(op.name, page);
    assert.equal(page.includes('name="token"'), false, `${op.name} token field`);
    assert.equal(page.includes('<code>SCOOP_HTTP_AUTH=off</code>'), op.endpoint.requiresToken, op.name);
    if (op.endpoint.requiresToken) assert.ok(page.includes('the <code>wsAuthHeader</code> header'), op.name);
  }
});

test('a namespace with markup in it is escaped, never inserted raw', () => {
  const page = operationPage(OPERATIONS[0]!, 'urn:x"><script>alert(1)</script>', true);
  assert.ok(!page.includes('<script>alert(1)'));
  assert.ok(page.includes('&lt;script&gt;alert(1)'));
});

test('escapeHtml and the html template escape all five special characters', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  assert.equal(html`<p>${'<b>'}</p>`.text, '<p>&lt;b&gt;</p>');
});

test('the index has a header and says which endpoints need a token', () => {
  const page = indexPage();
  assert.match(page, /<header>\s*<h1>scoop<\/h1>\s*<p>[^<]+<\/p>\s*<\/header>/);
  for (const endpoint of ENDPOINTS) {
    const row = page.split('<tr>').find((r) => r.includes(`<a href="${endpoint.path}">`));
    assert.ok(row, endpoint.path);
    assert.ok(row.includes(endpoint.requiresToken ? 'token required' : 'public'), `${endpoint.path}: ${row}`);
  }
});

test('each parameter row shows its meaning and range from the contract', () => {
  for (const op of OPERATIONS) {
    const page = operationPage(op, NS, true);
    for (const p of op.params) {
      const doc = (op.paramDocs as Record<string, string>)[p.name];
      assert.ok(doc, `${op.name}.${p.name} has a description in the contract`);
      assert.ok(page.includes(escapeHtml(doc)), `${op.name}.${p.name}: description shown`);
    }
  }
  const getBild = OPERATIONS.find((op) => op.name === 'getBild')!;
  const page = operationPage(getBild, NS, true);
  assert.match(page, /<td><code>width<\/code><\/td><td>[^<]*<\/td><td>[^<]*0 to [^<]*4096/);
  assert.match(page, /0 for both returns the image as stored/);
  for (const mode of ['standard', 'crop', 'fit', 'stretch', 'background']) assert.ok(page.includes(mode));
});

test('a refusal page for a browser names the catalogue code and is valid HTML', async () => {
  const page = refusalPage('UNKNOWN_OPERATION', 'The operation <x> is not offered at /a.');
  assert.ok(page.includes('<code>UNKNOWN_OPERATION</code>'));
  assert.ok(page.includes('The operation &lt;x&gt; is not offered at /a.'));
  await assertValid('refusal', page);
});

test('with SCOOP_HTTP_AUTH=off the index says HTTP GET/POST need no token', async () => {
  const page = indexPage(false);
  await assertValid('index, HTTP auth off', page);
  assert.match(page, /over HTTP GET\/POST no token is needed on this server/);
  assert.match(page, /token required for SOAP/);
});
