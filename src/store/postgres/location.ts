/**
 * Where a PostgreSQL store lives: a `postgres://` (or `postgresql://`) URL as libpq and
 * node-postgres read it, plus scoop's own `schema` parameter naming the schema that holds
 * scoop's tables (default `public`). Every connection sets `search_path` to that schema
 * when it starts, so statements name tables unqualified and one database can hold several
 * deployments, or a test run's throw-away schema.
 */
import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import pg from 'pg';
import { StoreLocationError } from '../content-store.ts';
import { redactLocation } from './url.ts';

/** bigint columns (sizes, times, versions) as numbers, not node-postgres's default strings. */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: (id, format) =>
    id === pg.types.builtins.INT8 && format !== 'binary' ? Number : pg.types.getTypeParser(id, format),
};

/** Lower-case, unquoted identifiers only: `search_path` would fold anything else. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** PostgreSQL truncates identifiers, channel names included, to NAMEDATALEN - 1 bytes; pg_notify refuses longer ones. */
const MAX_CHANNEL_BYTES = 63;

export interface PostgresLocation {
  /** For node-postgres: the URL without `schema`, with search_path, a default user, bigint as number. */
  readonly config: pg.ClientConfig;
  readonly schema: string;
  /**
   * LISTEN/NOTIFY channel of content-version changes: one per schema, so deployments
   * sharing a database do not hear each other (see `channelName`).
   */
  readonly channel: string;
  /** The channel of token changes (created, revoked), likewise per schema. */
  readonly tokenChannel: string;
  /** The URL without its password, for logs and messages. */
  readonly shown: string;
}

export function parsePostgresLocation(location: string): PostgresLocation {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw new StoreLocationError(`Not a valid PostgreSQL URL: ${redactLocation(location)}`);
  }
  const schema = url.searchParams.get('schema') ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new StoreLocationError(
      `schema=${JSON.stringify(schema)}: a schema name is lower-case letters, digits and _ (at most 63, not starting with a digit)`,
    );
  }
  url.searchParams.delete('schema');
  // A connection-string `options` would replace ours wholesale (node-postgres lets the URL win), so both go together.
  const options = [url.searchParams.get('options'), `-c search_path=${schema}`].filter(Boolean).join(' ');
  url.searchParams.delete('options');
  // libpq's default user, which node-postgres takes from $USER only (CI may not set it). In
  // the URL itself: whatever the URL leaves out, node-postgres lets it override the config.
  if (!url.username && !url.searchParams.has('user')) {
    const user = process.env.PGUSER || userInfo().username;
    url.username = encodeURIComponent(user);
    // A URL without a host (a Unix socket given as ?host=) cannot carry a user name.
    if (!url.username) url.searchParams.set('user', user);
  }
  return {
    config: { connectionString: url.toString(), options, application_name: 'scoop', types: TYPES },
    schema,
    channel: channelName('scoop_content', schema),
    tokenChannel: channelName('scoop_tokens', schema),
    shown: redactLocation(location),
  };
}

/**
 * `<prefix>.<schema>` (just `<prefix>` for `public`) while that fits in a channel name;
 * past 63 bytes pg_notify fails and LISTEN would listen on a truncated name, so a long
 * schema gets `<prefix>#<hash of the schema>` instead. `#` is never part of a schema
 * name, so a hashed channel cannot be another schema's plain one.
 */
export function channelName(prefix: string, schema: string): string {
  if (schema === 'public') return prefix;
  const plain = `${prefix}.${schema}`;
  if (Buffer.byteLength(plain) <= MAX_CHANNEL_BYTES) return plain;
  return `${prefix}#${createHash('sha256').update(schema).digest('hex').slice(0, 32)}`;
}
