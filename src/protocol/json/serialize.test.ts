import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPERATIONS, type Operation } from '../../contract/operations.ts';
import { BASE64, complex, field, INT, STRING } from '../../contract/schema.ts';
import { compileJsonWriter } from './serialize.ts';

const op = (name: string) => OPERATIONS.find((o) => o.name === name)!;

test('fields in the contract order and types; null where XML omits or sends nil', () => {
  const write = compileJsonWriter(op('getArtikelDetails'), '');
  // `text` and `links` absent, a kontakt's strings null or empty, its einrichtung nil.
  const kontakt = { einrichtung: null, art: 'x', name: '', abteilung: null };
  const text = write(
    {
      artikelDetails: {
        bereiche: [{ name: 'A "B" </script>', bereichID: 1 }],
        cityAppBereiche: [],
        anhaenge: [],
        kontakte: [kontakt],
      },
    },
    { artikelID: 1 },
  );
  assert.equal(
    text,
    '{"text":null,"bereiche":[{"name":"A \\"B\\" </script>","bereichID":1}],"cityAppBereiche":[],"anhaenge":[],"links":null,' +
      '"kontakte":[{"einrichtung":null,"art":"x","name":"","abteilung":null,"position":null,"email":null,"telefon":null,"fax":null}]}',
  );
});

test('binary data becomes the content URL, with the resize query of the call', () => {
  const write = compileJsonWriter(op('getBild'), 'https://cms.example.org');
  const bild = {
    bildID: 7,
    filename: 'a.png',
    bildunterschrift: null,
    bildrechte: null,
    alternativText: null,
    size: 3,
    mimetype: 'image/png',
    data: new Uint8Array(3),
    istTeaserbild: false,
    sort: 1,
  };
  const parsed = JSON.parse(
    write({ bild }, { bildID: 7, width: 0, height: 40, resizeModes: ['crop', 'fit'] }),
  );
  assert.equal(
    parsed.contentUrl,
    'https://cms.example.org/api/v1/bilder/7/content?height=40&resizeModes=crop&resizeModes=fit',
  );
  assert.equal('data' in parsed, false);
  assert.deepEqual(Object.keys(parsed).slice(6, 9), ['mimetype', 'contentUrl', 'istTeaserbild']);
});

test('a binary field no JSON route serves is refused when the writer is compiled, not per request', () => {
  const blob = complex('wsBlob', [field('id', INT), field('data', BASE64)]);
  const operation: Operation = {
    ...op('getBereich'),
    name: 'getBlob',
    result: complex('wsGetBlobResponse', [field('blob', blob)]),
  };
  assert.throws(
    () => compileJsonWriter(operation, ''),
    /wsBlob\.data is binary, but no JSON route serves its content/,
  );
  assert.equal(
    compileJsonWriter(op('getBereich'), '')({ bereich: { name: STRING.name, bereichID: 1 } }, {}),
    '{"name":"string","bereichID":1}',
  );
});
