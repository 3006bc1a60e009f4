import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertWellFormed, renderParts } from '../../test/support/assertions.ts';
import type { BinaryValue } from '../contract/infer.ts';
import { OPERATIONS, type Operation, resultTypeName } from '../contract/operations.ts';
import type {
  Anhang,
  ArtikelDetails,
  Bereich,
  Bild,
  CityAppBereich,
  Kontakt,
  Newsletter,
} from '../contract/types.ts';
import type { Binary, BinarySource } from '../xml/binary.ts';
import { indentMarkup } from '../xml/indent.ts';
import { childElements, parseXml, type XmlElement } from '../xml/reader.ts';
import { type BodyPart, bodyLength } from '../xml/writer.ts';
import { envelopeStart, SOAP11_ENVELOPE_NS, SOAP12_ENVELOPE_NS, type SoapVersion } from './namespaces.ts';
import { compileOperationWriter } from './serialize.ts';

const NS = 'http://scoop.example.org/api';
const HTTP_ROOT_ATTRIBUTES =
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://scoop.example.org/api"';

type Result = Readonly<Record<string, unknown>>;

function op(name: string): Operation {
  const found = OPERATIONS.find((o) => o.name === name);
  assert.ok(found, name);
  return found;
}

function base64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** Renders, checks bodyLength against the real bytes, and returns the text. */
async function rendered(parts: readonly BodyPart[]): Promise<string> {
  const bytes = await renderParts(parts);
  assert.equal(bodyLength(parts), bytes.length, 'bodyLength equals the rendered byte length');
  return bytes.toString('utf8');
}

function soapBody(operation: Operation, version: SoapVersion, result: Result): Promise<string> {
  return rendered(compileOperationWriter(operation, NS).soap(version, result));
}

function httpBody(operation: Operation, result: Result): Promise<string> {
  return rendered(compileOperationWriter(operation, NS).http(result));
}

/**
 * The SOAP body the original sends for an HTTP GET/POST body: the same content,
 * compact, inside `<Op>Response/<Op>Result` (reference/README.md §2–§4). Valid for
 * data without newlines in text, which holds for every sample here.
 */
function soapFromHttp(operation: Operation, version: SoapVersion, http: string): string {
  const root = resultTypeName(operation.name);
  const start = `<${root} ${HTTP_ROOT_ATTRIBUTES}>`;
  const from = http.indexOf(start);
  assert.ok(from > 0, 'HTTP root start tag');
  const inner = http.slice(from + start.length, http.lastIndexOf(`</${root}>`)).replace(/\n */g, '');
  return (
    `${envelopeStart(version)}<soap:Body><${operation.name}Response xmlns="${NS}"><${operation.name}Result>` +
    `${inner}</${operation.name}Result></${operation.name}Response></soap:Body></soap:Envelope>`
  );
}

