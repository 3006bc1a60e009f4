import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { escapeAttribute, escapeText, forbiddenAt } from './escape.ts';

/** reference/SERIALIZER.md: the control characters XML 1.0 §2.2 forbids, which must never reach the wire. */
const FORBIDDEN_CONTROLS: string[] = [
  ...Array.from({ length: 8 }, (_, i) => String.fromCharCode(0x01 + i)), // U+0001–U+0008
  '\u000B',
  '\u000C',
  ...Array.from({ length: 0x20 - 0x0e }, (_, i) => String.fromCharCode(0x0e + i)), // U+000E–U+001F
  '\uFFFE',
  '\uFFFF',
];

function hex(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

describe('escapeText (reference/SERIALIZER.md)', () => {
  test('escapes &, < and > as entities', () => {
    assert.equal(escapeText('&'), '&amp;');
    assert.equal(escapeText('<'), '&lt;');
    assert.equal(escapeText('>'), '&gt;');
    assert.equal(escapeText('Rathaus & Verwaltung <b>'), 'Rathaus &amp; Verwaltung &lt;b&gt;');
  });

  test('escapes an existing entity again (no double-escape detection)', () => {
    assert.equal(escapeText('&amp;'), '&amp;amp;');
    assert.equal(escapeText('&#x41;'), '&amp;#x41;');
  });

  test('writes ]]> as ]]&gt;', () => {
    assert.equal(escapeText(']]>'), ']]&gt;');
    assert.equal(escapeText('a]]>b]]>'), 'a]]&gt;b]]&gt;');
  });

  test('leaves quotes raw in text', () => {
    assert.equal(escapeText(`say "hi" it's`), `say "hi" it's`);
  });

  test('writes CR, CRLF, TAB and LF raw', () => {
    assert.equal(escapeText('a\rb'), 'a\rb');
    assert.equal(escapeText('a\r\nb'), 'a\r\nb');
    assert.equal(escapeText('a\tb\nc'), 'a\tb\nc');
  });

  test('writes U+0085, U+2028 and U+FEFF raw', () => {
    for (const ch of ['\u0085', '\u2028', '\uFEFF']) {
      assert.equal(escapeText(`x${ch}y`), `x${ch}y`, hex(ch));
    }
  });

  test('writes non-ASCII and astral characters raw', () => {
    assert.equal(escapeText('Straßenfest ©'), 'Straßenfest ©');
    assert.equal(escapeText('😀 𝄞'), '😀 𝄞');
    assert.equal(escapeText('a\u{1D11E}b'), 'a\u{1D11E}b');
  });

  test('leaves a lone surrogate to UTF-8 encoding, which writes it as U+FFFD', () => {
    // escape.ts relies on this: Buffer.from(text, 'utf8') never emits a surrogate code unit.
    const escaped = escapeText('a\uD800b');
    assert.equal(Buffer.from(escaped, 'utf8').toString('utf8'), 'a\uFFFDb');
  });

  test('replaces every XML-forbidden control character with U+FFFD', () => {
    assert.equal(FORBIDDEN_CONTROLS.length, 8 + 2 + 18 + 2);
    for (const ch of FORBIDDEN_CONTROLS) {
      assert.equal(escapeText(`a${ch}b`), 'a\uFFFDb', hex(ch));
    }
  });

  test('replaces U+0000 with U+FFFD as well', () => {
    assert.equal(escapeText('a\u0000b'), 'a\uFFFDb');
  });

  test('replaces several forbidden characters and escapes in one pass', () => {
    assert.equal(escapeText('\u0001<\u001F&\uFFFE>'), '\uFFFD&lt;\uFFFD&amp;\uFFFD&gt;');
  });

  test('leaves the characters just outside the forbidden ranges alone', () => {
    for (const ch of ['\u0020', '\u007F', '\uD7FF', '\uE000', '\uFFFD']) {
      assert.equal(escapeText(ch), ch, hex(ch));
    }
  });

  test('returns plain text unchanged, including the empty string', () => {
    assert.equal(escapeText(''), '');
    assert.equal(escapeText('plain text 123'), 'plain text 123');
  });

  test('is stable across calls (no regex lastIndex state)', () => {
    for (let i = 0; i < 3; i++) assert.equal(escapeText('a&b'), 'a&amp;b');
  });
});

describe('escapeAttribute', () => {
  test('escapes " in addition to &, < and >', () => {
    assert.equal(escapeAttribute('a"b'), 'a&quot;b');
    assert.equal(escapeAttribute(`<"&'>`), `&lt;&quot;&amp;'&gt;`);
  });

  test('replaces forbidden characters like escapeText', () => {
    assert.equal(escapeAttribute('x\u0002"'), 'x\uFFFD&quot;');
  });

  test('leaves a namespace URI unchanged', () => {
    assert.equal(escapeAttribute('http://scoop.example.org/api'), 'http://scoop.example.org/api');
  });
});

describe('forbiddenAt: what XML 1.0 cannot carry', () => {
  test('matches every forbidden control character and U+0000', () => {
    for (const ch of [...FORBIDDEN_CONTROLS, '\u0000']) {
      assert.equal(forbiddenAt(`a${ch}b`) >= 0, true, hex(ch));
    }
  });

  test('does not match TAB, LF, CR, U+0085, U+2028, U+FEFF, U+FFFD or ordinary text', () => {
    for (const ch of ['\t', '\n', '\r', '\u0085', '\u2028', '\uFEFF', '\uFFFD', 'a', 'ß', ' ']) {
      assert.equal(forbiddenAt(`a${ch}b`) >= 0, false, hex(ch));
    }
  });

  test('does not match surrogate pairs (astral characters)', () => {
    assert.equal(forbiddenAt('😀') >= 0, false);
    assert.equal(forbiddenAt('𝄞') >= 0, false);
    assert.equal(forbiddenAt('a\uD834\uDD1Eb') >= 0, false);
    assert.equal(forbiddenAt('\u{10FFFF}') >= 0, false);
  });

  test('matches a lone high surrogate, at the end or before a non-surrogate', () => {
    assert.equal(forbiddenAt('a\uD834') >= 0, true);
    assert.equal(forbiddenAt('\uD834b') >= 0, true);
    assert.equal(forbiddenAt('\uD834\uD834\uDD1E') >= 0, true, 'high, then a valid pair');
  });

  test('matches a lone low surrogate, at the start or after a non-surrogate', () => {
    assert.equal(forbiddenAt('\uDD1E') >= 0, true);
    assert.equal(forbiddenAt('a\uDD1Eb') >= 0, true);
    assert.equal(forbiddenAt('\uD834\uDD1E\uDD1E') >= 0, true, 'a valid pair, then a low');
  });

  test('matches reversed surrogates (low then high)', () => {
    assert.equal(forbiddenAt('\uDD1E\uD834') >= 0, true);
  });
});

/** The rule as one expression (XML 1.0 §2.2), the slower form forbiddenAt must agree with. */
const XML_FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 §2.2 forbids
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('forbiddenAt', () => {
  test('finds what the expression finds, where it finds it', () => {
    const pieces = [
      'a',
      'ß',
      '\t',
      '\u0001',
      '\uFFFE',
      '\uD834',
      '\uDD1E',
      '😀',
      '\uD834\uDD1E',
      '<p>Grüße</p>',
    ];
    let seed = 1;
    const next = () => {
      seed = (seed * 48271) % 2147483647;
      return seed;
    };
    for (let n = 0; n < 5000; n++) {
      let text = '';
      for (let i = next() % 12; i > 0; i--) text += pieces[next() % pieces.length];
      assert.equal(forbiddenAt(text), XML_FORBIDDEN.exec(text)?.index ?? -1, JSON.stringify(text));
    }
  });

  test('passes text with characters outside the BMP and finds a lone surrogate after them', () => {
    const text = `${'Grüße 😀 '.repeat(1000)}x`;
    assert.equal(forbiddenAt(text), -1);
    assert.equal(forbiddenAt(`${text}\uD834`), text.length);
  });
});
