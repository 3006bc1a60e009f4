/**
 * Bundles for tests (bundle-format.md), written from small JSON objects into a scratch
 * folder under the system temp directory. `scratch()` registers an `after` hook that
 * removes the folder, so a test file leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { answerPreparer } from '../../src/prepare/prepare-answers.ts';
import { BUNDLE_FORMAT } from '../../src/store/bundle/bundle.ts';
import { BundleError } from '../../src/store/bundle/validate.ts';
import type { ContentStore } from '../../src/store/content-store.ts';
import {
  type ImportOptions,
  type ImportSummary,
  importFolder as importFromFolder,
} from '../../src/store/import.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { TestDatabase, TestStore } from './databases.ts';

export type FileContent = string | Uint8Array;
export type Files = Readonly<Record<string, FileContent>>;

export interface Scratch {
  readonly root: string;
  /** A new folder holding bundle.json (`json` serialised, or written as is when a string) and `files`. */
  bundle(json: unknown, files?: Files): string;
  /** A path for a new database file (not created). */
  dbPath(): string;
  /** A new empty folder. */
  dir(): string;
  /** A SQLite store on a new file, closed when the test file ends. */
  store(file?: string): SqliteStore;
  /** A new empty store of `db`, closed and removed by `closeStores` or when the test file ends. */
  open(db: TestDatabase): Promise<TestStore>;
  /** Closes and removes every store `open` opened so far (PostgreSQL connections are a limited resource). */
  closeStores(): Promise<void>;
}

/** A scratch area for one test file, removed (with every store closed) after it. */
export function scratch(): Scratch {
  const root = mkdtempSync(path.join(tmpdir(), 'scoop-test-'));
  const stores: SqliteStore[] = [];
  const opened: TestStore[] = [];
  let n = 0;
  const closeStores = async () => {
    for (const store of opened.splice(0)) await store.close();
  };
  after(async () => {
    for (const store of stores) await store.close().catch(() => undefined);
    await closeStores();
    rmSync(root, { recursive: true, force: true });
  });
  const dir = () => {
    const folder = path.join(root, `d${++n}`);
    mkdirSync(folder);
    return folder;
  };
  const dbPath = () => path.join(root, `db${++n}`, 'scoop.db');
  return {
    root,
    dir,
    dbPath,
    bundle(json, files = {}) {
      const folder = dir();
      writeBundleFiles(folder, json, files);
      return folder;
    },
    store(file = dbPath()) {
      const store = new SqliteStore(file);
      stores.push(store);
      return store;
    },
    async open(db) {
      const store = await db.open();
      opened.push(store);
      return store;
    },
    closeStores,
  };
}

export function writeBundleFiles(folder: string, json: unknown, files: Files = {}): void {
  writeFileSync(path.join(folder, 'bundle.json'), typeof json === 'string' ? json : JSON.stringify(json));
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(folder, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/** A bundle.json object: the format line plus the given top-level entries. */
export function bundleJson(entries: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return { format: BUNDLE_FORMAT, ...entries };
}

/** Reads the folder and imports it: the path the CLI takes (a refusal is recorded too). */
export function importFolder(
  store: ContentStore,
  folder: string,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  return importFromFolder(store, folder, { answers: answerPreparer(), ...options });
}

/** Deterministic bytes (not all alike, so chunk boundaries matter when compared). */
export function pattern(size: number, seed = 1): Buffer {
  const bytes = Buffer.alloc(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

/**
 * A bundle holding one record of every kind, all pointing at each other, every name
 * ending in `gen N` so a reader can tell which import a record came from.
 */
export function generation(gen: number, extra: Readonly<Record<string, unknown>> = {}) {
  const name = (what: string) => `${what} gen ${gen}`;
  return {
    json: bundleJson({
      mode: 'replace',
      bereiche: [
        { bereichID: 1, name: name('Rathaus') },
        { bereichID: 2, name: name('Kultur') },
      ],
      cityAppBereiche: [{ cityAppBereichID: 10, name: name('Freizeit') }],
      anhaenge: [
        {
          anhangID: 100,
          file: 'files/satzung.txt',
          filename: 'satzung.txt',
          name: name('Satzung'),
          beschreibung: 'Satzung der Stadt',
          mimetype: 'text/plain',
          sort: 1,
        },
      ],
      bilder: [
        {
          bildID: 200,
          file: 'files/rathaus.bin',
          filename: 'rathaus.jpg',
          bildunterschrift: name('Das Rathaus'),
          mimetype: 'image/jpeg',
          istTeaserbild: true,
          sort: 1,
        },
      ],
      artikel: [
        {
          artikelID: 1,
          text: name('<p>Öffnungszeiten</p>'),
          bereiche: [2, 1],
          cityAppBereiche: [10],
          anhaenge: [100],
          links: [{ titel: name('Stadtplan'), url: 'https://example.org/plan', art: 'extern', sort: 1 }],
          kontakte: [
            {
              art: 'persoenlich',
              name: name('Erika Muster'),
              einrichtung: { einrichtungID: 7, name: 'Bürgeramt Mitte' },
            },
          ],
        },
      ],
      newsletter: [
        { newsletterID: 1, name: name('Amtsblatt'), oeffentlich: true },
        { newsletterID: 2, name: name('Intern'), oeffentlich: false },
      ],
      abonnements: [{ email: 'leser@example.org', newsletterIDs: [1, 2] }],
      ...extra,
    }),
    files: {
      'files/satzung.txt': `Satzung, Fassung ${gen}\n`,
      'files/rathaus.bin': pattern(1000, gen),
    } as Files,
  };
}

/** Asserts `work` is refused with a BundleError whose message starts with `where: `. */
export async function assertRefused(work: Promise<unknown>, where: string, detail?: RegExp): Promise<void> {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof BundleError, `expected a BundleError, got ${String(error)}`);
    assert.ok(
      error.message.startsWith(`${where}: `),
      `${JSON.stringify(error.message)} should start with ${JSON.stringify(`${where}: `)}`,
    );
    if (detail) assert.match(error.message, detail);
    return true;
  });
}
