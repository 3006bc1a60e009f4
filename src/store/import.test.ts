/**
 * bundle-format.md, the rules decided against the store: upsert and loeschen, replace,
 * references, all or nothing, the summary, and e-mail keys. Every rule runs against each
 * database (test/support/databases.ts).
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import {
  assertRefused,
  bundleJson,
  generation,
  importFolder,
  pattern,
  scratch,
} from '../../test/support/bundles.ts';
import { DATABASES, type TestDatabase, type TestStore } from '../../test/support/databases.ts';
import { emailKey } from '../contract/documents.ts';
import { closeBundle, readBundle } from './bundle/read-bundle.ts';
import { BundleError } from './bundle/validate.ts';
import { type ContentStore, RECORD_KINDS, type RecordKind } from './content-store.ts';
import { type ImportSummary, importBundle, type KindSummary } from './import.ts';

const s = scratch();

type Contents = Record<RecordKind, Record<string, Record<string, unknown>>>;

/** Every record of every kind, parsed, keyed by id. */
async function contents(store: ContentStore): Promise<Contents> {
  return store.read(async (snapshot) => {
    const all = {} as Contents;
    for (const kind of RECORD_KINDS) {
      all[kind] = Object.fromEntries(
        (await snapshot.all(kind)).map(({ id, record }) => [id, JSON.parse(record.doc)]),
      );
    }
    return all;
  });
}

async function ids(store: ContentStore, kind: RecordKind): Promise<string[]> {
  return store.read(async (snapshot) => (await snapshot.all(kind)).map((r) => r.id));
}

/** A store of `db` holding generation 1 (one record of every kind). */
async function storeWithGeneration1Of(db: TestDatabase): Promise<{ store: ContentStore; opened: TestStore }> {
  const opened = await s.open(db);
  const { json, files } = generation(1);
  await importFolder(opened.store, s.bundle(json, files));
  return { store: opened.store, opened };
}

function upsert(entries: Record<string, unknown>, files?: Record<string, string | Uint8Array>): string {
  return s.bundle(bundleJson(entries), files);
}

/** Asserts the import is refused with a message starting with `where: `. */
async function refusedImport(
  store: ContentStore,
  folder: string,
  where: string,
  detail?: RegExp,
): Promise<void> {
  await assertRefused(importFolder(store, folder), where, detail);
}

function counts(summary: ImportSummary): Partial<Record<RecordKind, KindSummary>> {
  const nonZero: Partial<Record<RecordKind, KindSummary>> = {};
  for (const kind of RECORD_KINDS) {
    const k = summary.kinds[kind];
    if (k.added || k.changed || k.unchanged || k.removed) nonZero[kind] = k;
  }
  return nonZero;
}

const k = (added: number, changed: number, unchanged: number, removed: number): KindSummary => ({
  added,
  changed,
  unchanged,
  removed,
});

for (const db of DATABASES) describe(db.name, () => storeRules(db));

