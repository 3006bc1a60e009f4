import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { BinaryReference } from '../prepare/fragment.ts';
import { indentMarkup } from './indent.ts';
import { XmlWriter } from './writer.ts';

/** An element as a compiled writer (protocol/serialize.ts) writes one. */
type Element =
  | { readonly name: string; readonly text: string }
  | { readonly name: string; readonly plain: string }
  | { readonly name: string; readonly children: readonly Element[] }
  | { readonly name: string; readonly nil: true }
  | { readonly name: string; readonly reference: number };

const name = fc.constantFrom('artikelID', 'titel', 'a', 'wsAnhang', 'Bereich_1', 'x-y.z');
/** Text of every kind: markup characters (escaped), whitespace, non-ASCII, empty. */
const text = fc.string({
  unit: fc.constantFrom('a', 'ä', '€', '<', '>', '&', '"', ' ', '\n', '\t', '/', '😀'),
});

const element = fc.letrec<{ element: Element }>((tie) => ({
  element: fc.oneof(
    { depthSize: 'small' },
    fc.record({ name, text }),
    fc.record({ name, plain: fc.constantFrom('0', '-12', 'true', 'false', 'AAECAw==', '') }),
    fc.record({ name, nil: fc.constant(true as const) }),
    fc.record({ name, reference: fc.nat(100_000) }),
    fc.record({ name, children: fc.array(tie('element'), { maxLength: 4 }) }),
  ),
})).element;

function write(w: XmlWriter, depth: number, e: Element): void {
  if ('text' in e) w.leaf(e.name, depth, e.text);
  else if ('plain' in e) w.plainLeaf(e.name, depth, e.plain);
  else if ('nil' in e) w.nil(e.name, depth);
  else if ('reference' in e) w.binary(e.name, depth, new BinaryReference(e.reference, 1));
  else {
    // No children: `<a></a>` compact, its end tag on a line of its own indented.
    w.open(e.name, depth);
    for (const child of e.children) write(w, depth + 1, child);
    w.close(e.name, depth);
  }
}

/** Both layouts as an answer's inside has them: compact from depth 0, indented from 1. */
function layouts(elements: readonly Element[]): { compact: Buffer; indented: Buffer } {
  const compact = new XmlWriter(false);
  const indented = new XmlWriter(true);
  for (const e of elements) {
    write(compact, 0, e);
    write(indented, 1, e);
  }
  return {
    compact: Buffer.from(compact.finishText(), 'utf8'),
    indented: Buffer.from(indented.finishText(), 'utf8'),
  };
}

test('the indented layout made from the compact one is the writer’s own, byte for byte', () => {
  fc.assert(
    fc.property(fc.array(element, { maxLength: 6 }), (elements) => {
      const { compact, indented } = layouts(elements);
      assert.deepEqual(indentMarkup(compact, 1), indented);
    }),
    { numRuns: 2_000 },
  );
});

test('a long text is copied whole (the scratch buffer grows), and a view into a larger buffer is read where it is', () => {
  // 80 KB: past the first scratch buffer (64 KiB), which grows with what it holds.
  const long = 'ä'.repeat(40_000);
  const { compact, indented } = layouts([{ name: 'a', children: [{ name: 'text', text: long }] }]);
  const around = Buffer.concat([Buffer.from('<<<'), compact, Buffer.from('>>>')]);
  assert.deepEqual(indentMarkup(around.subarray(3, 3 + compact.length), 1), indented);
  assert.equal(indented.toString('utf8'), `\n  <a>\n    <text>${long}</text>\n  </a>`);
});

test('markup the writer does not make is refused, not laid out', () => {
  assert.throws(() => indentMarkup(Buffer.from('<a>'), 1), /element open/);
  assert.throws(() => indentMarkup(Buffer.from('<a'), 1), /ends inside a tag/);
  assert.throws(() => indentMarkup(Buffer.from('</a><b />'), 1), /did not open/);
  assert.deepEqual(indentMarkup(Buffer.alloc(0), 1), Buffer.alloc(0));
});
