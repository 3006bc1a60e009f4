/**
 * Prepared answers are byte for byte what the handlers and writers make of the same
 * content, on both stores: for every prepared operation, every record, both layouts; after
 * an import that changes what an article shows; outside an article's window; and never
 * when they are of another format or an import without a preparer made them stale.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  bundleJson,
  generation,
  importFolder as importWith,
  pattern,
  scratch,
} from '../../test/support/bundles.ts';
import { DATABASES, type TestDatabase } from '../../test/support/databases.ts';
import { EXTRAS_BUNDLE, FIXED_NOW, REFERENCE_BUNDLE } from '../../test/support/fixture-server.ts';
import { isScoopError } from '../contract/errors.ts';
import { OPERATIONS, type Operation } from '../contract/operations.ts';
import { compileOperationWriter } from '../protocol/serialize.ts';
import { materialize } from '../server/send.ts';
import type { ServiceContext } from '../service/handlers.ts';
import { invoke } from '../service/invoke.ts';
import { STORED_INPUT_BYTES } from '../store/blob-chunks.ts';
import type { ContentStore } from '../store/content-store.ts';
import { importFolder as importWithout } from '../store/import.ts';
import { type AnswerPreparerOptions, answerPreparer } from './prepare-answers.ts';
import { preparedInside } from './prepared-answer.ts';
import { ANSWERS_FORMAT, PREPARED } from './prepared-operations.ts';

const s = scratch();
const NS = 'http://scoop.example.org/api';

function context(store: ContentStore, now: number): ServiceContext {
  return {
    store,
    now: () => now,
    options: { maxImageDimension: 4096 },
    images: {
      held: () => undefined,
      variant: () => Promise.reject(new Error('no resizing here')),
      imageGone: () => undefined,
    },
  };
}

function operationNamed(name: string): Operation {
  return OPERATIONS.find((o) => o.name === name)!;
}

/** What the handler and writer send, per layout; undefined when the handler refuses. */
async function rendered(store: ContentStore, operation: Operation, key: string, now: number) {
  const prepared = PREPARED.find((p) => p.name === operation.name)!;
  const writer = compileOperationWriter(operation, NS);
  let result: Readonly<Record<string, unknown>>;
  try {
    result = await invoke(operation, prepared.argumentsOf(key), context(store, now));
  } catch (error) {
    if (isScoopError(error)) return undefined;
    throw error;
  }
  return {
    compact: await materialize(writer.soap('1.2', result)),
    indented: await materialize(writer.http(result)),
  };
}

async function fromPrepared(store: ContentStore, operation: Operation, key: string, now: number) {
  const prepared = PREPARED.find((p) => p.name === operation.name)!;
  const writer = compileOperationWriter(operation, NS);
  const args = prepared.argumentsOf(key);
  const compact = await preparedInside(store, operation, args, 'compact', now, () => undefined);
  const indented = await preparedInside(store, operation, args, 'indented', now, () => undefined);
  assert.equal(compact === undefined, indented === undefined, 'both layouts or neither');
  if (!compact || !indented) return undefined;
  return {
    compact: await materialize(writer.wrapSoap('1.2', compact)),
    indented: await materialize(writer.wrapHttp(indented)),
  };
}

/** The stored records' ids of the operation's kind (or '' for a whole kind's one answer). */
async function keysOf(store: ContentStore, kind: (typeof PREPARED)[number]): Promise<string[]> {
  if (kind.whole) return [''];
  return store.read(async (snapshot) => (await snapshot.all(kind.kind)).map((r) => r.id));
}

async function assertSameAsHandlers(store: ContentStore, now = FIXED_NOW): Promise<number> {
  let prepared = 0;
  for (const p of PREPARED) {
    const operation = operationNamed(p.name);
    // A key no record has is answered by the handler (an unknown id, an empty list, false).
    const unknown = p.kind === 'abonnements' ? 'niemand@example.org' : '987654';
    if (!p.whole) assert.equal(await fromPrepared(store, operation, unknown, now), undefined);
    for (const key of await keysOf(store, p)) {
      const expected = await rendered(store, operation, key, now);
      const actual = await fromPrepared(store, operation, key, now);
      if (expected === undefined) {
        assert.equal(actual, undefined, `${p.name}(${key}) is refused, so nothing is prepared to send`);
        continue;
      }
      assert.ok(actual, `${p.name}(${key}) has a prepared answer`);
      assert.equal(actual.compact.toString(), expected.compact.toString(), `${p.name}(${key}) compact`);
      assert.equal(actual.indented.toString(), expected.indented.toString(), `${p.name}(${key}) indented`);
      prepared++;
    }
  }
  return prepared;
}

