/**
 * The handlers against a real store, each database in turn: what bundle-format.md
 * promises readers (visibility window, public newsletters, e-mail matching, list order)
 * and getBild's bounds.
 */
import assert from 'node:assert/strict';
import { before, describe } from 'node:test';
import sharp from 'sharp';
import { bundleJson, importFolder, pattern, scratch } from '../../test/support/bundles.ts';
import { DATABASES, type TestDatabase } from '../../test/support/databases.ts';
import { type ErrorCode, ScoopError } from '../contract/errors.ts';
import type { ArgumentsOf, OperationName, ResultOf } from '../contract/operations.ts';
import type { Anhang, ArtikelDetails } from '../contract/types.ts';
import { ImageService } from '../images/image-service.ts';
import type { ContentStore } from '../store/content-store.ts';
import type { ServiceContext } from './handlers.ts';
import { handle } from './invoke.ts';

const s = scratch();
const MAX_DIMENSION = 800;
const VON = Date.parse('2026-03-01T08:00:00Z');
const BIS = Date.parse('2026-03-31T18:00:00Z');
const NOW = Date.parse('2026-03-15T12:00:00Z');
const ATTACHMENT = Buffer.from('Tagesordnung für März – öffentlich\n', 'utf8');
const LARGE = pattern(700_000, 3);

let PNG: Buffer;
/** The bundle every database is loaded with. */
let bundleFolder: string;

before(async () => {
  PNG = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const bundle = bundleJson({
    bereiche: [1, 2, 3].map((id) => ({ bereichID: id, name: `Bereich ${id}` })),
    cityAppBereiche: [10, 11].map((id) => ({ cityAppBereichID: id, name: `City ${id}` })),
    anhaenge: [
      {
        anhangID: 500,
        file: 'files/to.txt',
        filename: 'to.txt',
        name: 'Tagesordnung',
        mimetype: 'text/plain',
        sort: 2,
      },
      { anhangID: 501, file: 'files/gross.bin', filename: 'gross.bin', sort: 1 },
    ],
    bilder: [
      {
        bildID: 200,
        file: 'files/bild.png',
        filename: 'bild.png',
        mimetype: 'image/png',
        istTeaserbild: true,
      },
      { bildID: 201, file: 'files/kaputt.png', filename: 'kaputt.png', mimetype: 'image/png' },
    ],
    artikel: [
      {
        artikelID: 1,
        text: '<p>Hallo</p>',
        bereiche: [3, 1, 2],
        cityAppBereiche: [11, 10],
        anhaenge: [501, 500],
        links: [
          { titel: 'drei', sort: 3 },
          { titel: 'eins-a', sort: 1 },
          { titel: 'zwei', sort: 2 },
          { titel: 'eins-b', sort: 1 },
        ],
        kontakte: [
          { art: 'sammelkontakt', name: 'Zentrale', einrichtung: null },
          {
            art: 'persoenlich',
            name: 'Erika Muster',
            email: 'erika@example.org',
            einrichtung: { einrichtungID: 7, name: 'Bürgeramt Mitte' },
          },
        ],
      },
      {
        artikelID: 2,
        text: 'Fenster',
        sichtbarVon: '2026-03-01T09:00:00+01:00',
        sichtbarBis: '2026-03-31T18:00:00Z',
      },
      { artikelID: 3, text: 'ab', sichtbarVon: '2026-03-20' },
      { artikelID: 4, text: 'bis', sichtbarBis: '2026-03-10T00:00:00Z' },
    ],
    newsletter: [
      { newsletterID: 3, name: 'Intern', oeffentlich: false },
      { newsletterID: 1, name: 'Amtsblatt', oeffentlich: true },
      { newsletterID: 2, name: 'Kultur', oeffentlich: true },
      { newsletterID: 4, name: 'Ohne Angabe' },
    ],
    abonnements: [
      { email: 'Jörg.Müller@Example.org', newsletterIDs: [3, 1] },
      { email: 'leser@example.org', newsletterIDs: [2] },
    ],
  });
  bundleFolder = s.bundle(bundle, {
    'files/to.txt': ATTACHMENT,
    'files/gross.bin': LARGE,
    'files/bild.png': PNG,
    'files/kaputt.png': pattern(300, 8),
  });
});

const IMAGES = ImageService.uncached();

async function refusedWith(promise: Promise<unknown>, code: ErrorCode, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ScoopError, String(error));
    assert.equal(error.code, code);
    if (message) assert.match(error.message, message);
    return true;
  });
}

