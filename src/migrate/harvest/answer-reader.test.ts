import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { OPERATIONS, type OperationName } from '../../contract/operations.ts';
import { AnswerError, AnswerReader, type BinaryTarget } from './answer-reader.ts';

const NS = 'http://scoop.example.org/api';
const ENV = 'http://schemas.xmlsoap.org/soap/envelope/';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

function op(name: OperationName): OperationName {
  return name;
}

class MemoryBinary implements BinaryTarget {
  readonly parts: Buffer[] = [];
  readonly keeps = true;
  ended = false;
  constructor(readonly owner: Readonly<Record<string, unknown>>) {}
  write(bytes: Buffer): void {
    this.parts.push(Buffer.from(bytes));
  }
  get size(): number {
    return this.bytes().length;
  }
  async *chunks(): AsyncIterable<Uint8Array> {
    yield this.bytes();
  }
  async end(): Promise<void> {
    this.ended = true;
  }
  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Reads `body` fed in pieces of `size` bytes (or at the given cut points). */
async function read(
  operation: OperationName,
  body: string | Buffer,
  cuts: number | readonly number[] = 1 << 20,
  namespace = NS,
): Promise<{ result: Readonly<Record<string, unknown>>; binaries: MemoryBinary[] }> {
  const binaries: MemoryBinary[] = [];
  const reader = new AnswerReader(operation, namespace, (owner) => {
    const target = new MemoryBinary({ ...owner });
    binaries.push(target);
    return target;
  });
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const points =
    typeof cuts === 'number'
      ? Array.from({ length: Math.ceil(bytes.length / cuts) }, (_, i) => i * cuts).slice(1)
      : cuts;
  let from = 0;
  for (const at of [...points, bytes.length]) {
    // A fresh copy each time, as a socket hands out buffers it may reuse.
    await reader.push(Buffer.from(bytes.subarray(from, at)));
    from = at;
  }
  return { result: await reader.end(), binaries };
}

function envelope(inner: string, opName: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ENV}" xmlns:xsi="${XSI}" xmlns:xsd="http://www.w3.org/2001/XMLSchema">` +
    `<soap:Body><${opName}Response xmlns="${NS}"><${opName}Result>${inner}</${opName}Result></${opName}Response></soap:Body></soap:Envelope>`
  );
}

/** The response body of a case of the wire corpus, whose success answers are the original's captures. */
function captured(wireCase: string): string {
  const text = readFileSync(`test/wire/${wireCase}/response.http`, 'utf8');
  return text.slice(text.search(/\r?\n\r?\n/)).replace(/^\r?\n\r?\n/, '');
}

describe("AnswerReader on the original's captures", () => {
  test('getArtikelDetails: null, empty, nil and filled einrichtung, list order, binaries', async () => {
    const { result, binaries } = await read(
      op('getArtikelDetails'),
      captured('getArtikelDetails__ok-soap11'),
      7,
    );
    const details = result.artikelDetails as Record<string, unknown>;
    assert.equal(details.text, 'Straßenfest am Rathausplatz: Programm & Anfahrt <Samstag>.');
    assert.deepEqual(details.bereiche, [
      { name: 'Rathaus & Verwaltung', bereichID: 1 },
      { name: 'Kultur', bereichID: 2 },
    ]);
    const kontakte = details.kontakte as Array<Record<string, unknown>>;
    assert.equal(kontakte[0]!.einrichtung, null);
    assert.equal(kontakte[0]!.fax, null, 'a missing string element is null');
    assert.equal(kontakte[1]!.position, '', 'an empty element is the empty string');
    assert.deepEqual(kontakte[1]!.einrichtung, { name: 'Bürgerbüro Mitte', einrichtungID: 7 });
    const anhaenge = details.anhaenge as Array<Record<string, unknown>>;
    assert.equal(anhaenge[1]!.beschreibung, null);
    assert.equal(binaries.length, 2);
    assert.equal(anhaenge[0]!.data, binaries[0]);
    assert.equal(binaries[0]!.owner.anhangID, 500, 'the fields before data are there when it opens');
    assert.equal(binaries[0]!.bytes().toString('utf8').startsWith('Tagesordnung der Sitzung'), true);
    assert.equal(binaries[0]!.bytes().length, anhaenge[0]!.size);
    assert.ok(binaries.every((b) => b.ended));
  });

  test("every operation's SOAP 1.1 capture is read", async () => {
    for (const operation of OPERATIONS) {
      const { result } = await read(
        operation.name as OperationName,
        captured(`${operation.name}__ok-soap11`),
      );
      assert.deepEqual(
        Object.keys(result),
        operation.result.fields.map((f) => f.name),
        operation.name,
      );
    }
  });

  test('an empty list', async () => {
    const { result } = await read(
      op('getAbonnierteNewsletter'),
      captured('getAbonnierteNewsletter__unknown-email-empty-list-soap11'),
    );
    assert.deepEqual(result, { newsletter: [] });
  });
});

