import { databaseSetting } from '../server/settings.ts';
import { BundleError } from '../store/bundle/validate.ts';
import { RECORD_KINDS } from '../store/content-store.ts';
import { type ImportProgress, type ImportSummary, importFolder } from '../store/import.ts';
import { openStore } from '../store/open-store.ts';
import { redactLocation } from '../store/postgres/location.ts';
import { DB_OPTION, parseCommand, UsageError } from './usage.ts';

const HELP = `Usage: scoop import <bundle-dir> [--db PATH|URL]

Loads a content bundle (scoop-bundle/1, see docs/bundle-format.md) into the store, all
or nothing. Prints what changed per record kind. Exit code 1 when the bundle is refused,
with the record and field named.

Options:
  --db PATH|URL   SQLite file or postgres://user@host:5432/db[?schema=NAME]
                  (default ./data/scoop.db, or SCOOP_DB)`;

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

function progressPrinter(stream: NodeJS.WriteStream): (p: ImportProgress) => void {
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (now - last < 200 && p.records < p.recordsTotal) return;
    last = now;
    stream.write(
      `\r  records ${p.records}/${p.recordsTotal}, bytes ${megabytes(p.bytes)}/${megabytes(p.bytesTotal)}  `,
    );
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
    `  binaries stored: ${summary.blobsStored} (${megabytes(summary.bytesStored)}); content version ${summary.contentVersion}`,
  ].join('\n');
}

export async function runImport(folder: string, db: string, interactive: boolean): Promise<ImportSummary> {
  const store = await openStore(db);
  try {
    const onProgress = interactive ? progressPrinter(process.stderr) : undefined;
    const summary = await importFolder(store, folder, onProgress ? { onProgress } : {});
    if (interactive) process.stderr.write('\n');
    return summary;
  } finally {
    await store.close();
  }
}

export async function importCommand(args: string[]): Promise<number> {
  const parsed = parseCommand(args, DB_OPTION, HELP);
  if (!parsed) return 0;
  if (parsed.positionals.length !== 1) throw new UsageError(`expected one bundle folder\n\n${HELP}`);
  const db = databaseSetting(parsed.values, process.env);
  try {
    const summary = await runImport(parsed.positionals[0]!, db, process.stderr.isTTY === true);
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
