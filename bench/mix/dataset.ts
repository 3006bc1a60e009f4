/**
 * The realistic mix's content (issue 17): generated from a seed into a scoop-bundle/1
 * folder, the same bytes on every run, nothing committed.
 *
 *   20,000 articles, text of 0.3–8 KB (markup, entities, umlauts, now and then CR/LF and a
 *          character outside the BMP), 1–3 areas, 0–2 city-app areas, 0–3 attachments
 *          (whose bytes are part of the article's answer), 0–10 links, 0–3 contacts;
 *   2,000 areas, 200 city-app areas, 20 newsletters (12 public);
 *   4,000 attachments of 200 B–200 KB (log-uniform), 2,000 images (JPEG, a tenth PNG,
 *          200×150 to 800×600 pixels of smooth gradients);
 *   30,000 subscribed addresses, each to 1–3 newsletters.
 *
 * `scale` shrinks every count (a quick run, a test); the proportions stay.
 */
import { once } from 'node:events';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { BUNDLE_FORMAT } from '../../src/store/bundle/bundle.ts';
import { Random } from './random.ts';

export interface MixCounts {
  readonly artikel: number;
  readonly bereiche: number;
  readonly cityAppBereiche: number;
  readonly newsletter: number;
  readonly anhaenge: number;
  readonly bilder: number;
  readonly abonnements: number;
}

export const FULL_COUNTS: MixCounts = {
  artikel: 20_000,
  bereiche: 2_000,
  cityAppBereiche: 200,
  newsletter: 20,
  anhaenge: 4_000,
  bilder: 2_000,
  abonnements: 30_000,
};

/** What the request generator needs to know of the content. */
export interface MixDataset {
  readonly dir: string;
  readonly counts: MixCounts;
  /** Ids start at 1 for every kind, except city-app areas (from 1000) so no id means two things. */
  readonly firstCityAppBereichID: number;
  readonly emails: readonly string[];
  /** Bytes of all files (attachments and images). */
  readonly fileBytes: number;
}

const WORDS = [
  'Bürgeramt',
  'Öffnungszeiten',
  'Straßenfest',
  'Gebühren',
  'Anmeldung',
  'Müllabfuhr',
  'Stadtrat',
  'Sitzung',
  'Baustelle',
  'Umleitung',
  'Kita-Platz',
  'Förderung',
  'Bibliothek',
  'Sommerferien',
  'Wochenmarkt',
  'Radweg',
  'Haushalt',
  'Bebauungsplan',
  'Ehrenamt',
  'Hallenbad',
];

const FIRST_CITY_APP_ID = 1000;

function sentence(random: Random): string {
  const words = Array.from({ length: random.int(6, 18) }, () => random.pick(WORDS));
  return `${words.join(' ')}.`;
}

/** Article markup of about `bytes` UTF-8 bytes, with the characters the wire must carry exactly. */
function articleText(random: Random, bytes: number): string {
  const parts: string[] = [`<h2>${sentence(random)}</h2>`];
  let size = Buffer.byteLength(parts[0]!);
  while (size < bytes) {
    const roll = random.next();
    let p: string;
    if (roll < 0.1)
      p = `<p>Kosten &lt; 30 € &amp; Termine: <a href="/termine?id=${random.int(1, 999)}&amp;x=1">hier</a></p>`;
    else if (roll < 0.13) p = `<p>${sentence(random)}\r\n${sentence(random)} 🎉</p>`;
    else p = `<p>${sentence(random)} ${sentence(random)}</p>`;
    parts.push(p);
    size += Buffer.byteLength(p) + 1;
  }
  return parts.join('\n');
}

/** Smooth gradients from seeded coefficients: deterministic, and compressing like a photo does. */
async function image(random: Random, png: boolean): Promise<Buffer> {
  const width = random.int(200, 800);
  const height = Math.round((width * 3) / 4);
  const [a, b, c] = [random.next() * 3, random.next() * 3, random.next() * 255];
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      raw[o] = (x * a + c) & 255;
      raw[o + 1] = (y * b + c) & 255;
      raw[o + 2] = ((x + y) * (a + b)) & 255;
    }
  const pipeline = sharp(raw, { raw: { width, height, channels: 3 } });
  return png ? pipeline.png({ compressionLevel: 6 }).toBuffer() : pipeline.jpeg({ quality: 80 }).toBuffer();
}

