import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertScoopError } from '../../test/support/assertions.ts';
import { OPERATIONS, type Operation } from '../contract/operations.ts';
import { parseMediaType } from './content-type.ts';
import {
  bearerToken,
  FORM_MEDIA_TYPE,
  type FormPair,
  formParameters,
  formToken,
  hasTokenField,
  parseForm,
  queryNamesToken,
  readFormBody,
  refuseQueryParameters,
  TOKEN_FIELD,
} from './http-request.ts';

function op(name: string): Operation {
  const found = OPERATIONS.find((o) => o.name === name);
  assert.ok(found, name);
  return found;
}

function asObject(raw: ReadonlyMap<string, readonly string[]>): Record<string, readonly string[]> {
  return Object.fromEntries(raw);
}

const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

describe('parseForm (application/x-www-form-urlencoded)', () => {
  test('splits pairs on & and names from values on the first =', () => {
    assert.deepEqual(parseForm('a=1&b=x=y'), [
      { name: 'a', value: '1' },
      { name: 'b', value: 'x=y' },
    ]);
  });

  test('decodes + as space and percent-escapes as UTF-8', () => {
    assert.deepEqual(parseForm('email=a+b%40x.example&n=%C3%BC%2B'), [
      { name: 'email', value: 'a b@x.example' },
      { name: 'n', value: 'ü+' },
    ]);
  });

  test('decodes names as well as values', () => {
    assert.deepEqual(parseForm('bereich%49D=1&a+b=2'), [
      { name: 'bereichID', value: '1' },
      { name: 'a b', value: '2' },
    ]);
  });

  test('a piece without = is a name with an empty value', () => {
    assert.deepEqual(parseForm('flag&x='), [
      { name: 'flag', value: '' },
      { name: 'x', value: '' },
    ]);
  });

  test('skips empty pieces', () => {
    assert.deepEqual(parseForm('&&a=1&&b=2&'), [
      { name: 'a', value: '1' },
      { name: 'b', value: '2' },
    ]);
    assert.deepEqual(parseForm(''), []);
    assert.deepEqual(parseForm('&'), []);
  });

  test('keeps repeated names in order', () => {
    assert.deepEqual(
      parseForm('m=crop&m=fit').map((p) => p.value),
      ['crop', 'fit'],
    );
  });

  test('an empty name with a value is kept', () => {
    assert.deepEqual(parseForm('=1'), [{ name: '', value: '1' }]);
  });

  for (const text of ['a=%ZZ', 'a=%', 'a=%4', 'a=%FF', 'a=%C3', 'a=%ED%A0%80', '%ZZ=1', 'a=1&b=%E2%82']) {
    test(`refuses ${JSON.stringify(text)} as INVALID_ENCODING`, () => {
      assertScoopError(() => parseForm(text), 'INVALID_ENCODING');
    });
  }
});

