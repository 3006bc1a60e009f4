import {
  canonicalToken,
  hashToken,
  newToken,
  TOKEN_ID_LENGTH,
  type TokenStore,
  tokenId,
} from '../auth/tokens.ts';
import { databaseSetting } from '../server/settings.ts';
import { openStore } from '../store/open-store.ts';
import { redactLocation } from '../store/postgres/url.ts';
import { DB_OPTION, parseCommand, UsageError } from './usage.ts';

const HELP = `Usage:
  scoop token create [--label LABEL] [--db PATH|URL]   print a new token (a GUID) alone on stdout
  scoop token list [--db PATH|URL]                     id, label, created, last used, revoked (never the token)
  scoop token revoke [ID|-] [--db PATH|URL]            revoke a token at once: by its id from \`list\`,
                                                       or the token read from stdin (no argument or -)

--db (or SCOOP_DB) is a SQLite file (default ./data/scoop.db) or a
postgres://user@host:5432/db[?schema=NAME] URL. Only a SHA-256 hash of each token is
stored; a token is shown once, when created. A token's id is the first ${TOKEN_ID_LENGTH} hex
characters of that hash. Give \`revoke\` the token on stdin, not as an argument, which
would stay in the shell's history (a token argument is still accepted).`;

/** A token id as `list` shows it; longer prefixes of the hash are accepted too. */
const TOKEN_ID = new RegExp(`^[0-9a-fA-F]{${TOKEN_ID_LENGTH},64}$`);

/** How many arguments each action takes at most (`revoke` without one reads stdin). */
const MOST_ARGUMENTS: ReadonlyMap<string, number> = new Map([
  ['create', 0],
  ['list', 0],
  ['revoke', 1],
]);

/** Refuses a wrong action or argument count before the store is opened, so a typo creates no database file. */
function checkUsage(action: string | undefined, rest: readonly string[]): void {
  const most = action === undefined ? undefined : MOST_ARGUMENTS.get(action);
  if (most === undefined) throw new UsageError(`expected create, list or revoke\n\n${HELP}`);
  if (rest.length > most) {
    const expected = most === 0 ? 'no arguments' : 'at most one id or token';
    throw new UsageError(`${action} takes ${expected}\n\n${HELP}`);
  }
}

export async function tokenCommand(args: string[]): Promise<number> {
  const parsed = parseCommand(args, { ...DB_OPTION, label: { type: 'string' } }, HELP);
  if (!parsed) return 0;
  const [action, ...rest] = parsed.positionals;
  checkUsage(action, rest);
  // Read and checked before the store is opened: a malformed argument is a usage error.
  const target = action === 'revoke' ? await revokeTarget(rest[0] ?? '-') : undefined;
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
          `${'id'.padEnd(TOKEN_ID_LENGTH)} ${'label'.padEnd(24)} ${'created'.padEnd(24)} ${'last used'.padEnd(24)} revoked\n`,
        );
        for (const t of tokens) {
          process.stdout.write(
            `${tokenId(t.hash)} ${(t.label || '-').padEnd(24)} ${t.createdAt.padEnd(24)} ${(t.lastUsedAt ?? '-').padEnd(24)} ${t.revokedAt ?? '-'}\n`,
          );
        }
        return 0;
      }
      case 'revoke':
        return await revoke(store, target!);
      default:
        throw new UsageError(`expected create, list or revoke\n\n${HELP}`);
    }
  } finally {
    await store.close();
  }
}

/** What `revoke` names: the hash of a token, or a prefix of a hash (a token id). */
type RevokeTarget = { readonly hash: Buffer } | { readonly id: string };

/** `argument` is `-` when the token comes from stdin. */
async function revokeTarget(argument: string): Promise<RevokeTarget> {
  if (argument === '-') {
    // On a terminal, say what the waiting is for.
    if (process.stdin.isTTY) process.stderr.write('scoop token revoke: the token to revoke, then Enter: ');
    const canonical = canonicalToken(await firstLine(process.stdin));
    if (!canonical) throw new UsageError('revoke: the first line of stdin is not a token (a GUID)');
    return { hash: hashToken(canonical) };
  }
  if (TOKEN_ID.test(argument)) return { id: argument.toLowerCase() };
  const canonical = canonicalToken(argument);
  // The argument is not echoed: it may be a mistyped token.
  if (!canonical) {
    throw new UsageError(
      `revoke: the argument is neither a token id (${TOKEN_ID_LENGTH} hex characters, from \`scoop token list\`) nor a token (a GUID)`,
    );
  }
  return { hash: hashToken(canonical) };
}

/** The text before the first line end (or all of it), read from `input` until then. */
async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  input.setEncoding('utf8');
  for await (const chunk of input) {
    text += chunk as string;
    const end = text.indexOf('\n');
    if (end >= 0) return text.slice(0, end);
  }
  return text;
}

async function revoke(store: TokenStore, target: RevokeTarget): Promise<number> {
  let hash: Buffer;
  if ('id' in target) {
    const matches = (await store.listTokens()).filter((t) => t.hash.toString('hex').startsWith(target.id));
    if (matches.length > 1) {
      process.stderr.write(
        `scoop token revoke: id ${target.id} matches ${matches.length} tokens; give more characters of the id, or the token on stdin\n`,
      );
      return 1;
    }
    if (matches.length === 0) {
      process.stderr.write(`scoop token revoke: no token has the id ${target.id}\n`);
      return 1;
    }
    hash = matches[0]!.hash;
  } else {
    hash = target.hash;
  }
  if (await store.revokeToken(hash, new Date().toISOString())) {
    process.stdout.write('revoked\n');
    return 0;
  }
  process.stderr.write('scoop token revoke: no active token matches\n');
  return 1;
}
