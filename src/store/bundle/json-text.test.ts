/** json-text.ts: bundle.json's refusals say where, never what the file holds. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  invalidUtf8Offset,
  lineAndColumn,
  parsedByPieces,
  parseJsonText,
  syntaxErrorIn,
} from './json-text.ts';
import { BundleError } from './validate.ts';

const bytes = (...values: number[]) => Uint8Array.from(values);

test('invalid UTF-8 is found at the first byte of the first bad sequence', () => {
  assert.equal(invalidUtf8Offset(Buffer.from('{"a": "Grüße ✓ 😀"}')), -1);
  assert.equal(invalidUtf8Offset(bytes(0x41, 0xff)), 1);
  assert.equal(invalidUtf8Offset(bytes(0x41, 0x42, 0xc3)), 2, 'truncated at the end');
  assert.equal(invalidUtf8Offset(bytes(0x41, 0xc3, 0x41)), 1, 'a continuation byte missing');
  assert.equal(invalidUtf8Offset(bytes(0x80)), 0, 'a continuation byte alone');
  assert.equal(invalidUtf8Offset(bytes(0xc0, 0xaf)), 0, 'overlong');
  assert.equal(invalidUtf8Offset(bytes(0xe0, 0x80, 0xaf)), 0, 'overlong, three bytes');
  assert.equal(invalidUtf8Offset(bytes(0x41, 0xed, 0xa0, 0x80)), 1, 'a surrogate');
  assert.equal(invalidUtf8Offset(bytes(0xf4, 0x90, 0x80, 0x80)), 0, 'beyond U+10FFFF');
  assert.equal(invalidUtf8Offset(bytes(0xf4, 0x8f, 0xbf, 0xbf)), -1, 'U+10FFFF itself');
});

test('a file that is not UTF-8 is refused with the byte offset', () => {
  assert.throws(
    () => parseJsonText(bytes(0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xfe, 0x22, 0x7d), 'bundle.json'),
    { message: 'bundle.json: is not UTF-8: invalid byte sequence at byte offset 6' },
  );
});

test('every kind of syntax error is located where it is', () => {
  const cases: [string, number, RegExp][] = [
    ['{"a": 1,}', 8, /name in double quotes/],
    ['{"a" 1}', 5, /":" expected/],
    ['[1, 2', 5, /unexpected end/],
    ['[1 2]', 3, /"," or "]" expected/],
    ['{"a": 1 "b": 2}', 8, /"," or "}" expected/],
    ['{"a": tru}', 6, /a value expected/],
    ['{"a": "x\\q"}', 8, /invalid escape/],
    ['{"a": "\\u12g4"}', 7, /invalid \\u escape/],
    ['{"a": "x\ty"}', 8, /control character/],
    ['{"a": "offen', 6, /unterminated string/],
    ['{"a": -}', 6, /invalid number/],
    ['{} {}', 3, /after the end/],
    ['', 0, /unexpected end/],
  ];
  for (const [text, index, reason] of cases) {
    assert.throws(() => JSON.parse(text), SyntaxError, text);
    const found = syntaxErrorIn(text);
    assert.equal(found?.index, index, text);
    assert.match(found.reason, reason, text);
  }
  for (const valid of ['{}', ' [1, -2.5e+3, "\\u00e4\\n", true, false, null, {"a": []}] ', '"x"', '0']) {
    assert.equal(syntaxErrorIn(valid), undefined, valid);
  }
});

test('deep nesting is scanned without recursion', () => {
  const deep = `${'['.repeat(200_000)}x`;
  assert.equal(syntaxErrorIn(deep)?.index, 200_000);
});

test('line and column count lines (LF, CRLF or CR) and characters, from 1', () => {
  assert.deepEqual(lineAndColumn('abc', 2), { line: 1, column: 3 });
  assert.deepEqual(lineAndColumn('a\nb\r\nc\rd', 8), { line: 4, column: 2 });
  assert.deepEqual(
    lineAndColumn('😀😀x', 4),
    { line: 1, column: 3 },
    'a character outside the BMP is one column',
  );
});

test('a syntax error is refused with line and column, quoting nothing of the file', () => {
  const text = '{\n  "format": "scoop-bundle/1",\n  "token": geheim-0815\n}';
  assert.throws(
    () => JSON.parse(text),
    (error: Error) => error.message.includes('geheim'),
    'JSON.parse itself quotes the file',
  );
  assert.throws(() => parseJsonText(Buffer.from(text), 'bundle.json'), {
    message:
      'bundle.json: is not valid JSON: an unexpected character (a value expected) at line 3, column 12',
  });
});

test('a byte order mark is skipped, as before', () => {
  assert.deepEqual(parseJsonText(Buffer.from('\ufeff{"a": 1}'), 'bundle.json'), { a: 1 });
});

describe('parsed member by member (the fast path), the same as JSON.parse of the whole text', () => {
  const same = (text: string) => {
    const parsed = parseJsonText(Buffer.from(text), 'bundle.json');
    const expected = JSON.parse(text.replace(/^\ufeff/, '')) as unknown;
    // Taken by the fast path, not the whole text's.
    const fast = parsedByPieces(Buffer.from(text));
    assert.ok(fast, 'parsed member by member');
    assert.equal(JSON.stringify(fast.value), JSON.stringify(expected));
    assert.deepEqual(parsed, expected);
    // Key order and own properties too (deepEqual ignores order).
    assert.equal(JSON.stringify(parsed), JSON.stringify(expected));
  };

  test('escaped quotes, runs of backslashes, brackets and non-ASCII inside strings', () => {
    same('{"a": ["x\\"]y", "\\\\", "\\\\\\"", "[{]}", "Köln ✓ 😀"], "b\\"c": {"d": ["]"]}}');
    same('{ "artikel" : [ {"text": "\\\\\\\\"}, 1, -2.5e3, true, false, null, [], {}, [[1], {"x": []}] ] }');
  });

  test('a repeated name keeps its first place and its last value; __proto__ is an own property', () => {
    same('{"a": 1, "b": [2], "a": [3]}');
    const parsed = parseJsonText(Buffer.from('{"__proto__": {"polluted": true}, "x": []}'), 'bundle.json');
    assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
    assert.deepEqual(Object.keys(parsed as object), ['__proto__', 'x']);
  });

  test('empty objects and arrays, white space anywhere, a byte order mark', () => {
    same('{}');
    same(' \n\t{ } \r\n');
    same('\ufeff{"a":[ ]}');
    same('{"a":[],"b":{},"c":""}');
  });

  test('a text that is not an object is parsed whole, as before', () => {
    assert.deepEqual(parseJsonText(Buffer.from('[1, {"a": 2}]'), 'bundle.json'), [1, { a: 2 }]);
    assert.equal(parseJsonText(Buffer.from(' "x" '), 'bundle.json'), 'x');
  });

  test('seeded mutations: refused exactly when JSON.parse refuses, else the same value', () => {
    const base =
      '{"format": "scoop-bundle/1", "bereiche": [{"bereichID": 1, "name": "A\\"b\\\\"}, {"bereichID": 2, "name": "Ö"}], "artikel": [[1, 2], {"t": "[}"}]}';
    let seed = 17;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = [
      '',
      ',',
      ']',
      '}',
      '[',
      '{',
      '"',
      '\\',
      ':',
      ' ',
      '1',
      'x',
      '\t',
      '\n',
      '\u000b',
      '\f',
      '\u00a0',
      '\ufeff',
    ];
    for (let round = 0; round < 3000; round++) {
      const at = next(base.length);
      const cut = next(3);
      const text = base.slice(0, at) + pieces[next(pieces.length)]! + base.slice(at + cut);
      let expected: unknown;
      try {
        expected = JSON.parse(text);
      } catch {
        assert.throws(() => parseJsonText(Buffer.from(text), 'bundle.json'), BundleError, text);
        continue;
      }
      assert.equal(
        JSON.stringify(parseJsonText(Buffer.from(text), 'bundle.json')),
        JSON.stringify(expected),
        text,
      );
    }
  });

  test('a syntax error inside an element still names its line and column', () => {
    assert.throws(() => parseJsonText(Buffer.from('{"a": [1,\n  {"b": tru}]}'), 'bundle.json'), {
      message:
        'bundle.json: is not valid JSON: an unexpected character (a value expected) at line 2, column 9',
    });
  });
});
