import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Utf8Arena } from './utf8-arena.ts';

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

test('rewound, it writes into the slabs it has: the views made before are overwritten', () => {
  const arena = new Utf8Arena();
  const first = arena.write('erste Runde');
  const before = first.buffer;
  arena.rewind();
  const second = arena.write('zweite Rund');
  assert.equal(second.buffer, before);
  assert.equal(first.toString(), 'zweite Rund');
});
