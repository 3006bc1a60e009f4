import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertWellFormed, renderParts } from '../../test/support/assertions.ts';
import type { BinarySource } from './binary.ts';
import { keepBase64 } from './kept-base64.ts';
import { type BodyPart, bodyLength, XmlWriter } from './writer.ts';

function bytesSource(bytes: Uint8Array, chunkSize = 4096): BinarySource {
  return {
    size: bytes.byteLength,
    async *chunks() {
      for (let i = 0; i < bytes.byteLength; i += chunkSize) yield bytes.subarray(i, i + chunkSize);
    },
  };
}

/** The text of a writer whose output is markup only (no deferred parts). */
function textOf(w: XmlWriter): string {
  const parts = w.finish();
  assert.ok(
    parts.every((p) => Buffer.isBuffer(p)),
    'expected no deferred parts',
  );
  return Buffer.concat(parts as Buffer[]).toString('utf8');
}

function textOf2(parts: readonly BodyPart[]): string {
  return Buffer.concat(parts as Buffer[]).toString('utf8');
}

const XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';

describe('XmlWriter compact layout (SOAP)', () => {
  test('writes nested elements on one line without whitespace', () => {
    const w = new XmlWriter(false);
    w.open('a', 0);
    w.open('b', 1);
    w.leaf('c', 2, 'x');
    w.close('b', 1);
    w.close('a', 0);
    assert.equal(textOf(w), '<a><b><c>x</c></b></a>');
  });

  test('writes an empty element as <x />, with a space before the slash', () => {
    const w = new XmlWriter(false);
    w.empty('x', 3);
    assert.equal(textOf(w), '<x />');
  });

  test('writes an empty string leaf as <x />', () => {
    const w = new XmlWriter(false);
    w.leaf('position', 1, '');
    assert.equal(textOf(w), '<position />');
  });

  test('writes an empty plain leaf as <x /> too, never <x></x>', () => {
    const w = new XmlWriter(true);
    w.plainLeaf('sort', 1, '');
    assert.equal(textOf(w), '\n  <sort />');
  });

  test('writes nil as <x xsi:nil="true" />', () => {
    const w = new XmlWriter(false);
    w.nil('einrichtung', 2);
    assert.equal(textOf(w), '<einrichtung xsi:nil="true" />');
  });

  test('escapes leaf text but not plain leaves', () => {
    const w = new XmlWriter(false);
    w.leaf('name', 0, 'Rathaus & <Verwaltung> "x"');
    w.plainLeaf('n', 0, '42');
    assert.equal(textOf(w), '<name>Rathaus &amp; &lt;Verwaltung&gt; "x"</name><n>42</n>');
  });

  test('replaces forbidden characters in leaf text', () => {
    const w = new XmlWriter(false);
    w.leaf('t', 0, 'a\u0001b');
    assert.equal(textOf(w), '<t>a\uFFFDb</t>');
  });

  test('writes raw markup verbatim and in order', () => {
    const w = new XmlWriter(false);
    w.raw('<?xml version="1.0"?><r>');
    w.leaf('a', 1, '1');
    w.raw('</r>');
    assert.equal(textOf(w), '<?xml version="1.0"?><r><a>1</a></r>');
  });

  test('finish() of an unused writer gives no parts', () => {
    assert.deepEqual(new XmlWriter(false).finish(), []);
    assert.deepEqual(new XmlWriter(true).finish(), []);
  });
});

