/**
 * The record kinds the store keeps and the document stored for each (bundle-format.md),
 * declared once: bundle validation produces these documents, the import writes them, the
 * stores and their cache keep them by kind, the handlers read them. A document holds its
 * contract type's fields, except that an article holds the ids of the records it lists and
 * its visibility window, an attachment's or image's size and bytes are its blob's, a
 * newsletter says whether it is public, and a subscription lists newsletter ids.
 */
import type { Anhang, ArtikelDetails, Bereich, Bild, CityAppBereich, Newsletter } from './types.ts';

/** The kinds of records (bundle-format.md); an import writes them in an order of its own (store/import.ts). */
export const RECORD_KINDS = [
  'bereiche',
  'cityAppBereiche',
  'anhaenge',
  'bilder',
  'artikel',
  'newsletter',
  'abonnements',
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** The lists of wsArtikelDetails an article stores as ids of records of another kind. */
export const ARTIKEL_REFERENCES = [
  { field: 'bereiche', kind: 'bereiche' },
  { field: 'cityAppBereiche', kind: 'cityAppBereiche' },
  { field: 'anhaenge', kind: 'anhaenge' },
] as const satisfies ReadonlyArray<{ field: keyof ArtikelDetails; kind: RecordKind }>;

export type ArtikelReference = (typeof ARTIKEL_REFERENCES)[number];

/** A kind whose records an article lists by id. */
export type ReferencedKind = ArtikelReference['kind'];

/** Fields of wsAnhang and wsBild that come from the blob, so the document leaves them out. */
export const BLOB_FIELDS = ['size', 'data'] as const;
type BlobField = (typeof BLOB_FIELDS)[number];

/** Flattens an intersection into one object type (for readable types and exact type tests). */
type Flat<T> = { [K in keyof T]: T[K] };

export type ArtikelDocument = Flat<
  Omit<ArtikelDetails, ArtikelReference['field']> & {
    [F in ArtikelReference['field']]: number[];
  } & {
    /** Milliseconds since the epoch; null for no bound (bundle-format.md: visibility window). */
    sichtbarVon: number | null;
    sichtbarBis: number | null;
  }
>;

interface Documents {
  bereiche: Bereich;
  cityAppBereiche: CityAppBereich;
  anhaenge: Flat<Omit<Anhang, BlobField>>;
  bilder: Flat<Omit<Bild, BlobField>>;
  artikel: ArtikelDocument;
  newsletter: Flat<Newsletter & { oeffentlich: boolean }>;
  /** Keyed by emailKey(email); `email` as the bundle wrote it, trimmed. */
  abonnements: { email: string; newsletterIDs: number[] };
}

/** The JSON document stored for a record of this kind. */
export type StoredDocument<K extends RecordKind> = Documents[K];

/** E-mail addresses match case-insensitively (bundle-format.md), non-ASCII letters included. */
export function emailKey(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}
