/**
 * Every XSD type of the service, in the order the original's WSDL first uses them
 * (service-spec.md part 2; reference/wsdl/*.wsdl), and the record type each one is
 * inferred to (infer.ts): the objects the handlers return and the writers read.
 */
import type { ValueOf } from './infer.ts';
import { arrayOf, BASE64, BOOLEAN, complex, enumeration, field, GUID, INT, STRING } from './schema.ts';

export const wsBereich = complex('wsBereich', [field('name', STRING), field('bereichID', INT)]);
export type Bereich = ValueOf<typeof wsBereich>;

export const wsCityAppBereich = complex('wsCityAppBereich', [
  field('name', STRING),
  field('cityAppBereichID', INT),
]);
export type CityAppBereich = ValueOf<typeof wsCityAppBereich>;

export const wsAnhang = complex('wsAnhang', [
  field('anhangID', INT),
  field('filename', STRING),
  field('name', STRING),
  field('beschreibung', STRING),
  field('size', INT),
  field('mimetype', STRING),
  field('data', BASE64),
  field('sort', INT),
]);
export type Anhang = ValueOf<typeof wsAnhang>;

export const wsLink = complex('wsLink', [
  field('titel', STRING),
  field('url', STRING),
  field('art', STRING),
  field('sort', INT),
]);
export type Link = ValueOf<typeof wsLink>;

export const wsEinrichtung = complex('wsEinrichtung', [field('name', STRING), field('einrichtungID', INT)]);
export type Einrichtung = ValueOf<typeof wsEinrichtung>;

/** The values `art` may take; the wire type is a plain string. */
export const KONTAKT_ARTEN = ['persoenlich', 'sammelkontakt'] as const;

export const wsKontakt = complex('wsKontakt', [
  field('einrichtung', wsEinrichtung, { nillable: true }),
  field('art', STRING),
  field('name', STRING),
  field('abteilung', STRING),
  field('position', STRING),
  field('email', STRING),
  field('telefon', STRING),
  field('fax', STRING),
]);
export type Kontakt = ValueOf<typeof wsKontakt>;

export const wsArtikelDetails = complex('wsArtikelDetails', [
  field('text', STRING),
  field('bereiche', arrayOf(wsBereich)),
  field('cityAppBereiche', arrayOf(wsCityAppBereich)),
  field('anhaenge', arrayOf(wsAnhang)),
  field('links', arrayOf(wsLink)),
  field('kontakte', arrayOf(wsKontakt)),
]);
export type ArtikelDetails = ValueOf<typeof wsArtikelDetails>;

export const wsBild = complex('wsBild', [
  field('bildID', INT),
  field('filename', STRING),
  field('bildunterschrift', STRING),
  field('bildrechte', STRING),
  field('alternativText', STRING),
  field('size', INT),
  field('mimetype', STRING),
  field('data', BASE64),
  field('istTeaserbild', BOOLEAN),
  field('sort', INT),
]);
export type Bild = ValueOf<typeof wsBild>;

export const wsNewsletter = complex('wsNewsletter', [field('name', STRING), field('newsletterID', INT)]);
export type Newsletter = ValueOf<typeof wsNewsletter>;

export const resizeMode = enumeration('resizeMode', ['standard', 'crop', 'fit', 'stretch', 'background']);
export type ResizeMode = ValueOf<typeof resizeMode>;

/** The SOAP header of the `scoop.asmx` operations (service-spec.md part 5). */
export const wsAuthHeader = complex('wsAuthHeader', [field('token', GUID)]);

export const ArrayOfInt = arrayOf(INT);
export const ArrayOfResizeMode = arrayOf(resizeMode);
export const ArrayOfWsNewsletter = arrayOf(wsNewsletter);
