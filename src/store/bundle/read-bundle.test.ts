/**
 * bundle-format.md, rule by rule, for what is decided before anything is written: the
 * shape of bundle.json, every field's type, ids, dates, characters and `file`. Every
 * refusal must name the record and the field, so each test asserts the message's start.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertRefused, bundleJson, type Files, pattern, scratch } from '../../../test/support/bundles.ts';
import type { RecordKind } from '../../contract/documents.ts';
import type { Bundle, BundleRecord } from './bundle.ts';
import type { HashProgress } from './hash-files.ts';
import { closeBundle, readBundle as openBundle, type ReadOptions } from './read-bundle.ts';

const s = scratch();

/** Reads a bundle and closes the files it holds open (the tests look at sizes and hashes only). */
async function readBundle(folder: string, options?: ReadOptions): Promise<Bundle> {
  const bundle = await openBundle(folder, options);
  await closeBundle(bundle);
  return bundle;
}

/** Reads a bundle built from `entries` (plus the format line). */
function read(entries: Record<string, unknown>, files?: Files): Promise<Bundle> {
  return readBundle(s.bundle(bundleJson(entries), files));
}

/** Asserts the folder is refused with a message that starts with `where: `. */
async function refusedFolder(folder: string, where: string, detail?: RegExp): Promise<void> {
  await assertRefused(readBundle(folder), where, detail);
}

function refused(entries: Record<string, unknown>, where: string, detail?: RegExp, files?: Files) {
  return refusedFolder(s.bundle(bundleJson(entries), files), where, detail);
}

function only<K extends RecordKind>(bundle: Bundle, kind: K): BundleRecord<K> {
  const list = bundle.records.get(kind) ?? [];
  assert.equal(list.length, 1);
  return list[0]!;
}

const ANHANG = { anhangID: 1, file: 'files/a.txt', filename: 'a.txt' };
const BILD = { bildID: 2, file: 'files/a.txt', filename: 'a.png' };
const FILES: Files = { 'files/a.txt': 'inhalt' };

describe('format and top level', () => {
  test('format must be scoop-bundle/1', async () => {
    await refusedFolder(s.bundle({}), 'bundle.json.format', /scoop-bundle\/1/);
    await refusedFolder(s.bundle({ format: 'scoop-bundle/2' }), 'bundle.json.format');
    await refusedFolder(s.bundle({ format: 1 }), 'bundle.json.format');
    await read({});
  });

  test('every top-level list is optional (an empty upsert bundle)', async () => {
    const bundle = await read({});
    assert.equal(bundle.mode, 'upsert');
    for (const [kind, list] of bundle.records) assert.deepEqual(list, [], kind);
    assert.equal(bundle.records.size, 7);
    assert.equal(bundle.deletions.size, 0);
  });

  test('mode is upsert or replace', async () => {
    assert.equal((await read({ mode: 'replace' })).mode, 'replace');
    assert.equal((await read({ mode: 'upsert' })).mode, 'upsert');
    await refused({ mode: 'merge' }, 'bundle.json.mode');
  });

  test('an unknown top-level key is refused', async () => {
    await refused({ bilders: [] }, 'bundle.json.bilders', /not a known field/);
  });

  test('a top-level list that is not a list is refused', async () => {
    await refused({ bereiche: { bereichID: 1 } }, 'bereiche', /must be a list/);
  });

  test('bad JSON is refused', async () => {
    await refusedFolder(s.bundle('{"format": "scoop-bundle/1",'), 'bundle.json', /not valid JSON/);
    await refusedFolder(s.bundle('[]'), 'bundle.json', /must be an object/);
  });

  test('invalid UTF-8 in bundle.json is refused, not replaced', async () => {
    const folder = s.bundle('{}');
    const bytes = Buffer.from(
      '{"format": "scoop-bundle/1", "bereiche": [{"bereichID": 1, "name": "K\xff"}]}',
      'latin1',
    );
    writeFileSync(path.join(folder, 'bundle.json'), bytes);
    await refusedFolder(
      folder,
      'bundle.json',
      new RegExp(`is not UTF-8: .* at byte offset ${bytes.indexOf(0xff)}$`),
    );
  });

  test('a folder without bundle.json is refused', async () => {
    await refusedFolder(s.dir(), 'bundle.json', /missing/);
  });
});

