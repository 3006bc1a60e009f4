import { answerPreparer } from '../prepare/prepare-answers.ts';
import { base64CacheSettings, databaseSetting, deprecatedSettings } from '../server/settings.ts';
import type { HashProgress } from '../store/bundle/hash-files.ts';
import { BundleError } from '../store/bundle/validate.ts';
import { RECORD_KINDS } from '../store/content-store.ts';
import { type ImportProgress, type ImportSummary, importFolder } from '../store/import.ts';
import { openStore } from '../store/open-store.ts';
import { redactLocation } from '../store/postgres/url.ts';
import { keepLargeBinaries } from './keep-binaries.ts';
import { DB_OPTION, parseCommand, UsageError } from './usage.ts';

const HELP = `Usage: scoop import <bundle-dir | bundle-dir/bundle.json> [--db PATH|URL] [--allow-hardlinks]

Loads a content bundle (scoop-bundle/1, see docs/bundle-format.md) into the store, all
or nothing. On a terminal it shows progress on stderr: files and bytes while the bundle's
files are hashed, then records and bytes while they are written. Prints what changed per
record kind. Exit code 1 when the bundle is refused, with the record and field named.

Options:
  --db PATH|URL   SQLite file or postgres://user@host:5432/db[?schema=NAME]
                  (default ./data/scoop.db, or SCOOP_DB)
  --allow-hardlinks
                  accept bundle files with more than one hard link (refused by
                  default: a hard link can give a file from outside the bundle a
                  name inside it)`;

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

export interface ProgressPrinter {
  hashing(progress: HashProgress): void;
  writing(progress: ImportProgress): void;
  /** Ends the current line with its latest figures. */
  finish(): void;
}

/**
 * One line per phase, rewritten in place at most every 200 ms (a terminal redrawn on
 * every chunk would slow the import down); a phase's line is left with its final figures.
 */
export function progressPrinter(
  stream: { write(text: string): unknown },
  clock: () => number = Date.now,
): ProgressPrinter {
  let phase: 'hashing' | 'writing' | undefined;
  let unshown: string | undefined;
  let shownAt = Number.NEGATIVE_INFINITY;
  const finish = () => {
    if (phase === undefined) return;
    stream.write(`${unshown === undefined ? '' : `\r${unshown}`}\n`);
    phase = undefined;
    unshown = undefined;
  };
  const show = (next: 'hashing' | 'writing', text: string) => {
    if (phase !== next) {
      finish();
      phase = next;
      shownAt = Number.NEGATIVE_INFINITY;
    }
    const now = clock();
    if (now - shownAt < 200) {
      unshown = text;
      return;
    }
    shownAt = now;
    unshown = undefined;
    stream.write(`\r${text}`);
  };
  return {
    hashing: (p) =>
      show(
        'hashing',
        `  hashing files ${p.files}/${p.filesTotal}, bytes ${megabytes(p.bytes)}/${megabytes(p.bytesTotal)}  `,
      ),
    writing: (p) =>
      show(
        'writing',
        `  writing records ${p.records}/${p.recordsTotal}, bytes ${megabytes(p.bytes)}/${megabytes(p.bytesTotal)}  `,
      ),
    finish,
  };
}

export function formatSummary(summary: ImportSummary): string {
  const rows = RECORD_KINDS.map((kind) => {
    const k = summary.kinds[kind];
    return `  ${kind.padEnd(16)} ${String(k.added).padStart(6)} ${String(k.changed).padStart(8)} ${String(k.unchanged).padStart(10)} ${String(k.removed).padStart(8)}`;
  });
  return [
    `  ${'kind'.padEnd(16)} ${'added'.padStart(6)} ${'changed'.padStart(8)} ${'unchanged'.padStart(10)} ${'removed'.padStart(8)}`,
    ...rows,
    `  binaries stored: ${summary.blobsStored} (${megabytes(summary.bytesStored)}); content version ${summary.contentVersion}${summary.contentChanged ? '' : ' (unchanged)'}`,
  ].join('\n');
}

export async function runImport(
  folder: string,
  db: string,
  interactive: boolean,
  allowHardlinks = false,
): Promise<ImportSummary> {
  const store = await openStore(db, {
    importing: true,
    onCreated: (file) =>
      process.stderr.write(`scoop import: created a new store at ${file}
`),
  });
  const printer = interactive ? progressPrinter(process.stderr) : undefined;
  try {
    const summary = await importFolder(store, folder, {
      answers: answerPreparer(),
      allowHardlinks,
      ...(printer ? { onHashing: printer.hashing, onProgress: printer.writing } : {}),
    });
    printer?.finish();
    await keepLargeBinaries(store, base64CacheSettings(process.env, db), (line) =>
      process.stderr.write(`${line}\n`),
    );
    return summary;
  } finally {
    printer?.finish();
    await store.close();
  }
}

export async function importCommand(args: string[]): Promise<number> {
  const parsed = parseCommand(args, { ...DB_OPTION, 'allow-hardlinks': { type: 'boolean' } }, HELP);
  if (!parsed) return 0;
  if (parsed.positionals.length !== 1) throw new UsageError(`expected one bundle folder\n\n${HELP}`);
  const db = databaseSetting(parsed.values, process.env);
  for (const line of deprecatedSettings(process.env)) process.stderr.write(`scoop import: ${line}\n`);
  try {
    const summary = await runImport(
      parsed.positionals[0]!,
      db,
      process.stderr.isTTY === true,
      parsed.values['allow-hardlinks'] === true,
    );
    for (const warning of summary.warnings) process.stderr.write(`scoop import: warning: ${warning}\n`);
    process.stdout.write(
      `Imported ${parsed.positionals[0]} into ${redactLocation(db)}:\n${formatSummary(summary)}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof BundleError) {
      process.stderr.write(`import refused, nothing was changed: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
