/**
 * Validates bundle.json against the contract: record fields are the contract's field
 * names and types (bundle-format.md), so the rules here are derived from
 * src/contract/types.ts rather than restated. Every error names the record and field.
 */
import {
  type ArtikelReference,
  BLOB_FIELDS,
  type RecordKind,
  type StoredDocument,
} from '../../contract/documents.ts';
import type { ValueOf } from '../../contract/infer.ts';
import type { ComplexType, Field } from '../../contract/schema.ts';
import {
  KONTAKT_ARTEN,
  wsAnhang,
  wsArtikelDetails,
  wsBereich,
  wsBild,
  wsCityAppBereich,
  wsKontakt,
  wsLink,
  wsNewsletter,
} from '../../contract/types.ts';
import { contradictedSignature, mediaTypeOf } from '../../support/media-signature.ts';
import { forbiddenAt } from '../../xml/escape.ts';

export class BundleError extends Error {
  constructor(
    readonly where: string,
    /** The message without `where`: what another thread sends to make the same error here. */
    readonly detail: string,
  ) {
    super(`${where}: ${detail}`);
    this.name = 'BundleError';
  }
}

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export function checkInt(value: Json, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
    throw new BundleError(where, `must be an integer in the xs:int range, not ${describe(value)}`);
  }
  return value;
}

export function checkString(value: Json, where: string): string {
  if (typeof value !== 'string') throw new BundleError(where, `must be a string, not ${describe(value)}`);
  const at = forbiddenAt(value);
  if (at >= 0) {
    const code = value.codePointAt(at)!.toString(16).toUpperCase().padStart(4, '0');
    throw new BundleError(where, `holds U+${code} at position ${at}, which XML 1.0 cannot carry`);
  }
  return value;
}

function checkBoolean(value: Json, where: string): boolean {
  if (typeof value !== 'boolean')
    throw new BundleError(where, `must be true or false, not ${describe(value)}`);
  return value;
}

export function checkArray(value: Json, where: string): Json[] {
  if (!Array.isArray(value)) throw new BundleError(where, `must be a list, not ${describe(value)}`);
  return value;
}

export function checkObject(value: Json, where: string): Record<string, Json> {
  if (!isObject(value)) throw new BundleError(where, `must be an object, not ${describe(value)}`);
  return value;
}

