/**
 * `scoop serve --public-url` as an operator runs it: the setting reaches the WSDL of every
 * endpoint (any letter case of `?wsdl`), without its trailing slash, and wins over the
 * request's Host and a trusted proxy's X-Forwarded-* headers; a malformed one stops
 * `serve` before it listens. Serving beyond loopback without it logs a warning at start.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { publicUrlWarning } from '../src/cli/serve-command.ts';
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

test('serving on a non-loopback address without a public URL logs a warning at start', async () => {
  const warned = (line: { msg?: unknown }) => /without SCOOP_PUBLIC_URL/.test(String(line.msg));
  const open = serves.start(['--host', '0.0.0.0', '--port', '0', '--db', path.join(dir, 'open.db')]);
  await listeningUrl(open);
  const warning = open.lines.find(warned);
  assert.ok(warning, 'a warning line');
  assert.equal(warning.level, 'warn');
  assert.match(
    String(warning.msg),
    /serving on 0\.0\.0\.0 without SCOOP_PUBLIC_URL: WSDL and DISCO addresses follow/,
  );
  open.child.kill('SIGTERM');
  assert.equal(await open.exited, 0);

  const fixed = serves.start(['--host', '0.0.0.0', '--port', '0', '--db', path.join(dir, 'open.db')], {
    SCOOP_PUBLIC_URL: 'https://api.example.org',
  });
  await listeningUrl(fixed);
  assert.equal(fixed.lines.find(warned), undefined, 'no warning with SCOOP_PUBLIC_URL');
  fixed.child.kill('SIGTERM');
  assert.equal(await fixed.exited, 0);
});

test('the warning is for addresses beyond loopback only', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LocalHost', '::1', '[::1]'])
    assert.equal(publicUrlWarning(host, undefined), undefined, host);
  for (const host of ['0.0.0.0', '::', '192.0.2.7', 'scoop.internal', '127.0.0.1.example'])
    assert.match(publicUrlWarning(host, undefined) ?? '', /without SCOOP_PUBLIC_URL/, host);
  assert.equal(publicUrlWarning('0.0.0.0', 'https://api.example.org'), undefined);
});
