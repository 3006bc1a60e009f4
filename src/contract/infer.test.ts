/**
 * The inferred types, pinned: `tsc --noEmit` (npm test) fails to compile this file when
 * a type inferred from the schema values drifts from what the handlers, the writers and
 * the tests were written against. Each `Same<A, B>` is checked in both directions (type
 * identity, which also tells `string` from `string | null` and a missing field from an
 * extra one); the runtime tests check the values the types are inferred from.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { emailKey, RECORD_KINDS, type RecordKind, type StoredDocument } from './documents.ts';
import type { BinaryValue, ValueOf } from './infer.ts';
import {
  type ArgumentsOf,
  type ArgumentValue,
  OPERATIONS,
  type OperationName,
  type ResultOf,
} from './operations.ts';
import { arrayOf, complex, enumeration, field, INT, STRING } from './schema.ts';
import {
  type Anhang,
  type ArtikelDetails,
  type Bereich,
  type Bild,
  type CityAppBereich,
  type Einrichtung,
  type Kontakt,
  type Link,
  type Newsletter,
  type ResizeMode,
  resizeMode,
  type wsAuthHeader,
} from './types.ts';

/** True only when A and B are the same type (not merely assignable one way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only for `true`: `expect<Same<A, B>>(true)`. */
function expect<T extends true>(value: T): T {
  return value;
}

describe('record types inferred from types.ts', () => {
  test('each record is the object of its fields, strings nullable, value types not', () => {
    expect<Same<Bereich, { name: string | null; bereichID: number }>>(true);
    expect<Same<CityAppBereich, { name: string | null; cityAppBereichID: number }>>(true);
    expect<Same<Einrichtung, { name: string | null; einrichtungID: number }>>(true);
    expect<Same<Newsletter, { name: string | null; newsletterID: number }>>(true);
    expect<Same<Link, { titel: string | null; url: string | null; art: string | null; sort: number }>>(true);
    expect<
      Same<
        Anhang,
        {
          anhangID: number;
          filename: string | null;
          name: string | null;
          beschreibung: string | null;
          size: number;
          mimetype: string | null;
          data: BinaryValue;
          sort: number;
        }
      >
    >(true);
    expect<
      Same<
        Bild,
        {
          bildID: number;
          filename: string | null;
          bildunterschrift: string | null;
          bildrechte: string | null;
          alternativText: string | null;
          size: number;
          mimetype: string | null;
          data: BinaryValue;
          istTeaserbild: boolean;
          sort: number;
        }
      >
    >(true);
  });

  test('a nillable complex field is nullable; ArrayOfX fields are lists of X', () => {
    expect<
      Same<
        Kontakt,
        {
          einrichtung: Einrichtung | null;
          art: string | null;
          name: string | null;
          abteilung: string | null;
          position: string | null;
          email: string | null;
          telefon: string | null;
          fax: string | null;
        }
      >
    >(true);
    expect<
      Same<
        ArtikelDetails,
        {
          text: string | null;
          bereiche: Bereich[];
          cityAppBereiche: CityAppBereich[];
          anhaenge: Anhang[];
          links: Link[];
          kontakte: Kontakt[];
        }
      >
    >(true);
  });

  test('an enumeration is the union of its values, which are the runtime values', () => {
    expect<Same<ResizeMode, 'standard' | 'crop' | 'fit' | 'stretch' | 'background'>>(true);
    const modes: readonly ResizeMode[] = resizeMode.values;
    assert.deepEqual(modes, ['standard', 'crop', 'fit', 'stretch', 'background']);
  });

  test('a guid is a string that is always there', () => {
    expect<Same<ValueOf<typeof wsAuthHeader>, { token: string }>>(true);
  });

  test('the builders infer from any schema value, not only those of types.ts', () => {
    const mode = enumeration('m', ['a', 'b']);
    const inner = complex('inner', [field('n', INT)]);
    const outer = complex('outer', [
      field('modes', arrayOf(mode)),
      field('inner', inner, { nillable: true }),
      field('items', arrayOf(inner)),
      field('s', STRING),
    ]);
    expect<
      Same<
        ValueOf<typeof outer>,
        { modes: ('a' | 'b')[]; inner: { n: number } | null; items: { n: number }[]; s: string | null }
      >
    >(true);
    assert.deepEqual(
      outer.fields.map((f) => [f.name, f.nillable]),
      [
        ['modes', false],
        ['inner', true],
        ['items', false],
        ['s', false],
      ],
    );
  });
});

