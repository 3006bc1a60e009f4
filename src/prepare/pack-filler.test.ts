import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { AnswerKey, AnswerPage, PagedAnswer } from '../store/content-store.ts';
import { AnswerPack } from './answer-pack.ts';
import { PackFiller, type PackFillerOptions } from './pack-filler.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'scoop-pack-filler-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function answer(key: number, version: number): PagedAnswer {
  return {
    operation: 'getBereich',
    key: String(key),
    compact: Buffer.from(`<b v="${version}">${key}</b>`),
    indented: Buffer.from(`<b v="${version}">\n  ${key}\n</b>`),
    visibleFrom: null,
    visibleUntil: null,
  };
}

/** A store of `count` answers (no binaries) at `version`, paged as answerPage pages them. */
class FakeStore {
  version = 1;
  failures = 0;
  pages = 0;
  constructor(readonly count: number) {}

  async answerPage(_format: string, after: AnswerKey | undefined, limit: number): Promise<AnswerPage> {
    this.pages++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('store unavailable');
    }
    const from = after ? Number(after.key) + 1 : 0;
    const answers: PagedAnswer[] = [];
    for (let key = from; key < this.count && answers.length < limit; key++)
      answers.push(answer(key, this.version));
    return { version: this.version, answers };
  }
  peekVersion(): number {
    return this.version;
  }
  async knownVersion(): Promise<number> {
    return this.version;
  }
  async read<T>(): Promise<T> {
    throw new Error('no binaries here');
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
  const errors: unknown[] = [];
  const filler = new PackFiller({
    store: store as unknown as PackFillerOptions['store'],
    pack,
    pageSize: 4,
    everyMs: 5,
    onFilled: (version, answers) => filled.push([version, answers]),
    onError: (error) => errors.push(error),
    ...extra,
  });
  return { filler, filled, errors };
}

const never = () => undefined;

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
    assert.equal(Buffer.concat(inside as Buffer[]).toString(), '<b v="1">\n  9\n</b>');
    store.version = 2;
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
