/**
 * The benchmark bundle: generated into a temp folder, imported with `scoop import` into
 * the store under test, plus a token made with `scoop token create`.
 *
 *   bereiche 1–50, cityAppBereiche 10–19, newsletters 1–12 (8 public), 3 subscriptions;
 *   artikel 1: the large article — 20 KB of HTML, 12 areas, 5 city-app areas, 200 links,
 *              50 contacts and 20 attachments of 3 KB each (their bytes are in its answer);
 *   artikel 2: a small one;
 *   anhaenge 1: a few bytes, 2: 1 MB, 3: 20 MB, 4: 200 MB (random bytes, written streaming),
 *              100–119: the article's;
 *   bilder 1: a 12-megapixel JPEG (bench/images.ts makes it).
 */
import { randomFillSync } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BUNDLE_FORMAT } from '../src/store/bundle/bundle.ts';
import { scoopCommand } from './processes.ts';

export const IDS = {
  bereich: 1,
  artikelLarge: 1,
  anhangTiny: 1,
  anhang1Mb: 2,
  anhang20Mb: 3,
  anhang200Mb: 4,
  bild: 1,
} as const;

export const MB = 1024 * 1024;

export interface BundleOptions {
  /** Include the 20 MB and 200 MB attachments (the load test and the profile do not need them). */
  readonly huge: boolean;
  /** The 12 MP JPEG, or undefined to leave the image out. */
  readonly jpeg: Buffer | undefined;
}

export interface BundleInfo {
  readonly dir: string;
  readonly attachmentBytes: Readonly<Record<number, number>>;
  /** Bytes of all files together. */
  readonly totalBytes: number;
}

/** Random bytes written in 1 MiB pieces with back-pressure: never more than one piece in memory. */
async function randomFile(file: string, size: number): Promise<void> {
  const out = createWriteStream(file);
  const piece = Buffer.alloc(Math.min(size, MB));
  for (let written = 0; written < size; ) {
    const n = Math.min(piece.length, size - written);
    randomFillSync(piece, 0, n);
    // write() copies nothing: hand it a copy so the next fill does not change queued bytes.
    if (!out.write(Buffer.from(piece.subarray(0, n)))) await once(out, 'drain');
    written += n;
  }
  out.end();
  await once(out, 'finish');
}

const STREETS = ['Marktstraße', 'Goethestraße', 'Schillerplatz', 'Parkallee', 'Am Rathaus'];

function articleText(): string {
  const paragraphs: string[] = ['<h2>Bürgerservice &amp; Öffnungszeiten – Überblick</h2>'];
  for (let i = 0; paragraphs.join('').length < 20_000; i++) {
    paragraphs.push(
      `<p>Absatz ${i}: Das Bürgeramt in der ${STREETS[i % STREETS.length]} ${i + 1} ist montags bis freitags ` +
        `geöffnet. Termine über <a href="https://www.beispielstadt.example/termine?dienst=${i}&amp;ort=mitte">` +
        `die Online-Terminvergabe</a>; Gebühren &lt; 30 € werden bar oder mit Karte bezahlt.</p>`,
    );
  }
  return paragraphs.join('\n');
}

