/**
 * The records as the service layer hands them to the response writers: plain objects
 * whose keys are the contract's field names. A null or absent string is omitted on the
 * wire; an empty string is written as an empty element (reference/README.md §2).
 */
import type { Binary } from '../xml/binary.ts';
import type { ResizeMode } from './types.ts';

export interface Bereich {
  name: string | null;
  bereichID: number;
}

export interface CityAppBereich {
  name: string | null;
  cityAppBereichID: number;
}

export interface Anhang {
  anhangID: number;
  filename: string | null;
  name: string | null;
  beschreibung: string | null;
  size: number;
  mimetype: string | null;
  data: Binary;
  sort: number;
}

export interface Link {
  titel: string | null;
  url: string | null;
  art: string | null;
  sort: number;
}

export interface Einrichtung {
  name: string | null;
  einrichtungID: number;
}

export interface Kontakt {
  einrichtung: Einrichtung | null;
  art: string | null;
  name: string | null;
  abteilung: string | null;
  position: string | null;
  email: string | null;
  telefon: string | null;
  fax: string | null;
}

export interface ArtikelDetails {
  text: string | null;
  bereiche: Bereich[];
  cityAppBereiche: CityAppBereich[];
  anhaenge: Anhang[];
  links: Link[];
  kontakte: Kontakt[];
}

export interface Bild {
  bildID: number;
  filename: string | null;
  bildunterschrift: string | null;
  bildrechte: string | null;
  alternativText: string | null;
  size: number;
  mimetype: string | null;
  data: Binary;
  istTeaserbild: boolean;
  sort: number;
}

export interface Newsletter {
  name: string | null;
  newsletterID: number;
}

/** Coerced arguments, keyed by parameter name. */
export type Arguments = Readonly<Record<string, number | string | readonly ResizeMode[]>>;