describe('unknown fields', () => {
  const records: Array<[string, Record<string, unknown>, string]> = [
    ['bereiche', { bereichID: 1, name: 'x' }, 'bereiche[0] (bereichID 1)'],
    ['cityAppBereiche', { cityAppBereichID: 1 }, 'cityAppBereiche[0] (cityAppBereichID 1)'],
    ['anhaenge', ANHANG, 'anhaenge[0] (anhangID 1)'],
    ['bilder', BILD, 'bilder[0] (bildID 2)'],
    ['artikel', { artikelID: 7 }, 'artikel[0] (artikelID 7)'],
    ['newsletter', { newsletterID: 1 }, 'newsletter[0] (newsletterID 1)'],
    ['abonnements', { email: 'a@example.org' }, 'abonnements[0]'],
  ];
  for (const [kind, record, where] of records) {
    test(`an unknown field in ${kind} is refused`, async () => {
      await refused({ [kind]: [{ ...record, titel: 'x' }] }, `${where}.titel`, /not a known field/, FILES);
    });
  }

  test('an unknown field in a nested link, kontakt or einrichtung is refused', async () => {
    const artikel = (extra: Record<string, unknown>) => ({ artikel: [{ artikelID: 7, ...extra }] });
    await refused(
      artikel({ links: [{ titel: 'a', sort: 1, target: '_blank' }] }),
      'artikel[0] (artikelID 7).links[0].target',
    );
    await refused(
      artikel({ kontakte: [{ art: 'persoenlich', mobil: '0170' }] }),
      'artikel[0] (artikelID 7).kontakte[0].mobil',
    );
    await refused(
      artikel({ kontakte: [{ art: 'persoenlich', einrichtung: { einrichtungID: 1, ort: 'x' } }] }),
      'artikel[0] (artikelID 7).kontakte[0].einrichtung.ort',
    );
  });

  test('an unknown kind in loeschen is refused', async () => {
    await refused({ loeschen: { links: [1] } }, 'loeschen.links', /not a known field/);
  });
});

describe('types', () => {
  test('a string where an int belongs is refused', async () => {
    await refused({ bereiche: [{ bereichID: '1' }] }, 'bereiche[0].bereichID', /xs:int/);
    await refused({ anhaenge: [{ ...ANHANG, sort: '1' }] }, 'anhaenge[0] (anhangID 1).sort', /xs:int/, FILES);
    await refused({ artikel: [{ artikelID: 7, bereiche: ['1'] }] }, 'artikel[0] (artikelID 7).bereiche[0]');
    await refused({ loeschen: { bereiche: ['1'] } }, 'loeschen.bereiche[0]');
  });

  test('a float where an int belongs is refused', async () => {
    await refused({ bilder: [{ ...BILD, sort: 1.5 }] }, 'bilder[0] (bildID 2).sort', /1\.5/, FILES);
    await refused({ newsletter: [{ newsletterID: 0.1 }] }, 'newsletter[0].newsletterID');
  });

  test('an int outside xs:int (32 bits) is refused; the edges are accepted', async () => {
    await refused({ bereiche: [{ bereichID: 2147483648 }] }, 'bereiche[0].bereichID', /xs:int/);
    await refused({ bereiche: [{ bereichID: -2147483649 }] }, 'bereiche[0].bereichID', /xs:int/);
    await refused(
      { artikel: [{ artikelID: 7, links: [{ sort: 2 ** 40 }] }] },
      'artikel[0] (artikelID 7).links[0].sort',
    );
    const bundle = await read({ bereiche: [{ bereichID: 2147483647 }, { bereichID: -2147483648 }] });
    assert.deepEqual(
      bundle.records.get('bereiche')!.map((r) => r.id),
      ['2147483647', '-2147483648'],
    );
  });

  test('a boolean written as a string is refused', async () => {
    await refused(
      { bilder: [{ ...BILD, istTeaserbild: 'true' }] },
      'bilder[0] (bildID 2).istTeaserbild',
      /true or false/,
      FILES,
    );
    await refused(
      { newsletter: [{ newsletterID: 1, oeffentlich: 'true' }] },
      'newsletter[0] (newsletterID 1).oeffentlich',
    );
    await refused(
      { newsletter: [{ newsletterID: 1, oeffentlich: 1 }] },
      'newsletter[0] (newsletterID 1).oeffentlich',
    );
  });

  test('a number where a string belongs is refused', async () => {
    await refused({ bereiche: [{ bereichID: 1, name: 5 }] }, 'bereiche[0] (bereichID 1).name', /string/);
    await refused({ abonnements: [{ email: 5 }] }, 'abonnements[0].email');
  });

  test('a record that is not an object is refused', async () => {
    await refused({ bereiche: [1] }, 'bereiche[0]', /must be an object/);
    await refused({ artikel: [{ artikelID: 7, links: ['x'] }] }, 'artikel[0] (artikelID 7).links[0]');
  });

  test('defaults: absent sort is 0, absent booleans false, absent strings null', async () => {
    const bundle = await read({ bilder: [BILD], newsletter: [{ newsletterID: 1 }] }, FILES);
    const bild = only(bundle, 'bilder').doc;
    assert.equal(bild.sort, 0);
    assert.equal(bild.istTeaserbild, false);
    assert.equal(bild.bildunterschrift, null);
    assert.equal(only(bundle, 'newsletter').doc.oeffentlich, false);
  });
});

