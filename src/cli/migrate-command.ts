import { databaseSetting } from '../server/settings.ts';
import { openStore } from '../store/open-store.ts';
import { redactLocation } from '../store/postgres/url.ts';
import { DB_OPTION, parseCommand, UsageError } from './usage.ts';

const HELP = `Usage: scoop migrate [--create] [--db PATH|URL]

Brings the store's schema to the latest version this build knows and prints it. Safe to
run while instances are serving and from several places at once: with PostgreSQL an
advisory lock lets one run migrate while the others wait. \`serve\` (and every other
command) migrates when it opens the store too; run this as a release step to do it
before new instances start. A SQLite file that does not exist is refused (a typo in --db
would otherwise make an empty store) unless --create says to make it.

Options:
  --create        make the SQLite store if it does not exist yet
  --db PATH|URL   SQLite file or postgres://user@host:5432/db[?schema=NAME]
                  (default ./data/scoop.db, or SCOOP_DB)`;

export async function migrateCommand(args: string[]): Promise<number> {
  const parsed = parseCommand(args, { ...DB_OPTION, create: { type: 'boolean' } }, HELP);
  if (!parsed) return 0;
  if (parsed.positionals.length > 0)
    throw new UsageError(`unexpected argument ${parsed.positionals[0]}\n\n${HELP}`);
  const db = databaseSetting(parsed.values, process.env);
  // Migrating a store that is not there would create an empty one (a typo in --db).
  const create = parsed.values.create === true;
  const store = await openStore(db, {
    migrate: false,
    create,
    onCreated: (file) => process.stderr.write(`scoop migrate: created a new store at ${file}\n`),
  });
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