describe('XmlWriter indented layout (HTTP GET/POST)', () => {
  test('puts each element on its own line, indented two spaces per depth', () => {
    const w = new XmlWriter(true);
    w.raw('<root>');
    w.open('bereich', 1);
    w.leaf('name', 2, 'Rathaus');
    w.plainLeaf('bereichID', 2, '1');
    w.close('bereich', 1);
    w.raw('\n</root>');
    assert.equal(
      textOf(w),
      '<root>\n  <bereich>\n    <name>Rathaus</name>\n    <bereichID>1</bereichID>\n  </bereich>\n</root>',
    );
  });

  test('keeps a text-only element on one line, even when the text holds a newline', () => {
    const w = new XmlWriter(true);
    w.leaf('text', 1, 'line 1\nline 2');
    assert.equal(textOf(w), '\n  <text>line 1\nline 2</text>');
  });

  test('writes empty and nil elements on their own line', () => {
    const w = new XmlWriter(true);
    w.empty('anhaenge', 2);
    w.nil('einrichtung', 3);
    w.leaf('position', 3, '');
    assert.equal(textOf(w), '\n    <anhaenge />\n      <einrichtung xsi:nil="true" />\n      <position />');
  });

  test('depth 0 starts a new line without indentation', () => {
    const w = new XmlWriter(true);
    w.open('a', 0);
    w.close('a', 0);
    assert.equal(textOf(w), '\n<a>\n</a>');
  });

  test('deep indentation is exact', () => {
    const w = new XmlWriter(true);
    w.empty('x', 12);
    assert.equal(textOf(w), `\n${' '.repeat(24)}<x />`);
  });

  test('produces well-formed XML', () => {
    const w = new XmlWriter(true);
    w.raw(`<r ${XSI}>`);
    w.open('a', 1);
    w.leaf('b', 2, '<&>');
    w.nil('c', 2);
    w.empty('d', 2);
    w.close('a', 1);
    w.raw('\n</r>');
    assertWellFormed(textOf(w));
  });
});

describe('XmlWriter.binary', () => {
  test('writes small bytes inline as one line of base64', () => {
    const w = new XmlWriter(false);
    w.binary('data', 0, Uint8Array.of(0x89, 0x50, 0x4e, 0x47));
    const parts = w.finish();
    assert.equal(parts.length, 1);
    assert.equal(textOf2(parts), '<data>iVBORw==</data>');
  });

  test('writes large bytes as a part of their own, the same text (no string of it is made)', () => {
    const bytes = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7) % 256);
    const w = new XmlWriter(false);
    w.binary('data', 0, bytes);
    const parts = w.finish();
    assert.equal(parts.length, 3);
    assert.equal(textOf2(parts), `<data>${Buffer.from(bytes).toString('base64')}</data>`);
  });

  test('sends kept base64 as a part of its own, the same bytes as encoding it here', () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => i % 251);
    const inline = new XmlWriter(true);
    inline.binary('data', 1, Uint8Array.from(bytes));
    const kept = new XmlWriter(true);
    const text = keepBase64(bytes);
    kept.binary('data', 1, bytes);
    const parts = kept.finish();
    assert.equal(parts.length, 3);
    assert.equal(parts[1], text, 'the kept text itself, not a copy');
    assert.deepEqual(Buffer.concat(parts as Buffer[]), Buffer.concat(inline.finish() as Buffer[]));
  });

  test('encodes only the bytes of a view, not its whole buffer', () => {
    const backing = Uint8Array.of(0xff, 0xff, 1, 2, 3, 0xff);
    const w = new XmlWriter(false);
    w.binary('data', 0, backing.subarray(2, 5));
    assert.equal(textOf(w), `<data>${Buffer.from([1, 2, 3]).toString('base64')}</data>`);
  });

  test('writes zero bytes as an empty element, for bytes and for a source', () => {
    const w = new XmlWriter(true);
    w.binary('data', 1, new Uint8Array(0));
    w.binary('data', 1, bytesSource(new Uint8Array(0)));
    assert.equal(textOf(w), '\n  <data />\n  <data />');
  });

  test('defers a source: markup before, the base64 part, markup after', () => {
    const source = bytesSource(Uint8Array.of(1, 2, 3, 4));
    const w = new XmlWriter(false);
    w.raw('<a>');
    w.binary('data', 1, source);
    w.plainLeaf('sort', 1, '1');
    w.raw('</a>');
    const parts = w.finish();
    assert.equal(parts.length, 3);
    assert.equal((parts[0] as Buffer).toString('utf8'), '<a><data>');
    assert.deepEqual(parts[1], { base64Of: source });
    assert.equal((parts[2] as Buffer).toString('utf8'), '</data><sort>1</sort></a>');
  });

  test('defers a source in indented layout with the start tag on its own line', () => {
    const source = bytesSource(Uint8Array.of(1));
    const w = new XmlWriter(true);
    w.binary('data', 2, source);
    const parts = w.finish();
    assert.equal(parts.length, 3);
    assert.equal((parts[0] as Buffer).toString('utf8'), '\n    <data>');
    assert.deepEqual(parts[1], { base64Of: source });
    // The end tag stays on the line of its content, like an inline leaf.
    assert.equal((parts[2] as Buffer).toString('utf8'), '</data>');
  });

  test('two sources in a row give separate deferred parts', async () => {
    const a = bytesSource(Uint8Array.of(1, 2));
    const b = bytesSource(Uint8Array.of(3));
    const w = new XmlWriter(false);
    w.binary('x', 0, a);
    w.binary('y', 0, b);
    const parts = w.finish();
    assert.equal(parts.filter((p) => !Buffer.isBuffer(p)).length, 2);
    assert.equal((await renderParts(parts)).toString('utf8'), '<x>AQI=</x><y>Aw==</y>');
  });
});