function storeRules(db: TestDatabase): void {
  const { test } = db;
  const newStore = async () => (await s.open(db)).store;
  const storeWithGeneration1 = () => storeWithGeneration1Of(db);
  afterEach(() => s.closeStores());

  describe('upsert', () => {
    test('upsert inserts new records and replaces existing ones by id; the rest stays', async () => {
      const { store } = await storeWithGeneration1();
      const summary = await importFolder(
        store,
        upsert({
          bereiche: [
            { bereichID: 1, name: 'neu' },
            { bereichID: 3, name: 'dazu' },
          ],
        }),
      );
      const after = await contents(store);
      assert.deepEqual(after.bereiche, {
        1: { bereichID: 1, name: 'neu' },
        2: { bereichID: 2, name: 'Kultur gen 1' },
        3: { bereichID: 3, name: 'dazu' },
      });
      assert.deepEqual(Object.keys(after.artikel), ['1']);
      assert.deepEqual(counts(summary), { bereiche: k(1, 1, 0, 0) });
    });

    test('a replaced record is replaced whole: fields it no longer has are gone', async () => {
      const { store } = await storeWithGeneration1();
      await importFolder(store, upsert({ artikel: [{ artikelID: 1, bereiche: [2] }] }));
      const artikel = (await contents(store)).artikel['1']!;
      assert.equal(artikel.text, null);
      assert.deepEqual(artikel.links, []);
      assert.deepEqual(artikel.anhaenge, []);
    });

    test('upsert then removes what loeschen names (after writing, so loeschen wins)', async () => {
      const { store } = await storeWithGeneration1();
      const summary = await importFolder(
        store,
        upsert({
          bereiche: [{ bereichID: 5, name: 'kurz' }],
          loeschen: { artikel: [1], bilder: [200], bereiche: [5, 999], newsletter: [], abonnements: [] },
        }),
      );
      assert.deepEqual(await ids(store, 'artikel'), []);
      assert.deepEqual(await ids(store, 'bilder'), []);
      assert.deepEqual(await ids(store, 'bereiche'), ['1', '2']);
      assert.deepEqual(counts(summary), {
        bereiche: k(1, 0, 0, 1),
        bilder: k(0, 0, 0, 1),
        artikel: k(0, 0, 0, 1),
      });
    });

    test('loeschen.abonnements names e-mail addresses, matched case-insensitively', async () => {
      const store = await newStore();
      await importFolder(
        store,
        upsert({
          newsletter: [{ newsletterID: 1 }],
          abonnements: [
            { email: 'Jörg.Müller@Example.org', newsletterIDs: [1] },
            { email: 'Zoë@example.org', newsletterIDs: [1] },
            { email: 'bleibt@example.org', newsletterIDs: [1] },
          ],
        }),
      );
      // Upper-case umlaut, and Zoë written decomposed (e + U+0308).
      const summary = await importFolder(
        store,
        upsert({ loeschen: { abonnements: ['  JÖRG.MÜLLER@EXAMPLE.ORG ', 'ZOE\u0308@EXAMPLE.ORG'] } }),
      );
      assert.deepEqual(await ids(store, 'abonnements'), ['bleibt@example.org']);
      assert.equal(summary.kinds.abonnements.removed, 2);
    });

    test('an abonnement given again under another spelling replaces the first', async () => {
      const store = await newStore();
      await importFolder(
        store,
        upsert({
          newsletter: [{ newsletterID: 1 }, { newsletterID: 2 }],
          abonnements: [{ email: 'A@b.de', newsletterIDs: [1] }],
        }),
      );
      const summary = await importFolder(
        store,
        upsert({ abonnements: [{ email: 'a@B.DE', newsletterIDs: [2] }] }),
      );
      assert.deepEqual(await contents(store).then((c) => c.abonnements), {
        'a@b.de': { email: 'a@B.DE', newsletterIDs: [2] },
      });
      assert.deepEqual(counts(summary), { abonnements: k(0, 1, 0, 0) });
    });
  });

  describe('replace', () => {
    test('replace removes whatever the bundle does not hold, in every kind, including lists it omits', async () => {
      const { store } = await storeWithGeneration1();
      const summary = await importFolder(
        store,
        s.bundle(
          bundleJson({
            mode: 'replace',
            bereiche: [{ bereichID: 2, name: 'Kultur gen 1' }, { bereichID: 9 }],
          }),
        ),
      );
      const after = await contents(store);
      assert.deepEqual(Object.keys(after.bereiche), ['2', '9']);
      for (const kind of RECORD_KINDS.filter((kind) => kind !== 'bereiche')) {
        assert.deepEqual(after[kind], {}, kind);
      }
      assert.deepEqual(counts(summary), {
        bereiche: k(1, 0, 1, 1),
        cityAppBereiche: k(0, 0, 0, 1),
        anhaenge: k(0, 0, 0, 1),
        bilder: k(0, 0, 0, 1),
        artikel: k(0, 0, 0, 1),
        newsletter: k(0, 0, 0, 2),
        abonnements: k(0, 0, 0, 1),
      });
    });

    test('an empty replace bundle empties the store', async () => {
      const { store } = await storeWithGeneration1();
      await importFolder(store, s.bundle(bundleJson({ mode: 'replace' })));
      for (const [kind, records] of Object.entries(await contents(store)))
        assert.deepEqual(records, {}, kind);
    });
  });

  describe('references', () => {
    const fields = [
      ['bereiche', { bereiche: [{ bereichID: 4 }] }],
      ['cityAppBereiche', { cityAppBereiche: [{ cityAppBereichID: 4 }] }],
      ['anhaenge', { anhaenge: [{ anhangID: 4, file: 'a.txt' }] }],
    ] as const;

    for (const [field, target] of fields) {
      test(`artikel.${field} must exist in the store or the bundle`, async () => {
        const store = await newStore();
        // In the same bundle: accepted.
        await importFolder(
          store,
          upsert({ ...target, artikel: [{ artikelID: 1, [field]: [4] }] }, { 'a.txt': 'x' }),
        );
        // Only in the store: accepted.
        await importFolder(store, upsert({ artikel: [{ artikelID: 2, [field]: [4] }] }));
        // Neither: refused, naming the article and the field.
        await refusedImport(
          store,
          upsert({ artikel: [{ artikelID: 2 }, { artikelID: 3, [field]: [4, 5] }] }),
          `artikel[1] (artikelID 3).${field}`,
          new RegExp(`${field} 5 is neither in the store nor in the bundle`),
        );
        assert.deepEqual(await ids(store, 'artikel'), ['1', '2']);
      });

      test(`removing via loeschen ${field} an existing article still uses is refused`, async () => {
        const store = await newStore();
        await importFolder(
          store,
          upsert({ ...target, artikel: [{ artikelID: 1, [field]: [4] }] }, { 'a.txt': 'x' }),
        );
        await refusedImport(
          store,
          upsert({ loeschen: { [field]: [4] } }),
          `loeschen.${field}`,
          new RegExp(`${field} 4, which artikel 1 .*still uses`),
        );
        assert.deepEqual(await ids(store, field), ['4']);
        // Removing the article with it is fine.
        await importFolder(store, upsert({ loeschen: { [field]: [4], artikel: [1] } }));
        assert.deepEqual(await ids(store, field), []);
      });
    }

    test('removing via replace a record a kept article still uses is refused', async () => {
      const { store } = await storeWithGeneration1();
      const { json, files } = generation(1, { bereiche: [{ bereichID: 2, name: 'Kultur gen 1' }] });
      await refusedImport(
        store,
        s.bundle(json, files),
        'artikel[0] (artikelID 1).bereiche',
        /bereiche 1 is neither/,
      );
      assert.deepEqual(await ids(store, 'bereiche'), ['1', '2']);
    });

    test('abonnements.newsletterIDs must exist', async () => {
      const store = await newStore();
      await importFolder(store, upsert({ newsletter: [{ newsletterID: 1 }] }));
      await refusedImport(
        store,
        upsert({ abonnements: [{ email: 'Leser@example.org', newsletterIDs: [1, 2] }] }),
        'abonnements[0].newsletterIDs',
        /newsletter 2 is neither/,
      );
      await importFolder(
        store,
        upsert({ abonnements: [{ email: 'Leser@example.org', newsletterIDs: [1] }] }),
      );
      // Removing a newsletter a stored subscription still uses is refused too.
      await refusedImport(
        store,
        upsert({ loeschen: { newsletter: [1] } }),
        'loeschen.newsletter',
        /removes newsletter 1, which a stored subscription \(not in the bundle\) still uses/,
      );
      assert.deepEqual(await ids(store, 'newsletter'), ['1']);
    });

    test('no refusal names an e-mail address, in its message or in import_runs: records go by their index', async () => {
      const store = await newStore();
      await importFolder(store, upsert({ newsletter: [{ newsletterID: 1 }] }));
      const refusals: Array<[Record<string, unknown>, string]> = [
        [
          { abonnements: [{ email: 'Leser@example.org', newsletterIDs: [2] }] },
          'abonnements[0].newsletterIDs',
        ],
        [{ abonnements: [{ email: 'Leser@example.org', rolle: 'x' }] }, 'abonnements[0].rolle'],
        [
          { abonnements: [{ email: 'Leser@example.org', newsletterIDs: 'x' }] },
          'abonnements[0].newsletterIDs',
        ],
        [{ abonnements: [{ email: 'Leser@example.org' }, { email: 'leser@EXAMPLE.org' }] }, 'abonnements[1]'],
      ];
      for (const [records, where] of refusals) {
        const error = await importFolder(store, upsert(records)).then(
          () => assert.fail('the import was not refused'),
          (e: unknown) => e,
        );
        assert.ok(error instanceof BundleError);
        assert.ok(error.message.startsWith(`${where}: `), error.message);
        assert.doesNotMatch(error.message, /@/);
        assert.doesNotMatch((await store.importRuns()).lastRefused?.detail ?? '', /@/);
      }
      await importFolder(
        store,
        upsert({ abonnements: [{ email: 'Leser@example.org', newsletterIDs: [1] }] }),
      );
      const error = await importFolder(store, upsert({ loeschen: { newsletter: [1] } })).catch(
        (e: unknown) => e,
      );
      assert.ok(error instanceof BundleError);
      assert.doesNotMatch(error.message, /@/);
      assert.doesNotMatch((await store.importRuns()).lastRefused?.detail ?? '', /@/);
    });
  });

  describe('all or nothing', () => {
    /**
     * Runs `attempt` (expecting a refusal) and proves the store is exactly as before — every
     * row of every table — but for the one row recording the refusal in import_runs.
     */
    async function assertChangesNothing(
      opened: TestStore,
      attempt: () => Promise<unknown>,
      where: string,
    ): Promise<void> {
      const versionBefore = await opened.store.contentVersion();
      const { import_runs: runsBefore = [], ...dumpBefore } = await opened.dump();
      await assert.rejects(attempt(), (error: unknown) => {
        assert.ok(error instanceof BundleError, String(error));
        assert.ok(error.message.startsWith(`${where}: `), error.message);
        return true;
      });
      const { import_runs: runsAfter = [], ...dumpAfter } = await opened.dump();
      assert.deepEqual(dumpAfter, dumpBefore);
      assert.deepEqual(runsAfter.slice(0, runsBefore.length), runsBefore);
      const added = runsAfter.slice(runsBefore.length) as Array<Record<string, unknown>>;
      assert.equal(added.length, 1, 'the refusal is recorded');
      assert.equal(added[0]!.outcome, 'refused');
      assert.equal(added[0]!.content_version, null);
      assert.ok(String(added[0]!.detail).startsWith(`${where}: `), String(added[0]!.detail));
      assert.equal(await opened.store.contentVersion(), versionBefore);
    }

    test('a bundle refused in validation changes nothing', async () => {
      const { store, opened } = await storeWithGeneration1();
      const { json, files } = generation(2);
      const folder = s.bundle(json, { ...files, 'files/gross.bin': pattern(600_000) });
      const bundle = JSON.parse(JSON.stringify(json)) as { anhaenge: Array<Record<string, unknown>> };
      bundle.anhaenge.push({ anhangID: 101, file: 'files/gross.bin', size: 600_000 });
      const bad = s.bundle(bundle, { ...files, 'files/gross.bin': pattern(600_000) });
      await assertChangesNothing(opened, () => importFolder(store, bad), 'anhaenge[1] (anhangID 101).size');
      // The same bundle without the error goes in.
      await importFolder(store, folder);
      assert.equal(await store.contentVersion(), 2);
    });

    test('a bundle refused by the reference check inside the transaction changes nothing', async () => {
      const { store, opened } = await storeWithGeneration1();
      // Everything is written first (new blobs of several chunks, every kind), then the last
      // article's dangling reference is found.
      const { json, files } = generation(2, {
        anhaenge: [
          { anhangID: 100, file: 'files/satzung.txt' },
          { anhangID: 101, file: 'files/gross.bin' },
        ],
        artikel: [
          { artikelID: 1, bereiche: [1], anhaenge: [100, 101] },
          { artikelID: 2, bereiche: [1, 77] },
        ],
      });
      const folder = s.bundle(json, { ...files, 'files/gross.bin': pattern(3_000_000, 7) });
      await assertChangesNothing(
        opened,
        () => importFolder(store, folder),
        'artikel[1] (artikelID 2).bereiche',
      );
    });

    test('a bundle refused for removing what an article uses changes nothing', async () => {
      const { store, opened } = await storeWithGeneration1();
      const folder = upsert({
        bereiche: [{ bereichID: 3 }],
        loeschen: { cityAppBereiche: [10], bilder: [200] },
      });
      await assertChangesNothing(opened, () => importFolder(store, folder), 'loeschen.cityAppBereiche');
    });

    test('a file that changes while it is imported is refused and changes nothing', async () => {
      const { store, opened } = await storeWithGeneration1();
      const folder = upsert(
        { anhaenge: [{ anhangID: 300, file: 'gross.bin' }] },
        { 'gross.bin': pattern(2_000_000, 3) },
      );
      const bundle = await readBundle(folder);
      let touched = false;
      await assertChangesNothing(
        opened,
        () =>
          importBundle(store, bundle, {
            onProgress: (p) => {
              if (p.bytes > 0 && !touched) {
                touched = true;
                appendFileSync(path.join(folder, 'gross.bin'), 'mehr');
              }
            },
          }),
        'gross.bin',
      );
      await closeBundle(bundle);
      assert.ok(touched);
    });
  });

  describe('summary and content version', () => {
    test('the summary counts added, changed, unchanged and removed per kind', async () => {
      const store = await newStore();
      const first = generation(1);
      const one = await importFolder(store, s.bundle(first.json, first.files));
      assert.deepEqual(counts(one), {
        bereiche: k(2, 0, 0, 0),
        cityAppBereiche: k(1, 0, 0, 0),
        anhaenge: k(1, 0, 0, 0),
        bilder: k(1, 0, 0, 0),
        artikel: k(1, 0, 0, 0),
        newsletter: k(2, 0, 0, 0),
        abonnements: k(1, 0, 0, 0),
      });
      assert.equal(one.blobsStored, 2);
      assert.equal(one.bytesStored, Buffer.byteLength('Satzung, Fassung 1\n') + 1000);

      // Generation 2 renames everything; newsletter 2 goes, 3 comes; bereich 2 is kept as it was.
      const second = generation(2, {
        bereiche: [
          { bereichID: 1, name: 'Rathaus gen 2' },
          { bereichID: 2, name: 'Kultur gen 1' },
        ],
        newsletter: [
          { newsletterID: 1, name: 'Amtsblatt gen 2', oeffentlich: true },
          { newsletterID: 3, name: 'Neu gen 2' },
        ],
        abonnements: [{ email: 'leser@example.org', newsletterIDs: [1, 3] }],
      });
      const two = await importFolder(store, s.bundle(second.json, second.files));
      assert.deepEqual(counts(two), {
        bereiche: k(0, 1, 1, 0),
        cityAppBereiche: k(0, 1, 0, 0),
        anhaenge: k(0, 1, 0, 0),
        bilder: k(0, 1, 0, 0),
        artikel: k(0, 1, 0, 0),
        newsletter: k(1, 1, 0, 1),
        abonnements: k(0, 1, 0, 0),
      });
    });

    test('re-importing the same bundle gives all unchanged and keeps the content version, recording the run', async () => {
      const store = await newStore();
      assert.equal(await store.contentVersion(), 0);
      const { json, files } = generation(1);
      const folder = s.bundle(json, files);
      const first = await importFolder(store, folder);
      assert.equal(first.contentVersion, 1);
      assert.equal(first.contentChanged, true);
      const again = await importFolder(store, folder, { now: () => Date.parse('2026-05-06T07:08:09Z') });
      assert.equal(again.contentVersion, 1);
      assert.equal(again.contentChanged, false);
      assert.equal(await store.contentVersion(), 1);
      assert.equal(again.blobsStored, 0);
      for (const kind of RECORD_KINDS) {
        const added = first.kinds[kind].added;
        assert.ok(added > 0, kind);
        assert.deepEqual(again.kinds[kind], k(0, 0, added, 0), kind);
      }
      const runs = await store.importRuns();
      assert.equal(runs.committed, 2);
      assert.deepEqual(runs.last, {
        outcome: 'imported',
        finishedAt: '2026-05-06T07:08:09.000Z',
        contentVersion: 1,
        detail: null,
      });
    });

    test('a kind of many records is compared with what was stored: added, changed and unchanged counted among 1,500', async () => {
      // 1,000 or more records of a kind: the stored ids are listed first, and only those read back.
      const store = await newStore();
      const areas = (names: (i: number) => string) =>
        Array.from({ length: 1_500 }, (_, i) => ({ bereichID: i + 1, name: names(i + 1) }));
      const first = await importFolder(
        store,
        s.bundle(bundleJson({ mode: 'upsert', bereiche: areas((i) => `Bereich ${i}`).slice(0, 1_200) })),
      );
      assert.deepEqual(counts(first), { bereiche: k(1_200, 0, 0, 0) });
      const second = await importFolder(
        store,
        s.bundle(
          bundleJson({
            mode: 'upsert',
            bereiche: areas((i) => (i % 100 === 0 ? `Neu ${i}` : `Bereich ${i}`)),
          }),
        ),
      );
      assert.deepEqual(counts(second), { bereiche: k(300, 12, 1_188, 0) });
      const stored = (await contents(store)).bereiche;
      assert.equal(Object.keys(stored).length, 1_500);
      assert.deepEqual(stored['1100'], { bereichID: 1100, name: 'Neu 1100' });
      assert.deepEqual(stored['1101'], { bereichID: 1101, name: 'Bereich 1101' });
      assert.deepEqual(stored['1300'], { bereichID: 1300, name: 'Neu 1300' });
    });

    test('an empty bundle, or one deleting only what is not stored, keeps the content version', async () => {
      const { store } = await storeWithGeneration1();
      const empty = await importFolder(store, upsert({}));
      assert.deepEqual([empty.contentVersion, empty.contentChanged], [1, false]);
      const absent = await importFolder(store, upsert({ loeschen: { bereiche: [404], newsletter: [404] } }));
      assert.deepEqual([absent.contentVersion, absent.contentChanged], [1, false]);
      assert.equal(await store.contentVersion(), 1);
    });

    test('an import that only removes something bumps the content version', async () => {
      const { store } = await storeWithGeneration1();
      const summary = await importFolder(store, upsert({ loeschen: { abonnements: ['leser@example.org'] } }));
      assert.deepEqual(counts(summary), { abonnements: k(0, 0, 0, 1) });
      assert.deepEqual([summary.contentVersion, summary.contentChanged], [2, true]);
      assert.equal(await store.contentVersion(), 2);
    });

    test('a record whose file alone changed counts as changed', async () => {
      const store = await newStore();
      const record = { anhaenge: [{ anhangID: 1, file: 'a.bin', name: 'gleich' }] };
      await importFolder(store, upsert(record, { 'a.bin': 'eins' }));
      const summary = await importFolder(store, upsert(record, { 'a.bin': 'zwei' }));
      assert.deepEqual(counts(summary), { anhaenge: k(0, 1, 0, 0) });
    });

    test('a refused import does not move the content version', async () => {
      const { store } = await storeWithGeneration1();
      await assert.rejects(
        importFolder(store, upsert({ artikel: [{ artikelID: 5, bereiche: [404] }] })),
        BundleError,
      );
      assert.equal(await store.contentVersion(), 1);
      await importFolder(store, upsert({ bereiche: [{ bereichID: 5, name: 'Neu' }] }));
      assert.equal(await store.contentVersion(), 2);
    });
  });

  describe('e-mail keys', () => {
    test('abonnements are stored under their key, keeping the address as written (trimmed)', async () => {
      const store = await newStore();
      await importFolder(
        store,
        upsert({
          newsletter: [{ newsletterID: 1 }],
          abonnements: [{ email: ' JÖRG@Example.org ', newsletterIDs: [1, 1] }],
        }),
      );
      assert.deepEqual((await contents(store)).abonnements, {
        'jörg@example.org': { email: 'JÖRG@Example.org', newsletterIDs: [1] },
      });
    });
  });
}

