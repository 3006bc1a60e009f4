/**
 * What an import changed of the prepared answers (answer-changes.ts): the rows' rules, then
 * every store under imports, SQLite and PostgreSQL alike, checked against the answers
 * themselves: every answer whose bytes an import changed is listed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bundleJson, generation, importFolder, pattern, scratch } from '../../test/support/bundles.ts';
import { DATABASES } from '../../test/support/databases.ts';
import { ANSWERS_FORMAT } from '../prepare/prepared-operations.ts';
import {
  type AnswerChanges,
  changeRow,
  changesSince,
  KEPT_VERSIONS,
  MAX_LISTED_ANSWERS,
} from './answer-changes.ts';
import type { AnswerKey, ContentStore } from './content-store.ts';

const s = scratch();

const key = (operation: string, key: string): AnswerKey => ({ operation, key });

describe('changesSince', () => {
  const one: AnswerChanges = { answers: [key('getBereich', '1')], blobs: [] };
  const two: AnswerChanges = { answers: [key('getArtikelDetails', '7')], blobs: [41] };
  const rows = [changeRow(3, undefined), changeRow(4, one), changeRow(5, two)];
  const mark = { version: 3, token: rows[0]!.token };

  test('lists the changes of every version after the mark, in order, with the token of the version now', () => {
    assert.deepEqual(changesSince(5, mark, rows), {
      version: 5,
      token: rows[2]!.token,
      changes: { answers: [...one.answers, ...two.answers], blobs: [41] },
    });
    assert.deepEqual(
      changesSince(3, mark, rows.slice(0, 1)).changes,
      { answers: [], blobs: [] },
      'none since',
    );
  });

  test('tells none when they cannot all be told', () => {
    assert.equal(changesSince(5, undefined, rows).changes, undefined, 'no mark');
    assert.equal(changesSince(5, { version: 3, token: 'another' }, rows).changes, undefined, 'other content');
    assert.equal(changesSince(5, mark, [rows[0]!, rows[2]!]).changes, undefined, 'a version without its row');
    assert.equal(changesSince(5, mark, rows.slice(1)).changes, undefined, "the mark's row is gone");
    const redone = [rows[0]!, changeRow(4, undefined), rows[2]!];
    assert.equal(
      changesSince(5, { version: 3, token: redone[0]!.token }, redone).changes,
      undefined,
      'all redone',
    );
    assert.equal(changesSince(2, mark, rows).changes, undefined, 'the store went back');
    assert.equal(changesSince(6, mark, rows).token, undefined, 'no row for the version now');
  });

  test('an answer changed by several imports is told once; past the bound in all, none are told', () => {
    const again = [changeRow(3, undefined), changeRow(4, one), changeRow(5, one), changeRow(6, two)];
    const since = changesSince(6, { version: 3, token: again[0]!.token }, again);
    assert.deepEqual(since.changes!.answers, [...one.answers, ...two.answers]);
    const half = (from: number) => ({
      answers: Array.from({ length: MAX_LISTED_ANSWERS / 2 + 1 }, (_, i) =>
        key('getBereich', String(from + i)),
      ),
      blobs: [],
    });
    const many = [changeRow(3, undefined), changeRow(4, half(0)), changeRow(5, half(MAX_LISTED_ANSWERS))];
    assert.equal(changesSince(5, { version: 3, token: many[0]!.token }, many).changes, undefined);
    assert.equal(
      changesSince(4, { version: 3, token: many[0]!.token }, many).changes!.answers.length,
      MAX_LISTED_ANSWERS / 2 + 1,
    );
  });

  test(`past ${MAX_LISTED_ANSWERS} answers an import's changes are not listed`, () => {
    const many = (n: number) => ({
      answers: Array.from({ length: n }, (_, i) => key('getBereich', String(i))),
      blobs: [],
    });
    assert.notEqual(changeRow(1, many(MAX_LISTED_ANSWERS)).changes, null);
    assert.equal(changeRow(1, many(MAX_LISTED_ANSWERS + 1)).changes, null);
  });
});

/** Every prepared answer (its stored, compact layout), by operation and key. */
async function answersOf(store: ContentStore): Promise<Map<string, string>> {
  const all = new Map<string, string>();
  let after: AnswerKey | undefined;
  for (;;) {
    const page = await store.answerPage(ANSWERS_FORMAT, after, 50);
    for (const a of page.answers)
      all.set(`${a.operation} ${a.key}`, `${a.compact.toString('hex')} ${a.visibleFrom} ${a.visibleUntil}`);
    if (page.answers.length < 50) return all;
    after = page.answers.at(-1);
  }
}

async function markOf(store: ContentStore) {
  const now = await store.answerChanges(undefined);
  assert.ok(now.token, `version ${now.version} has a token`);
  return { version: now.version, token: now.token };
}

