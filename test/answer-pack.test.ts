/**
 * Prepared answers from the answer pack (prepare/answer-pack.ts): on every binding, the
 * same bytes as a server without it, the first time (from the store, then kept) and again
 * (from the pack), on SQLite and PostgreSQL; after an import, the new content, not the kept.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import type { Arguments } from '../src/contract/operations.ts';
import { AnswerPack } from '../src/prepare/answer-pack.ts';
import { PackFiller } from '../src/prepare/pack-filler.ts';
import { answerOf, BINDINGS, base64CachePair } from './support/binding-answer.ts';
import { importFolder, scratch } from './support/bundles.ts';
import { changedArticleBundle } from './support/changed-article.ts';
import { DATABASES } from './support/databases.ts';
import { EXTRAS_BUNDLE, type Fixture, REFERENCE_BUNDLE, startFixture } from './support/fixture-server.ts';

const CALLS: ReadonlyArray<[string, Arguments]> = [
  ['getBereich', { bereichID: 1 }],
  ['getCityAppBereich', { cityAppBereichID: 10 }],
  ['getAnhang', { anhangID: 500 }],
  ['getAnhang', { anhangID: 501 }],
  ['checkAnhangVorhanden', { anhangID: 500 }],
  ['getBild', { bildID: 200, width: 0, height: 0, resizeModes: ['standard'] }],
  ['getArtikelDetails', { artikelID: 100 }],
  ['getArtikelDetails', { artikelID: 101 }],
  ['getNewsletter', {}],
  ['getAbonnierteNewsletter', { email: 'anna@example.org' }],
  ['getBereich', { bereichID: 999_999 }],
];

/**
 * An HTTP GET answer's entity tag, and the tag of the bytes it came with (etag.ts: the
 * SHA-256 of the body when it shows no binary streamed from the store).
 */
async function tags(fixture: Fixture, name: string, args: Arguments): Promise<[string | null, string]> {
  const answer = await answerOf(fixture, 'httpget', name, args);
  const [head, ...body] = answer.split('\n');
  const etag = (JSON.parse(head!.slice(head!.indexOf(' ') + 1)) as Array<[string, string]>).find(
    ([header]) => header === 'etag',
  );
  const bytes = Buffer.from(body.join('\n'), 'latin1');
  return [etag?.[1] ?? null, `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`];
}

/** An upsert of image 200 with another caption (its file as before). */
function changedImageBundle(files: ReturnType<typeof scratch>): string {
  const reference = JSON.parse(readFileSync(path.join(REFERENCE_BUNDLE, 'bundle.json'), 'utf8')) as {
    bilder: Array<{ bildID: number; file: string }>;
  };
  const bild = reference.bilder.find((b) => b.bildID === 200)!;
  return files.bundle(
    {
      format: 'scoop-bundle/1',
      mode: 'upsert',
      bilder: [{ ...bild, bildunterschrift: 'Das Rathaus im Herbst' }],
    },
    { [bild.file]: readFileSync(path.join(REFERENCE_BUNDLE, bild.file)) },
  );
}