function behaviour(db: TestDatabase, rendering: AnswerPreparerOptions): void {
  const importFolder = (store: ContentStore, folder: string) =>
    importWith(store, folder, { answers: answerPreparer(rendering) });

  db.test('every prepared answer is what the handler sends, for the reference content', async () => {
    const { store, close } = await db.open();
    try {
      await importFolder(store, REFERENCE_BUNDLE);
      await importFolder(store, EXTRAS_BUNDLE);
      const prepared = await assertSameAsHandlers(store);
      assert.ok(prepared > 12, `only ${prepared} answers compared`);
    } finally {
      await close();
    }
  });

  db.test('a binary larger than one chunk streams from its record, as the handler sends it', async () => {
    const { store, close } = await db.open();
    try {
      const { json, files } = generation(1);
      const big = pattern(2 * STORED_INPUT_BYTES + 5, 7);
      const folder = s.bundle(json, { ...files, 'files/satzung.txt': big });
      await importFolder(store, folder);
      const operation = operationNamed('getArtikelDetails');
      const inside = await preparedInside(store, operation, { artikelID: 1 }, 'compact', FIXED_NOW, () => 0);
      assert.ok(inside?.some((part) => !Buffer.isBuffer(part) && 'base64Of' in part));
      assert.ok(inside?.every((part) => Buffer.isBuffer(part) || 'base64Of' in part));
      const text = (await materialize(inside!)).toString();
      assert.ok(text.includes(big.toString('base64')));
      await assertSameAsHandlers(store);
    } finally {
      await close();
    }
  });

  db.test('an import prepares again what a change shows: the article of a changed area or file', async () => {
    const { store, close } = await db.open();
    try {
      const first = generation(1);
      await importFolder(store, s.bundle(first.json, first.files));
      const before = (await fromPrepared(store, operationNamed('getArtikelDetails'), '1', FIXED_NOW))!;
      assert.match(before.compact.toString(), /Kultur gen 1/);
      // Each kind an article shows, changed alone: the article is prepared again each time.
      const article = async () =>
        (await fromPrepared(store, operationNamed('getArtikelDetails'), '1', FIXED_NOW))!.compact.toString();
      await importFolder(
        store,
        s.bundle(
          bundleJson({ mode: 'upsert', cityAppBereiche: [{ cityAppBereichID: 10, name: 'Freizeit neu' }] }),
        ),
      );
      assert.match(await article(), /Freizeit neu/);
      await importFolder(
        store,
        s.bundle(
          bundleJson({
            mode: 'upsert',
            anhaenge: [{ ...(first.json.anhaenge as object[])[0], name: 'Satzung neu' }],
          }),
          {
            'files/satzung.txt': first.files['files/satzung.txt']!,
          },
        ),
      );
      assert.match(await article(), /Satzung neu/);
      await assertSameAsHandlers(store);
      // Only the area and the attachment's file change: the article itself is unchanged.
      const merge = bundleJson({
        mode: 'upsert',
        bereiche: [{ bereichID: 2, name: 'Kultur und Sport' }],
        anhaenge: [
          {
            anhangID: 100,
            file: 'files/satzung.txt',
            filename: 'satzung.txt',
            name: 'Satzung gen 1',
            beschreibung: 'Satzung der Stadt',
            mimetype: 'text/plain',
            sort: 1,
          },
        ],
      });
      await importFolder(store, s.bundle(merge, { 'files/satzung.txt': 'Neue Fassung\n' }));
      const after = (await fromPrepared(store, operationNamed('getArtikelDetails'), '1', FIXED_NOW))!;
      assert.match(after.compact.toString(), /Kultur und Sport/);
      assert.ok(after.compact.toString().includes(Buffer.from('Neue Fassung\n').toString('base64')));
      await assertSameAsHandlers(store);
      // A removed record's answers go with it.
      await importFolder(
        store,
        s.bundle(bundleJson({ mode: 'upsert', loeschen: { abonnements: ['leser@example.org'] } })),
      );
      await assertSameAsHandlers(store);
      const gone = await fromPrepared(
        store,
        operationNamed('getAbonnierteNewsletter'),
        'leser@example.org',
        0,
      );
      assert.equal(gone, undefined);
    } finally {
      await close();
    }
  });

  db.test(
    "answers of many batches are intact: a batch's buffers serve a later batch only once it is written",
    async () => {
      const { store, close } = await db.open();
      try {
        // 1,700 areas: four batches (three of 500, one of 200), whose slabs are given back once
        // written and fill the next batches (on a thread of its own, one batch at a time ahead
        // of the writes, so each reuses the slabs of the one before). Every 40th name is long:
        // a fragment of 64 KiB or more, which PostgreSQL's COPY sends as the slab's own memory,
        // and more than a slab a batch.
        const bereiche = Array.from({ length: 1_700 }, (_, i) => ({
          bereichID: i + 1,
          name: `Bereich ${i + 1} ${'ä'.repeat(i % 40 === 0 ? 40_000 : i % 50)}`,
        }));
        await importFolder(store, s.bundle(bundleJson({ mode: 'replace', bereiche })));
        const operation = operationNamed('getBereich');
        for (const id of [1, 41, 499, 500, 501, 1000, 1001, 1481, 1500, 1501, 1700]) {
          const actual = await fromPrepared(store, operation, String(id), FIXED_NOW);
          const expected = await rendered(store, operation, String(id), FIXED_NOW);
          assert.ok(actual && expected);
          assert.equal(actual.compact.toString(), expected.compact.toString(), `getBereich(${id})`);
          assert.equal(actual.indented.toString(), expected.indented.toString(), `getBereich(${id})`);
        }
        assert.equal(await assertSameAsHandlers(store), 1_700 + 1);
      } finally {
        await close();
      }
    },
  );

  db.test('a record the bundle writes and then removes has no prepared answer', async () => {
    const { store, close } = await db.open();
    try {
      const first = generation(1);
      await importFolder(store, s.bundle(first.json, first.files));
      const artikel = (first.json.artikel as Array<Record<string, unknown>>)[0]!;
      const both = bundleJson({
        mode: 'upsert',
        artikel: [{ ...artikel, text: '<p>Neu</p>' }],
        loeschen: { artikel: [1] },
      });
      await importFolder(store, s.bundle(both, first.files));
      assert.equal(await store.read((snapshot) => snapshot.get('artikel', '1')), undefined);
      assert.equal(await fromPrepared(store, operationNamed('getArtikelDetails'), '1', FIXED_NOW), undefined);
      await assertSameAsHandlers(store);
    } finally {
      await close();
    }
  });

  db.test("an article's prepared answer is sent only inside its window, and says when it ends", async () => {
    const { store, close } = await db.open();
    try {
      const from = Date.parse('2026-01-01T00:00:00Z');
      const until = Date.parse('2026-12-31T00:00:00Z');
      const { json, files } = generation(1);
      const artikel = (json.artikel as Array<Record<string, unknown>>)[0]!;
      const windowed = {
        ...json,
        artikel: [{ ...artikel, sichtbarVon: '2026-01-01T00:00:00Z', sichtbarBis: '2026-12-31T00:00:00Z' }],
      };
      await importFolder(store, s.bundle(windowed, files));
      const operation = operationNamed('getArtikelDetails');
      const ask = async (now: number) => {
        let expires: number | undefined;
        const inside = await preparedInside(store, operation, { artikelID: 1 }, 'indented', now, (at) => {
          expires = at;
        });
        return { inside, expires };
      };
      assert.equal((await ask(from - 1)).inside, undefined);
      assert.equal((await ask(until + 1)).inside, undefined);
      const open = await ask(from);
      assert.ok(open.inside);
      assert.equal(open.expires, until + 1);
      await assertSameAsHandlers(store, from);
      await assertSameAsHandlers(store, until + 1);
    } finally {
      await close();
    }
  });

  db.test(
    'answers of another format are never sent, and an import without a preparer drops them',
    async () => {
      const { store, close } = await db.open();
      try {
        const { json, files } = generation(1);
        await importFolder(store, s.bundle(json, files));
        const operation = operationNamed('getBereich');
        const ask = (format: string) => store.read((snapshot) => snapshot.answer('getBereich', '1', format));
        assert.ok(await ask(ANSWERS_FORMAT));
        assert.equal(await ask(`${ANSWERS_FORMAT}-other`), undefined);
        // Another build's import (no preparer) changes the area: the stale answer must go.
        const merge = bundleJson({ mode: 'upsert', bereiche: [{ bereichID: 1, name: 'Neu' }] });
        await importWithout(store, s.bundle(merge));
        assert.equal(await ask(ANSWERS_FORMAT), undefined);
        assert.equal(
          await preparedInside(store, operation, { bereichID: 1 }, 'compact', 0, () => 0),
          undefined,
        );
        // The next import with one prepares every answer again, though nothing changed.
        const summary = await importFolder(store, s.bundle(bundleJson({ mode: 'upsert' })));
        assert.equal(summary.contentChanged, true);
        assert.ok(await ask(ANSWERS_FORMAT));
        await assertSameAsHandlers(store);
      } finally {
        await close();
      }
    },
  );
}

