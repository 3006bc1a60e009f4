import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { type ChangeRow, changeRow, changesSince, type VersionMark } from '../store/answer-changes.ts';
import type { AnswerKey, AnswerPage, PagedAnswer, Snapshot } from '../store/content-store.ts';
import { AnswerPack, type PackMove } from './answer-pack.ts';
import { PackFiller, type PackFillerOptions } from './pack-filler.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'scoop-pack-filler-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function answer(key: number, version: number): PagedAnswer {
  return {
    operation: 'getBereich',
    key: String(key),
    compact: Buffer.from(`<b v="${version}">${key}</b>`),
    visibleFrom: null,
    visibleUntil: null,
  };
}

/**
 * A store of `count` answers (no binaries) at `version`, paged as answerPage pages them. Each
 * answer shows the version that last changed it; each version has its row of changes.
 */
class FakeStore {
  version = 1;
  failures = 0;
  pages = 0;
  /** Answers read by key (Snapshot.answer). */
  reads = 0;
  /** The version every answer was last changed in, and the answers changed since by key. */
  private base = 1;
  private readonly changedIn = new Map<number, number>();
  private readonly removed = new Set<number>();
  private readonly rows = new Map<number, ChangeRow>([[1, changeRow(1, undefined)]]);
  constructor(readonly count: number) {}

  /** An import that redid every answer. */
  replaceAll(): void {
    this.version++;
    this.base = this.version;
    this.changedIn.clear();
    this.rows.set(this.version, changeRow(this.version, undefined));
  }

  /** An import that changed these answers, and removed those; its row lists them unless `unlisted`. */
  change(keys: readonly number[], removed: readonly number[] = [], unlisted = false): void {
    this.version++;
    for (const key of keys) this.changedIn.set(key, this.version);
    for (const key of removed) this.removed.add(key);
    const answers = [...keys, ...removed].map((key) => ({ operation: 'getBereich', key: String(key) }));
    this.rows.set(this.version, changeRow(this.version, unlisted ? undefined : { answers, blobs: [] }));
  }

  /** The store restored from another copy: the same version number, another token. */
  restored(): void {
    this.rows.set(this.version, changeRow(this.version, undefined));
    this.base = this.version;
    this.changedIn.clear();
  }

  private answerOf(key: number): PagedAnswer | undefined {
    if (key >= this.count || this.removed.has(key)) return undefined;
    return answer(key, this.changedIn.get(key) ?? this.base);
  }

  async answerPage(_format: string, after: AnswerKey | undefined, limit: number): Promise<AnswerPage> {
    this.pages++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('store unavailable');
    }
    const from = after ? Number(after.key) + 1 : 0;
    const answers: PagedAnswer[] = [];
    for (let key = from; key < this.count && answers.length < limit; key++) {
      const found = this.answerOf(key);
      if (found) answers.push(found);
    }
    return { version: this.version, answers };
  }
  async answerChanges(since: VersionMark | undefined) {
    const rows = [...this.rows.values()].filter(
      (row) => Number(row.version) >= (since?.version ?? this.version),
    );
    return changesSince(this.version, since, rows);
  }
  peekVersion(): number {
    return this.version;
  }
  async knownVersion(): Promise<number> {
    return this.version;
  }
  async read<T>(read: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    const snapshot: Partial<Snapshot> = {
      answer: async (_operation, key) => {
        this.reads++;
        const found = this.answerOf(Number(key));
        return found && { ...found, fragment: found.compact, version: this.version };
      },
    };
    return read(snapshot as Snapshot);
  }
}

async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    assert.ok(Date.now() < deadline, 'not done within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function fillerOf(store: FakeStore, pack: AnswerPack, extra: Partial<PackFillerOptions> = {}) {
  const filled: Array<[number, number]> = [];
  const moves: Array<[number, PackMove, number]> = [];
  const errors: unknown[] = [];
  const filler = new PackFiller({
    store: store as unknown as PackFillerOptions['store'],
    pack,
    pageSize: 4,
    everyMs: 5,
    onFilled: (version, answers) => filled.push([version, answers]),
    onMoved: (version, move, kept) => moves.push([version, move, kept]),
    onError: (error) => errors.push(error),
    ...extra,
  });
  return { filler, filled, moves, errors };
}

const never = () => undefined;

/** A filler started on a new pack of 1 MiB over `store`. */
function started(store: FakeStore) {
  const pack = AnswerPack.open({ dir, maxBytes: 1024 * 1024 });
  const parts = fillerOf(store, pack);
  parts.filler.start();
  return { store, pack, ...parts };
}