/** Waits for `done`, failing after 10 s instead of hanging. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    assert.ok(Date.now() < deadline, 'not done within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('prepared answers from the answer pack', () => {
  for (const db of DATABASES) {
    describe(db.name, () => {
      const bundles = () => [REFERENCE_BUNDLE, EXTRAS_BUNDLE];
      const pair = base64CachePair(db, bundles);
      const lookups: string[] = [];
      const errors: unknown[] = [];
      const files = scratch();
      let dir: string;
      let pack: AnswerPack;
      let packed: Fixture;
      before(async () => {
        if (db.skip) return;
        dir = mkdtempSync(path.join(tmpdir(), 'scoop-answer-pack-'));
        pack = AnswerPack.open({
          dir,
          maxBytes: 16 * 1024 * 1024,
          onLookup: (result) => lookups.push(result),
          onError: (error) => errors.push(error),
        });
        packed = await startFixture(
          { base64Cache: pair.cache, answerPack: pack, responseCacheBytes: 0 },
          bundles(),
          db,
        );
      });
      after(async () => {
        await packed?.stop();
        pack?.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      db.test('every binding answers alike with and without the pack, the first time and again', async () => {
        // The third round's HTTP GET answers carry the tags the second one kept with their slots.
        for (const round of ['first', 'again', 'tags kept']) {
          for (const binding of BINDINGS) {
            for (const [name, args] of CALLS) {
              assert.equal(
                await answerOf(packed, binding, name, args),
                await answerOf(pair.plain, binding, name, args),
                `${round}: ${name} ${JSON.stringify(args)} over ${binding}`,
              );
            }
          }
        }
        // Two layouts (compact for SOAP, indented for HTTP) of each answer the store prepared.
        assert.equal(pack.size, 2 * (CALLS.length - 1));
        for (const [name, args] of CALLS.slice(0, -1)) {
          const [sent, ofBytes] = await tags(packed, name, args);
          assert.equal(sent, ofBytes, `${name} ${JSON.stringify(args)}: the tag of its bytes`);
        }
        // Kept for the HTTP GET answers only (one a key), none for SOAP's.
        assert.equal(pack.tagged, CALLS.length - 1);
        const [tag] = await tags(packed, 'getBereich', { bereichID: 1 });
        const url = `${packed.server.url}/scoop/api/v6/public.asmx/getBereich?bereichID=1`;
        const head = await fetch(url, { method: 'HEAD' });
        assert.equal(head.headers.get('etag'), tag, 'HEAD');
        const unchanged = await fetch(url, { headers: { 'if-none-match': tag! } });
        assert.equal(unchanged.status, 304);
        assert.equal(unchanged.headers.get('etag'), tag);
        assert.ok(lookups.includes('miss'), 'the first answers came from the store');
        assert.ok(
          lookups.filter((result) => result === 'hit').length >= 3 * (CALLS.length - 1),
          'the later ones from the pack',
        );
        assert.deepEqual(errors, []);
      });

      db.test(
        'a resized image is kept once made: the same bytes and tag again, on every binding; made again after an import',
        async () => {
          const resized: Arguments = { bildID: 200, width: 40, height: 0, resizeModes: ['standard'] };
          const size = pack.size;
          let looked = 0;
          for (const round of ['made', 'kept']) {
            looked = lookups.length;
            for (const binding of BINDINGS)
              assert.equal(
                await answerOf(packed, binding, 'getBild', resized),
                await answerOf(pair.plain, binding, 'getBild', resized),
                `${round} over ${binding}`,
              );
          }
          // SOAP 1.1 made the compact one, HTTP GET the indented one; the second round found both.
          assert.equal(pack.size, size + 2, 'its two layouts');
          assert.deepEqual(lookups.slice(looked), ['hit', 'hit', 'hit', 'hit']);
          const [sent, ofBytes] = await tags(packed, 'getBild', resized);
          assert.equal(sent, ofBytes, 'the tag of its bytes');
          // An import that changes the image: what was made of the old content is not sent again.
          await importFolder(packed.store, changedImageBundle(files));
          const deadline = Date.now() + 5000;
          while (!(await answerOf(packed, 'soap11', 'getBild', resized)).includes('Herbst')) {
            assert.ok(Date.now() < deadline, 'the new caption within 5 s');
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
          for (const round of ['made', 'kept'])
            for (const binding of BINDINGS)
              assert.match(
                await answerOf(packed, binding, 'getBild', resized),
                /Herbst/,
                `${round} over ${binding}`,
              );
          assert.deepEqual(errors, []);
        },
      );

      db.test('the filler reads every prepared answer into the pack, and again after an import', async () => {
        const fillerDir = mkdtempSync(path.join(tmpdir(), 'scoop-answer-pack-filler-'));
        const ownLookups: string[] = [];
        const own = AnswerPack.open({
          dir: fillerDir,
          maxBytes: 16 * 1024 * 1024,
          onLookup: (result) => ownLookups.push(result),
        });
        const filled: Array<[number, number]> = [];
        const moves: Array<[number, string, number]> = [];
        const fillErrors: unknown[] = [];
        const fixture = await startFixture({ answerPack: own, responseCacheBytes: 0 }, bundles(), db);
        const filler = new PackFiller({
          store: fixture.store,
          pack: own,
          pageSize: 3,
          everyMs: 10,
          onFilled: (version, answers) => filled.push([version, answers]),
          onMoved: (version, move, kept) => moves.push([version, move, kept]),
          onError: (error) => fillErrors.push(error),
        });
        try {
          filler.start();
          const version = await fixture.store.contentVersion();
          await until(() => filler.filledVersion === version);
          const [[, answers]] = filled as [[number, number]];
          assert.ok(answers >= 2 * (CALLS.length - 1), `${answers} answers, both layouts of each`);
          assert.equal(own.size, answers);
          // The filler keeps answers in (operation, key) order, so after an import an answer is
          // in the same slot as before: a tag kept then must not be sent with the new bytes.
          const article: Arguments = { artikelID: 100 };
          for (const time of ['first', 'again']) {
            const [sent, ofBytes] = await tags(fixture, 'getArtikelDetails', article);
            assert.equal(sent, ofBytes, `${time} before the import`);
          }
          for (const binding of BINDINGS)
            for (const [name, args] of CALLS)
              assert.equal(
                await answerOf(fixture, binding, name, args),
                await answerOf(pair.plain, binding, name, args),
                `${name} ${JSON.stringify(args)} over ${binding}`,
              );
          assert.deepEqual(
            ownLookups.filter((result) => result === 'miss').length,
            BINDINGS.length,
            'every answer came from the pack but the unknown id',
          );
          await importFolder(fixture.store, changedArticleBundle(files));
          const next = await fixture.store.contentVersion();
          await until(() => filler.filledVersion === next);
          // Only the changed article's two layouts were dropped and read again.
          assert.deepEqual(moves, [[next, 'advanced', answers - 2]]);
          assert.equal(own.size, answers, 'the same answers, of the new version');
          const missed = ownLookups.length;
          for (const binding of BINDINGS)
            for (const [name, args] of CALLS) {
              const sent = await answerOf(fixture, binding, name, args);
              if (name === 'getArtikelDetails' && args.artikelID === article.artikelID)
                assert.match(sent, /abgesagt/, `the changed article over ${binding}`);
              else
                assert.equal(
                  sent,
                  await answerOf(pair.plain, binding, name, args),
                  `${name} over ${binding}`,
                );
            }
          assert.equal(
            ownLookups.slice(missed).filter((result) => result === 'miss').length,
            BINDINGS.length,
            'after the import too, every answer came from the pack but the unknown id',
          );
          assert.match(await answerOf(fixture, 'httpget', 'getArtikelDetails', article), /abgesagt/);
          for (const time of ['first', 'again']) {
            const [sent, ofBytes] = await tags(fixture, 'getArtikelDetails', article);
            assert.equal(sent, ofBytes, `${time} after the import`);
          }
          assert.deepEqual(fillErrors, []);
        } finally {
          await filler.stop();
          await fixture.stop();
          own.close();
          rmSync(fillerDir, { recursive: true, force: true });
        }
      });

      db.test('after an import the new content is sent, not what the pack kept', async () => {
        const article: Arguments = { artikelID: 100 };
        const before = await answerOf(packed, 'soap11', 'getArtikelDetails', article);
        const [tagBefore] = await tags(packed, 'getArtikelDetails', article);
        assert.deepEqual(await tags(packed, 'getArtikelDetails', article), [tagBefore, tagBefore], 'kept');
        assert.ok(!before.includes('abgesagt'));
        await importFolder(packed.store, changedArticleBundle(files));
        // The store says it has the new version within its watch's interval (20 ms for SQLite).
        const deadline = Date.now() + 5000;
        let after = before;
        while (after === before && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          after = await answerOf(packed, 'soap11', 'getArtikelDetails', article);
        }
        assert.ok(after.includes('abgesagt &lt;wegen Regen&gt; &amp; verschoben'), after);
        assert.equal(await answerOf(packed, 'soap11', 'getArtikelDetails', article), after, 'kept again');
        assert.equal(pack.size, 1, 'the pack holds the new version only');
        // A tag kept for the old version is not the new bytes' tag, and the new one is kept in turn.
        for (const time of ['first', 'again']) {
          const [sent, ofBytes] = await tags(packed, 'getArtikelDetails', article);
          assert.equal(sent, ofBytes, `${time} after the import`);
          assert.notEqual(sent, tagBefore);
        }
        assert.equal(
          await answerOf(packed, 'httpget', 'getBereich', { bereichID: 1 }),
          await answerOf(pair.plain, 'httpget', 'getBereich', { bereichID: 1 }),
        );
      });
    });
  }
});