function describe(value: Json): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 30 ? `${value.slice(0, 30)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

export function refuseUnknownKeys(
  object: Record<string, Json>,
  allowed: Iterable<string>,
  where: string,
): void {
  const known = new Set(allowed);
  for (const key of Object.keys(object)) {
    if (!known.has(key)) throw new BundleError(`${where}.${key}`, 'is not a known field');
  }
}

/** Field rules beyond the type: ids are required; `sort` defaults to 0, booleans to false. */
interface FieldRules<X extends string> {
  readonly idField?: string;
  /** Fields the bundle does not write (derived from the file). */
  readonly derived?: readonly X[];
  /** Fields validated by the caller (id lists, nested records). */
  readonly custom?: readonly X[];
}

function checkField(f: Field, value: Json, where: string, required: boolean): Json {
  const type = f.type;
  if (value === undefined || value === null) {
    if (f.nillable) return null;
    if (required) throw new BundleError(where, 'is required');
    if (type.kind === 'scalar' && type.name === 'int') return 0;
    if (type.kind === 'scalar' && type.name === 'boolean') return false;
    return null;
  }
  switch (type.kind) {
    case 'scalar':
      if (type.name === 'int') return checkInt(value, where);
      if (type.name === 'boolean') return checkBoolean(value, where);
      if (type.name === 'string') return checkString(value, where);
      throw new BundleError(where, 'cannot be written in a bundle');
    case 'complex':
      return checkRecord(type, value, where, { idField: idFieldOf(type) });
    default:
      throw new BundleError(where, 'cannot be written in a bundle');
  }
}

function idFieldOf(type: ComplexType): string | undefined {
  return type.fields.find((f) => f.name.endsWith('ID'))?.name;
}

/** Validates an object against a contract type; returns the document to store. */
export function checkRecord<T extends ComplexType, const X extends string = never>(
  type: T,
  value: Json,
  where: string,
  rules: FieldRules<X>,
): Omit<ValueOf<T>, X> {
  const object = checkObject(value, where);
  const derived = new Set<string>(rules.derived ?? []);
  const custom = new Set<string>(rules.custom ?? []);
  const fields = type.fields.filter((f) => !derived.has(f.name) && !custom.has(f.name));
  const doc: Record<string, Json> = {};
  for (const f of fields) {
    doc[f.name] = checkField(f, object[f.name], `${where}.${f.name}`, f.name === rules.idField);
  }
  // Every field but the excluded ones was checked against its type (checkField refuses the
  // types a bundle cannot write), so the document is the contract type less those fields.
  return doc as Omit<ValueOf<T>, X>;
}

/** The kinds whose bundle records are their contract type's fields (plus extras). */
export type SimpleKind = Exclude<RecordKind, 'artikel' | 'abonnements'>;

export interface KindRules {
  readonly kind: SimpleKind;
  readonly type: ComplexType;
  readonly idField: string;
  readonly derived: readonly string[];
  /** Fields of the bundle record that are not contract fields. */
  readonly extra: readonly string[];
}

/** The record kinds whose bundle records are their contract type (plus extras). */
export const SIMPLE_KINDS: readonly KindRules[] = [
  { kind: 'bereiche', type: wsBereich, idField: 'bereichID', derived: [], extra: [] },
  { kind: 'cityAppBereiche', type: wsCityAppBereich, idField: 'cityAppBereichID', derived: [], extra: [] },
  { kind: 'anhaenge', type: wsAnhang, idField: 'anhangID', derived: BLOB_FIELDS, extra: ['file'] },
  { kind: 'bilder', type: wsBild, idField: 'bildID', derived: BLOB_FIELDS, extra: ['file'] },
  { kind: 'newsletter', type: wsNewsletter, idField: 'newsletterID', derived: [], extra: ['oeffentlich'] },
];

const ARTIKEL_EXTRA = ['artikelID', 'sichtbarVon', 'sichtbarBis'];

/** ISO 8601 date or date-time; a time without an offset is read as UTC. */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A date alone means the whole day: its start for `sichtbarVon`, its end for `sichtbarBis`. */
export function checkInstant(
  value: Json,
  where: string,
  dateMeans: 'start' | 'end' = 'start',
): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string')
    throw new BundleError(where, `must be an ISO 8601 date-time or null, not ${describe(value)}`);
  const m = ISO_8601.exec(value);
  if (!m) throw new BundleError(where, `must be an ISO 8601 date-time, not ${describe(value)}`);
  const hasTime = m[4] !== undefined;
  const normalised = hasTime
    ? m[8]
      ? value.replace(' ', 'T')
      : `${value.replace(' ', 'T')}Z`
    : `${value}T${dateMeans === 'start' ? '00:00:00.000' : '23:59:59.999'}Z`;
  const ms = Date.parse(normalised);
  if (Number.isNaN(ms) || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) {
    throw new BundleError(where, `is not a valid date-time: ${describe(value)}`);
  }
  return ms;
}

/** Date.parse rolls 2026-02-30 over to 2 March instead of refusing it. */
function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function checkArtikel(value: Json, at: string): { id: number; doc: StoredDocument<'artikel'> } {
  const object = checkObject(value, at);
  const id = checkInt(object.artikelID, `${at}.artikelID`);
  // Named like every other record, e.g. `artikel[1] (artikelID 7)`, so the error says which article.
  const where = `${at} (artikelID ${id})`;
  const listFields = wsArtikelDetails.fields.map((f) => f.name);
  refuseUnknownKeys(object, [...listFields, ...ARTIKEL_EXTRA], where);
  const { text } = checkRecord(wsArtikelDetails, object, where, {
    custom: ['bereiche', 'cityAppBereiche', 'anhaenge', 'links', 'kontakte'],
  });
  const ids = (field: ArtikelReference['field']) =>
    checkArray(object[field] ?? [], `${where}.${field}`).map((v, i) =>
      checkInt(v, `${where}.${field}[${i}]`),
    );
  const bereiche = ids('bereiche');
  const cityAppBereiche = ids('cityAppBereiche');
  const anhaenge = ids('anhaenge');
  const links = orderBySort(
    checkArray(object.links ?? [], `${where}.links`).map((link, i) => {
      const w = `${where}.links[${i}]`;
      refuseUnknownKeys(
        checkObject(link, w),
        wsLink.fields.map((f) => f.name),
        w,
      );
      return checkRecord(wsLink, link, w, {});
    }),
  );
  const kontakte = checkArray(object.kontakte ?? [], `${where}.kontakte`).map((kontakt, i) => {
    const w = `${where}.kontakte[${i}]`;
    const o = checkObject(kontakt, w);
    refuseUnknownKeys(
      o,
      wsKontakt.fields.map((f) => f.name),
      w,
    );
    if (isObject(o.einrichtung))
      refuseUnknownKeys(o.einrichtung, ['einrichtungID', 'name'], `${w}.einrichtung`);
    const record = checkRecord(wsKontakt, o, w, {});
    if (!(KONTAKT_ARTEN as readonly Json[]).includes(record.art)) {
      throw new BundleError(`${w}.art`, `must be one of ${KONTAKT_ARTEN.join(', ')}, not ${describe(o.art)}`);
    }
    return record;
  });
  const sichtbarVon = checkInstant(object.sichtbarVon, `${where}.sichtbarVon`);
  const sichtbarBis = checkInstant(object.sichtbarBis, `${where}.sichtbarBis`, 'end');
  if (sichtbarVon !== null && sichtbarBis !== null && sichtbarBis < sichtbarVon) {
    throw new BundleError(
      `${where}.sichtbarBis`,
      'is before sichtbarVon, so the article could never be visible',
    );
  }
  // In this key order, as imports before wrote them: an unchanged article stays unchanged.
  const doc = { text, bereiche, cityAppBereiche, anhaenge, links, kontakte, sichtbarVon, sichtbarBis };
  return { id, doc };
}

/**
 * A file's first bytes against its record's `mimetype`: an image whose bytes are another
 * format than declared is refused (the type decides how it is resized, and what clients
 * make of it); an attachment's type is free, so there it is a warning, returned. An
 * unlisted type, or bytes of no format known, contradict nothing.
 */
export function checkMediaType(
  kind: 'anhaenge' | 'bilder',
  mimetype: string | null,
  head: Uint8Array,
  where: string,
  file: string,
): string | undefined {
  if (mimetype === null) return undefined;
  const found = contradictedSignature(mimetype, head);
  if (found === undefined) return undefined;
  const message = `${JSON.stringify(mimetype)} contradicts the file ${JSON.stringify(file)}, whose bytes are ${mediaTypeOf(found)}`;
  if (kind === 'bilder') throw new BundleError(`${where}.mimetype`, message);
  return `${where}.mimetype: ${message}; imported as declared`;
}

/** Ordered by `sort`, keeping bundle order among equal values (a stable sort). */
function orderBySort<T extends { sort: number }>(records: T[]): T[] {
  return records
    .map((record, index) => ({ record, index }))
    .sort((a, b) => a.record.sort - b.record.sort || a.index - b.index)
    .map((x) => x.record);
}