describe('formParameters', () => {
  const getBild = op('getBild');
  const getBereich = op('getBereich');

  test('maps names case-insensitively to the contract spelling', () => {
    const pairs = parseForm('BEREICHID=1');
    assert.deepEqual(asObject(formParameters(getBereich, pairs)), { bereichID: ['1'] });
  });

  test('ignores unknown names, including the token field', () => {
    const pairs = parseForm('bereichID=1&foo=2&token=abc');
    assert.deepEqual(asObject(formParameters(getBereich, pairs)), { bereichID: ['1'] });
  });

  test('collects a repeated scalar (for coerce to refuse as a duplicate)', () => {
    const pairs = parseForm('bereichID=1&BereichId=2');
    assert.deepEqual(asObject(formParameters(getBereich, pairs)), { bereichID: ['1', '2'] });
  });

  test('does not split a scalar on commas', () => {
    assert.deepEqual(asObject(formParameters(getBereich, parseForm('bereichID=1,2'))), {
      bereichID: ['1,2'],
    });
  });

  test('collects a repeated list parameter and splits each value on commas', () => {
    const pairs = parseForm('bildID=200&width=100&height=80&resizeModes=crop&resizeModes=fit,background');
    assert.deepEqual(asObject(formParameters(getBild, pairs)), {
      bildID: ['200'],
      width: ['100'],
      height: ['80'],
      resizeModes: ['crop', 'fit', 'background'],
    });
  });

  test('an encoded comma splits as well (the value is split after decoding)', () => {
    assert.deepEqual(asObject(formParameters(getBild, parseForm('resizeModes=crop%2Cfit'))), {
      resizeModes: ['crop', 'fit'],
    });
  });

  test('an empty list value is one empty item (refused later by coerce)', () => {
    assert.deepEqual(asObject(formParameters(getBild, parseForm('resizeModes='))), { resizeModes: [''] });
  });

  test('a parameter not sent has no entry', () => {
    assert.deepEqual(asObject(formParameters(getBild, parseForm('bildID=1'))), { bildID: ['1'] });
  });

  test('works on pairs built by hand', () => {
    const pairs: FormPair[] = [{ name: 'resizemodes', value: 'stretch' }];
    assert.deepEqual(asObject(formParameters(getBild, pairs)), { resizeModes: ['stretch'] });
  });

  test('a value with a character XML forbids is INVALID_PARAMETER, naming the parameter and character', () => {
    const newsletter = op('getAbonnierteNewsletter');
    for (const [encoded, shown] of [
      ['%00', 'U+0000'],
      ['a%01b', 'U+0001'],
      ['a%08', 'U+0008'],
      ['%0B', 'U+000B'],
      ['%0C', 'U+000C'],
      ['%1F', 'U+001F'],
      ['x%EF%BF%BE', 'U+FFFE'],
      ['%EF%BF%BF', 'U+FFFF'],
    ] as const) {
      const error = assertScoopError(
        () => formParameters(newsletter, parseForm(`EMAIL=${encoded}@example.org`)),
        'INVALID_PARAMETER',
      );
      assert.ok(error.message.startsWith(`Parameter email holds the character ${shown},`), error.message);
    }
    assertScoopError(() => formParameters(getBild, parseForm('resizeModes=crop%00')), 'INVALID_PARAMETER');
  });

  test('tab, line breaks, DEL, C1 controls and characters beyond the BMP are allowed, as in XML', () => {
    const newsletter = op('getAbonnierteNewsletter');
    const value = 'a\tb\nc\rd\u007fe\u0085f\uFFFDg\u{1F600}@example.org';
    assert.deepEqual(asObject(formParameters(newsletter, [{ name: 'email', value }])), { email: [value] });
  });

  test('forbidden characters in names or values the operation does not have are ignored with them', () => {
    assert.deepEqual(asObject(formParameters(getBereich, parseForm('bereichID=1&x=%00&%01=1'))), {
      bereichID: ['1'],
    });
  });
});

describe('refuseQueryParameters (HTTP POST)', () => {
  const getBereich = op('getBereich');

  test('an operation parameter in the query is PARAMETER_IN_URL, in any letter case', () => {
    for (const query of ['bereichID=1', 'BEREICHID=2', 'x=1&bereichid=', 'bereichID']) {
      const error = assertScoopError(
        () => refuseQueryParameters(getBereich, parseForm(query)),
        'PARAMETER_IN_URL',
      );
      assert.match(error.message, /^Parameter bereichID /);
    }
  });

  test('names the operation does not have are ignored, as are an empty query and other operations', () => {
    refuseQueryParameters(getBereich, parseForm(''));
    refuseQueryParameters(getBereich, parseForm('_=1700000000&wsdl&bildID=3'));
    refuseQueryParameters(op('getNewsletter'), parseForm('bereichID=1'));
  });
});

describe('formToken and hasTokenField', () => {
  test('the field is named token', () => {
    assert.equal(TOKEN_FIELD, 'token');
  });

  test('finds the token case-insensitively', () => {
    assert.equal(formToken(parseForm('TOKEN=abc&x=1')), 'abc');
    assert.equal(hasTokenField(parseForm('Token=abc')), true);
  });

  test('no token field gives undefined', () => {
    assert.equal(formToken(parseForm('x=1')), undefined);
    assert.equal(hasTokenField(parseForm('x=1')), false);
    assert.equal(hasTokenField([]), false);
  });

  test('an empty token field is the empty string, and present', () => {
    assert.equal(formToken(parseForm('token=')), '');
    assert.equal(hasTokenField(parseForm('token')), true);
  });

  test('two token fields are DUPLICATE_PARAMETER, whatever their case or values', () => {
    assertScoopError(() => formToken(parseForm('token=a&token=a')), 'DUPLICATE_PARAMETER');
    assertScoopError(() => formToken(parseForm('token=a&TOKEN=b')), 'DUPLICATE_PARAMETER');
  });
});