async function bytesOf(data: Anhang['data']): Promise<Buffer> {
  if (data instanceof Uint8Array) return Buffer.from(data);
  const parts: Buffer[] = [];
  for await (const chunk of data.chunks()) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

for (const db of DATABASES) describe(db.name, () => handlerRules(db));

function handlerRules(db: TestDatabase): void {
  const { test } = db;
  let store: ContentStore;

  before(async () => {
    if (db.skip) return;
    store = (await s.open(db)).store;
    await importFolder(store, bundleFolder);
  });

  function call<N extends OperationName>(
    operation: N,
    args: ArgumentsOf<N>,
    now = NOW,
    from: ServiceContext['store'] = store,
  ): Promise<ResultOf<N>> {
    const context: ServiceContext = {
      store: from,
      now: () => now,
      options: { maxImageDimension: MAX_DIMENSION },
      images: IMAGES,
    };
    return handle(operation, args, context);
  }

  async function artikel(id: number, now = NOW): Promise<ArtikelDetails> {
    return (await call('getArtikelDetails', { artikelID: id }, now)).artikelDetails;
  }

  describe('visibility window', () => {
    test('before sichtbarVon an article is unknown; from it on (inclusive) it is published', async () => {
      await refusedWith(artikel(2, VON - 1), 'UNKNOWN_ID', /artikelID: 2/);
      assert.equal((await artikel(2, VON)).text, 'Fenster');
    });

    test('after sichtbarBis an article is unknown; up to it (inclusive) it is published', async () => {
      assert.equal((await artikel(2, BIS)).text, 'Fenster');
      await refusedWith(artikel(2, BIS + 1), 'UNKNOWN_ID');
    });

    test('null or absent ends are open; a date alone is midnight UTC', async () => {
      assert.equal((await artikel(1, 0)).text, '<p>Hallo</p>');
      assert.equal((await artikel(1, Date.parse('2100-01-01T00:00:00Z'))).text, '<p>Hallo</p>');
      await refusedWith(artikel(3, Date.parse('2026-03-19T23:59:59.999Z')), 'UNKNOWN_ID');
      assert.equal((await artikel(3, Date.parse('2026-03-20T00:00:00Z'))).text, 'ab');
      assert.equal((await artikel(4, 0)).text, 'bis');
      await refusedWith(artikel(4, NOW), 'UNKNOWN_ID');
    });

    test('an article that does not exist is unknown', async () => {
      await refusedWith(artikel(99), 'UNKNOWN_ID', /99/);
    });
  });

  describe('article details', () => {
    test('bereiche, cityAppBereiche and anhaenge come in the order listed', async () => {
      const details = await artikel(1);
      assert.deepEqual(
        details.bereiche.map((b) => b.bereichID),
        [3, 1, 2],
      );
      assert.deepEqual(
        details.cityAppBereiche.map((b) => b.cityAppBereichID),
        [11, 10],
      );
      // Listed order wins over the attachments' own sort values.
      assert.deepEqual(
        details.anhaenge.map((a) => a.anhangID),
        [501, 500],
      );
      assert.deepEqual(details.bereiche[0], { bereichID: 3, name: 'Bereich 3' });
    });

    test('links come ordered by sort, stable for equal sort; kontakte in bundle order', async () => {
      const details = await artikel(1);
      assert.deepEqual(
        details.links.map((l) => l.titel),
        ['eins-a', 'eins-b', 'zwei', 'drei'],
      );
      assert.deepEqual(
        details.kontakte.map((k) => k.name),
        ['Zentrale', 'Erika Muster'],
      );
    });

    test('einrichtung is null or the object given', async () => {
      const [zentrale, erika] = (await artikel(1)).kontakte;
      assert.equal(zentrale!.einrichtung, null);
      assert.deepEqual(erika!.einrichtung, { einrichtungID: 7, name: 'Bürgeramt Mitte' });
      assert.equal(erika!.art, 'persoenlich');
    });

    test("an attachment's size is its file's byte length and data its bytes", async () => {
      const [gross, to] = (await artikel(1)).anhaenge;
      assert.equal(to!.size, ATTACHMENT.length);
      assert.ok((await bytesOf(to!.data)).equals(ATTACHMENT));
      assert.equal(gross!.size, LARGE.length);
      assert.ok((await bytesOf(gross!.data)).equals(LARGE));
      assert.equal(to!.name, 'Tagesordnung');
    });
  });

  describe('newsletters', () => {
    test('getNewsletter lists only public newsletters', async () => {
      const { newsletter } = await call('getNewsletter', {});
      assert.deepEqual(newsletter, [
        { newsletterID: 1, name: 'Amtsblatt' },
        { newsletterID: 2, name: 'Kultur' },
      ]);
    });

    test('getAbonnierteNewsletter includes non-public newsletter ids', async () => {
      assert.deepEqual(
        (await call('getAbonnierteNewsletter', { email: 'jörg.müller@example.org' })).newsletter,
        [3, 1],
      );
    });

    test('getAbonnierteNewsletter matches the address case-insensitively, non-ASCII included', async () => {
      for (const email of [
        'JÖRG.MÜLLER@EXAMPLE.ORG',
        ' Jörg.Müller@example.ORG ',
        'JO\u0308RG.MU\u0308LLER@example.org',
      ]) {
        assert.deepEqual((await call('getAbonnierteNewsletter', { email })).newsletter, [3, 1], email);
      }
      assert.deepEqual(
        (await call('getAbonnierteNewsletter', { email: 'joerg.mueller@example.org' })).newsletter,
        [],
      );
      assert.deepEqual(
        (await call('getAbonnierteNewsletter', { email: 'niemand@example.org' })).newsletter,
        [],
      );
    });
  });

  describe('getBild', () => {
    const bild = (width: number, height: number, bildID = 200) =>
      call('getBild', { bildID, width, height, resizeModes: ['standard'] });

    test('width and height from 0 to the maximum are accepted', async () => {
      for (const [w, h] of [
        [0, 0],
        [MAX_DIMENSION, MAX_DIMENSION],
        [1, MAX_DIMENSION],
      ] as const) {
        const result = (await bild(w, h)).bild;
        assert.equal(result.bildID, 200);
        assert.equal(result.istTeaserbild, true);
        assert.equal(result.mimetype, 'image/png');
      }
    });

    test('0×0 returns the stored bytes; a resize returns other bytes, with size and mimetype of those', async () => {
      const stored = (await bild(0, 0)).bild;
      assert.deepEqual(await bytesOf(stored.data), PNG);
      assert.equal(stored.size, PNG.length);
      const resized = (await bild(15, 0)).bild;
      const bytes = await bytesOf(resized.data);
      assert.equal(resized.size, bytes.length);
      const meta = await sharp(bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['png', 15, 10]);
    });

    test('a resize reads the image without its content (a resize that is made reads it then); 0×0 reads it with the record', async () => {
      const asked: Array<boolean | undefined> = [];
      const spying: ServiceContext['store'] = {
        read: (read) =>
          store.read((snapshot) =>
            read({
              ...snapshot,
              get: (kind, id, readChunk) => {
                asked.push(readChunk);
                return snapshot.get(kind, id, readChunk);
              },
            }),
          ),
      };
      const args = (width: number): ArgumentsOf<'getBild'> => ({
        bildID: 200,
        width,
        height: 0,
        resizeModes: ['standard'],
      });
      // The record cache asks its own snapshot first, then the store's: each read may ask twice.
      const resized = (await call('getBild', args(12), NOW, spying)).bild;
      assert.equal(
        (await sharp(await bytesOf(resized.data)).metadata()).width,
        12,
        'resized from the content',
      );
      assert.deepEqual(new Set(asked), new Set([false]));
      asked.length = 0;
      assert.deepEqual(await bytesOf((await call('getBild', args(0), NOW, spying)).bild.data), PNG);
      assert.deepEqual(new Set(asked), new Set([true]));
    });

    test('a stored file that is not an image is refused for resizing, and served as stored', async () => {
      await refusedWith(bild(10, 10, 201), 'IMAGE_NOT_RESIZABLE', /cannot be decoded/);
      assert.equal((await bild(0, 0, 201)).bild.size, 300);
    });

    test('width or height below 0 or above the maximum is refused', async () => {
      await refusedWith(bild(-1, 10), 'INVALID_PARAMETER', /width must be between 0 and 800; it was -1/);
      await refusedWith(bild(MAX_DIMENSION + 1, 10), 'INVALID_PARAMETER', /width/);
      await refusedWith(bild(10, -1), 'INVALID_PARAMETER', /height/);
      await refusedWith(
        bild(10, MAX_DIMENSION + 1),
        'INVALID_PARAMETER',
        /height must be between 0 and 800; it was 801/,
      );
    });

    test('the bounds are checked before the id: an unknown image with bad bounds is INVALID_PARAMETER', async () => {
      await refusedWith(bild(-1, 0, 999), 'INVALID_PARAMETER');
      await refusedWith(bild(0, 0, 999), 'UNKNOWN_ID', /bildID: 999/);
    });
  });

  describe('single records', () => {
    test('getAnhang returns the record with size from the file; unknown ids are UNKNOWN_ID', async () => {
      const anhang = (await call('getAnhang', { anhangID: 500 })).anhang;
      assert.equal(anhang.size, ATTACHMENT.length);
      assert.equal(anhang.filename, 'to.txt');
      await refusedWith(call('getAnhang', { anhangID: 1 }), 'UNKNOWN_ID');
    });

    test('checkAnhangVorhanden answers true or false', async () => {
      assert.deepEqual(await call('checkAnhangVorhanden', { anhangID: 501 }), { anhangVorhanden: true });
      assert.deepEqual(await call('checkAnhangVorhanden', { anhangID: 502 }), { anhangVorhanden: false });
    });

    test('getBereich and getCityAppBereich; unknown ids are UNKNOWN_ID', async () => {
      assert.deepEqual((await call('getBereich', { bereichID: 2 })).bereich, {
        bereichID: 2,
        name: 'Bereich 2',
      });
      assert.deepEqual((await call('getCityAppBereich', { cityAppBereichID: 10 })).cityAppBereich, {
        cityAppBereichID: 10,
        name: 'City 10',
      });
      await refusedWith(call('getBereich', { bereichID: 10 }), 'UNKNOWN_ID');
      await refusedWith(call('getCityAppBereich', { cityAppBereichID: 1 }), 'UNKNOWN_ID');
    });
  });
}
