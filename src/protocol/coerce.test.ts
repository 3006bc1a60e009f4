import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertScoopError } from '../../test/support/assertions.ts';
import { OPERATIONS, type Operation } from '../contract/operations.ts';
import { type CoerceLimits, coerceArguments, parseInt32, quote, type RawParameters } from './coerce.ts';

function op(name: string): Operation {
  const found = OPERATIONS.find((o) => o.name === name);
  assert.ok(found, name);
  return found;
}

const LIMITS: CoerceLimits = { maxListItems: 5 };
const getBereich = op('getBereich');
const getBild = op('getBild');
const getAbonnierteNewsletter = op('getAbonnierteNewsletter');
const getNewsletter = op('getNewsletter');

function raw(entries: Record<string, string[]>): RawParameters {
  return new Map(Object.entries(entries));
}

function bild(resizeModes: string[] | undefined): RawParameters {
  const entries: Record<string, string[]> = { bildID: ['1'], width: ['2'], height: ['3'] };
  if (resizeModes) entries.resizeModes = resizeModes;
  return raw(entries);
}

describe('parseInt32 (XML Schema part 2 §3.3.17 xs:int)', () => {
  const valid: [string, number][] = [
    ['1', 1],
    ['+1', 1],
    ['-1', -1],
    ['007', 7],
    ['-007', -7],
    ['0', 0],
    ['+0', 0],
    [' 1 ', 1],
    ['\n1\t', 1],
    ['\r\n 42 \r\n', 42],
    ['-2147483648', -2147483648],
    ['2147483647', 2147483647],
    ['+2147483647', 2147483647],
    ['0000000000000000000002147483647', 2147483647],
  ];
  for (const [text, value] of valid) {
    test(`accepts ${JSON.stringify(text)} as ${value}`, () => {
      assert.equal(parseInt32('id', text), value);
    });
  }

  test('gives 0, never -0, for "-0" and "-000"', () => {
    assert.equal(Object.is(parseInt32('id', '-0'), 0), true);
    assert.equal(Object.is(parseInt32('id', '-000'), 0), true);
  });

  const invalid = [
    '12abc',
    'abc',
    '1e3',
    '12.5',
    '1.0',
    '0x1',
    '2147483648',
    '-2147483649',
    '99999999999999999999999',
    '',
    ' ',
    '\t\n',
    '１２',
    '٣',
    '+',
    '-',
    '+-1',
    '--1',
    '1 2',
    '1,2',
    'NaN',
    'Infinity',
    '\u00A01', // NBSP is not XML whitespace
    '\u20281',
    '1_000',
  ];
  for (const text of invalid) {
    test(`refuses ${JSON.stringify(text)} as INVALID_PARAMETER`, () => {
      const error = assertScoopError(() => parseInt32('bereichID', text), 'INVALID_PARAMETER');
      assert.match(error.message, /bereichID/);
    });
  }

  test('quotes the offending value in the message', () => {
    const error = assertScoopError(() => parseInt32('bereichID', '12abc'), 'INVALID_PARAMETER');
    assert.equal(error.message, "Parameter bereichID is not a valid xs:int: '12abc'.");
    const range = assertScoopError(() => parseInt32('bereichID', '2147483648'), 'INVALID_PARAMETER');
    assert.equal(range.message, "Parameter bereichID is out of the xs:int range: '2147483648'.");
    const empty = assertScoopError(() => parseInt32('bereichID', ' '), 'INVALID_PARAMETER');
    assert.equal(empty.message, 'Parameter bereichID is empty; expected an xs:int.');
  });
});

describe('quote', () => {
  test('wraps the value in single quotes', () => {
    assert.equal(quote('abc'), "'abc'");
    assert.equal(quote(''), "''");
  });

  test('replaces control characters (C0 and DEL) with ?', () => {
    assert.equal(quote('a\u0000b\nc\rd\te\u001Ff\u007Fg'), "'a?b?c?d?e?f?g'");
  });

  test('keeps 80 characters and marks the cut with an ellipsis', () => {
    const eighty = 'x'.repeat(80);
    assert.equal(quote(eighty), `'${eighty}'`);
    assert.equal(quote(`${eighty}y`), `'${eighty}…'`);
    assert.equal(quote('z'.repeat(10_000)).length, 80 + 3);
  });

  test('strips control characters after shortening, from the kept part', () => {
    assert.equal(quote(`${'\n'.repeat(81)}`), `'${'?'.repeat(80)}…'`);
  });
});