describe('e-mail keys', () => {
  test('e-mail keys are trimmed, NFC and case-insensitive, non-ASCII letters included', () => {
    assert.equal(emailKey('  Jörg@Example.ORG\t'), 'jörg@example.org');
    assert.equal(emailKey('JÖRG@EXAMPLE.ORG'), emailKey('jörg@example.org'));
    assert.equal(emailKey('Jo\u0308rg@example.org'), emailKey('J\u00f6rg@example.org'));
    assert.equal(emailKey('JO\u0308RG@example.org'), 'j\u00f6rg@example.org');
    assert.equal(emailKey('ΣΩΚΡΆΤΗΣ@example.org'), emailKey('Σωκράτης@example.org'));
    assert.notEqual(emailKey('joerg@example.org'), emailKey('jörg@example.org'));
  });

  test('two abonnements differing only in case or normalisation are duplicates', async () => {
    await assert.rejects(
      readBundle(
        upsert({
          abonnements: [{ email: 'Jörg@example.org' }, { email: 'JO\u0308RG@EXAMPLE.ORG' }],
        }),
      ),
      /^BundleError: abonnements\[1\]: has the same id as abonnements\[0\] \(duplicate id in abonnements\)$/,
    );
  });
});

describe('what a small import reads', () => {
  /** The store, its import transactions noting each kind whose records are all listed (rows without ids, ids). */
  function counting(store: ContentStore): { store: ContentStore; listed: RecordKind[] } {
    const listed: RecordKind[] = [];
    const importTransaction: ContentStore['importTransaction'] = (work) =>
      store.importTransaction((tx) =>
        work(
          Object.assign(Object.create(tx) as typeof tx, {
            rows: (kind: RecordKind, ids?: readonly string[]) => {
              if (ids === undefined) listed.push(kind);
              return tx.rows(kind, ids);
            },
            ids: (kind: RecordKind) => {
              listed.push(kind);
              return tx.ids(kind);
            },
          }),
        ),
      );
    return { store: Object.assign(Object.create(store) as ContentStore, { importTransaction }), listed };
  }

  test('an upsert that removes nothing reads no stored article or subscription; one that removes an area does', async () => {
    const plain = s.store();
    const first = generation(1);
    await importFolder(plain, s.bundle(first.json, first.files));
    const { store, listed } = counting(plain);
    await importFolder(
      store,
      s.bundle(bundleJson({ mode: 'upsert', bereiche: [{ bereichID: 2, name: 'Neu' }] })),
    );
    assert.ok(!listed.includes('artikel') && !listed.includes('abonnements'), listed.join(', '));
    await importFolder(
      store,
      s.bundle(bundleJson({ mode: 'upsert', bereiche: [{ bereichID: 3, name: 'Drei' }] })),
    );
    listed.length = 0;
    await importFolder(store, s.bundle(bundleJson({ mode: 'upsert', loeschen: { bereiche: [3] } })));
    assert.ok(listed.includes('artikel'), listed.join(', '));
  });
});