describe('AnswerReader, the bytes', () => {
  const TEXT = 'a\r\nb\rc\n𝄞 😀 ]]> "q" \u2028\u0085\ufeff\tend';
  const escaped = TEXT.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const data = Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256));
  const body = envelope(
    `<anhang><!-- a comment - with\r\n > inside --><?pi x > y?><anhangID>9</anhangID><filename>${escaped}</filename><name><![CDATA[x\r\ny ]] >]]></name>` +
      `<beschreibung /><size>300</size><mimetype></mimetype><data>${data.toString('base64').replace(/(.{76})/g, '$1\r\n')}</data><sort>-3</sort></anhang>`,
    'getAnhang',
  );

  test('CR, astral characters, CDATA, comments and PIs survive a cut at every byte', async () => {
    const bytes = Buffer.from(body, 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) {
      const { result, binaries } = await read(op('getAnhang'), bytes, [cut]);
      const anhang = result.anhang as Record<string, unknown>;
      assert.equal(anhang.filename, TEXT, `cut at ${cut}`);
      assert.equal(anhang.name, 'x\r\ny ]] >', `cut at ${cut}`);
      assert.equal(anhang.beschreibung, '');
      assert.equal(anhang.mimetype, '');
      assert.equal(anhang.sort, -3);
      assert.deepEqual(binaries[0]!.bytes(), data, `cut at ${cut}`);
    }
  });

  test('byte by byte', async () => {
    const { result, binaries } = await read(op('getAnhang'), body, 1);
    assert.equal((result.anhang as Record<string, unknown>).filename, TEXT);
    assert.deepEqual(binaries[0]!.bytes(), data);
  });

  test('a 0-byte binary, empty-element or start-end', async () => {
    for (const empty of ['<data />', '<data></data>']) {
      const { binaries } = await read(
        op('getAnhang'),
        envelope(`<anhang><anhangID>1</anhangID><size>0</size>${empty}<sort>0</sort></anhang>`, 'getAnhang'),
      );
      assert.equal(binaries.length, 1);
      assert.equal(binaries[0]!.bytes().length, 0);
    }
  });

  test('a nil item in a list is refused: scoop cannot hold one', async () => {
    await assert.rejects(
      read(
        op('getNewsletter'),
        envelope(`<newsletter><wsNewsletter xsi:nil="true" /></newsletter>`, 'getNewsletter'),
      ),
      /a nil <wsNewsletter> in a list/,
    );
  });

  test("fields in another order are put in the contract's", async () => {
    const { result } = await read(
      op('getBereich'),
      envelope('<bereich><bereichID>4</bereichID><name>x</name></bereich>', 'getBereich'),
    );
    assert.deepEqual(Object.keys(result.bereich as object), ['name', 'bereichID']);
  });

  test('whitespace between elements, a SOAP header and a prefixed answer are read', async () => {
    const xml = `<?xml version="1.0"?>\r\n<s:Envelope xmlns:s="${ENV}">\r\n <s:Header><x:y xmlns:x="urn:x">1</x:y></s:Header>\r\n <s:Body>\r\n  <a:getBereichResponse xmlns:a="${NS}">\r\n   <a:getBereichResult>\r\n    <a:bereich><a:name>n</a:name><a:bereichID>4</a:bereichID></a:bereich>\r\n   </a:getBereichResult>\r\n  </a:getBereichResponse>\r\n </s:Body>\r\n</s:Envelope>`;
    const { result } = await read(op('getBereich'), xml, 3);
    assert.deepEqual(result, { bereich: { name: 'n', bereichID: 4 } });
  });

  test('what the contract does not describe is refused, naming it', async () => {
    const cases: Array<[OperationName, string | Buffer, AnswerError['kind'], RegExp]> = [
      ['getBereich', '<html><body>Not found</body></html>', 'envelope', /not a SOAP 1.1 envelope/],
      [
        'getBereich',
        envelope('<bereich><name>x</name><bereichID>1</bereichID><extra/></bereich>', 'getBereich'),
        'contract',
        /unexpected <extra> in <wsBereich>/,
      ],
      [
        'getBereich',
        envelope('<bereich><name>x</name></bereich>', 'getBereich'),
        'contract',
        /<wsBereich> lacks <bereichID>/,
      ],
      [
        'getBereich',
        envelope('<bereich><name>x</name><bereichID>1x</bereichID></bereich>', 'getBereich'),
        'contract',
        /not an xs:int/,
      ],
      [
        'getBereich',
        envelope('<bereich><name>x</name><bereichID>1</bereichID></bereich', 'getBereich'),
        'malformed',
        /./,
      ],
      [
        'getBereich',
        envelope('<bereich><name>&#x1;</name><bereichID>1</bereichID></bereich>', 'getBereich'),
        'malformed',
        /./,
      ],
      [
        'getBereich',
        Buffer.concat([
          Buffer.from(envelope('<bereich><name>', 'getBereich').split('</bereich>')[0]!),
          Buffer.from([0xff]),
        ]),
        'malformed',
        /./,
      ],
      ['getBereich', `<!DOCTYPE x><x/>`, 'malformed', /./],
      [
        'getAnhang',
        envelope('<anhang><anhangID>1</anhangID><data>AB=C</data><sort>0</sort></anhang>', 'getAnhang'),
        'contract',
        /base64/,
      ],
      [
        'getAnhang',
        envelope('<anhang><anhangID>1</anhangID><data>ABC</data><sort>0</sort></anhang>', 'getAnhang'),
        'contract',
        /base64/,
      ],
      [
        'getAnhang',
        envelope('<anhang><anhangID>1</anhangID><data>AB*C</data><sort>0</sort></anhang>', 'getAnhang'),
        'contract',
        /base64/,
      ],
      [
        'getBereich',
        envelope('', 'getBereich').replace('<getBereichResult></getBereichResult>', ''),
        'envelope',
        /no <getBereichResult>/,
      ],
      [
        'getBereich',
        envelope('<bereich><name>x</name><bereichID>1</bereichID></bereich>', 'getBereich').replace(
          `xmlns="${NS}"`,
          'xmlns="urn:other"',
        ),
        'namespace',
        /"urn:other"/,
      ],
      [
        'getBereich',
        `<soap:Envelope xmlns:soap="${ENV}"><soap:Body><soap:Fault><faultcode>soap:Client</faultcode></soap:Fault></soap:Body></soap:Envelope>`,
        'envelope',
        /fault/,
      ],
    ];
    for (const [name, xml, kind, message] of cases) {
      await assert.rejects(
        read(op(name), xml, 5),
        (e: unknown) => e instanceof AnswerError && e.kind === kind && message.test(e.message),
        String(xml).slice(0, 200),
      );
    }
  });

  test('the namespace error says which namespace the service has', async () => {
    const xml = envelope('<bereich><name>x</name><bereichID>1</bereichID></bereich>', 'getBereich');
    await assert.rejects(
      read(op('getBereich'), xml, 1 << 20, 'urn:asked'),
      (e: unknown) => e instanceof AnswerError && e.kind === 'namespace' && e.foundNamespace === NS,
    );
  });
});
