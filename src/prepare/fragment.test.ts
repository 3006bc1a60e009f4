/** A stored fragment in each layout, and one this build did not write. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPERATIONS } from '../contract/operations.ts';
import type { Snapshot } from '../store/content-store.ts';
import { inLayout } from './fragment.ts';
import { preparedInside } from './prepared-answer.ts';

const getBereich = OPERATIONS.find((o) => o.name === 'getBereich')!;

/** A store whose one prepared answer is `fragment`. */
function storeWith(fragment: Buffer) {
  const snapshot: Partial<Snapshot> = {
    answer: async () => ({ fragment, visibleFrom: null, visibleUntil: null }),
  };
  return { read: <T>(read: (s: Snapshot) => Promise<T>) => read(snapshot as Snapshot) };
}

test('the compact layout is the stored fragment; the indented one is made from it', () => {
  const stored = Buffer.from('<bereich><name>Rathaus</name></bereich>');
  assert.equal(inLayout(stored, 'compact'), stored);
  assert.equal(
    inLayout(stored, 'indented')!.toString(),
    '\n  <bereich>\n    <name>Rathaus</name>\n  </bereich>',
  );
});

test('a damaged fragment is not sent in the indented layout: the handler answers (undefined)', async () => {
  const damaged = Buffer.from('<bereich><name>Rathaus</name>');
  assert.equal(inLayout(damaged, 'indented'), undefined);
  const store = storeWith(damaged);
  const never = () => undefined;
  assert.equal(await preparedInside(store, getBereich, { bereichID: 1 }, 'indented', 0, never), undefined);
  // The compact layout is sent as stored, as before.
  assert.deepEqual(await preparedInside(store, getBereich, { bereichID: 1 }, 'compact', 0, never), [damaged]);
});
