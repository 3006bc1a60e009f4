import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SLAB_BYTES, SlabPool, Utf8Arena } from './utf8-arena.ts';

const texts = [
  '',
  'a',
  'Bürgerbüro „Straßenfest“ 😀',
  '\u0000 7 \u0000',
  'x'.repeat(300_000),
  'ü'.repeat(90_000),
];

test('each string comes back as its UTF-8 bytes, whatever its length and characters', () => {
  const arena = new Utf8Arena();
  const views = [];
  for (let i = 0; i < 2_000; i++) views.push(arena.write(texts[i % texts.length]!.repeat(1 + (i % 7))));
  for (const [i, view] of views.entries())
    assert.deepEqual(view, Buffer.from(texts[i % texts.length]!.repeat(1 + (i % 7)), 'utf8'), `text ${i}`);
});

test('small strings share slabs: far fewer allocations than strings', () => {
  const arena = new Utf8Arena();
  const buffers = new Set<ArrayBufferLike>();
  for (let i = 0; i < 10_000; i++) buffers.add(arena.write(`<titel>Artikel ${i} – Fest</titel>`).buffer);
  assert.ok(buffers.size <= 2, `${buffers.size} buffers for 10,000 strings`);
});

test('slabs given back are taken again before new ones, and only slabs are kept', () => {
  const pool = new SlabPool();
  const text = (round: number, i: number) => `${round}:${i}:${'ß'.repeat(20_000 + i)}`;
  const fill = (round: number, count: number) => {
    const arena = new Utf8Arena(pool);
    return Array.from({ length: count }, (_, i) => arena.write(text(round, i)));
  };
  const first = fill(1, 60); // about 2.4 MB: three slabs
  const slabs = [...new Set(first.map((view) => view.buffer as ArrayBuffer))];
  assert.equal(slabs.length, 3);
  pool.give([...slabs, new ArrayBuffer(100)]);
  const second = fill(2, 90); // about 3.6 MB: the three slabs again, then a fourth
  const after = [...new Set(second.map((view) => view.buffer as ArrayBuffer))];
  assert.deepEqual(new Set(after.slice(0, 3)), new Set(slabs));
  assert.equal(after.length, 4);
  assert.ok(!after.some((buffer) => buffer.byteLength !== SLAB_BYTES));
  for (const [i, view] of second.entries()) assert.equal(view.toString(), text(2, i), `text ${i}`);
});
