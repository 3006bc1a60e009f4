import { canonicalToken, hashToken, newToken } from '../auth/tokens.ts';
import { databaseSetting } from '../server/settings.ts';
import { openStore } from '../store/open-store.ts';
import { redactLocation } from '../store/postgres/location.ts';
import { DB_OPTION, parseCommand, UsageError } from './usage.ts';

const HELP = `Usage:
  scoop token create [--label LABEL] [--db PATH|URL]   print a new token (a GUID) alone on stdout
  scoop token list [--db PATH|URL]                     label, created, last used, revoked (never the token)
  scoop token revoke <token> [--db PATH|URL]           revoke a token at once

--db (or SCOOP_DB) is a SQLite file (default ./data/scoop.db) or a
postgres://user@host:5432/db[?schema=NAME] URL. Only a SHA-256 hash of each token is
stored; a token is shown once, when created.`;

/** How many arguments each action takes. */
const ARITY: ReadonlyMap<string, number> = new Map([
  ['create', 0],
  ['list', 0],
  ['revoke', 1],
]);

/** Refuses a wrong action or argument count before the store is opened, so a typo creates no database file. */
function checkUsage(action: string | undefined, rest: readonly string[]): void {
  const arity = action === undefined ? undefined : ARITY.get(action);
  if (arity === undefined) throw new UsageError(`expected create, list or revoke\n\n${HELP}`);
  if (rest.length !== arity) {
    const expected = arity === 0 ? 'no arguments' : 'one token';
    throw new UsageError(`${action} takes ${expected}\n\n${HELP}`);
  }
}

export async function tokenCommand(args: string[]): Promise<number> {
  const parsed = parseCommand(args, { ...DB_OPTION, label: { type: 'string' } }, HELP);
  if (!parsed) return 0;
  const [action, ...rest] = parsed.positionals;
  checkUsage(action, rest);
  const db = databaseSetting(parsed.values, process.env);
  // A typo in --db must not quietly make an empty store and list no tokens.
  const store = await openStore(db, { create: false });
  // stderr, so `TOKEN=$(scoop token create)` still captures the token alone.
  process.stderr.write(`scoop token: store ${redactLocation(db)}\n`);
  try {
    switch (action) {
      case 'create': {
        const token = newToken();
        const label = typeof parsed.values.label === 'string' ? parsed.values.label : '';
        await store.addToken(hashToken(token), label, new Date().toISOString());
        process.stdout.write(`${token}\n`);
        return 0;
      }
      case 'list': {
        const tokens = await store.listTokens();
        process.stdout.write(
          `${'label'.padEnd(24)} ${'created'.padEnd(24)} ${'last used'.padEnd(24)} revoked\n`,
        );
        for (const t of tokens) {
          process.stdout.write(
            `${(t.label || '-').padEnd(24)} ${t.createdAt.padEnd(24)} ${(t.lastUsedAt ?? '-').padEnd(24)} ${t.revokedAt ?? '-'}\n`,
          );
        }
        return 0;
      }
      case 'revoke': {
        const canonical = canonicalToken(rest[0]!);
        if (canonical && (await store.revokeToken(hashToken(canonical), new Date().toISOString()))) {
          process.stdout.write('revoked\n');
          return 0;
        }
        process.stderr.write('scoop token revoke: no active token matches\n');
        return 1;
      }
      default:
        throw new UsageError(`expected create, list or revoke\n\n${HELP}`);
    }
  } finally {
    await store.close();
  }
}
