/**
 * The shared store: PostgreSQL, for several instances behind a load balancer. Reads run
 * in one REPEATABLE READ READ ONLY transaction that also selects the content version, so
 * one read is one import's state; an import is one transaction under an advisory lock
 * (two imports queue), and its NOTIFY tells every serving instance to drop its cache.
 */

import pg from 'pg';
import type { CacheObserver } from '../../cache/observer.ts';
import type { BinarySource } from '../../xml/binary.ts';
import type {
  ContentStore,
  ImportRuns,
  ImportTransaction,
  Snapshot,
  StoredRecord,
  StoreHealth,
} from '../content-store.ts';
import { schemaStatus } from '../migration-runner.ts';
import { RecordCache, type RecordSource } from '../record-cache.ts';
import { type AnswerRow, type RecordRow, storedAnswer, storedRecord } from '../record-rows.ts';
import { StoreTokens, TokenCommandsOf } from '../tokens.ts';
import { PostgresImportRuns } from './import-runs.ts';
import { PostgresImportTransaction } from './import-transaction.ts';
import { type PostgresLocation, parsePostgresLocation } from './location.ts';
import { appliedMigrations, lockKey, MIGRATIONS, migrate } from './migrations.ts';
import { PostgresPool } from './pool.ts';
import { PostgresTokenTable } from './tokens.ts';
import { PostgresVersionWatch } from './version-watch.ts';

const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

export interface PostgresStoreOptions {
  /** A serving process waits at most this long for a connection, then answers UNAVAILABLE. */
  readonly connectTimeoutMs?: number;
  /** Apply pending migrations when opening (default true; `scoop migrate` reports them itself). */
  readonly migrate?: boolean;
  readonly cacheBytes?: number;
  readonly cacheObserver?: CacheObserver;
  /** Told about connection trouble in the background (the pool's idle clients, the listener). */
  readonly onBackgroundError?: (error: unknown) => void;
  /** How often a serving store reads the content version besides listening (default 2 s). */
  readonly versionCheckMs?: number;
}

interface RecordRowWithChunk extends RecordRow {
  /** The only chunk, when there is just one. */
  readonly data: Buffer | null;
}

const SELECT_RECORD = `
  SELECT r.id, r.doc, r.blob_id, b.size, b.chunk_count, b.sha256, b.encoding, c.data
  FROM records r
  LEFT JOIN blobs b ON b.blob_id = r.blob_id
  LEFT JOIN blob_chunks c ON c.blob_id = b.blob_id AND c.seq = 0 AND b.chunk_count = 1`;

/** As SQLite's `CAST(id AS INTEGER), id`: by the leading integer (0 for none), then bytewise. */
const BY_NUMERIC_ID = `ORDER BY COALESCE(substring(r.id from '^-?[0-9]{1,18}')::bigint, 0), r.id COLLATE "C"`;

const VERSION = "SELECT value FROM meta WHERE key = 'content_version'";
const TOKENS_VERSION = "SELECT value FROM meta WHERE key = 'tokens_version'";

export class PostgresStore extends TokenCommandsOf implements ContentStore {
  private readonly pool: PostgresPool;
  private readonly cache: RecordCache;
  private readonly watch: PostgresVersionWatch;
  /** Token changes, watched as content is: a revocation reaches every instance at once. */
  private readonly tokenWatch: PostgresVersionWatch;
  private readonly runs: PostgresImportRuns;
  protected readonly tokens: StoreTokens;

  /** Opens the store, migrating it first unless told not to. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const store = new PostgresStore(parsePostgresLocation(url), options);
    try {
      if (options.migrate !== false) await store.migrate();
      return store;
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  private constructor(
    readonly location: PostgresLocation,
    options: PostgresStoreOptions,
  ) {
    super();
    const onError = options.onBackgroundError ?? (() => undefined);
    const config: pg.ClientConfig = { ...location.config, keepAlive: true };
    this.pool = new PostgresPool(config, { connectTimeoutMs: options.connectTimeoutMs ?? 10_000, onError });
    const watchOptions = {
      newClient: () =>
        new pg.Client({ ...config, connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000 }),
      onError,
      ...(options.versionCheckMs ? { checkEveryMs: options.versionCheckMs } : {}),
    };
    this.watch = new PostgresVersionWatch({
      ...watchOptions,
      channel: location.channel,
      check: () => this.contentVersion(),
    });
    this.tokenWatch = new PostgresVersionWatch({
      ...watchOptions,
      channel: location.tokenChannel,
      check: async () => Number((await this.pool.query<{ value: string }>(TOKENS_VERSION)).rows[0]!.value),
    });
    this.runs = new PostgresImportRuns(this.pool);
    // Only once committed: this process sees its own token change at once.
    this.tokens = new StoreTokens(new PostgresTokenTable(this.pool, location.tokenChannel), (version) =>
      this.tokenWatch.observe(version),
    );
    this.cache = new RecordCache(
      this.source,
      options.cacheBytes ?? DEFAULT_CACHE_BYTES,
      options.cacheObserver,
    );
  }

  private toRecord(row: RecordRowWithChunk): StoredRecord {
    return storedRecord(row, this.readChunk, row.data ?? undefined);
  }

  /**
   * One pooled query per chunk and no transaction held between them: blobs are
   * content-addressed and an import deletes one only a grace period after the last record
   * stopped using it (import.ts collectBlobs), so the rows stay put while a reader streams.
   */
  private readonly readChunk = async (blobId: number, seq: number) => {
    const { rows } = await this.pool.query<{ data: Buffer }>(
      { name: 'scoop_chunk', text: 'SELECT data FROM blob_chunks WHERE blob_id = $1 AND seq = $2' },
      [blobId, seq],
    );
    return rows[0]?.data;
  };