describe('bodyLength', () => {
  test('counts bytes, not characters, of markup parts', () => {
    const w = new XmlWriter(false);
    w.leaf('name', 0, 'Bürgerbüro 😀 𝄞');
    const parts = w.finish();
    const expected = Buffer.byteLength('<name>Bürgerbüro 😀 𝄞</name>', 'utf8');
    assert.equal(bodyLength(parts), expected);
    assert.notEqual(expected, '<name>Bürgerbüro 😀 𝄞</name>'.length);
  });

  test('is 0 for no parts', () => {
    assert.equal(bodyLength([]), 0);
  });

  for (const size of [1, 2, 3, 4, 5, 1_048_576 + 1]) {
    test(`equals the rendered byte length with a deferred ${size}-byte binary`, async () => {
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = (i * 7) & 0xff;
      const w = new XmlWriter(true);
      w.raw('<?xml version="1.0" encoding="utf-8"?>\n<r>');
      w.leaf('name', 1, 'Straßenfest ©');
      w.binary('data', 1, bytesSource(bytes, 65_537));
      w.leaf('after', 1, 'ü');
      w.raw('\n</r>');
      const parts = w.finish();
      const rendered = await renderParts(parts);
      assert.equal(bodyLength(parts), rendered.length);
      const base64 = Buffer.from(bytes).toString('base64');
      assert.equal(
        rendered.toString('utf8'),
        `<?xml version="1.0" encoding="utf-8"?>\n<r>\n  <name>Straßenfest ©</name>\n  <data>${base64}</data>\n  <after>ü</after>\n</r>`,
      );
    });
  }

  test('equals the rendered byte length with inline bytes', async () => {
    const w = new XmlWriter(false);
    w.binary('data', 0, Uint8Array.of(1, 2, 3, 4, 5));
    w.leaf('t', 0, '€');
    const parts = w.finish();
    assert.equal(bodyLength(parts), (await renderParts(parts)).length);
    assert.equal(bodyLength(parts), '<data>AQIDBAU=</data><t></t>'.length + 3);
  });
});

describe('the text of a writer (an answer prepared ahead)', () => {
  test('refuses a binary that would be a part of its own: the markup is one text', () => {
    const large = new XmlWriter(false);
    large.binary('daten', 0, new Uint8Array(300_000));
    assert.throws(() => large.finishText(), /neither a reference nor small enough/);
    const streamed = new XmlWriter(false);
    streamed.binary('daten', 0, bytesSource(Uint8Array.of(1)));
    assert.throws(() => streamed.finishText(), /neither a reference nor small enough/);
    const small = new XmlWriter(false);
    small.binary('daten', 0, Uint8Array.of(0x89, 0x50, 0x4e, 0x47));
    assert.equal(small.finishText(), '<daten>iVBORw==</daten>');
  });
});
