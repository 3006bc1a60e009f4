/**
 * A scoop server for end-to-end tests, in this process: a fresh store (a SQLite file
 * unless another database is asked for) loaded with the reference dataset
 * (test/fixtures/reference-bundle) plus test extras, the reference token and a revoked one.
 */
import path from 'node:path';
import pino from 'pino';
import { hashToken } from '../../src/auth/tokens.ts';
import { answerPreparer } from '../../src/prepare/prepare-answers.ts';
import type { AppOptions } from '../../src/server/app.ts';
import { type RunningServer, startServer } from '../../src/server/http-server.ts';
import type { ServerLimits } from '../../src/server/settings.ts';
import { closeBundle, readBundle } from '../../src/store/bundle/read-bundle.ts';
import type { ContentStore } from '../../src/store/content-store.ts';
import { importBundle } from '../../src/store/import.ts';
import { DEFAULT_XML_LIMITS } from '../../src/xml/reader.ts';
import { SQLITE, type TestDatabase } from './databases.ts';

export const REFERENCE_TOKEN = '11111111-1111-1111-1111-111111111111';
/** Created and then revoked in every fixture store, for the revoked-token cases. */
export const REVOKED_TOKEN = '44444444-4444-4444-4444-444444444444';
export const REFERENCE_BUNDLE = path.resolve('test/fixtures/reference-bundle');
export const EXTRAS_BUNDLE = path.resolve('test/fixtures/wire-extras');
/** The wire corpus runs at a fixed instant, so visibility windows give stable answers. */
export const FIXED_NOW = Date.parse('2026-11-22T12:00:00Z');

export interface Fixture {
  readonly server: RunningServer;
  readonly store: ContentStore;
  /** The store's file or URL (what `--db` would say). */
  readonly location: string;
  stop(): Promise<void>;
}

/** A fresh store loaded with the fixture bundles and tokens, for tests that need no server. */
export async function openFixtureStore(
  bundles = [REFERENCE_BUNDLE, EXTRAS_BUNDLE],
  database: TestDatabase = SQLITE,
): Promise<{ store: ContentStore; location: string; close(): Promise<void> }> {
  const opened = await database.open();
  const store = opened.store;
  for (const folder of bundles) {
    const bundle = await readBundle(folder);
    await importBundle(store, bundle, { answers: answerPreparer() }).finally(() => closeBundle(bundle));
  }
  await store.addToken(hashToken(REFERENCE_TOKEN), 'reference', new Date().toISOString());
  await store.addToken(hashToken(REVOKED_TOKEN), 'revoked', new Date().toISOString());
  await store.revokeToken(hashToken(REVOKED_TOKEN), new Date().toISOString());
  return { store, location: opened.location, close: () => opened.close() };
}

/** The app settings every fixture uses, with `overrides` on top. */
export function fixtureAppOptions(store: ContentStore, overrides: Partial<AppOptions> = {}): AppOptions {
  return {
    store,
    namespace: 'http://scoop.example.org/api',
    httpAuth: true,
    maxBodyBytes: 4 * 1024 * 1024,
    maxListItems: 16,
    xmlLimits: DEFAULT_XML_LIMITS,
    service: { maxImageDimension: 4096 },
    logger: pino({ level: 'silent' }),
    now: () => FIXED_NOW,
    ...overrides,
  };
}

export async function startFixture(
  overrides: Partial<AppOptions> = {},
  bundles = [REFERENCE_BUNDLE, EXTRAS_BUNDLE],
  database: TestDatabase = SQLITE,
  limits?: ServerLimits,
): Promise<Fixture> {
  const opened = await openFixtureStore(bundles, database);
  const store = opened.store;
  const server = await startServer(fixtureAppOptions(store, overrides), '127.0.0.1', 0, limits);
  return {
    server,
    store,
    location: opened.location,
    async stop() {
      await server.close();
      await opened.close();
    },
  };
}