describe('ids', () => {
  test('a duplicate id within a kind is refused, naming both records', async () => {
    await refused(
      { bereiche: [{ bereichID: 1 }, { bereichID: 2 }, { bereichID: 1 }] },
      'bereiche[2] (bereichID 1)',
      /bereiche\[0\] \(bereichID 1\).*duplicate/,
    );
    await refused({ artikel: [{ artikelID: 7 }, { artikelID: 7 }] }, 'artikel[1] (artikelID 7)', /duplicate/);
    await refused(
      { anhaenge: [ANHANG, { ...ANHANG, filename: 'b.txt' }] },
      'anhaenge[1] (anhangID 1)',
      /duplicate/,
      FILES,
    );
  });

  test('the same id in two kinds is not a duplicate', async () => {
    const bundle = await read({ bereiche: [{ bereichID: 1 }], cityAppBereiche: [{ cityAppBereichID: 1 }] });
    assert.equal(only(bundle, 'bereiche').id, '1');
    assert.equal(only(bundle, 'cityAppBereiche').id, '1');
  });

  test('a missing id is refused', async () => {
    await refused({ bereiche: [{ name: 'x' }] }, 'bereiche[0].bereichID', /xs:int/);
    await refused({ cityAppBereiche: [{ cityAppBereichID: null }] }, 'cityAppBereiche[0].cityAppBereichID');
    await refused({ anhaenge: [{ file: 'files/a.txt' }] }, 'anhaenge[0].anhangID', undefined, FILES);
    await refused({ bilder: [{ file: 'files/a.txt' }] }, 'bilder[0].bildID', undefined, FILES);
    await refused({ artikel: [{ text: 'x' }] }, 'artikel[0].artikelID');
    await refused({ newsletter: [{ name: 'x' }] }, 'newsletter[0].newsletterID');
    await refused({ abonnements: [{ newsletterIDs: [] }] }, 'abonnements[0].email');
    await refused({ abonnements: [{ email: '  ' }] }, 'abonnements[0].email', /empty/);
  });

  test('a missing id does not read as "undefined" in the message', async () => {
    await refused(
      { bereiche: [{}] },
      'bereiche[0].bereichID',
      /must be an integer in the xs:int range, not missing$/,
    );
  });
});

describe('size and data', () => {
  test('size in a record is refused (it comes from the file)', async () => {
    await refused(
      { anhaenge: [{ ...ANHANG, size: 6 }] },
      'anhaenge[0] (anhangID 1).size',
      /not a known/,
      FILES,
    );
    await refused({ bilder: [{ ...BILD, size: 6 }] }, 'bilder[0] (bildID 2).size', /not a known/, FILES);
  });

  test('data in a record is refused (it comes from the file)', async () => {
    await refused(
      { anhaenge: [{ ...ANHANG, data: 'aW5oYWx0' }] },
      'anhaenge[0] (anhangID 1).data',
      undefined,
      FILES,
    );
    await refused({ bilder: [{ ...BILD, data: 'aW5oYWx0' }] }, 'bilder[0] (bildID 2).data', undefined, FILES);
  });
});

