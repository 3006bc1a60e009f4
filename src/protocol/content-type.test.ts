import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertScoopError } from '../../test/support/assertions.ts';
import { decodeBody, type MediaType, parseMediaType } from './content-type.ts';

function params(header: string): Record<string, string> {
  const parsed = parseMediaType(header);
  assert.ok(parsed, header);
  return Object.fromEntries(parsed.params);
}

function mt(header: string): MediaType {
  const parsed = parseMediaType(header);
  assert.ok(parsed, header);
  return parsed;
}

describe('parseMediaType (RFC 9110 §8.3.1)', () => {
  test('undefined stays undefined', () => {
    assert.equal(parseMediaType(undefined), undefined);
  });

  test('lower-cases the essence and trims it', () => {
    assert.equal(mt('Text/XML').essence, 'text/xml');
    assert.equal(mt('  APPLICATION/SOAP+XML  ; charset=utf-8').essence, 'application/soap+xml');
  });

  test('lower-cases parameter names but keeps values as sent', () => {
    assert.deepEqual(params('text/xml; CharSet=UTF-8; Action=http://X/A'), {
      charset: 'UTF-8',
      action: 'http://X/A',
    });
  });

  test('unquotes a quoted value holding ; and =', () => {
    assert.deepEqual(params('application/soap+xml; charset=utf-8; action="http://x/a;b=c"'), {
      charset: 'utf-8',
      action: 'http://x/a;b=c',
    });
  });

  test('reads parameters after a quoted value holding ;', () => {
    assert.deepEqual(params('application/soap+xml; action="http://x/a;b"; charset=utf-8'), {
      action: 'http://x/a;b',
      charset: 'utf-8',
    });
  });

  test('resolves quoted-pairs in a quoted value', () => {
    assert.deepEqual(params('text/xml; a="x\\"y"; b=2'), { a: 'x"y', b: '2' });
  });

  test('an escaped backslash before the closing quote does not escape the quote', () => {
    // RFC 9110 §5.6.4: "a\\" is the quoted string of a single `a\`.
    assert.deepEqual(params('application/soap+xml; action="a\\\\"; charset=latin1'), {
      action: 'a\\',
      charset: 'latin1',
    });
  });

  test('tolerates whitespace around parameters and an empty parameter', () => {
    assert.deepEqual(params('text/xml ;charset=utf-8 ; ; x = 1 '), { charset: 'utf-8', x: '1' });
  });

  test('keeps the first of a repeated parameter', () => {
    assert.deepEqual(params('text/xml; charset=utf-8; charset=latin1'), { charset: 'utf-8' });
  });

  test('skips a parameter without = and one whose name is not a token', () => {
    assert.deepEqual(params('text/xml; flag; b@d=1; ok=2'), { ok: '2' });
  });

  test('an empty quoted value is the empty string', () => {
    assert.deepEqual(params('text/xml; action=""'), { action: '' });
  });

  for (const header of [
    '',
    '   ',
    'text',
    'text/',
    '/xml',
    'text/xml/extra',
    'text /xml',
    '; charset=utf-8',
  ]) {
    test(`refuses ${JSON.stringify(header)} as no media type`, () => {
      assert.equal(parseMediaType(header), undefined);
    });
  }
});

describe('decodeBody', () => {
  const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

  test('decodes UTF-8 when no content type or no charset is given', () => {
    assert.equal(decodeBody(utf8('Straßenfest 😀'), undefined), 'Straßenfest 😀');
    assert.equal(decodeBody(utf8('Straßenfest'), mt('text/xml')), 'Straßenfest');
  });

  test('accepts utf-8 and utf8 in any case and quoted', () => {
    for (const charset of ['utf-8', 'UTF-8', 'utf8', '"utf-8"']) {
      assert.equal(decodeBody(utf8('ü'), mt(`text/xml; charset=${charset}`)), 'ü', charset);
    }
  });

  test('strips a UTF-8 byte order mark', () => {
    assert.equal(decodeBody(Uint8Array.of(0xef, 0xbb, 0xbf, 0x3c, 0x61, 0x2f, 0x3e), undefined), '<a/>');
  });

  test('strips only the first byte order mark', () => {
    const twice = Uint8Array.of(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x41);
    assert.equal(decodeBody(twice, undefined), '\uFEFFA');
  });

  test('decodes an empty body to the empty string', () => {
    assert.equal(decodeBody(new Uint8Array(0), undefined), '');
  });

  const invalidUtf8: [string, number[]][] = [
    ['a lone continuation byte', [0x41, 0x80]],
    ['0xFF', [0xff]],
    ['a truncated 2-byte sequence', [0x41, 0xc3]],
    ['a truncated 3-byte sequence at the end', [0xe2, 0x82]],
    ['an overlong encoding of /', [0xc0, 0xaf]],
    ['an encoded surrogate (CESU-8)', [0xed, 0xa0, 0x80]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['Latin-1 é sent as UTF-8', [0x3c, 0x61, 0x3e, 0xe9, 0x3c, 0x2f, 0x61, 0x3e]],
  ];
  for (const [name, bytes] of invalidUtf8) {
    test(`refuses ${name} as INVALID_ENCODING, never repairing it`, () => {
      assertScoopError(() => decodeBody(Uint8Array.from(bytes), undefined), 'INVALID_ENCODING');
      assertScoopError(
        () => decodeBody(Uint8Array.from(bytes), mt('text/xml; charset=utf-8')),
        'INVALID_ENCODING',
      );
    });
  }

  test('is stateless between calls after a refusal', () => {
    assertScoopError(() => decodeBody(Uint8Array.of(0xe2, 0x82), undefined), 'INVALID_ENCODING');
    assert.equal(decodeBody(utf8('ok'), undefined), 'ok');
  });

  test('decodes ISO-8859-1 byte for byte', () => {
    const bytes = Uint8Array.of(0x41, 0xe9, 0xdf, 0xff);
    for (const charset of ['iso-8859-1', 'ISO-8859-1', 'latin1']) {
      assert.equal(decodeBody(bytes, mt(`text/xml; charset=${charset}`)), 'Aéßÿ', charset);
    }
  });

  test('accepts US-ASCII', () => {
    assert.equal(decodeBody(utf8('<a>1</a>'), mt('text/xml; charset=us-ascii')), '<a>1</a>');
    assert.equal(decodeBody(utf8('<a>1</a>'), mt('text/xml; charset=US-ASCII')), '<a>1</a>');
  });

  for (const charset of ['utf-16', 'utf-16le', 'windows-1252', 'iso-8859-15', 'shift_jis', 'ebcdic', '']) {
    test(`refuses charset ${JSON.stringify(charset)} as INVALID_ENCODING`, () => {
      const error = assertScoopError(
        () => decodeBody(utf8('<a/>'), mt(`text/xml; charset=${charset}`)),
        'INVALID_ENCODING',
      );
      assert.match(error.message, /is not supported; use utf-8\.$/);
    });
  }

  test('quotes an unsupported charset shortened to 40 characters', () => {
    const error = assertScoopError(
      () => decodeBody(utf8('<a/>'), mt(`text/xml; charset=${'x'.repeat(100)}`)),
      'INVALID_ENCODING',
    );
    assert.equal(error.message, `The charset "${'x'.repeat(40)}" is not supported; use utf-8.`);
  });
});
