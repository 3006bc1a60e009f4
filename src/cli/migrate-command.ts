import { databaseSetting } from '../server/settings.ts';
import { openStore } from '../store/open-store.ts';
import { redactLocation } from '../store/postgres/location.ts';
import { DB_OPTION, parseCommand, UsageError } from './usage.ts';

const HELP = `Usage: scoop migrate [--db PATH|URL]

Brings the store's schema to the latest version this build knows and prints it. Safe to
run while instances are serving and from several places at once: with PostgreSQL an
advisory lock lets one run migrate while the others wait. \`serve\` (and every other
command) migrates when it opens the store too; run this as a release step to do it
before new instances start.

Options:
  --db PATH|URL   SQLite file or postgres://user@host:5432/db[?schema=NAME]
                  (default ./data/scoop.db, or SCOOP_DB)`;

export async function migrateCommand(args: string[]): Promise<number> {
  const parsed = parseCommand(args, DB_OPTION, HELP);
  if (!parsed) return 0;
  if (parsed.positionals.length > 0)
    throw new UsageError(`unexpected argument ${parsed.positionals[0]}\n\n${HELP}`);
  const db = databaseSetting(parsed.values, process.env);
  // Migrating a store that is not there would create an empty one (a typo in --db).
  const store = await openStore(db, { migrate: false, create: false });
  try {
    const applied = await store.migrate();
    const { schemaVersion } = await store.health();
    const what = applied.length > 0 ? `applied ${applied.join(', ')}` : 'nothing to apply';
    process.stdout.write(`${redactLocation(db)}: schema version ${schemaVersion} (${what})\n`);
    return 0;
  } finally {
    await store.close();
  }
}