describe('kontakte and einrichtung', () => {
  const kontakt = (k: Record<string, unknown>) => ({
    artikel: [{ artikelID: 3 }, { artikelID: 7, kontakte: [k] }],
  });
  const kontakte = (bundle: Bundle) => bundle.records.get('artikel')![1]!.doc.kontakte;

  test('kontakte.art must be persoenlich or sammelkontakt', async () => {
    for (const art of ['persoenlich', 'sammelkontakt']) {
      assert.equal(kontakte(await read(kontakt({ art })))[0]!.art, art);
    }
    await refused(
      kontakt({ art: 'privat' }),
      'artikel[1] (artikelID 7).kontakte[0].art',
      /persoenlich, sammelkontakt/,
    );
    await refused(kontakt({ art: 'Persoenlich' }), 'artikel[1] (artikelID 7).kontakte[0].art');
    await refused(kontakt({ name: 'ohne art' }), 'artikel[1] (artikelID 7).kontakte[0].art');
  });

  test('kontakte keep bundle order (they have no sort)', async () => {
    const bundle = await read({
      artikel: [{ artikelID: 1, kontakte: ['c', 'a', 'b'].map((name) => ({ art: 'persoenlich', name })) }],
    });
    assert.deepEqual(
      only(bundle, 'artikel').doc.kontakte.map((k) => k.name),
      ['c', 'a', 'b'],
    );
  });

  test('einrichtung is null (or absent) or an object {einrichtungID, name}', async () => {
    assert.equal(
      kontakte(await read(kontakt({ art: 'persoenlich', einrichtung: null })))[0]!.einrichtung,
      null,
    );
    assert.equal(kontakte(await read(kontakt({ art: 'persoenlich' })))[0]!.einrichtung, null);
    assert.deepEqual(
      kontakte(
        await read(kontakt({ art: 'persoenlich', einrichtung: { einrichtungID: 9, name: 'Amt' } })),
      )[0]!.einrichtung,
      { einrichtungID: 9, name: 'Amt' },
    );
    const at = 'artikel[1] (artikelID 7).kontakte[0].einrichtung';
    await refused(kontakt({ art: 'persoenlich', einrichtung: 'Amt' }), at, /must be an object/);
    await refused(kontakt({ art: 'persoenlich', einrichtung: [] }), at, /must be an object/);
    await refused(kontakt({ art: 'persoenlich', einrichtung: { name: 'Amt' } }), `${at}.einrichtungID`);
    await refused(
      kontakt({ art: 'persoenlich', einrichtung: { einrichtungID: '9' } }),
      `${at}.einrichtungID`,
    );
  });
});

