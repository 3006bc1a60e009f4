/**
 * A scoop fixture whose content differs from the reference fixture's in exactly one
 * article's text, so it answers differently in exactly getArtikelDetails of that article
 * (compare and shadow tests). It knows another token than the reference fixture, so a
 * test sees whether each service got its own.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { hashToken } from '../../src/auth/tokens.ts';
import type { Scratch } from './bundles.ts';
import { SQLITE, type TestDatabase } from './databases.ts';
import {
  EXTRAS_BUNDLE,
  type Fixture,
  REFERENCE_BUNDLE,
  REFERENCE_TOKEN,
  startFixture,
} from './fixture-server.ts';

export const CHANGED_ARTIKEL_ID = 100;
export const CHANGED_TEXT = 'Straßenfest abgesagt <wegen Regen> & verschoben.';
/** The only token the changed fixture accepts (REFERENCE_TOKEN is revoked there). */
export const CHANGED_TOKEN = '22222222-3333-4444-5555-666666666666';

/** The changed article as an upsert bundle. */
export function changedArticleBundle(scratch: Scratch, text = CHANGED_TEXT): string {
  const reference = JSON.parse(readFileSync(path.join(REFERENCE_BUNDLE, 'bundle.json'), 'utf8')) as {
    artikel: Array<{ artikelID: number; text: string }>;
  };
  const artikel = reference.artikel.find((a) => a.artikelID === CHANGED_ARTIKEL_ID)!;
  return scratch.bundle({ format: 'scoop-bundle/1', mode: 'upsert', artikel: [{ ...artikel, text }] });
}

export async function startChangedFixture(
  scratch: Scratch,
  overrides: Parameters<typeof startFixture>[0] = {},
  database: TestDatabase = SQLITE,
): Promise<Fixture> {
  const fixture = await startFixture(
    overrides,
    [REFERENCE_BUNDLE, EXTRAS_BUNDLE, changedArticleBundle(scratch)],
    database,
  );
  await fixture.store.addToken(hashToken(CHANGED_TOKEN), 'changed', new Date().toISOString());
  await fixture.store.revokeToken(hashToken(REFERENCE_TOKEN), new Date().toISOString());
  return fixture;
}
