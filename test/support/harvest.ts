/**
 * Helpers for the harvest tests: `harvest()` run in this process with a display that
 * records instead of printing, and the edge-case bundle of the round trip.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type HarvestOptions, type HarvestSummary, harvest } from '../../src/migrate/harvest/harvest.ts';
import { parseIdRanges } from '../../src/migrate/harvest/id-ranges.ts';
import type { RangeOption } from '../../src/migrate/harvest/plan.ts';
import type { ProgressDisplay, ProgressSnapshot } from '../../src/migrate/harvest/progress.ts';
import { type Files, writeBundleFiles } from './bundles.ts';
import { REFERENCE_TOKEN } from './fixture-server.ts';

export const NAMESPACE = 'http://scoop.example.org/api';

export interface RecordingDisplay extends ProgressDisplay {
  readonly snapshots: ProgressSnapshot[];
  readonly warnings: string[];
}

export function recordingDisplay(): RecordingDisplay {
  const snapshots: ProgressSnapshot[] = [];
  const warnings: string[] = [];
  return {
    snapshots,
    warnings,
    show: (s) => snapshots.push(s),
    warn: (m) => warnings.push(m),
    finish: () => undefined,
  };
}

export type HarvestRun = Omit<Partial<HarvestOptions>, 'ranges' | 'from'> & {
  readonly from: string;
  readonly out: string;
  readonly ranges?: Partial<Record<RangeOption, string>>;
};

/** harvest() with the defaults a test wants: the reference token, no back-off to speak of, a recording display. */
export function runHarvest(run: HarvestRun): Promise<HarvestSummary> & { display: RecordingDisplay } {
  const display = (run.display as RecordingDisplay | undefined) ?? recordingDisplay();
  const ranges: HarvestOptions['ranges'] = {};
  for (const [option, text] of Object.entries(run.ranges ?? {}) as Array<[RangeOption, string]>)
    ranges[option] = parseIdRanges(text);
  const promise = harvest({
    namespace: NAMESPACE,
    token: REFERENCE_TOKEN,
    emails: undefined,
    concurrency: 4,
    rate: undefined,
    resume: false,
    backoff: () => 5,
    ...run,
    from: new URL(run.from),
    ranges,
    display,
  });
  return Object.assign(promise, { display });
}

const DEMO = path.resolve('examples/demo-bundle');
const REFERENCE = path.resolve('test/fixtures/reference-bundle');

/** Every character class of reference/SERIALIZER.md (as test/fixtures/wire-extras has), and CR. */
export const SPECIAL_TEXT =
  'Sonderzeichen: "Zitat" \'einfach\' ]]> a<b & c>d, Tab\tEnde, Emoji 😀 𝄞, U+2028 \u2028 U+0085 \u0085 U+FEFF \ufeff, CRLF\r\nCR\rLF\n.';

/**
 * The wire's edge cases, with ids of their own (900 and up) so they sit beside the demo
 * content: XML specials and astral characters, CR/LF, empty versus null, einrichtung nil
 * and filled, 0-byte and 1 MiB binaries, an article with 200 links (sort values out of
 * order and repeated), a hidden article, a non-public newsletter, list order.
 */
export function edgeBundle(folder: string): { emails: string[] } {
  const links = Array.from({ length: 200 }, (_, i) => ({
    titel: i % 7 === 0 ? `Link ${i} & <mehr>` : `Link ${i}`,
    url: `https://example.org/${i}?a=1&b=${i}`,
    art: i % 2 === 0 ? 'extern' : 'intern',
    sort: (i * 37) % 50,
  }));
  const kontakte = [
    {
      einrichtung: { einrichtungID: 0, name: '' },
      art: 'persoenlich',
      name: SPECIAL_TEXT,
      abteilung: '',
      position: null,
      email: 'x@example.org',
      telefon: '',
    },
    { einrichtung: null, art: 'sammelkontakt', name: 'Ohne alles' },
  ];
  const png = readFileSync(path.join(REFERENCE, 'files/bilder/rathaus.png'));
  const files: Files = {
    'files/leer.bin': new Uint8Array(0),
    'files/mebibyte.bin': randomBytes(1024 * 1024),
    'files/crlf.txt': 'Zeile 1\r\nZeile 2\rZeile 3\n',
    'files/bild.png': png,
  };
  const subscriber = 'ÄRGER.Über@Example.org';
  writeBundleFiles(
    folder,
    {
      format: 'scoop-bundle/1',
      bereiche: [
        { bereichID: 900, name: SPECIAL_TEXT },
        { bereichID: 901, name: '' },
        { bereichID: 902 },
        { bereichID: -5, name: 'negativ' },
      ],
      cityAppBereiche: [
        { cityAppBereichID: 900, name: '' },
        { cityAppBereichID: 901, name: null },
      ],
      anhaenge: [
        { anhangID: 900, file: 'files/leer.bin', filename: 'leer.bin', name: '', mimetype: null, sort: 0 },
        {
          anhangID: 901,
          file: 'files/mebibyte.bin',
          filename: 'mebibyte.bin',
          name: SPECIAL_TEXT,
          beschreibung: '',
          mimetype: 'application/octet-stream',
          sort: -3,
        },
        {
          anhangID: 902,
          file: 'files/crlf.txt',
          filename: 'crlf & <zeilen>.txt',
          beschreibung: 'Zeile 1\r\nZeile 2\rZeile 3',
          mimetype: 'text/plain',
          sort: 2147483647,
        },
      ],
      bilder: [
        {
          bildID: 900,
          file: 'files/bild.png',
          filename: 'bild.png',
          bildunterschrift: SPECIAL_TEXT,
          bildrechte: '',
          mimetype: 'image/png',
          istTeaserbild: true,
          sort: -1,
        },
        { bildID: 901, file: 'files/bild.png', mimetype: 'image/png' },
      ],
      artikel: [
        {
          artikelID: 900,
          text: `<p>${SPECIAL_TEXT}</p>\r\n<p>Zweiter Absatz</p>`,
          bereiche: [900, 1, 902],
          cityAppBereiche: [901, 900],
          anhaenge: [902, 900, 901],
          links,
          kontakte,
        },
        { artikelID: 901, text: '', bereiche: [901] },
        { artikelID: 902, anhaenge: [900] },
        { artikelID: 903, text: 'abgelaufen', sichtbarBis: '2020-01-01' },
      ],
      newsletter: [
        { newsletterID: 900, name: SPECIAL_TEXT, oeffentlich: true },
        { newsletterID: 901, name: 'Geheim', oeffentlich: false },
      ],
      abonnements: [{ email: subscriber, newsletterIDs: [901, 1, 900] }],
    },
    files,
  );
  return { emails: [subscriber] };
}

/** The demo bundle's subscribers (examples/demo-bundle/README.md). */
export const DEMO_EMAILS = [
  'Jörg.Müller@Example.org',
  'erika.beispiel@example.org',
  'ortsbeirat-nord@beispielstadt.example',
  'kulturverein@example.net',
];

export { DEMO as DEMO_BUNDLE };