describe('sichtbarVon and sichtbarBis', () => {
  const window = (sichtbarVon: unknown, sichtbarBis: unknown = null) => ({
    artikel: [{ artikelID: 1, sichtbarVon, sichtbarBis }],
  });
  const instants = async (von: unknown, bis: unknown = null) => {
    const doc = only(await read(window(von, bis)), 'artikel').doc;
    return [doc.sichtbarVon, doc.sichtbarBis];
  };

  test('ISO 8601 with Z, with an offset, date only; null and absent mean open', async () => {
    assert.deepEqual(await instants('2026-01-01T00:00:00Z', '2026-06-30T23:59:59.500Z'), [
      Date.UTC(2026, 0, 1),
      Date.UTC(2026, 5, 30, 23, 59, 59, 500),
    ]);
    assert.deepEqual(await instants('2026-01-01T00:00:00+01:00'), [Date.UTC(2025, 11, 31, 23), null]);
    assert.deepEqual(await instants('2026-01-01T08:30:00-02:30'), [Date.UTC(2026, 0, 1, 11), null]);
    assert.deepEqual(await instants('2026-03-01'), [Date.UTC(2026, 2, 1), null]);
    assert.deepEqual(await instants('2026-03-01T12:00:00'), [Date.UTC(2026, 2, 1, 12), null]);
    assert.deepEqual(await instants(null, null), [null, null]);
    const doc = only(await read({ artikel: [{ artikelID: 1 }] }), 'artikel').doc;
    assert.deepEqual([doc.sichtbarVon, doc.sichtbarBis], [null, null]);
  });

  test('an invalid date is refused', async () => {
    const invalid = [
      'morgen',
      '01.03.2026',
      '2026-3-1',
      '2026-13-01',
      '2026-00-10',
      '2026-02-30',
      '2026-04-31T10:00:00Z',
      '2026-01-01T25:00:00Z',
      '2026-01-01T10:61:00Z',
      '2026-01-01T10:00:00+1',
      '',
    ];
    for (const value of invalid) {
      await refused(window(value), 'artikel[0] (artikelID 1).sichtbarVon', undefined);
      await refused(window(null, value), 'artikel[0] (artikelID 1).sichtbarBis', undefined);
    }
    await refused(window(1767225600000), 'artikel[0] (artikelID 1).sichtbarVon', /ISO 8601/);
    await refused(window(true), 'artikel[0] (artikelID 1).sichtbarVon', /ISO 8601/);
  });

  test('a date alone means the whole day: from its start, until its end', async () => {
    assert.deepEqual(await instants('2026-03-01', '2026-03-31'), [
      Date.UTC(2026, 2, 1),
      Date.UTC(2026, 2, 31, 23, 59, 59, 999),
    ]);
  });

  test('a window that ends before it begins is refused', async () => {
    await refused(
      window('2026-03-02T00:00:00Z', '2026-03-01T23:59:59Z'),
      'artikel[0] (artikelID 1).sichtbarBis',
      /before sichtbarVon/,
    );
    assert.deepEqual(await instants('2026-03-01', '2026-03-01'), [
      Date.UTC(2026, 2, 1),
      Date.UTC(2026, 2, 1, 23, 59, 59, 999),
    ]);
  });

  test('29 February is accepted in a leap year only', async () => {
    assert.deepEqual(await instants('2028-02-29'), [Date.UTC(2028, 1, 29), null]);
    await refused(window('2026-02-29'), 'artikel[0] (artikelID 1).sichtbarVon');
  });
});

describe('characters XML 1.0 cannot carry', () => {
  /** bundle.json text with `escape` (a JSON escape such as \u0001) inside a string at `template`. */
  const withEscape = (template: string, jsonEscape: string) =>
    s.bundle(`{"format": "scoop-bundle/1", ${template.replace('@', jsonEscape)}}`, FILES);

  const places: Array<[string, string]> = [
    ['"bereiche": [{"bereichID": 4, "name": "a@b"}]', 'bereiche[0] (bereichID 4).name'],
    [
      '"anhaenge": [{"anhangID": 5, "file": "files/a.txt", "beschreibung": "@"}]',
      'anhaenge[0] (anhangID 5).beschreibung',
    ],
    ['"artikel": [{"artikelID": 7, "text": "<p>@</p>"}]', 'artikel[0] (artikelID 7).text'],
    ['"artikel": [{"artikelID": 7, "links": [{"titel": "@"}]}]', 'artikel[0] (artikelID 7).links[0].titel'],
    [
      '"artikel": [{"artikelID": 7, "kontakte": [{"art": "persoenlich", "einrichtung": {"einrichtungID": 1, "name": "@"}}]}]',
      'artikel[0] (artikelID 7).kontakte[0].einrichtung.name',
    ],
    ['"newsletter": [{"newsletterID": 1, "name": "x@"}]', 'newsletter[0] (newsletterID 1).name'],
    ['"abonnements": [{"email": "a@@example.org"}]', 'abonnements[0].email'],
  ];
  const forbidden: Array<[string, string]> = [
    ['\\u0001', 'U+0001'],
    ['\\u001f', 'U+001F'],
    ['\\ufffe', 'U+FFFE'],
    ['\\uffff', 'U+FFFF'],
    ['\\ud800', 'U+D800'],
    ['x\\udc00', 'U+DC00'],
  ];

  for (const [jsonEscape, code] of forbidden) {
    test(`${code} in a string is refused, naming the record and field`, async () => {
      for (const [template, where] of places) {
        await refusedFolder(
          withEscape(template, jsonEscape),
          where,
          new RegExp(`${code.replace('+', '\\+')}.*XML 1\\.0`),
        );
      }
    });
  }

  test('tab, line breaks, U+0085, U+FEFF and characters outside the BMP are accepted', async () => {
    const bundle = await readBundle(
      withEscape('"bereiche": [{"bereichID": 4, "name": "@"}]', 'a\\tb\\nc\\rd\\u0085\\ufeff\\ud83d\\ude00'),
    );
    assert.equal(only(bundle, 'bereiche').doc.name, 'a\tb\nc\rd\u0085\ufeff😀');
  });
});

