/**
 * One article of the reference bundle with a new text, as an upsert bundle: a scoop
 * fixture loaded with it differs from one without in exactly getArtikelDetails of that
 * article (compare and shadow tests).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Scratch } from './bundles.ts';
import { REFERENCE_BUNDLE } from './fixture-server.ts';

export const CHANGED_ARTIKEL_ID = 100;
export const CHANGED_TEXT = 'Straßenfest abgesagt <wegen Regen> & verschoben.';

export function changedArticleBundle(scratch: Scratch, text = CHANGED_TEXT): string {
  const reference = JSON.parse(readFileSync(path.join(REFERENCE_BUNDLE, 'bundle.json'), 'utf8')) as {
    artikel: Array<{ artikelID: number; text: string }>;
  };
  const artikel = reference.artikel.find((a) => a.artikelID === CHANGED_ARTIKEL_ID)!;
  return scratch.bundle({ format: 'scoop-bundle/1', mode: 'upsert', artikel: [{ ...artikel, text }] });
}
