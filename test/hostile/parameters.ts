/**
 * Parameters: missing, wrong and duplicate ones, xs:int overflow and odd lexical forms, width
 * and height.
 */
import { hostileTheme } from '../support/hostile-case.ts';
import {
  AUTH,
  bereich11,
  bereich12,
  envelope,
  FORM,
  get,
  op,
  PUBLIC,
  post,
  soap11,
  soap12,
  TOKEN,
  V6,
} from '../support/hostile-requests.ts';

const { theme, add } = hostileTheme('parameters: missing, duplicate, xs:int, width and height');
export const parameters = theme;

// -- parameters: missing, wrong, duplicate.
add(
  'httpget same parameter twice in other cases',
  'httpget',
  'DUPLICATE_PARAMETER',
  get(`${PUBLIC}/getBereich?bereichID=1&BEREICHID=2`),
);
add(
  'httppost same parameter twice',
  'httppost',
  'DUPLICATE_PARAMETER',
  post(`${PUBLIC}/getBereich`, FORM, 'bereichID=1&bereichID=1'),
);
add(
  'soap12 parameter element twice',
  'soap12',
  'DUPLICATE_PARAMETER',
  soap12(PUBLIC, bereich12('<bereichID>1</bereichID><bereichID>2</bereichID>')),
);
add(
  'soap11 list parameter twice',
  'soap11',
  'DUPLICATE_PARAMETER',
  soap11(
    PUBLIC,
    envelope(
      '1.1',
      op('getBild', '<bildID>201</bildID><width>0</width><height>0</height><resizeModes/><resizeModes/>'),
    ),
  ),
);
add(
  'soap11 parameter in a foreign namespace',
  'soap11',
  'MISSING_PARAMETER',
  soap11(PUBLIC, bereich11('<bereichID xmlns="urn:evil">1</bereichID>')),
);
add(
  'soap12 parameter as an attribute',
  'soap12',
  'MISSING_PARAMETER',
  soap12(PUBLIC, envelope('1.2', op('getBereich', '', ' bereichID="1"'))),
);
add(
  'soap11 xsi:nil="1" on a required int',
  'soap11',
  'MISSING_PARAMETER',
  soap11(PUBLIC, bereich11('<bereichID xsi:nil="1"/>')),
);
add(
  'soap11 an xsi:nil copy before the real parameter',
  'soap11',
  'DUPLICATE_PARAMETER',
  soap11(PUBLIC, bereich11('<bereichID xsi:nil="true"/><bereichID>1</bereichID>')),
);
add(
  'soap12 an xsi:nil copy after the real parameter',
  'soap12',
  'DUPLICATE_PARAMETER',
  soap12(PUBLIC, bereich12('<bereichID>1</bereichID><bereichID xsi:nil="1"/>')),
);
add(
  'soap11 an xsi:nil resizeModes beside a real one',
  'soap11',
  'DUPLICATE_PARAMETER',
  soap11(
    PUBLIC,
    envelope(
      '1.1',
      op(
        'getBild',
        '<bildID>201</bildID><width>0</width><height>0</height><resizeModes xsi:nil="true"/><resizeModes><resizeMode>fit</resizeMode></resizeModes>',
      ),
    ),
  ),
);
add(
  'httpget getBild without width',
  'httpget',
  'MISSING_PARAMETER',
  get(`${PUBLIC}/getBild?bildID=201&height=0`),
);
add('httpget parameter without =', 'httpget', 'INVALID_PARAMETER', get(`${PUBLIC}/getBereich?bereichID`));
add('httpget empty parameter name', 'httpget', 'MISSING_PARAMETER', get(`${PUBLIC}/getBereich?=1`));
add(
  'httppost e-mail of spaces only',
  'httppost',
  'MISSING_PARAMETER',
  post(`${V6}/getAbonnierteNewsletter`, FORM, 'email=+++', [`Authorization: Bearer ${TOKEN}`]),
);
add(
  'soap11 e-mail of whitespace only',
  'soap11',
  'MISSING_PARAMETER',
  soap11(V6, envelope('1.1', op('getAbonnierteNewsletter', '<email> \t\r\n </email>'), AUTH)),
);
add(
  'httpget 17 resizeModes',
  'httpget',
  'TOO_MANY_VALUES',
  get(`${PUBLIC}/getBild?bildID=201&width=0&height=0${'&resizeModes=standard'.repeat(17)}`),
);
add(
  'httppost 1,000 resizeModes in one comma list',
  'httppost',
  'TOO_MANY_VALUES',
  post(
    `${PUBLIC}/getBild`,
    FORM,
    `bildID=201&width=0&height=0&resizeModes=${Array(1_000).fill('crop').join(',')}`,
  ),
);
add(
  'soap12 17 resizeMode items',
  'soap12',
  'TOO_MANY_VALUES',
  soap12(
    PUBLIC,
    envelope(
      '1.2',
      op(
        'getBild',
        `<bildID>201</bildID><width>0</width><height>0</height><resizeModes>${'<resizeMode>standard</resizeMode>'.repeat(17)}</resizeModes>`,
      ),
    ),
  ),
);
add(
  'httpget resizeMode holding markup',
  'httpget',
  'INVALID_PARAMETER',
  get(`${PUBLIC}/getBild?bildID=201&width=0&height=0&resizeModes=%3Cscript%3Ealert(1)%3C/script%3E`),
);
add(
  'httppost resizeMode in upper case',
  'httppost',
  'INVALID_PARAMETER',
  post(`${PUBLIC}/getBild`, FORM, 'bildID=201&width=0&height=0&resizeModes=STANDARD'),
);