describe('operation types inferred from operations.ts', () => {
  test('arguments are never null: coercion refuses what is missing', () => {
    expect<
      Same<
        ArgumentsOf<'getBild'>,
        { bildID: number; width: number; height: number; resizeModes: ResizeMode[] }
      >
    >(true);
    expect<Same<ArgumentsOf<'getAbonnierteNewsletter'>, { email: string }>>(true);
    expect<Same<keyof ArgumentsOf<'getNewsletter'>, never>>(true);
    expect<Same<ArgumentsOf<'checkAnhangVorhanden'>, { anhangID: number }>>(true);
    expect<Same<ArgumentValue, number | string | ResizeMode[]>>(true);
  });

  test('each result is its wrapper type’s one member', () => {
    expect<Same<ResultOf<'checkAnhangVorhanden'>, { anhangVorhanden: boolean }>>(true);
    expect<Same<ResultOf<'getArtikelDetails'>, { artikelDetails: ArtikelDetails }>>(true);
    expect<Same<ResultOf<'getAbonnierteNewsletter'>, { newsletter: number[] }>>(true);
    expect<Same<ResultOf<'getNewsletter'>, { newsletter: Newsletter[] }>>(true);
    expect<Same<ResultOf<'getCityAppBereich'>, { cityAppBereich: CityAppBereich }>>(true);
    expect<Same<ResultOf<'getBild'>, { bild: Bild }>>(true);
    expect<Same<ResultOf<'getAnhang'>, { anhang: Anhang }>>(true);
    expect<Same<ResultOf<'getBereich'>, { bereich: Bereich }>>(true);
  });

  test('OperationName names exactly the operations of OPERATIONS', () => {
    const names: Record<OperationName, true> = {
      checkAnhangVorhanden: true,
      getArtikelDetails: true,
      getAbonnierteNewsletter: true,
      getNewsletter: true,
      getCityAppBereich: true,
      getBild: true,
      getAnhang: true,
      getBereich: true,
    };
    assert.deepEqual(OPERATIONS.map((op) => op.name).sort(), Object.keys(names).sort());
  });

  test('the parameters and result fields are those ArgumentsOf and ResultOf name', () => {
    const getBild = OPERATIONS.find((op) => op.name === 'getBild')!;
    const args: Record<keyof ArgumentsOf<'getBild'>, true> = {
      bildID: true,
      width: true,
      height: true,
      resizeModes: true,
    };
    assert.deepEqual(
      getBild.params.map((p) => p.name),
      Object.keys(args),
    );
    const result: Record<keyof ResultOf<'getBild'>, true> = { bild: true };
    assert.deepEqual(
      getBild.result.fields.map((f) => f.name),
      Object.keys(result),
    );
  });
});

describe('stored documents (documents.ts)', () => {
  test('simple kinds store their contract type; binaries leave size and data to the blob', () => {
    expect<Same<StoredDocument<'bereiche'>, Bereich>>(true);
    expect<Same<StoredDocument<'cityAppBereiche'>, CityAppBereich>>(true);
    expect<Same<StoredDocument<'anhaenge'>, Omit<Anhang, 'size' | 'data'>>>(true);
    expect<Same<keyof StoredDocument<'bilder'>, Exclude<keyof Bild, 'size' | 'data'>>>(true);
    expect<
      Same<StoredDocument<'newsletter'>, { name: string | null; newsletterID: number; oeffentlich: boolean }>
    >(true);
  });

  test('an article stores ids and its window; a subscription its address and newsletter ids', () => {
    expect<
      Same<
        StoredDocument<'artikel'>,
        {
          text: string | null;
          bereiche: number[];
          cityAppBereiche: number[];
          anhaenge: number[];
          links: Link[];
          kontakte: Kontakt[];
          sichtbarVon: number | null;
          sichtbarBis: number | null;
        }
      >
    >(true);
    expect<Same<StoredDocument<'abonnements'>, { email: string; newsletterIDs: number[] }>>(true);
  });

  test('RECORD_KINDS lists every kind once, in import order', () => {
    const kinds: readonly RecordKind[] = RECORD_KINDS;
    assert.deepEqual(kinds, [
      'bereiche',
      'cityAppBereiche',
      'anhaenge',
      'bilder',
      'artikel',
      'newsletter',
      'abonnements',
    ]);
  });

  test('emailKey matches addresses case-insensitively, trimmed, in NFC', () => {
    assert.equal(emailKey('  Jörg.Müller@Example.ORG '), 'jörg.müller@example.org');
    assert.equal(emailKey('Jo\u0308rg@example.org'), emailKey('J\u00f6rg@example.org'));
  });
});