describe('file', () => {
  const anhang = (file: unknown) => ({ anhaenge: [{ anhangID: 1, file }] });
  const at = 'anhaenge[0] (anhangID 1).file';

  test('file is required in anhaenge and bilder', async () => {
    await refused({ anhaenge: [{ anhangID: 1 }] }, at, /string/);
    await refused({ bilder: [{ bildID: 2 }] }, 'bilder[0] (bildID 2).file');
  });

  test('a missing file is refused', async () => {
    await refused(anhang('files/fehlt.pdf'), at, /does not exist/, FILES);
  });

  test('a directory is refused', async () => {
    await refused(anhang('files'), at, /not a regular file/, FILES);
    await refused(anhang('.'), at, undefined, FILES);
  });

  test('an absolute path is refused, even to a file inside the bundle', async () => {
    const folder = s.bundle({}, FILES);
    writeFileSync(
      path.join(folder, 'bundle.json'),
      JSON.stringify(bundleJson(anhang(path.join(folder, 'files/a.txt')))),
    );
    await refusedFolder(folder, at, /relative path/);
    await refused(anhang(''), at, /relative path/);
  });

  test('../ escaping the bundle folder is refused', async () => {
    const folder = s.bundle(bundleJson(anhang('../draussen.txt')));
    writeFileSync(path.join(folder, '..', 'draussen.txt'), 'geheim');
    await refusedFolder(folder, at, /escapes the bundle folder/);
    const nested = s.bundle(bundleJson(anhang('files/../../draussen.txt')), FILES);
    await refusedFolder(nested, at, /escapes/);
    // Staying inside after a detour is fine.
    const bundle = await read(anhang('files/../files/a.txt'), FILES);
    assert.equal(only(bundle, 'anhaenge').file!.size, 6);
  });

  test('a name that merely begins with two dots stays inside', async () => {
    const bundle = await read(anhang('..version.txt'), { '..version.txt': 'v2' });
    assert.equal(only(bundle, 'anhaenge').file!.size, 2);
    assert.equal(only(await read(anhang('files/..a'), { 'files/..a': 'x' }), 'anhaenge').file!.size, 1);
  });

  test("size of the result is the file's byte length", async () => {
    const text = 'Größe: 5 Zeichen, mehr Bytes – ✓';
    const bundle = await read(anhang('files/u.txt'), { 'files/u.txt': text });
    const record = only(bundle, 'anhaenge');
    assert.equal(record.file!.size, Buffer.byteLength(text));
    assert.notEqual(record.file!.size, text.length);
    assert.equal('size' in record.doc, false);
    assert.equal('data' in record.doc, false);
  });

  test('an empty file is accepted with size 0', async () => {
    const bundle = await read(anhang('files/leer'), { 'files/leer': '' });
    assert.equal(only(bundle, 'anhaenge').file!.size, 0);
  });
});

describe('loeschen', () => {
  test('loeschen is refused in replace mode', async () => {
    await refused({ mode: 'replace', loeschen: { artikel: [1] } }, 'bundle.json.loeschen', /replace/);
    await refused({ mode: 'replace', loeschen: {} }, 'bundle.json.loeschen');
  });

  test('loeschen names ids, and e-mail keys for abonnements', async () => {
    const bundle = await read({ loeschen: { artikel: [1, 2], abonnements: [' Jörg@Example.ORG '] } });
    assert.deepEqual(bundle.deletions.get('artikel'), ['1', '2']);
    assert.deepEqual(bundle.deletions.get('abonnements'), ['jörg@example.org']);
    assert.deepEqual(bundle.deletions.get('bilder'), []);
  });
});

