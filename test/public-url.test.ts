/**
 * `scoop serve --public-url` as an operator runs it: the setting reaches the WSDL of every
 * endpoint (any letter case of `?wsdl`), without its trailing slash, and wins over the
 * request's Host and a trusted proxy's X-Forwarded-* headers; a malformed one stops
 * `serve` before it listens.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ENDPOINTS } from '../src/contract/operations.ts';
import { getFresh, listeningUrl, serveProcesses } from './support/serve-process.ts';

const serves = serveProcesses();
const dir = mkdtempSync(path.join(tmpdir(), 'scoop-public-url-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('WSDL addresses use --public-url, without its trailing slash', async () => {
  const serve = serves.start(
    ['--port', '0', '--db', path.join(dir, 'scoop.db'), '--public-url', 'https://api.example.org/cms/'],
    { SCOOP_TRUST_PROXY: 'on' },
  );
  const url = String((await listeningUrl(serve)).url);
  const proxied = { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'internal.example:8080' };
  for (const endpoint of ENDPOINTS) {
    const wsdl = await getFresh(`${url}${endpoint.path}?WsDl`, proxied);
    assert.equal(wsdl.status, 200, `${endpoint.path}?WsDl`);
    assert.match(String(wsdl.headers['content-type']), /^text\/xml/);
    const addresses = [...wsdl.body.matchAll(/<(soap|soap12|http):address location="([^"]*)" \/>/g)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    const expected = `https://api.example.org/cms${endpoint.path}`;
    assert.deepEqual(addresses, [
      `soap ${expected}`,
      `soap12 ${expected}`,
      `http ${expected}`,
      `http ${expected}`,
    ]);
  }
  serve.child.kill('SIGTERM');
  assert.equal(await serve.exited, 0);
});

test('a malformed public URL stops serve with a message naming the setting', async () => {
  const serve = serves.start(['--port', '0', '--db', path.join(dir, 'refused.db')], {
    SCOOP_PUBLIC_URL: 'api.example.org/cms',
  });
  assert.equal(await serve.exited, 2);
  assert.match(serve.stderr(), /SCOOP_PUBLIC_URL \(--public-url\) must be an http\(s\) URL/);
  assert.equal(serve.lines.length, 0, 'never listened');
});
