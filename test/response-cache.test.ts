/**
 * Whole answers are reused until the content changes, and never past what makes them
 * right: the token (checked again on every hit), the content version, and an article's
 * visibility window.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { hashToken } from '../src/auth/tokens.ts';
import { importFolder } from '../src/store/import.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

let fixture: Fixture;
let clock = Date.parse('2026-11-22T12:00:00Z');
const bundles = mkdtempSync(path.join(tmpdir(), 'scoop-rc-'));

function bundle(name: string, json: object): string {
  const folder = path.join(bundles, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'bundle.json'), JSON.stringify({ format: 'scoop-bundle/1', ...json }));
  return folder;
}

before(async () => {
  fixture = await startFixture({ now: () => clock });
});
after(async () => {
  await fixture.stop();
  rmSync(bundles, { recursive: true, force: true });
});

const base = () => fixture.server.url;
const auth = { authorization: `Bearer ${REFERENCE_TOKEN}` };

test('a repeated request gets the same bytes, and a new import is seen at once', async () => {
  const url = `${base()}/scoop/api/v6/public.asmx/getBereich?bereichID=1`;
  const first = await (await fetch(url)).text();
  assert.equal(await (await fetch(url)).text(), first);
  await importFolder(fixture.store, bundle('rename', { bereiche: [{ bereichID: 1, name: 'Neu benannt' }] }));
  assert.match(await (await fetch(url)).text(), /<name>Neu benannt<\/name>/);
});

test('a cached answer is not given to a request with another or no token', async () => {
  const url = `${base()}/scoop/api/v7/scoop.asmx/getCityAppBereich?cityAppBereichID=10`;
  assert.equal((await fetch(url, { headers: auth })).status, 200);
  assert.equal((await fetch(url, { headers: auth })).status, 200);
  assert.equal((await fetch(url)).status, 401);
  const wrong = { authorization: 'Bearer 22222222-2222-2222-2222-222222222222' };
  assert.equal((await fetch(url, { headers: wrong })).status, 401);
});

test('a token revoked after its answer was cached is refused on the next request', async () => {
  const token = '33333333-3333-3333-3333-333333333333';
  await fixture.store.addToken(hashToken(token), 'temp', new Date().toISOString());
  const envelope =
    '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header>' +
    `<wsAuthHeader xmlns="http://scoop.example.org/api"><token>${token}</token></wsAuthHeader></soap:Header>` +
    '<soap:Body><getCityAppBereich xmlns="http://scoop.example.org/api"><cityAppBereichID>10</cityAppBereichID>' +
    '</getCityAppBereich></soap:Body></soap:Envelope>';
  const call = () =>
    fetch(`${base()}/scoop/api/v7/scoop.asmx`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8' },
      body: envelope,
    });
  assert.equal((await call()).status, 200);
  assert.equal((await call()).status, 200);
  await fixture.store.revokeToken(hashToken(token), new Date().toISOString());
  const refused = await call();
  assert.equal(refused.status, 500);
  assert.match(await refused.text(), /AUTH_FAILED/);
});

test('an article answer is not reused after its visibility window closes', async () => {
  await importFolder(
    fixture.store,
    bundle('window', {
      artikel: [{ artikelID: 300, text: 'Bald vorbei', bereiche: [1], sichtbarBis: '2026-11-22T12:00:10Z' }],
    }),
  );
  const url = `${base()}/scoop/api/v6/scoop.asmx/getArtikelDetails?artikelID=300`;
  assert.equal((await fetch(url, { headers: auth })).status, 200);
  assert.equal((await fetch(url, { headers: auth })).status, 200);
  clock = Date.parse('2026-11-22T12:00:11Z');
  assert.equal((await fetch(url, { headers: auth })).status, 404);
});

test('conditional GETs and HEAD work on cached answers', async () => {
  const url = `${base()}/scoop/api/v6/public.asmx/getBereich?bereichID=2`;
  const first = await fetch(url);
  await first.text();
  const tag = first.headers.get('etag')!;
  const again = await fetch(url, { headers: { 'if-none-match': tag } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get('etag'), tag);
  const head = await fetch(url, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-length'), first.headers.get('content-length'));
});

test('refusals are never cached', async () => {
  const url = `${base()}/scoop/api/v6/public.asmx/getBereich?bereichID=77`;
  assert.equal((await fetch(url)).status, 404);
  await importFolder(fixture.store, bundle('add77', { bereiche: [{ bereichID: 77, name: 'Sieben' }] }));
  assert.equal((await fetch(url)).status, 200);
});