describe('lists inside an article', () => {
  test('links are ordered by sort, stable for equal sort', async () => {
    const links = [
      { titel: 'c', sort: 3 },
      { titel: 'a1', sort: 1 },
      { titel: 'z', sort: -5 },
      { titel: 'b', sort: 2 },
      { titel: 'a2', sort: 1 },
      { titel: 'ohne sort' },
      { titel: 'a3', sort: 1 },
    ];
    const bundle = await read({ artikel: [{ artikelID: 1, links }] });
    assert.deepEqual(
      only(bundle, 'artikel').doc.links.map((l) => l.titel),
      ['z', 'ohne sort', 'a1', 'a2', 'a3', 'b', 'c'],
    );
  });

  test('bereiche, cityAppBereiche and anhaenge keep the order listed', async () => {
    const bundle = await read({
      artikel: [{ artikelID: 1, bereiche: [3, 1, 2], cityAppBereiche: [20, 10], anhaenge: [9, 8, 10] }],
    });
    const doc = only(bundle, 'artikel').doc;
    assert.deepEqual(
      [doc.bereiche, doc.cityAppBereiche, doc.anhaenge],
      [
        [3, 1, 2],
        [20, 10],
        [9, 8, 10],
      ],
    );
  });
});

test('a bundle folder that does not exist is refused', async () => {
  const missing = path.join(s.root, 'gibt-es-nicht');
  await refusedFolder(missing, missing, /does not exist/);
  mkdirSync(path.join(s.root, 'leer'));
  await refusedFolder(path.join(s.root, 'leer'), 'bundle.json');
});

describe('hashing the files', () => {
  const sha256 = (content: Uint8Array) => createHash('sha256').update(content).digest('hex');

  test('reports files and bytes as it reads, ending at the totals; a file named twice is read once', async () => {
    const big = pattern(300_000, 7);
    const folder = s.bundle(
      bundleJson({
        anhaenge: [
          { anhangID: 1, file: 'files/big.bin' },
          { anhangID: 2, file: 'files/small.txt' },
        ],
        bilder: [{ bildID: 3, file: 'files/../files/big.bin' }],
      }),
      { 'files/big.bin': big, 'files/small.txt': 'klein' },
    );
    const seen: HashProgress[] = [];
    const bundle = await readBundle(folder, { onHashing: (p) => seen.push(p) });
    const totals = { filesTotal: 2, bytesTotal: big.length + 5 };
    assert.ok(seen.length > 2, 'the big file is reported chunk by chunk');
    assert.deepEqual(seen.at(-1), { files: 2, bytes: big.length + 5, ...totals });
    for (const [i, p] of seen.entries()) {
      assert.deepEqual({ filesTotal: p.filesTotal, bytesTotal: p.bytesTotal }, totals);
      if (i > 0) assert.ok(p.bytes >= seen[i - 1]!.bytes && p.files >= seen[i - 1]!.files);
    }
    const records = bundle.records;
    assert.equal(records.get('anhaenge')![0]!.file!.sha256, sha256(big));
    assert.equal(records.get('anhaenge')![1]!.file!.sha256, sha256(Buffer.from('klein')));
    assert.equal(records.get('bilder')![0]!.file!.sha256, sha256(big));
  });

  test('a mistake in bundle.json is refused before any file is read', async () => {
    const folder = s.bundle(
      bundleJson({
        anhaenge: [
          { anhangID: 1, file: 'files/a.txt' },
          { anhangID: 1, file: 'files/a.txt' },
        ],
      }),
      FILES,
    );
    let hashed = 0;
    await assertRefused(
      readBundle(folder, { onHashing: () => hashed++ }),
      'anhaenge[1] (anhangID 1)',
      /duplicate id/,
    );
    assert.equal(hashed, 0);
  });
});