export async function writeMixBundle(dir: string, scale = 1, seed = 17): Promise<MixDataset> {
  const random = new Random(seed);
  const n = (full: number) => Math.max(1, Math.round(full * scale));
  const counts: MixCounts = {
    artikel: n(FULL_COUNTS.artikel),
    bereiche: n(FULL_COUNTS.bereiche),
    cityAppBereiche: n(FULL_COUNTS.cityAppBereiche),
    newsletter: Math.max(2, n(FULL_COUNTS.newsletter)),
    anhaenge: n(FULL_COUNTS.anhaenge),
    bilder: n(FULL_COUNTS.bilder),
    abonnements: n(FULL_COUNTS.abonnements),
  };
  const files = path.join(dir, 'files');
  mkdirSync(files, { recursive: true });
  let fileBytes = 0;

  const anhaenge = [];
  for (let id = 1; id <= counts.anhaenge; id++) {
    const size = random.logInt(200, 200_000);
    writeFileSync(path.join(files, `a${id}.bin`), random.fill(Buffer.alloc(size)));
    fileBytes += size;
    anhaenge.push({
      anhangID: id,
      file: `files/a${id}.bin`,
      filename: `dokument-${id}.bin`,
      name: `Dokument ${id}: ${random.pick(WORDS)}`,
      ...(random.next() < 0.7 ? { beschreibung: sentence(random) } : {}),
      mimetype: 'application/octet-stream',
      sort: random.int(1, 5),
    });
  }
  const bilder = [];
  for (let id = 1; id <= counts.bilder; id++) {
    const png = random.next() < 0.1;
    const bytes = await image(random, png);
    const name = `b${id}.${png ? 'png' : 'jpg'}`;
    writeFileSync(path.join(files, name), bytes);
    fileBytes += bytes.length;
    bilder.push({
      bildID: id,
      file: `files/${name}`,
      filename: name,
      bildunterschrift: sentence(random),
      bildrechte: `© Stadt Beispielstadt ${id}`,
      alternativText: sentence(random),
      mimetype: png ? 'image/png' : 'image/jpeg',
      istTeaserbild: random.next() < 0.3,
      sort: random.int(1, 9),
    });
  }
  const bereiche = Array.from({ length: counts.bereiche }, (_, i) => ({
    bereichID: i + 1,
    name: `${random.pick(WORDS)} & ${random.pick(WORDS)} ${i + 1}`,
  }));
  const cityAppBereiche = Array.from({ length: counts.cityAppBereiche }, (_, i) => ({
    cityAppBereichID: FIRST_CITY_APP_ID + i,
    name: `App: ${random.pick(WORDS)} ${i}`,
  }));
  const newsletter = Array.from({ length: counts.newsletter }, (_, i) => ({
    newsletterID: i + 1,
    name: `Newsletter ${random.pick(WORDS)} ${i + 1}`,
    oeffentlich: i < Math.ceil(counts.newsletter * 0.6),
  }));
  const emails = Array.from({ length: counts.abonnements }, (_, i) => `leser.${i}@beispiel${i % 50}.example`);
  const abonnements = emails.map((email) => ({
    email,
    newsletterIDs: random
      .sample(
        newsletter.map((x) => x.newsletterID),
        random.int(1, 3),
      )
      .sort((a, b) => a - b),
  }));

  // bundle.json is written a record at a time: the articles alone are about 100 MB of JSON.
  const out = createWriteStream(path.join(dir, 'bundle.json'));
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`{"format":${JSON.stringify(BUNDLE_FORMAT)},"mode":"replace",`);
  for (const [key, records] of Object.entries({
    bereiche,
    cityAppBereiche,
    anhaenge,
    bilder,
    newsletter,
    abonnements,
  }))
    await write(`${JSON.stringify(key)}:${JSON.stringify(records)},\n`);
  await write('"artikel":[\n');
  for (let id = 1; id <= counts.artikel; id++) {
    const article = {
      artikelID: id,
      text: articleText(random, random.logInt(300, 8000)),
      bereiche: random.sample(bereiche, random.int(1, 3)).map((b) => b.bereichID),
      cityAppBereiche: random.sample(cityAppBereiche, random.int(0, 2)).map((b) => b.cityAppBereichID),
      anhaenge: random.sample(anhaenge, random.int(0, 3)).map((a) => a.anhangID),
      links: Array.from({ length: random.int(0, 10) }, (_, i) => ({
        titel: sentence(random),
        url:
          random.next() < 0.5
            ? `https://www.beispielstadt.example/seite/${random.int(1, 9999)}?a=1&b=2`
            : `/intern/${i}`,
        art: random.next() < 0.5 ? 'extern' : 'intern',
        sort: i + 1,
      })),
      kontakte: Array.from({ length: random.int(0, 3) }, (_, i) => ({
        art: random.next() < 0.7 ? 'persoenlich' : 'sammelkontakt',
        name: `Kontakt ${id}-${i}`,
        abteilung: `Fachbereich ${random.pick(WORDS)}`,
        position: random.next() < 0.2 ? '' : 'Sachbearbeitung',
        email: `kontakt.${id}.${i}@beispielstadt.example`,
        telefon: `0123 4567-${random.int(100, 999)}`,
        ...(random.next() < 0.5 ? { fax: `0123 4567-${random.int(100, 999)}` } : {}),
        einrichtung:
          random.next() < 0.5
            ? { einrichtungID: random.int(1, 50), name: `Einrichtung ${random.int(1, 50)}` }
            : null,
      })),
      sichtbarVon: null,
      sichtbarBis: null,
    };
    await write(`${id > 1 ? ',\n' : ''}${JSON.stringify(article)}`);
  }
  await write('\n]}\n');
  out.end();
  await once(out, 'finish');
  return { dir, counts, firstCityAppBereichID: FIRST_CITY_APP_ID, emails, fileBytes };
}