/**
 * On the import's own thread (as small bundles are), and on a thread of its own (as large
 * ones are), one batch ahead: then the batches still queued once the records are written
 * are rendered by the import's thread, from the last (Preparing.finish), so both renderers
 * make answers of the same import.
 */
const RENDERING: ReadonlyArray<{ where: string; options: AnswerPreparerOptions }> = [
  { where: "rendering on the import's thread", options: { threadFromRecords: Number.POSITIVE_INFINITY } },
  { where: 'rendering on a thread of its own', options: { threadFromRecords: 0, threadAhead: 1 } },
];

for (const db of DATABASES) {
  for (const { where, options } of RENDERING) describe(`${db.name}, ${where}`, () => behaviour(db, options));
}

/**
 * A store whose import fails as PostgreSQL's does: the first statement `failing` names (when
 * `when` says so) fails with `error`, and every statement after it with "current
 * transaction is aborted".
 */
function failingImports(
  store: ContentStore,
  failing: string,
  error: string,
  when: (args: unknown[]) => boolean = () => true,
): () => void {
  const own = store.importTransaction.bind(store);
  store.importTransaction = (work) =>
    own((tx) => {
      let failed = false;
      const failingTx = new Proxy(tx, {
        get(target, name) {
          const method = Reflect.get(target, name) as (...args: unknown[]) => Promise<unknown>;
          return async (...args: unknown[]) => {
            if (failed) throw new Error('current transaction is aborted');
            if (name === failing && when(args)) {
              failed = true;
              throw new Error(error);
            }
            return method.apply(target, args);
          };
        },
      });
      return work(failingTx);
    });
  return () => {
    store.importTransaction = own;
  };
}

