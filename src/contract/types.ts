/**
 * Every XSD type of the service, in the order the original's WSDL first uses them
 * (service-spec.md part 2; reference/wsdl/*.wsdl).
 */
import { arrayOf, BASE64, BOOLEAN, complex, enumeration, field, GUID, INT, STRING } from './schema.ts';

export const wsBereich = complex('wsBereich', [field('name', STRING), field('bereichID', INT)]);

export const wsCityAppBereich = complex('wsCityAppBereich', [
  field('name', STRING),
  field('cityAppBereichID', INT),
]);

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

export const wsLink = complex('wsLink', [
  field('titel', STRING),
  field('url', STRING),
  field('art', STRING),
  field('sort', INT),
]);

export const wsEinrichtung = complex('wsEinrichtung', [field('name', STRING), field('einrichtungID', INT)]);

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

export const wsArtikelDetails = complex('wsArtikelDetails', [
  field('text', STRING),
  field('bereiche', arrayOf(wsBereich)),
  field('cityAppBereiche', arrayOf(wsCityAppBereich)),
  field('anhaenge', arrayOf(wsAnhang)),
  field('links', arrayOf(wsLink)),
  field('kontakte', arrayOf(wsKontakt)),
]);

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

export const wsNewsletter = complex('wsNewsletter', [field('name', STRING), field('newsletterID', INT)]);

export const resizeMode = enumeration('resizeMode', ['standard', 'crop', 'fit', 'stretch', 'background']);
export type ResizeMode = 'standard' | 'crop' | 'fit' | 'stretch' | 'background';

/** The SOAP header of the `scoop.asmx` operations (service-spec.md part 5). */
export const wsAuthHeader = complex('wsAuthHeader', [field('token', GUID)]);

export const ArrayOfInt = arrayOf(INT);
export const ArrayOfResizeMode = arrayOf(resizeMode);
export const ArrayOfWsNewsletter = arrayOf(wsNewsletter);
