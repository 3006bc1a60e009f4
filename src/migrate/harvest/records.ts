/**
 * Harvested answers as bundle records (bundle-format.md), each checked by the same rules
 * the import applies (store/bundle/validate.ts), so a harvest never writes a record the
 * import would refuse. What the bundle cannot hold makes the record NotCarried (left out,
 * with the reason); what it holds but scoop will answer differently is a warning.
 */
import type { Anhang, ArtikelDetails, Bereich, Bild, CityAppBereich, Link } from '../../contract/types.ts';
import { wsAnhang, wsBereich, wsBild, wsCityAppBereich } from '../../contract/types.ts';
import { BundleError, checkArtikel, checkMediaType, checkRecord } from '../../store/bundle/validate.ts';
import { BinaryFile } from './binary-file.ts';

/** The answer cannot become a bundle record; the message says why. */
export class NotCarried extends Error {
  override readonly name = 'NotCarried';
}

/** A record for bundle.json, with the id field first, as a person would write it. */
export type BundleJson = Readonly<Record<string, unknown>>;

export interface Carried {
  readonly record: BundleJson;
  /** Where the record's answer will differ from the source's, and why. */
  readonly warnings: readonly string[];
}

/** The folder of a kind's binaries and the bundle path of one of them. */
export const BINARY_FOLDERS = { anhaenge: 'files/anhaenge', bilder: 'files/bilder' } as const;

export function binaryPath(kind: keyof typeof BINARY_FOLDERS, id: number): string {
  return `${BINARY_FOLDERS[kind]}/${id}`;
}

function checked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof BundleError) throw new NotCarried(`the bundle cannot hold it: ${error.message}`);
    throw error;
  }
}

export function bereichRecord(value: Bereich): Carried {
  const record = { bereichID: value.bereichID, name: value.name };
  checked(() => checkRecord(wsBereich, record, 'bereiche', { idField: 'bereichID' }));
  return { record, warnings: [] };
}

export function cityAppBereichRecord(value: CityAppBereich): Carried {
  const record = { cityAppBereichID: value.cityAppBereichID, name: value.name };
  checked(() => checkRecord(wsCityAppBereich, record, 'cityAppBereiche', { idField: 'cityAppBereichID' }));
  return { record, warnings: [] };
}

/** The harvested file behind a binary field; a missing `<data>` is an empty file, and said so. */
function binaryOf(value: Anhang | Bild, warnings: string[]): BinaryFile | undefined {
  if (value.data instanceof BinaryFile) return value.data;
  if (value.data === null)
    warnings.push('the answer has no <data>; scoop answers an empty <data /> (0 bytes) instead');
  return undefined;
}

/** A record's harvested file, and what scoop will answer differently about it. */
function binaryOfRecord(value: Anhang | Bild): { file: BinaryFile | undefined; warnings: string[] } {
  const warnings: string[] = [];
  const file = binaryOf(value, warnings);
  const bytes = file?.size ?? 0;
  if (value.size !== bytes)
    warnings.push(
      `<size> says ${value.size} but <data> holds ${bytes} bytes; scoop answers <size>${bytes}</size>`,
    );
  return { file, warnings };
}

export function anhangRecord(value: Anhang): Carried & { readonly file: BinaryFile | undefined } {
  const { file, warnings } = binaryOfRecord(value);
  const record = {
    anhangID: value.anhangID,
    file: binaryPath('anhaenge', value.anhangID),
    filename: value.filename,
    name: value.name,
    beschreibung: value.beschreibung,
    mimetype: value.mimetype,
    sort: value.sort,
  };
  checked(() =>
    checkRecord(wsAnhang, record, 'anhaenge', { idField: 'anhangID', derived: ['size', 'data'] }),
  );
  return { record, warnings, file };
}

export function bildRecord(value: Bild): Carried & { readonly file: BinaryFile | undefined } {
  const { file, warnings } = binaryOfRecord(value);
  const record = {
    bildID: value.bildID,
    file: binaryPath('bilder', value.bildID),
    filename: value.filename,
    bildunterschrift: value.bildunterschrift,
    bildrechte: value.bildrechte,
    alternativText: value.alternativText,
    mimetype: value.mimetype,
    istTeaserbild: value.istTeaserbild,
    sort: value.sort,
  };
  checked(() => {
    checkRecord(wsBild, record, 'bilder', { idField: 'bildID', derived: ['size', 'data'] });
    // The import refuses an image whose bytes are another format than its mimetype says.
    checkMediaType('bilder', value.mimetype, file?.head ?? new Uint8Array(0), 'bilder', record.file);
  });
  return { record, warnings, file };
}

function inSortOrder(links: readonly Link[]): boolean {
  return links.every((link, i) => i === 0 || links[i - 1]!.sort <= link.sort);
}

/** An article: its lists of areas, city-app areas and attachments become lists of their ids. */
export function artikelRecord(artikelID: number, details: ArtikelDetails): Carried {
  const warnings: string[] = [];
  if (!inSortOrder(details.links))
    warnings.push('its links are not in the order of their sort values; scoop answers them ordered by sort');
  const record = {
    artikelID,
    text: details.text,
    bereiche: details.bereiche.map((b) => b.bereichID),
    cityAppBereiche: details.cityAppBereiche.map((b) => b.cityAppBereichID),
    anhaenge: details.anhaenge.map((a) => a.anhangID),
    links: details.links,
    kontakte: details.kontakte,
  };
  checked(() => checkArtikel(record, 'artikel'));
  return { record, warnings };
}

export function newsletterRecord(newsletterID: number, name: string | null, oeffentlich: boolean): Carried {
  return { record: { newsletterID, name, oeffentlich }, warnings: [] };
}

export function abonnementRecord(email: string, newsletterIDs: readonly number[]): Carried {
  return { record: { email, newsletterIDs }, warnings: [] };
}