describe('bearerToken (RFC 6750 §2.1)', () => {
  test('no Authorization header gives undefined', () => {
    assert.equal(bearerToken(undefined), undefined);
  });

  test('reads the token of the Bearer scheme, case-insensitively', () => {
    const token = '11111111-1111-1111-1111-111111111111';
    assert.equal(bearerToken(`Bearer ${token}`), token);
    assert.equal(bearerToken(`bearer ${token}`), token);
    assert.equal(bearerToken(`BEARER ${token}`), token);
    assert.equal(bearerToken(`  Bearer \t ${token}  `), token);
  });

  test('keeps the token as sent (case and characters)', () => {
    assert.equal(bearerToken('Bearer {ABC-def}'), '{ABC-def}');
  });

  for (const header of [
    'Basic dXNlcjpwYXNz',
    'Bearer',
    'Bearer ',
    'Bearer a b',
    'Bearertoken',
    '',
    'Token x',
  ]) {
    test(`${JSON.stringify(header)} is present but not a bearer token: ''`, () => {
      assert.equal(bearerToken(header), '');
    });
  }
});

describe('readFormBody', () => {
  const form = parseMediaType(FORM_MEDIA_TYPE);

  test('parses a form body', () => {
    assert.deepEqual(readFormBody(bytes('bereichID=1&x=%C3%BC'), form), [
      { name: 'bereichID', value: '1' },
      { name: 'x', value: 'ü' },
    ]);
  });

  test('accepts the form media type in any case and with a charset', () => {
    const mediaType = parseMediaType('Application/X-WWW-Form-Urlencoded; charset=UTF-8');
    assert.deepEqual(readFormBody(bytes('a=1'), mediaType), [{ name: 'a', value: '1' }]);
  });

  test('an empty body is no pairs, whatever the content type (getNewsletter with Content-Length: 0)', () => {
    assert.deepEqual(readFormBody(new Uint8Array(0), undefined), []);
    assert.deepEqual(readFormBody(new Uint8Array(0), parseMediaType('application/json')), []);
  });

  for (const header of [
    undefined,
    'text/xml',
    'application/json',
    'multipart/form-data; boundary=x',
    'text/plain',
  ]) {
    test(`a body sent as ${header ?? 'no content type'} is UNSUPPORTED_MEDIA_TYPE`, () => {
      const error = assertScoopError(
        () => readFormBody(bytes('bereichID=1'), parseMediaType(header)),
        'UNSUPPORTED_MEDIA_TYPE',
      );
      assert.match(
        error.message,
        /^HTTP POST takes application\/x-www-form-urlencoded; the request was sent as /,
      );
    });
  }

  test('refuses invalid UTF-8 in the body as INVALID_ENCODING', () => {
    assertScoopError(() => readFormBody(Uint8Array.of(0x61, 0x3d, 0xff), form), 'INVALID_ENCODING');
  });

  test('refuses an unsupported charset as INVALID_ENCODING', () => {
    const mediaType = parseMediaType(`${FORM_MEDIA_TYPE}; charset=utf-16`);
    assertScoopError(() => readFormBody(bytes('a=1'), mediaType), 'INVALID_ENCODING');
  });

  test('refuses bad percent-encoding in the body as INVALID_ENCODING', () => {
    assertScoopError(() => readFormBody(bytes('a=%ZZ'), form), 'INVALID_ENCODING');
  });
});

describe('queryNamesToken (the query of a request that does not read it)', () => {
  test('finds token by its decoded name, in any case, with or without a value', () => {
    assert.equal(queryNamesToken('token=abc'), true);
    assert.equal(queryNamesToken('x=1&TOKEN'), true);
    assert.equal(queryNamesToken('%74oken=1'), true);
    assert.equal(queryNamesToken('wsdl&Token='), true);
  });

  test('other names, undecodable names and an empty query are not a token', () => {
    assert.equal(queryNamesToken(''), false);
    assert.equal(queryNamesToken('wsdl'), false);
    assert.equal(queryNamesToken('x=token'), false);
    assert.equal(queryNamesToken('%zz=1&tokens=1'), false);
  });
});