// -- xs:int overflow and odd lexical forms.
for (const [name, value, code] of [
  ['2^31', '2147483648', 'INVALID_PARAMETER'],
  ['-2^31 - 1', '-2147483649', 'INVALID_PARAMETER'],
  ['23 digits', '99999999999999999999999', 'INVALID_PARAMETER'],
  ['10,000 digits', '9'.repeat(10_000), 'INVALID_PARAMETER'],
  ['exponent', '1e3', 'INVALID_PARAMETER'],
  ['hexadecimal', '0x10', 'INVALID_PARAMETER'],
  ['binary', '0b1', 'INVALID_PARAMETER'],
  ['decimal point', '1.0', 'INVALID_PARAMETER'],
  ['two signs', '%2B-1', 'INVALID_PARAMETER'],
  ['double minus', '--1', 'INVALID_PARAMETER'],
  ['digit separator', '1_000', 'INVALID_PARAMETER'],
  ['NaN', 'NaN', 'INVALID_PARAMETER'],
  ['Infinity', 'Infinity', 'INVALID_PARAMETER'],
  ['inner space', '1%202', 'INVALID_PARAMETER'],
  ['full-width digit', '%EF%BC%91', 'INVALID_PARAMETER'],
  ['Arabic-Indic digit', '%D9%A1', 'INVALID_PARAMETER'],
  ['no-break space', '1%C2%A0', 'INVALID_PARAMETER'],
  ['NUL after the digits', '1%00', 'INVALID_PARAMETER'],
  ['2^31 - 1 is a valid, unknown id', '2147483647', 'UNKNOWN_ID'],
  ['-2^31 is a valid, unknown id', '-2147483648', 'UNKNOWN_ID'],
  ['-0 is id 0', '-0', 'UNKNOWN_ID'],
  ['1,000 leading zeros', `${'0'.repeat(1_000)}1`, 'ok'],
  ['plus sign', '%2B1', 'ok'],
] as const) {
  add(`httpget xs:int ${name}`, 'httpget', code, get(`${PUBLIC}/getBereich?bereichID=${value}`));
}
add(
  'httppost xs:int overflow',
  'httppost',
  'INVALID_PARAMETER',
  post(`${PUBLIC}/getBereich`, FORM, 'bereichID=4294967296'),
);
add(
  'soap11 xs:int overflow',
  'soap11',
  'INVALID_PARAMETER',
  soap11(PUBLIC, bereich11('<bereichID>2147483648</bereichID>')),
);
add(
  'soap12 xs:int with an inner comment is one number',
  'soap12',
  'UNKNOWN_ID',
  soap12(PUBLIC, bereich12('<bereichID>1<!-- -->2</bereichID>')),
);
add(
  'soap11 xs:int as CDATA and character reference',
  'soap11',
  'ok',
  soap11(PUBLIC, bereich11('<bereichID><![CDATA[ ]]>&#x31;</bereichID>')),
);

// -- width and height.
const bild = (w: string, h: string) => `bildID=201&width=${w}&height=${h}`;
add('httpget negative width', 'httpget', 'INVALID_PARAMETER', get(`${PUBLIC}/getBild?${bild('-1', '0')}`));
add('httpget height 4097', 'httpget', 'INVALID_PARAMETER', get(`${PUBLIC}/getBild?${bild('0', '4097')}`));
add(
  'httpget width 2^31 - 1',
  'httpget',
  'INVALID_PARAMETER',
  get(`${PUBLIC}/getBild?${bild('2147483647', '0')}`),
);
add(
  'httppost width -2^31',
  'httppost',
  'INVALID_PARAMETER',
  post(`${PUBLIC}/getBild`, FORM, bild('-2147483648', '0')),
);
add(
  'httppost height beyond xs:int',
  'httppost',
  'INVALID_PARAMETER',
  post(`${PUBLIC}/getBild`, FORM, bild('0', '99999999999')),
);
add(
  'soap11 negative height',
  'soap11',
  'INVALID_PARAMETER',
  soap11(PUBLIC, envelope('1.1', op('getBild', '<bildID>201</bildID><width>0</width><height>-5</height>'))),
);
add(
  'soap12 huge width',
  'soap12',
  'INVALID_PARAMETER',
  soap12(
    PUBLIC,
    envelope('1.2', op('getBild', '<bildID>201</bildID><width>1000000</width><height>0</height>')),
  ),
);
