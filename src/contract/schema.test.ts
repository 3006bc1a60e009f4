import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  arrayOf,
  BASE64,
  BOOLEAN,
  complex,
  enumeration,
  type Field,
  field,
  GUID,
  INT,
  STRING,
} from './schema.ts';
import {
  ArrayOfInt,
  ArrayOfResizeMode,
  ArrayOfWsNewsletter,
  resizeMode,
  wsArtikelDetails,
  wsAuthHeader,
  wsBereich,
  wsKontakt,
} from './types.ts';

function fieldOf(fields: readonly Field[], name: string): Field {
  const found = fields.find((f) => f.name === name);
  assert.ok(found, name);
  return found;
}

describe('arrayOf (reference/README.md §8: arrays are named types)', () => {
  test('ArrayOfWsBereich holds nillable wsBereich items', () => {
    const array = arrayOf(wsBereich);
    assert.deepEqual(
      [array.kind, array.name, array.itemName, array.item, array.nillableItems],
      ['array', 'ArrayOfWsBereich', 'wsBereich', wsBereich, true],
    );
  });

  test('ArrayOfInt holds int items, not nillable', () => {
    assert.deepEqual(
      [ArrayOfInt.name, ArrayOfInt.itemName, ArrayOfInt.item, ArrayOfInt.nillableItems],
      ['ArrayOfInt', 'int', INT, false],
    );
  });

  test('ArrayOfResizeMode holds resizeMode items, not nillable', () => {
    assert.deepEqual(
      [
        ArrayOfResizeMode.name,
        ArrayOfResizeMode.itemName,
        ArrayOfResizeMode.item,
        ArrayOfResizeMode.nillableItems,
      ],
      ['ArrayOfResizeMode', 'resizeMode', resizeMode, false],
    );
  });

  test('ArrayOfWsNewsletter holds wsNewsletter items', () => {
    assert.deepEqual(
      [ArrayOfWsNewsletter.name, ArrayOfWsNewsletter.itemName],
      ['ArrayOfWsNewsletter', 'wsNewsletter'],
    );
  });

  test('the list fields of wsArtikelDetails are the reference’s ArrayOf types', () => {
    const lists = wsArtikelDetails.fields.filter((f) => f.type.kind === 'array');
    assert.deepEqual(
      lists.map((f) => [f.name, f.type.name]),
      [
        ['bereiche', 'ArrayOfWsBereich'],
        ['cityAppBereiche', 'ArrayOfWsCityAppBereich'],
        ['anhaenge', 'ArrayOfWsAnhang'],
        ['links', 'ArrayOfWsLink'],
        ['kontakte', 'ArrayOfWsKontakt'],
      ],
    );
  });

  test('only the first letter of the item name is upper-cased', () => {
    assert.equal(arrayOf(complex('abcDef', [])).name, 'ArrayOfAbcDef');
    assert.equal(arrayOf(STRING).name, 'ArrayOfString');
  });
});

describe('field: minOccurs and nillable (reference/README.md §8)', () => {
  test('value types are required; reference types are not', () => {
    assert.equal(field('a', INT).required, true);
    assert.equal(field('a', BOOLEAN).required, true);
    assert.equal(field('a', resizeMode).required, true);
    assert.equal(field('a', STRING).required, false);
    assert.equal(field('a', BASE64).required, false);
    assert.equal(field('a', wsBereich).required, false);
    assert.equal(field('a', ArrayOfInt).required, false);
  });

  test('a nillable field is required and nillable; others are not nillable', () => {
    assert.deepEqual(field('e', wsBereich, { nillable: true }), {
      name: 'e',
      type: wsBereich,
      nillable: true,
      required: true,
    });
    assert.equal(field('s', STRING).nillable, false);
  });

  test('wsKontakt.einrichtung is the nillable one; its strings may be omitted', () => {
    const einrichtung = fieldOf(wsKontakt.fields, 'einrichtung');
    assert.deepEqual([einrichtung.nillable, einrichtung.required], [true, true]);
    for (const name of ['art', 'name', 'abteilung', 'position', 'email', 'telefon', 'fax']) {
      const f = fieldOf(wsKontakt.fields, name);
      assert.deepEqual([f.nillable, f.required], [false, false], name);
    }
  });

  test('wsAuthHeader holds one token of type guid', () => {
    assert.deepEqual(
      wsAuthHeader.fields.map((f) => [f.name, f.type]),
      [['token', GUID]],
    );
  });

  test('enumeration keeps its values in order', () => {
    assert.deepEqual(enumeration('e', ['b', 'a']), { kind: 'enum', name: 'e', values: ['b', 'a'] });
    assert.deepEqual(resizeMode.values, ['standard', 'crop', 'fit', 'stretch', 'background']);
  });
});