  private snapshotOn(client: pg.PoolClient): Snapshot {
    const rows = async (name: string, text: string, values: unknown[]) =>
      (await client.query<RecordRowWithChunk>({ name, text, values })).rows;
    return {
      get: async (kind, id) => {
        const [row] = await rows('scoop_get', `${SELECT_RECORD} WHERE r.kind = $1 AND r.id = $2`, [kind, id]);
        return row ? this.toRecord(row) : undefined;
      },
      getMany: async (kind, ids) => {
        const found = new Map<string, StoredRecord>();
        if (ids.length === 0) return found;
        const list = await rows('scoop_get_many', `${SELECT_RECORD} WHERE r.kind = $1 AND r.id = ANY($2)`, [
          kind,
          [...new Set(ids)],
        ]);
        for (const row of list) found.set(row.id, this.toRecord(row));
        return found;
      },
      all: async (kind) =>
        (await rows('scoop_all', `${SELECT_RECORD} WHERE r.kind = $1 ${BY_NUMERIC_ID}`, [kind])).map(
          (row) => ({
            id: row.id,
            record: this.toRecord(row),
          }),
        ),
      answer: async (operation, key, layout, format) => {
        const { rows: found } = await client.query<AnswerRow>({
          name: `scoop_answer_${layout}`,
          text: `SELECT ${layout} AS fragment, visible_from, visible_until FROM answers WHERE operation = $1 AND key = $2 AND format = $3`,
          values: [operation, key, format],
        });
        return storedAnswer(found[0]);
      },
    };
  }

  private readonly source: RecordSource = {
    knownVersion: () => this.watch.current(),
    // The snapshot is taken at the transaction's first statement, the version's SELECT:
    // every later statement of the read sees that version's rows and no other.
    consistent: (read) =>
      this.pool.inTransaction(async (client) => {
        const { rows } = await client.query<{ value: string }>({ name: 'scoop_version', text: VERSION });
        const version = Number(rows[0]!.value);
        this.watch.observe(version);
        return read(this.snapshotOn(client), version);
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'),
  };

  async read<T>(read: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    return this.cache.read(read);
  }

  knownVersion(): Promise<number> {
    return this.watch.current();
  }

  async contentVersion(): Promise<number> {
    const { rows } = await this.pool.query<{ value: string }>(VERSION);
    return Number(rows[0]!.value);
  }

  async largeBinaries(minBytes: number): Promise<BinarySource[]> {
    const { rows } = await this.pool.query<RecordRowWithChunk>(`${SELECT_RECORD} WHERE b.size >= $1`, [
      minBytes,
    ]);
    return rows.flatMap((row) => this.toRecord(row).blob?.source ?? []);
  }

  async binaryInUse(sha256: string): Promise<boolean> {
    // Orphaned blobs (no record since the last import) wait for their sweep; they are not in use.
    const { rows } = await this.pool.query('SELECT 1 FROM blobs WHERE sha256 = $1 AND orphaned_at IS NULL', [
      sha256,
    ]);
    return rows.length > 0;
  }

  async migrate(): Promise<number[]> {
    return this.pool.withClient((client) => migrate(client, this.location.schema));
  }

  async health(): Promise<StoreHealth> {
    return this.pool.withClient(async (client) => {
      const { migrated, schemaVersion, latestSchemaVersion } = schemaStatus(
        MIGRATIONS,
        await appliedMigrations(client),
      );
      if (!migrated) return { schemaVersion, latestSchemaVersion };
      const { rows } = await client.query<{ value: string }>(VERSION);
      return { schemaVersion, latestSchemaVersion, contentVersion: Number(rows[0]!.value) };
    });
  }

  /**
   * One transaction on one connection. The advisory lock, held until commit or rollback,
   * makes a second import wait for the first instead of interleaving with it.
   */
  async importTransaction<T>(work: (tx: ImportTransaction) => Promise<T>): Promise<T> {
    let tx: PostgresImportTransaction | undefined;
    const result = await this.pool.inTransaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        lockKey('import', this.location.schema),
      ]);
      tx = new PostgresImportTransaction(client, this.location.channel);
      return work(tx);
    });
    // Committed: this process sees its own import at once, without waiting for its notification.
    const committed = tx?.bumpedTo;
    if (committed !== undefined) this.watch.observe(committed);
    return result;
  }

  async importRuns(): Promise<ImportRuns> {
    return this.runs.summary();
  }

  async recordRefusedImport(finishedAt: string, detail: string): Promise<void> {
    await this.runs.recordRefused(finishedAt, detail);
  }

  knownTokensVersion(): Promise<number> {
    return this.tokenWatch.current();
  }

  peekVersion(): number | undefined {
    return this.watch.peek();
  }

  peekTokensVersion(): number | undefined {
    return this.tokenWatch.peek();
  }

  async close(): Promise<void> {
    await Promise.all([this.watch.close(), this.tokenWatch.close()]);
    await this.pool.end();
  }
}