for (const { where, options } of RENDERING) {
  const cases = [
    {
      what: 'a failed write of answers',
      failing: 'putAnswers',
      when: (args: unknown[]) => (args[1] as unknown[]).length > 0,
    },
    // Answers are written while records are: the records' failure comes first here.
    { what: 'a failed write of records', failing: 'putRecords', when: () => true },
  ];
  for (const { what, failing, when } of cases) {
    test(`${what} fails the import with its own error, not that of a statement after it (${where})`, async () => {
      const { store, close } = await DATABASES[0]!.open();
      try {
        const restore = failingImports(store, failing, 'no space left on device', when);
        const { json, files } = generation(1);
        await assert.rejects(
          importWithout(store, s.bundle(json, files), { answers: answerPreparer(options) }),
          /no space left on device/,
        );
        restore();
        assert.equal(
          await store.read((snapshot) => snapshot.get('artikel', '1')),
          undefined,
          'nothing imported',
        );
      } finally {
        await close();
      }
    });
  }

  test(`a record that cannot be read for an answer fails the import with that error (${where})`, async () => {
    const { store, close } = await DATABASES[0]!.open();
    try {
      const first = generation(1);
      await importWithout(store, s.bundle(first.json, first.files), { answers: answerPreparer(options) });
      // The article's area is stored and not in this bundle: rendering the article reads it.
      const artikel = (first.json.artikel as Array<Record<string, unknown>>)[0]!;
      const merge = bundleJson({ mode: 'upsert', artikel: [{ ...artikel, text: '<p>Neu</p>' }] });
      const restore = failingImports(
        store,
        'rows',
        'the disk is gone',
        (args) => args[0] === 'bereiche' && ((args[1] as unknown[] | undefined)?.length ?? 0) > 0,
      );
      await assert.rejects(
        importWithout(store, s.bundle(merge, first.files), { answers: answerPreparer(options) }),
        /the disk is gone/,
      );
      restore();
      const stored = await store.read((snapshot) => snapshot.get('artikel', '1'));
      assert.notEqual(JSON.parse(stored!.doc).text, '<p>Neu</p>', 'nothing imported');
    } finally {
      await close();
    }
  });
}