describe('coerceArguments: int parameters', () => {
  test('coerces every int parameter of getBild', () => {
    assert.deepEqual(coerceArguments(getBild, bild(['crop']), LIMITS), {
      bildID: 1,
      width: 2,
      height: 3,
      resizeModes: ['crop'],
    });
  });

  test('a missing int parameter is MISSING_PARAMETER', () => {
    const error = assertScoopError(() => coerceArguments(getBereich, raw({}), LIMITS), 'MISSING_PARAMETER');
    assert.equal(error.message, 'Parameter bereichID is missing.');
  });

  test('an empty list of values counts as missing', () => {
    assertScoopError(() => coerceArguments(getBereich, raw({ bereichID: [] }), LIMITS), 'MISSING_PARAMETER');
  });

  test('an empty int value is INVALID_PARAMETER, not missing', () => {
    assertScoopError(
      () => coerceArguments(getBereich, raw({ bereichID: [''] }), LIMITS),
      'INVALID_PARAMETER',
    );
  });

  test('a repeated int parameter is DUPLICATE_PARAMETER, even with equal values', () => {
    assertScoopError(
      () => coerceArguments(getBereich, raw({ bereichID: ['1', '1'] }), LIMITS),
      'DUPLICATE_PARAMETER',
    );
  });

  test('names are matched exactly: another case is not the parameter', () => {
    assertScoopError(
      () => coerceArguments(getBereich, raw({ BereichID: ['1'] }), LIMITS),
      'MISSING_PARAMETER',
    );
  });

  test('unknown raw parameters are ignored', () => {
    assert.deepEqual(coerceArguments(getBereich, raw({ bereichID: ['5'], extra: ['x'] }), LIMITS), {
      bereichID: 5,
    });
  });

  test('an operation without parameters gives no arguments', () => {
    assert.deepEqual(coerceArguments(getNewsletter, raw({ anything: ['1'] }), LIMITS), {});
  });
});

describe('coerceArguments: string parameters', () => {
  test('passes the string through unchanged, whitespace included', () => {
    assert.deepEqual(coerceArguments(getAbonnierteNewsletter, raw({ email: [' A@B.example '] }), LIMITS), {
      email: ' A@B.example ',
    });
  });

  for (const [label, values] of [
    ['missing', undefined],
    ['empty', ['']],
    ['blank', [' \t\r\n']],
  ] as const) {
    test(`a ${label} string is MISSING_PARAMETER`, () => {
      const parameters = values ? raw({ email: [...values] }) : raw({});
      const error = assertScoopError(
        () => coerceArguments(getAbonnierteNewsletter, parameters, LIMITS),
        'MISSING_PARAMETER',
      );
      assert.equal(error.message, 'Parameter email is missing or empty.');
    });
  }

  test('a repeated string is DUPLICATE_PARAMETER', () => {
    assertScoopError(
      () => coerceArguments(getAbonnierteNewsletter, raw({ email: ['a@x', 'b@x'] }), LIMITS),
      'DUPLICATE_PARAMETER',
    );
  });
});

describe('coerceArguments: the resizeModes list', () => {
  test('accepts all five values, in order, with repeats', () => {
    const modes = ['standard', 'crop', 'fit', 'stretch', 'background'];
    assert.deepEqual(coerceArguments(getBild, bild(modes), LIMITS).resizeModes, modes);
    assert.deepEqual(coerceArguments(getBild, bild(['fit', 'fit']), LIMITS).resizeModes, ['fit', 'fit']);
  });

  test('a missing list is the empty list', () => {
    assert.deepEqual(coerceArguments(getBild, bild(undefined), LIMITS).resizeModes, []);
    assert.deepEqual(coerceArguments(getBild, bild([]), LIMITS).resizeModes, []);
  });

  // resizeMode restricts xs:string (whiteSpace preserve): whitespace is part of the value.
  for (const value of [
    'Crop',
    'CROP',
    'zoom',
    '',
    'crop,fit',
    'stan dard',
    ' crop ',
    'crop\n',
    '\tfit',
    ' ',
  ]) {
    test(`refuses ${JSON.stringify(value)} as INVALID_PARAMETER (exact, case- and space-sensitive)`, () => {
      const error = assertScoopError(
        () => coerceArguments(getBild, bild(['crop', value]), LIMITS),
        'INVALID_PARAMETER',
      );
      assert.match(
        error.message,
        /is not a valid resizeMode; expected one of standard, crop, fit, stretch, background\.$/,
      );
    });
  }

  test('the message for an empty item names the empty string', () => {
    const error = assertScoopError(() => coerceArguments(getBild, bild(['']), LIMITS), 'INVALID_PARAMETER');
    assert.equal(
      error.message,
      "'' is not a valid resizeMode; expected one of standard, crop, fit, stretch, background.",
    );
  });

  test('exactly maxListItems items pass; one more is TOO_MANY_VALUES', () => {
    assert.deepEqual(
      coerceArguments(getBild, bild(Array(5).fill('crop')), LIMITS).resizeModes,
      Array(5).fill('crop'),
    );
    const error = assertScoopError(
      () => coerceArguments(getBild, bild(Array(6).fill('crop')), LIMITS),
      'TOO_MANY_VALUES',
    );
    assert.equal(error.message, 'Parameter resizeModes has 6 items; at most 5 are allowed.');
  });

  test('the item count is checked before the items, so a flood is not validated item by item', () => {
    assertScoopError(() => coerceArguments(getBild, bild(Array(6).fill('bogus')), LIMITS), 'TOO_MANY_VALUES');
  });

  test('int parameters are still required alongside the list', () => {
    assertScoopError(
      () => coerceArguments(getBild, raw({ bildID: ['1'], width: ['2'], resizeModes: ['crop'] }), LIMITS),
      'MISSING_PARAMETER',
    );
  });
});