for (const db of DATABASES) {
  describe(`the changes each import records, ${db.name}`, () => {
    db.test('every answer an import changed or removed is listed, and no more than it wrote', async () => {
      const { store } = await s.open(db);
      const first = generation(1);
      await importFolder(store, s.bundle(first.json, first.files));
      const mark = await markOf(store);
      assert.equal((await store.answerChanges(undefined)).changes, undefined, 'no mark, no changes');
      const before = await answersOf(store);
      // Area 2 renamed (the article shows it), the image removed.
      await importFolder(
        store,
        s.bundle(
          bundleJson({
            mode: 'upsert',
            bereiche: [{ bereichID: 2, name: 'Kultur neu' }],
            loeschen: { bilder: [200] },
          }),
        ),
      );
      const since = await store.answerChanges(mark);
      assert.equal(since.version, mark.version + 1);
      const listed = new Set(since.changes!.answers.map((a) => `${a.operation} ${a.key}`));
      const after = await answersOf(store);
      const differ = [...new Set([...before.keys(), ...after.keys()])].filter(
        (k) => before.get(k) !== after.get(k),
      );
      assert.deepEqual(differ.sort(), ['getArtikelDetails 1', 'getBereich 2', 'getBild 200']);
      for (const k of differ) assert.ok(listed.has(k), `${k} changed and is listed`);
      assert.ok(!listed.has('getBereich 1') && !listed.has('getAnhang 100'), [...listed].join(', '));
      assert.deepEqual(since.changes!.blobs, []);
      // An import that changes nothing makes no version.
      await importFolder(
        store,
        s.bundle(bundleJson({ mode: 'upsert', bereiche: [{ bereichID: 2, name: 'Kultur neu' }] })),
      );
      assert.equal((await store.answerChanges(mark)).version, since.version);
      assert.equal((await store.answerChanges({ ...mark, token: 'of other content' })).changes, undefined);
    });

    db.test('the blobs an import deleted are listed: their ids may be given to other content', async () => {
      const { store } = await s.open(db);
      const withFile = (bytes: Buffer) =>
        s.bundle(bundleJson({ mode: 'upsert', anhaenge: [{ anhangID: 1, file: 'a.bin' }] }), {
          'a.bin': bytes,
        });
      const options = (now: number) => ({ now: () => now, blobGraceMs: 1000 });
      await importFolder(store, withFile(pattern(500, 1)), options(10_000));
      const idOf = async () => (await store.read((snapshot) => snapshot.get('anhaenge', '1')))!.blob!.id;
      const old = await idOf();
      await importFolder(store, withFile(pattern(500, 2)), options(20_000));
      const mark = await markOf(store);
      assert.deepEqual((await store.answerChanges(mark)).changes, { answers: [], blobs: [] });
      // Past its grace, the blob the first import stored is deleted by the next import.
      await importFolder(store, withFile(pattern(500, 3)), options(30_000));
      assert.deepEqual((await store.answerChanges(mark)).changes!.blobs, [old]);
      assert.notEqual(await idOf(), old);
      // An import that changes nothing but sweeps a blob past its grace makes a version for it.
      const third = await markOf(store);
      await importFolder(
        store,
        s.bundle(bundleJson({ mode: 'upsert', loeschen: { anhaenge: [1] } })),
        options(40_000),
      );
      const removed = await markOf(store);
      const sweep = await importFolder(store, s.bundle(bundleJson({ mode: 'upsert' })), options(50_000));
      assert.equal(sweep.contentChanged, true);
      assert.equal(sweep.contentVersion, removed.version + 1);
      const since = await store.answerChanges(third);
      assert.equal(
        since.changes!.blobs.length,
        2,
        'the second and the third file, each in the import that deleted it',
      );
      assert.deepEqual((await store.answerChanges(removed)).changes!.answers, []);
    });

    db.test('an import that redoes every answer lists none: a process reads them all again', async () => {
      const { store } = await s.open(db);
      const first = generation(1);
      await importFolder(store, s.bundle(first.json, first.files));
      const mark = await markOf(store);
      // Without a preparer the answers are dropped; with one again, all are prepared anew.
      const rename = (name: string) =>
        s.bundle(bundleJson({ mode: 'upsert', bereiche: [{ bereichID: 1, name }] }));
      await importFolder(store, rename('ohne'), { answers: undefined });
      assert.equal((await store.answerChanges(mark)).changes, undefined);
      const second = await markOf(store);
      await importFolder(store, rename('mit'));
      assert.equal((await store.answerChanges(second)).changes, undefined);
      assert.ok((await answersOf(store)).size > 0);
    });

    db.test(`the changes of the last ${KEPT_VERSIONS} versions are kept`, async () => {
      const { store } = await s.open(db);
      const add = (n: number) =>
        s.bundle(bundleJson({ mode: 'upsert', bereiche: [{ bereichID: n + 1, name: `Bereich ${n}` }] }));
      await importFolder(store, add(0));
      const first = await markOf(store);
      await importFolder(store, add(1));
      const second = await markOf(store);
      for (let n = 2; n <= KEPT_VERSIONS; n++) await importFolder(store, add(n));
      const since = await store.answerChanges(second);
      assert.equal(since.version, second.version + KEPT_VERSIONS - 1);
      assert.equal(since.changes!.answers.length, KEPT_VERSIONS - 1, 'one area added each time');
      assert.equal((await store.answerChanges(first)).changes, undefined, 'forgotten');
    });
  });
}