function httpDocument(root: string, lines: readonly string[]): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n<${root} ${HTTP_ROOT_ATTRIBUTES}>\n${lines.join('\n')}\n</${root}>`;
}

// Sample results: the reference dataset (reference/exchanges/*.httpget.txt), built by hand.

const TAGESORDNUNG = base64('VGFnZXNvcmRudW5nIGRlciBTaXR6dW5nIGFtIDE0LjAzLgpQdW5rdCAxOiBCZWdyw7zDn3VuZwo=');
const PROTOKOLL = base64('JVBERi0xLjQKJSBtaW5pbWFsIHBsYWNlaG9sZGVyCiUlRU9GCg==');
const RATHAUS_PNG = base64(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR42mP4z8Dw//9/EAayADnUB/mbRCuEAAAAAElFTkSuQmCC',
);

const anhang500: Anhang = {
  anhangID: 500,
  filename: 'tagesordnung.txt',
  name: 'Tagesordnung',
  beschreibung: 'Tagesordnung <Sitzung> März',
  size: 56,
  mimetype: 'text/plain',
  data: TAGESORDNUNG,
  sort: 1,
};

const anhang501: Anhang = {
  anhangID: 501,
  filename: 'protokoll.pdf',
  name: 'Protokoll',
  beschreibung: null,
  size: 37,
  mimetype: 'application/pdf',
  data: PROTOKOLL,
  sort: 2,
};

const kontakte: Kontakt[] = [
  {
    einrichtung: null,
    art: 'persoenlich',
    name: 'Erika Muster',
    abteilung: 'Presseamt',
    position: 'Sprecherin',
    email: 'erika.muster@example.org',
    telefon: '+49 30 1234-100',
    fax: null,
  },
  {
    einrichtung: { name: 'Bürgerbüro Mitte', einrichtungID: 7 },
    art: 'sammelkontakt',
    name: 'Bürgerbüro',
    abteilung: 'Bürgerdienste',
    position: '',
    email: 'buergerbuero@example.org',
    telefon: '+49 30 1234-0',
    fax: '+49 30 1234-99',
  },
];

const artikelDetails: ArtikelDetails = {
  text: 'Straßenfest am Rathausplatz: Programm & Anfahrt <Samstag>.',
  bereiche: [
    { name: 'Rathaus & Verwaltung', bereichID: 1 },
    { name: 'Kultur', bereichID: 2 },
  ],
  cityAppBereiche: [{ name: 'Veranstaltungen', cityAppBereichID: 10 }],
  anhaenge: [anhang500, anhang501],
  links: [
    { titel: 'Programm', url: 'https://www.example.org/fest?tag=1&lang=de', art: 'extern', sort: 1 },
    { titel: 'Anfahrt', url: '/verkehr/anfahrt', art: 'intern', sort: 2 },
  ],
  kontakte,
};

const bild: Bild = {
  bildID: 200,
  filename: 'rathaus.png',
  bildunterschrift: 'Das Rathaus im Frühling',
  bildrechte: '© Stadt Beispiel',
  alternativText: 'Rotes Schachbrett, 2x2 Pixel',
  size: 75,
  mimetype: 'image/png',
  data: RATHAUS_PNG,
  istTeaserbild: true,
  sort: 1,
};

const bereich: Bereich = { name: 'Rathaus & Verwaltung', bereichID: 1 };
const cityAppBereich: CityAppBereich = { name: 'Veranstaltungen', cityAppBereichID: 10 };
const newsletters: Newsletter[] = [
  { name: 'Stadtnachrichten', newsletterID: 1 },
  { name: 'Kulturkalender', newsletterID: 2 },
];

interface Sample {
  readonly result: Result;
  /** The HTTP GET/POST body the reference sends for it, line by line inside the root. */
  readonly http: readonly string[];
}

const SAMPLES: Readonly<Record<string, Sample>> = {
  checkAnhangVorhanden: {
    result: { anhangVorhanden: true },
    http: ['  <anhangVorhanden>true</anhangVorhanden>'],
  },
  getArtikelDetails: {
    result: { artikelDetails },
    http: [
      '  <artikelDetails>',
      '    <text>Straßenfest am Rathausplatz: Programm &amp; Anfahrt &lt;Samstag&gt;.</text>',
      '    <bereiche>',
      '      <wsBereich>',
      '        <name>Rathaus &amp; Verwaltung</name>',
      '        <bereichID>1</bereichID>',
      '      </wsBereich>',
      '      <wsBereich>',
      '        <name>Kultur</name>',
      '        <bereichID>2</bereichID>',
      '      </wsBereich>',
      '    </bereiche>',
      '    <cityAppBereiche>',
      '      <wsCityAppBereich>',
      '        <name>Veranstaltungen</name>',
      '        <cityAppBereichID>10</cityAppBereichID>',
      '      </wsCityAppBereich>',
      '    </cityAppBereiche>',
      '    <anhaenge>',
      '      <wsAnhang>',
      '        <anhangID>500</anhangID>',
      '        <filename>tagesordnung.txt</filename>',
      '        <name>Tagesordnung</name>',
      '        <beschreibung>Tagesordnung &lt;Sitzung&gt; März</beschreibung>',
      '        <size>56</size>',
      '        <mimetype>text/plain</mimetype>',
      '        <data>VGFnZXNvcmRudW5nIGRlciBTaXR6dW5nIGFtIDE0LjAzLgpQdW5rdCAxOiBCZWdyw7zDn3VuZwo=</data>',
      '        <sort>1</sort>',
      '      </wsAnhang>',
      '      <wsAnhang>',
      '        <anhangID>501</anhangID>',
      '        <filename>protokoll.pdf</filename>',
      '        <name>Protokoll</name>',
      '        <size>37</size>',
      '        <mimetype>application/pdf</mimetype>',
      '        <data>JVBERi0xLjQKJSBtaW5pbWFsIHBsYWNlaG9sZGVyCiUlRU9GCg==</data>',
      '        <sort>2</sort>',
      '      </wsAnhang>',
      '    </anhaenge>',
      '    <links>',
      '      <wsLink>',
      '        <titel>Programm</titel>',
      '        <url>https://www.example.org/fest?tag=1&amp;lang=de</url>',
      '        <art>extern</art>',
      '        <sort>1</sort>',
      '      </wsLink>',
      '      <wsLink>',
      '        <titel>Anfahrt</titel>',
      '        <url>/verkehr/anfahrt</url>',
      '        <art>intern</art>',
      '        <sort>2</sort>',
      '      </wsLink>',
      '    </links>',
      '    <kontakte>',
      '      <wsKontakt>',
      '        <einrichtung xsi:nil="true" />',
      '        <art>persoenlich</art>',
      '        <name>Erika Muster</name>',
      '        <abteilung>Presseamt</abteilung>',
      '        <position>Sprecherin</position>',
      '        <email>erika.muster@example.org</email>',
      '        <telefon>+49 30 1234-100</telefon>',
      '      </wsKontakt>',
      '      <wsKontakt>',
      '        <einrichtung>',
      '          <name>Bürgerbüro Mitte</name>',
      '          <einrichtungID>7</einrichtungID>',
      '        </einrichtung>',
      '        <art>sammelkontakt</art>',
      '        <name>Bürgerbüro</name>',
      '        <abteilung>Bürgerdienste</abteilung>',
      '        <position />',
      '        <email>buergerbuero@example.org</email>',
      '        <telefon>+49 30 1234-0</telefon>',
      '        <fax>+49 30 1234-99</fax>',
      '      </wsKontakt>',
      '    </kontakte>',
      '  </artikelDetails>',
    ],
  },
  getAbonnierteNewsletter: {
    result: { newsletter: [1, 2] },
    http: ['  <newsletter>', '    <int>1</int>', '    <int>2</int>', '  </newsletter>'],
  },
  getNewsletter: {
    result: { newsletter: newsletters },
    http: [
      '  <newsletter>',
      '    <wsNewsletter>',
      '      <name>Stadtnachrichten</name>',
      '      <newsletterID>1</newsletterID>',
      '    </wsNewsletter>',
      '    <wsNewsletter>',
      '      <name>Kulturkalender</name>',
      '      <newsletterID>2</newsletterID>',
      '    </wsNewsletter>',
      '  </newsletter>',
    ],
  },
  getCityAppBereich: {
    result: { cityAppBereich },
    http: [
      '  <cityAppBereich>',
      '    <name>Veranstaltungen</name>',
      '    <cityAppBereichID>10</cityAppBereichID>',
      '  </cityAppBereich>',
    ],
  },
  getBild: {
    result: { bild },
    http: [
      '  <bild>',
      '    <bildID>200</bildID>',
      '    <filename>rathaus.png</filename>',
      '    <bildunterschrift>Das Rathaus im Frühling</bildunterschrift>',
      '    <bildrechte>© Stadt Beispiel</bildrechte>',
      '    <alternativText>Rotes Schachbrett, 2x2 Pixel</alternativText>',
      '    <size>75</size>',
      '    <mimetype>image/png</mimetype>',
      '    <data>iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR42mP4z8Dw//9/EAayADnUB/mbRCuEAAAAAElFTkSuQmCC</data>',
      '    <istTeaserbild>true</istTeaserbild>',
      '    <sort>1</sort>',
      '  </bild>',
    ],
  },
  getAnhang: {
    result: { anhang: anhang500 },
    http: [
      '  <anhang>',
      '    <anhangID>500</anhangID>',
      '    <filename>tagesordnung.txt</filename>',
      '    <name>Tagesordnung</name>',
      '    <beschreibung>Tagesordnung &lt;Sitzung&gt; März</beschreibung>',
      '    <size>56</size>',
      '    <mimetype>text/plain</mimetype>',
      '    <data>VGFnZXNvcmRudW5nIGRlciBTaXR6dW5nIGFtIDE0LjAzLgpQdW5rdCAxOiBCZWdyw7zDn3VuZwo=</data>',
      '    <sort>1</sort>',
      '  </anhang>',
    ],
  },
  getBereich: {
    result: { bereich },
    http: [
      '  <bereich>',
      '    <name>Rathaus &amp; Verwaltung</name>',
      '    <bereichID>1</bereichID>',
      '  </bereich>',
    ],
  },
};

function child(parent: XmlElement, uri: string, local: string): XmlElement {
  const found = childElements(parent, uri, local);
  assert.equal(found.length, 1, `one ${local} in ${parent.local}`);
  return found[0]!;
}

describe('compileOperationWriter: every operation', () => {
  test('there is a sample for every operation', () => {
    assert.deepEqual(Object.keys(SAMPLES).sort(), OPERATIONS.map((o) => o.name).sort());
  });

  for (const operation of OPERATIONS) {
    const sample = SAMPLES[operation.name]!;
    const resultField = operation.result.fields[0]!.name;

    test(`${operation.name}: HTTP body equals the reference byte for byte`, async () => {
      const http = await httpBody(operation, sample.result);
      assert.equal(http, httpDocument(resultTypeName(operation.name), sample.http));
      assertWellFormed(http);
      const root = parseXml(http).root;
      assert.deepEqual([root.uri, root.local], [NS, resultTypeName(operation.name)]);
      assert.equal(root.children.length, 1);
      assert.equal(root.children[0]!.local, resultField);
    });

    test(`${operation.name}: the compact inside, and indented, in their envelopes, are the SOAP and HTTP answers`, async () => {
      const writer = compileOperationWriter(operation, NS);
      const compact = Buffer.from(writer.innerCompact(sample.result));
      for (const version of ['1.1', '1.2'] as const)
        assert.equal(
          await rendered(writer.wrapSoap(version, [compact])),
          await rendered(writer.soap(version, sample.result)),
          version,
        );
      assert.equal(
        await rendered(writer.wrapHttp([indentMarkup(compact, 1)])),
        await rendered(writer.http(sample.result)),
      );
    });

    for (const version of ['1.1', '1.2'] as const) {
      test(`${operation.name}: SOAP ${version} body is the compact reference inside <Op>Response/<Op>Result`, async () => {
        const soap = await soapBody(operation, version, sample.result);
        const http = httpDocument(resultTypeName(operation.name), sample.http);
        assert.equal(soap, soapFromHttp(operation, version, http));
        assert.equal(soap.includes('\n'), false, 'a single line');
        assertWellFormed(soap);
        const envelopeNs = version === '1.1' ? SOAP11_ENVELOPE_NS : SOAP12_ENVELOPE_NS;
        const root = parseXml(soap).root;
        assert.deepEqual([root.uri, root.local, root.prefix], [envelopeNs, 'Envelope', 'soap']);
        assert.equal(root.children.length, 1, 'no soap:Header');
        const response = child(child(root, envelopeNs, 'Body'), NS, `${operation.name}Response`);
        const result = child(response, NS, `${operation.name}Result`);
        assert.deepEqual(
          result.children.map((c) => c.local),
          [resultField],
        );
      });
    }
  }

  test('soapFromHttp matches the literal SOAP 1.1 body of reference/README.md §2', async () => {
    const soap = await soapBody(op('getBereich'), '1.1', { bereich });
    assert.equal(
      soap,
      '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><getBereichResponse xmlns="http://scoop.example.org/api"><getBereichResult><bereich><name>Rathaus &amp; Verwaltung</name><bereichID>1</bereichID></bereich></getBereichResult></getBereichResponse></soap:Body></soap:Envelope>',
    );
  });

  test('SOAP 1.2 keeps the prefix soap, bound to the 1.2 namespace (reference/README.md §3)', async () => {
    const soap = await soapBody(op('getBereich'), '1.2', { bereich });
    assert.ok(
      soap.startsWith(
        '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><getBereichResponse xmlns="http://scoop.example.org/api"><getBereichResult>',
      ),
      soap,
    );
  });

  test('a writer can be reused: the same result renders the same bytes twice', async () => {
    const writer = compileOperationWriter(op('getArtikelDetails'), NS);
    const a = await rendered(writer.soap('1.1', { artikelDetails }));
    const b = await rendered(writer.soap('1.1', { artikelDetails }));
    assert.equal(a, b);
  });
});

describe('compileOperationWriter: nulls, empties and values', () => {
  const getArtikelDetails = op('getArtikelDetails');

  const minimal: ArtikelDetails = {
    text: null,
    bereiche: [],
    cityAppBereiche: [],
    anhaenge: [],
    links: [],
    kontakte: [
      {
        einrichtung: null,
        art: null,
        name: '',
        abteilung: null,
        position: null,
        email: null,
        telefon: null,
        fax: null,
      },
    ],
  };

  test('omits null strings, writes <x /> for empty strings and lists, nil for einrichtung (HTTP)', async () => {
    const http = await httpBody(getArtikelDetails, { artikelDetails: minimal });
    assert.equal(
      http,
      httpDocument('wsGetArtikelDetailsResponse', [
        '  <artikelDetails>',
        '    <bereiche />',
        '    <cityAppBereiche />',
        '    <anhaenge />',
        '    <links />',
        '    <kontakte>',
        '      <wsKontakt>',
        '        <einrichtung xsi:nil="true" />',
        '        <name />',
        '      </wsKontakt>',
        '    </kontakte>',
        '  </artikelDetails>',
      ]),
    );
    assertWellFormed(http);
  });

  test('the same in SOAP, compact', async () => {
    const soap = await soapBody(getArtikelDetails, '1.1', { artikelDetails: minimal });
    assert.ok(
      soap.includes(
        '<getArtikelDetailsResult><artikelDetails><bereiche /><cityAppBereiche /><anhaenge /><links />' +
          '<kontakte><wsKontakt><einrichtung xsi:nil="true" /><name /></wsKontakt></kontakte></artikelDetails></getArtikelDetailsResult>',
      ),
      soap,
    );
    assertWellFormed(soap);
    const root = parseXml(soap).root;
    const details = root.children[0]!.children[0]!.children[0]!.children[0]!;
    const einrichtung = details.children.at(-1)!.children[0]!.children[0]!;
    assert.equal(einrichtung.local, 'einrichtung');
    assert.equal(
      einrichtung.attributes.find((a) => a.uri === 'http://www.w3.org/2001/XMLSchema-instance')?.value,
      'true',
    );
  });

  test('an undefined string is omitted like null', async () => {
    const http = await httpBody(op('getBereich'), { bereich: { bereichID: 3 } });
    assert.equal(
      http,
      httpDocument('wsGetBereichResponse', ['  <bereich>', '    <bereichID>3</bereichID>', '  </bereich>']),
    );
  });

  test('an empty list of ints is <newsletter />, as for an unknown e-mail', async () => {
    const operation = op('getAbonnierteNewsletter');
    assert.equal(
      await httpBody(operation, { newsletter: [] }),
      httpDocument('wsGetAbonnierteNewsletterResponse', ['  <newsletter />']),
    );
    const soap = await soapBody(operation, '1.2', { newsletter: [] });
    assert.ok(
      soap.includes('<getAbonnierteNewsletterResult><newsletter /></getAbonnierteNewsletterResult>'),
      soap,
    );
  });

  test('booleans are true and false', async () => {
    const operation = op('checkAnhangVorhanden');
    assert.ok(
      (await soapBody(operation, '1.1', { anhangVorhanden: false })).includes(
        '<anhangVorhanden>false</anhangVorhanden>',
      ),
    );
    assert.ok(
      (await soapBody(operation, '1.1', { anhangVorhanden: true })).includes(
        '<anhangVorhanden>true</anhangVorhanden>',
      ),
    );
    const teaser = await httpBody(op('getBild'), { bild: { ...bild, istTeaserbild: false } });
    assert.ok(teaser.includes('\n    <istTeaserbild>false</istTeaserbild>\n'), teaser);
  });

  test('ints: negative values and the int range print as decimals', async () => {
    const http = await httpBody(op('getBereich'), { bereich: { name: 'x', bereichID: -2147483648 } });
    assert.ok(http.includes('<bereichID>-2147483648</bereichID>'), http);
  });

  test('text is escaped as SERIALIZER.md says: &, <, > only; forbidden characters become U+FFFD', async () => {
    const name = `a&b<c>d "e" 'f' ]]> \r\t 😀 \u0001`;
    const soap = await soapBody(op('getBereich'), '1.1', { bereich: { name, bereichID: 1 } });
    assert.ok(soap.includes(`<name>a&amp;b&lt;c&gt;d "e" 'f' ]]&gt; \r\t 😀 \uFFFD</name>`), soap);
    assertWellFormed(soap);
  });

  test('a null item in a list of complex types is written nil', async () => {
    const http = await httpBody(op('getNewsletter'), { newsletter: [null, newsletters[0]] });
    assert.equal(
      http,
      httpDocument('wsGetNewsletterResponse', [
        '  <newsletter>',
        '    <wsNewsletter xsi:nil="true" />',
        '    <wsNewsletter>',
        '      <name>Stadtnachrichten</name>',
        '      <newsletterID>1</newsletterID>',
        '    </wsNewsletter>',
        '  </newsletter>',
      ]),
    );
  });

  test('a null item in a list of ints is a programming error', () => {
    const writer = compileOperationWriter(op('getAbonnierteNewsletter'), NS);
    assert.throws(() => writer.soap('1.1', { newsletter: [1, null] }), /null item in ArrayOfInt/);
  });

  test('a missing required value is a programming error, not an omitted element', () => {
    const writer = compileOperationWriter(op('getBereich'), NS);
    assert.throws(() => writer.http({ bereich: { name: 'x' } }), /wsBereich\.bereichID is required/);
    const check = compileOperationWriter(op('checkAnhangVorhanden'), NS);
    assert.throws(() => check.soap('1.2', {}), /wsCheckAnhangVorhandenResponse\.anhangVorhanden is required/);
  });

  test('zero bytes of data are <data />', async () => {
    const http = await httpBody(op('getAnhang'), {
      anhang: { ...anhang500, size: 0, data: new Uint8Array(0) },
    });
    assert.ok(http.includes('\n    <mimetype>text/plain</mimetype>\n    <data />\n    <sort>1</sort>'), http);
  });
});

describe('compileOperationWriter: large binaries', () => {
  const SIZE = 1_048_576 + 7;

  test('a binary value of the contract is one the writer streams, and the reverse', () => {
    // contract/ imports nothing, so it declares the shape of a binary value itself: the store's
    // and the image service's values (xml/binary.ts) must be records' values, and records'
    // values what the writer streams. Both assignments compile only while the shapes agree.
    const { source } = bigSource();
    const asRecordValue: BinaryValue = source satisfies Binary;
    const asWritten: Binary = asRecordValue;
    assert.equal(asWritten, source);
  });

  function bigSource(): { source: BinarySource; bytes: Uint8Array } {
    const bytes = new Uint8Array(SIZE);
    for (let i = 0; i < SIZE; i++) bytes[i] = (i * 31 + 5) & 0xff;
    const source: BinarySource = {
      size: SIZE,
      async *chunks() {
        for (let i = 0; i < SIZE; i += 65_536) yield bytes.subarray(i, i + 65_536);
      },
    };
    return { source, bytes };
  }

  for (const binding of ['soap11', 'soap12', 'http'] as const) {
    test(`a 1 MB+ attachment is a deferred part with an exact bodyLength (${binding})`, async () => {
      const { source, bytes } = bigSource();
      const writer = compileOperationWriter(op('getAnhang'), NS);
      const result = { anhang: { ...anhang500, size: SIZE, data: source } };
      const parts =
        binding === 'http' ? writer.http(result) : writer.soap(binding === 'soap11' ? '1.1' : '1.2', result);
      const deferred = parts.filter((p) => !Buffer.isBuffer(p));
      assert.deepEqual(deferred, [{ base64Of: source }]);
      const before = parts.indexOf(deferred[0]!);
      assert.ok((parts[before - 1] as Buffer).toString('utf8').endsWith('<data>'));
      assert.ok((parts[before + 1] as Buffer).toString('utf8').startsWith('</data>'));

      const text = await rendered(parts);
      assertWellFormed(text);
      const expectedBase64 = Buffer.from(bytes).toString('base64');
      const data = /<data>([^<]*)<\/data>/.exec(text)?.[1];
      assert.equal(data, expectedBase64);
      assert.equal(bodyLength(parts), Buffer.byteLength(text, 'utf8'));
    });
  }

  test('a large image in getBild is deferred as well', async () => {
    const { source } = bigSource();
    const parts = compileOperationWriter(op('getBild'), NS).soap('1.1', { bild: { ...bild, data: source } });
    assert.equal(parts.filter((p) => !Buffer.isBuffer(p)).length, 1);
    assert.equal(bodyLength(parts), (await renderParts(parts)).length);
  });

  test('bytes already in memory are written inline: one buffer, no deferred part', () => {
    const parts = compileOperationWriter(op('getBild'), NS).http({ bild });
    assert.equal(parts.length, 1);
    assert.ok(Buffer.isBuffer(parts[0]));
  });
});
