/**
 * Whole answers are reused until the content changes, and never past what makes them
 * right: the token (checked again on every hit), the content version, and an article's
 * visibility window. Every case runs twice: answers kept in memory, and answers kept only in
 * the file tier (server/answer-file.ts), with a memory budget too small to keep any.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hashToken } from '../src/auth/tokens.ts';
import { AnswerFile } from '../src/server/answer-file.ts';
import { importFolder } from '../src/store/import.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

const bundles = mkdtempSync(path.join(tmpdir(), 'scoop-rc-'));
after(() => rmSync(bundles, { recursive: true, force: true }));

let named = 0;
function bundle(name: string, json: object): string {
  const folder = path.join(bundles, `${name}-${++named}`);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'bundle.json'), JSON.stringify({ format: 'scoop-bundle/1', ...json }));
  return folder;
}

const auth = { authorization: `Bearer ${REFERENCE_TOKEN}` };

for (const tier of ['memory', 'file'] as const) {
  describe(`answers kept in ${tier}`, () => {
    let fixture: Fixture;
    let clock = Date.parse('2026-11-22T12:00:00Z');
    let file: AnswerFile | undefined;
    /** Answers the file tier gave. */
    let fromFile = 0;

    before(async () => {
      if (tier === 'file') {
        file = AnswerFile.open({ dir: bundles, maxBytes: 1024 * 1024, keepShare: 1 });
        const get = file.get.bind(file);
        file.get = (...args) => {
          const found = get(...args);
          if (found) fromFile++;
          return found;
        };
      }
      // An entry counts at least 2 KiB, and no entry over a quarter of the budget is kept.
      fixture = await startFixture({
        now: () => clock,
        ...(tier === 'file' ? { responseCacheBytes: 4096, answerFile: file } : {}),
      });
    });
    after(async () => {
      await fixture.stop();
      file?.close();
    });

    const base = () => fixture.server.url;
    /** The file tier answered `expected` more requests during `run`. */
    async function fromFileDuring(expected: number, run: () => Promise<void>): Promise<void> {
      const before = fromFile;
      await run();
      assert.equal(fromFile - before, tier === 'file' ? expected : 0);
    }

    test('a repeated request gets the same bytes, and a new import is seen at once', async () => {
      const url = `${base()}/scoop/api/v6/public.asmx/getBereich?bereichID=1`;
      const first = await (await fetch(url)).text();
      assert.equal(await (await fetch(url)).text(), first);
      await importFolder(
        fixture.store,
        bundle('rename', { bereiche: [{ bereichID: 1, name: 'Neu benannt' }] }),
      );
      assert.match(await (await fetch(url)).text(), /<name>Neu benannt<\/name>/);
    });

    test('an answer kept is sent as it was made, head and body, on every binding', async () => {
      const soap = (version: '1.1' | '1.2'): RequestInit => {
        const ns =
          version === '1.1'
            ? 'http://schemas.xmlsoap.org/soap/envelope/'
            : 'http://www.w3.org/2003/05/soap-envelope';
        return {
          method: 'POST',
          headers:
            version === '1.1'
              ? {
                  'content-type': 'text/xml; charset=utf-8',
                  soapaction: '"http://scoop.example.org/api/getCityAppBereich"',
                }
              : { 'content-type': 'application/soap+xml; charset=utf-8' },
          body:
            `<soap:Envelope xmlns:soap="${ns}"><soap:Header>` +
            `<wsAuthHeader xmlns="http://scoop.example.org/api"><token>${REFERENCE_TOKEN}</token></wsAuthHeader></soap:Header>` +
            '<soap:Body><getCityAppBereich xmlns="http://scoop.example.org/api"><cityAppBereichID>10</cityAppBereichID>' +
            '</getCityAppBereich></soap:Body></soap:Envelope>',
        };
      };
      const calls: [string, RequestInit][] = [
        ['/scoop/api/v7/scoop.asmx', soap('1.1')],
        ['/scoop/api/v7/scoop.asmx', soap('1.2')],
        ['/scoop/api/v7/scoop.asmx/getCityAppBereich?cityAppBereichID=10', { headers: auth }],
        [
          '/scoop/api/v7/scoop.asmx/getCityAppBereich',
          {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
            body: 'cityAppBereichID=10',
          },
        ],
      ];
      const seen = async (response: Response) => {
        const headers = Object.fromEntries(
          [...response.headers].filter(([name]) => name !== 'x-request-id' && name !== 'date'),
        );
        return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()) };
      };
      for (const [where, init] of calls) {
        const first = await seen(await fetch(`${base()}${where}`, init));
        assert.equal(first.status, 200, where);
        // Kept at its second request (ResponseCache.admits), sent from the cache at its third.
        assert.deepEqual(await seen(await fetch(`${base()}${where}`, init)), first);
        await fromFileDuring(1, async () => {
          assert.deepEqual(await seen(await fetch(`${base()}${where}`, init)), first);
        });
      }
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
      let refused: Response | undefined;
      // Found in the cache, then refused: the token is checked on every hit.
      await fromFileDuring(1, async () => {
        refused = await call();
      });
      if (refused === undefined) throw new Error('no answer');
      assert.equal(refused.status, 500);
      assert.match(await refused.text(), /AUTH_FAILED/);
    });

    test('an article answer is not reused after its visibility window closes', async () => {
      await importFolder(
        fixture.store,
        bundle('window', {
          artikel: [
            { artikelID: 300, text: 'Bald vorbei', bereiche: [1], sichtbarBis: '2026-11-22T12:00:10Z' },
          ],
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
      await (await fetch(url)).text();
      const tag = first.headers.get('etag')!;
      await fromFileDuring(2, async () => {
        const kept = await fetch(url);
        assert.equal(kept.headers.get('etag'), tag);
        assert.equal((await kept.text()).length, Number(first.headers.get('content-length')));
        assert.equal((await fetch(url, { headers: { 'if-none-match': tag } })).status, 304);
      });
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
  });
}
