import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnswerBatch, type BatchShape, MAX_BATCH } from './answer-batch.ts';

interface Row {
  readonly n: string;
  readonly key: string;
  readonly part: number;
}

/**
 * A batch whose statement answers each key with two rows (parts 0 and 1, in that order), or
 * none for `missing`, and records every statement. The rows come part by part across the
 * lookups, as a statement without ORDER BY q.n could send them.
 */
function recorded() {
  const statements: Array<{ shape: BatchShape; keys: string[] }> = [];
  const batch = new AnswerBatch<Row>(async (shape, operations, keys, formats) => {
    assert.equal(operations.length, keys.length);
    assert.equal(formats.length, keys.length);
    statements.push({ shape, keys });
    return [0, 1].flatMap((part) =>
      keys.flatMap((key, i) => (key === 'missing' ? [] : [{ n: String(i + 1), key, part }])),
    );
  });
  return { batch, statements };
}

const withChunks: BatchShape = { chunks: true };
const references: BatchShape = { chunks: false };

test('the lookups of one turn are one statement, each answered with its own rows', async () => {
  const { batch, statements } = recorded();
  const answers = await Promise.all(
    ['a', 'b', 'missing', 'c'].map((key) => batch.lookup(withChunks, 'op', key, 'f')),
  );
  assert.equal(statements.length, 1);
  assert.deepEqual(statements[0]!.keys, ['a', 'b', 'missing', 'c']);
  // Each lookup's rows in the statement's order: a prepared answer's first row holds its fragment.
  assert.deepEqual(
    answers.map((rows) => rows.map((row) => `${row.key}${row.part}`)),
    [['a0', 'a1'], ['b0', 'b1'], [], ['c0', 'c1']],
  );
  // A later turn makes a statement of its own.
  await batch.lookup(withChunks, 'op', 'd', 'f');
  assert.equal(statements.length, 2);
});

test('lookups of different shapes go in statements of their own; more than MAX_BATCH in several', async () => {
  const { batch, statements } = recorded();
  const keys = Array.from({ length: MAX_BATCH + 3 }, (_, i) => `k${i}`);
  const answers = await Promise.all([
    ...keys.map((key) => batch.lookup(withChunks, 'op', key, 'f')),
    batch.lookup(references, 'op', 'y', 'f'),
  ]);
  assert.deepEqual(
    statements.map((s) => [s.shape.chunks, s.keys.length]),
    [
      [true, MAX_BATCH],
      [true, 3],
      [false, 1],
    ],
  );
  assert.deepEqual(
    answers.map((rows) => rows[0]!.key),
    [...keys, 'y'],
  );
});

test("a statement that fails fails each of its lookups, and not the other statements'", async () => {
  let calls = 0;
  const batch = new AnswerBatch<Row>(async (shape, _operations, keys) => {
    calls++;
    if (!shape.chunks) throw new Error('connection lost');
    return keys.map((key, i) => ({ n: i + 1, key, part: 0 }) as unknown as Row);
  });
  const failing = [batch.lookup(references, 'op', 'a', 'f')];
  failing.push(batch.lookup(references, 'op', 'b', 'f'));
  const fine = batch.lookup(withChunks, 'op', 'c', 'f');
  for (const lookup of failing) await assert.rejects(lookup, /connection lost/);
  assert.equal((await fine)[0]!.key, 'c');
  assert.equal(calls, 2);
});