describe('the pack filler', () => {
  test('reads every answer of the version, both layouts, page by page; again after the version changes', async () => {
    const store = new FakeStore(10);
    const pack = AnswerPack.open({ dir, maxBytes: 1024 * 1024 });
    const { filler, filled, errors } = fillerOf(store, pack);
    filler.start();
    await until(() => filler.filledVersion === 1);
    assert.deepEqual(filled, [[1, 20]]);
    assert.equal(store.pages, 3);
    const inside = pack.inside(1, 'getBereich', '9', 'indented', 0, never);
    // Stored compact, kept indented too, as HTTP GET/POST send it (xml/indent.ts).
    assert.equal(Buffer.concat(inside as Buffer[]).toString(), '\n  <b v="1">9</b>');
    store.replaceAll();
    await until(() => filler.filledVersion === 2);
    assert.deepEqual(filled.at(-1), [2, 20]);
    assert.equal(pack.inside(1, 'getBereich', '9', 'compact', 0, never), undefined);
    assert.equal(
      Buffer.concat(pack.inside(2, 'getBereich', '9', 'compact', 0, never) as Buffer[]).toString(),
      '<b v="2">9</b>',
    );
    assert.deepEqual(errors, []);
    await filler.stop();
    pack.close();
  });

  test('after an import that lists its changes, only those answers are read again', async () => {
    const { store, pack, filler, moves, errors } = started(new FakeStore(10));
    await until(() => filler.filledVersion === 1);
    store.change([3], [7]);
    await until(() => filler.filledVersion === 2);
    // Both layouts of 3 and 7 dropped, then 3 read again (7 is gone).
    assert.deepEqual(moves, [[2, 'advanced', 16]]);
    assert.equal(store.pages, 3, 'no page read again');
    assert.equal(store.reads, 2);
    assert.equal(pack.size, 18);
    const text = (key: string) => {
      const inside = pack.inside(2, 'getBereich', key, 'compact', 0, never);
      return inside && Buffer.concat(inside as Buffer[]).toString();
    };
    assert.equal(text('3'), '<b v="2">3</b>');
    assert.equal(text('5'), '<b v="1">5</b>', 'kept from version 1');
    assert.equal(text('7'), undefined);
    assert.deepEqual(errors, []);
    await filler.stop();
    pack.close();
  });

  test('changes the store cannot list, or of another copy of the store, empty the pack', async () => {
    const { store, pack, filler, moves } = started(new FakeStore(10));
    await until(() => filler.filledVersion === 1);
    store.change([3], [], true);
    await until(() => filler.filledVersion === 2);
    assert.deepEqual(moves.at(-1), [2, 'emptied', 0]);
    assert.equal(store.pages, 6, 'every page read again');
    assert.equal(pack.size, 20);
    // Restored from a copy whose version 2 was other content: its next import's changes are not of this pack's version.
    store.restored();
    store.change([4]);
    await until(() => filler.filledVersion === 3);
    assert.deepEqual(moves.at(-1), [3, 'emptied', 0]);
    assert.equal(store.pages, 9);
    await filler.stop();
    pack.close();
  });

  test('an import in the middle of a fill: the move keeps what was read, and the fill goes on', async () => {
    const { store, pack, filler, moves } = started(new FakeStore(400));
    await until(() => store.pages > 2);
    store.change([1]);
    await until(() => filler.filledVersion === 2);
    assert.equal(moves[0]![1], 'advanced');
    assert.equal(pack.size, 800);
    const inside = pack.inside(2, 'getBereich', '1', 'compact', 0, never);
    assert.equal(Buffer.concat(inside as Buffer[]).toString(), '<b v="2">1</b>');
    await filler.stop();
    pack.close();
  });

  test('a full pack is as filled as it gets: the version is reported filled', async () => {
    const store = new FakeStore(100);
    const pack = AnswerPack.open({ dir, maxBytes: 200 });
    const { filler, filled } = fillerOf(store, pack);
    filler.start();
    await until(() => filler.filledVersion === 1);
    assert.ok(pack.size > 0 && pack.size < 200, `${pack.size} kept`);
    assert.deepEqual(filled, [[1, pack.size]]);
    await filler.stop();
    pack.close();
  });

  test('a fill that fails is told and tried again', async () => {
    const store = new FakeStore(6);
    store.failures = 2;
    const pack = AnswerPack.open({ dir, maxBytes: 1024 * 1024 });
    const { filler, errors } = fillerOf(store, pack);
    filler.start();
    await until(() => filler.filledVersion === 1);
    assert.equal(errors.length, 2);
    assert.match(String(errors[0]), /store unavailable/);
    assert.equal(pack.size, 12);
    await filler.stop();
    pack.close();
  });

  test('stop ends the fill after its page', async () => {
    const store = new FakeStore(1000);
    const pack = AnswerPack.open({ dir, maxBytes: 1024 * 1024 });
    const { filler } = fillerOf(store, pack);
    filler.start();
    await until(() => store.pages > 0);
    await filler.stop();
    const pages = store.pages;
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(store.pages, pages);
    assert.equal(filler.filledVersion, 0);
    assert.ok(pack.size < 2000);
    pack.close();
  });
});