function bundleJson(options: BundleOptions): Record<string, unknown> {
  const bereiche = Array.from({ length: 50 }, (_, i) => ({
    bereichID: i + 1,
    name: i === 0 ? 'Rathaus & Politik' : `Bereich ${i + 1} – Bürgerservice`,
  }));
  const cityAppBereiche = Array.from({ length: 10 }, (_, i) => ({
    cityAppBereichID: 10 + i,
    name: `Freizeit & Kultur ${i + 1}`,
  }));
  const anhang = (anhangID: number, file: string, name: string, sort: number) => ({
    anhangID,
    file: `files/${file}`,
    filename: file,
    name,
    beschreibung: `${name} – Beschreibung mit Umlauten (ä, ö, ü) & Sonderzeichen <>`,
    mimetype: 'application/octet-stream',
    sort,
  });
  const anhaenge = [
    anhang(IDS.anhangTiny, 'tiny.bin', 'Winziger Anhang', 1),
    anhang(IDS.anhang1Mb, 'one-mb.bin', 'Anhang 1 MB', 2),
    ...(options.huge
      ? [
          anhang(IDS.anhang20Mb, 'twenty-mb.bin', 'Anhang 20 MB', 3),
          anhang(IDS.anhang200Mb, 'two-hundred-mb.bin', 'Anhang 200 MB', 4),
        ]
      : []),
    ...Array.from({ length: 20 }, (_, i) => anhang(100 + i, `artikel-${i}.bin`, `Dokument ${i + 1}`, i)),
  ];
  const links = Array.from({ length: 200 }, (_, i) => ({
    titel: `Link ${i + 1}: Formulare & Anträge`,
    url:
      i % 2
        ? `https://www.beispielstadt.example/service/${i}?thema=buergeramt&seite=${i}`
        : `/buergerservice/seite-${i}`,
    art: i % 2 ? 'extern' : 'intern',
    sort: 200 - i,
  }));
  const kontakte = Array.from({ length: 50 }, (_, i) => ({
    einrichtung: i % 3 === 0 ? null : { einrichtungID: i + 1, name: `Bürgeramt ${STREETS[i % 5]}` },
    art: i % 4 === 0 ? 'sammelkontakt' : 'persoenlich',
    name: `Sachbearbeiter:in ${i + 1} Größler`,
    abteilung: 'Abteilung Bürgerdienste',
    position: i % 5 === 0 ? '' : 'Sachbearbeitung',
    email: `kontakt${i + 1}@beispielstadt.example`,
    telefon: `+49 30 1234-${1000 + i}`,
    ...(i % 2 ? { fax: `+49 30 1234-${2000 + i}` } : {}),
  }));
  return {
    format: BUNDLE_FORMAT,
    mode: 'replace',
    bereiche,
    cityAppBereiche,
    anhaenge,
    bilder: options.jpeg
      ? [
          {
            bildID: IDS.bild,
            file: 'files/foto.jpg',
            filename: 'foto.jpg',
            bildunterschrift: 'Ein 12-Megapixel-Foto',
            mimetype: 'image/jpeg',
            istTeaserbild: true,
            sort: 1,
          },
        ]
      : [],
    artikel: [
      {
        artikelID: IDS.artikelLarge,
        text: articleText(),
        bereiche: Array.from({ length: 12 }, (_, i) => i + 1),
        cityAppBereiche: [10, 11, 12, 13, 14],
        anhaenge: Array.from({ length: 20 }, (_, i) => 100 + i),
        links,
        kontakte,
        sichtbarVon: '2020-01-01',
        sichtbarBis: null,
      },
      {
        artikelID: 2,
        text: '<p>Kurz.</p>',
        bereiche: [2],
        cityAppBereiche: [],
        anhaenge: [IDS.anhangTiny],
        links: [],
        kontakte: [],
        sichtbarVon: null,
        sichtbarBis: null,
      },
    ],
    newsletter: Array.from({ length: 12 }, (_, i) => ({
      newsletterID: i + 1,
      name: `Newsletter ${i + 1}: Amtsblatt & Veranstaltungen`,
      oeffentlich: i % 3 !== 2,
    })),
    abonnements: [
      { email: 'leser@example.org', newsletterIDs: [1, 2] },
      { email: 'Jörg.Müller@Example.org', newsletterIDs: [3] },
      { email: 'team@example.org', newsletterIDs: [1, 4, 5] },
    ],
  };
}

export async function writeBundle(dir: string, options: BundleOptions): Promise<BundleInfo> {
  const files = path.join(dir, 'files');
  mkdirSync(files, { recursive: true });
  const sizes: Record<number, number> = { [IDS.anhangTiny]: 7, [IDS.anhang1Mb]: MB };
  if (options.huge) {
    sizes[IDS.anhang20Mb] = 20 * MB;
    sizes[IDS.anhang200Mb] = 200 * MB;
  }
  const names: Record<number, string> = {
    [IDS.anhangTiny]: 'tiny.bin',
    [IDS.anhang1Mb]: 'one-mb.bin',
    [IDS.anhang20Mb]: 'twenty-mb.bin',
    [IDS.anhang200Mb]: 'two-hundred-mb.bin',
  };
  for (let i = 0; i < 20; i++) {
    sizes[100 + i] = 3 * 1024;
    names[100 + i] = `artikel-${i}.bin`;
  }
  for (const [id, size] of Object.entries(sizes))
    await randomFile(path.join(files, names[Number(id)]!), size);
  let totalBytes = Object.values(sizes).reduce((a, b) => a + b, 0);
  if (options.jpeg) {
    writeFileSync(path.join(files, 'foto.jpg'), options.jpeg);
    totalBytes += options.jpeg.length;
  }
  writeFileSync(path.join(dir, 'bundle.json'), JSON.stringify(bundleJson(options), null, 1));
  return { dir, attachmentBytes: sizes, totalBytes };
}

/**
 * Imports the bundle into the store at `db` (a SQLite path or a store URL) and creates a
 * token, with the `scoop` of the checkout at `root` (this one's by default).
 */
export function importAndToken(
  bundleDir: string,
  db: string,
  root?: string,
): { token: string; importMs: number } {
  const started = performance.now();
  scoopCommand(['import', bundleDir, '--db', db], root);
  const importMs = performance.now() - started;
  const token = scoopCommand(['token', 'create', '--label', 'bench', '--db', db], root).trim();
  if (!/^[0-9a-f-]{36}$/i.test(token)) throw new Error(`scoop token create printed ${token}`);
  return { token, importMs };
}
