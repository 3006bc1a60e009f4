/**
 * The shared store: PostgreSQL, for several instances behind a load balancer. A read is
 * vouched for as one import's state by the content versions its statements saw (a
 * prepared answer selects it with its blobs, in one statement; read-versions.ts), and is
 * made again when an import committed in its midst; an import is one transaction under
 * an advisory lock (two imports queue), and its NOTIFY tells every serving instance to
 * drop its cache.
 */

import pg from 'pg';
import type { CacheObserver } from '../../cache/observer.ts';
import type { BinarySource } from '../../xml/binary.ts';
import { type ChangeRow, type ChangesSince, changesSince, type VersionMark } from '../answer-changes.ts';
import { CHUNK_BYTES } from '../blob-chunks.ts';
import type {
  AnswerKey,
  AnswerPage,
  ContentStore,
  ImportRuns,
  ImportTransaction,
  Snapshot,
  StoredBlob,
  StoredRecord,
  StoreHealth,
} from '../content-store.ts';
import { schemaStatus } from '../migration-runner.ts';
import { type ReadVersions, vouchedRead } from '../read-versions.ts';
import { DEFAULT_RECORD_CACHE_BYTES, RecordCache, type RecordSource } from '../record-cache.ts';
import {
  type AnswerRow,
  answerPage,
  blobReference,
  type PagedAnswerRow,
  type RecordRow,
  storedAnswer,
  storedBlob,
  storedRecord,
} from '../record-rows.ts';
import { StoreTokens, TokenCommandsOf } from '../tokens.ts';
import { AnswerBatch, type BatchShape, type NumberedRow } from './answer-batch.ts';
import { PostgresImportRuns } from './import-runs.ts';
import { PostgresImportTransaction } from './import-transaction.ts';
import { type PostgresLocation, parsePostgresLocation } from './location.ts';
import { appliedMigrations, lockKey, MIGRATIONS, migrate } from './migrations.ts';
import { PostgresPool } from './pool.ts';
import { PostgresTokenTable } from './tokens.ts';
import { PostgresVersionWatch } from './version-watch.ts';

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

/**
 * A chunk as a row carries it. node-postgres reads every value as text, so a bytea costs
 * twice its size on the wire and a hex decode; a chunk stored as base64 is ASCII, so it is
 * sent as text (`text`) and taken as it is, and only a raw chunk (stored by versions
 * before base64) comes as bytea (`data`).
 */
interface ChunkColumns {
  readonly text: string | null;
  readonly data: Buffer | null;
}

const CHUNK_COLUMNS = (chunk: string, blob: string) =>
  `CASE WHEN ${blob}.encoding = 'base64' THEN convert_from(${chunk}.data, 'UTF8') END AS text, CASE WHEN ${blob}.encoding <> 'base64' THEN ${chunk}.data END AS data`;

function chunkOf(row: Partial<ChunkColumns> | undefined): Buffer | undefined {
  if (!row) return undefined;
  return typeof row.text === 'string' ? Buffer.from(row.text, 'latin1') : (row.data ?? undefined);
}

/**
 * A streamed chunk of a large binary, its base64 in pieces of 64 KiB. One string of a
 * chunk (256 KiB) would be over V8's 128 KiB for a young object, so it would go to the
 * large-object space and stay there until a full collection: streaming a 48 MB binary
 * held tens of MB of spent chunks. Pieces are young strings that a scavenge frees.
 */
const PIECE_BYTES = 64 * 1024;
const PIECES = Array.from({ length: Math.ceil(CHUNK_BYTES / PIECE_BYTES) }, (_, i) => `p${i}`);
const PIECED_CHUNK_COLUMNS = [
  "CASE WHEN b.encoding <> 'base64' THEN c.data END AS data",
  ...PIECES.map(
    (name, i) =>
      `CASE WHEN b.encoding = 'base64' THEN convert_from(substring(c.data from ${i * PIECE_BYTES + 1} for ${PIECE_BYTES}), 'UTF8') END AS ${name}`,
  ),
].join(', ');

type PiecedChunk = { readonly data: Buffer | null } & Readonly<Record<string, string | Buffer | null>>;

function pieced(row: PiecedChunk | undefined): Buffer | undefined {
  if (!row) return undefined;
  if (row.data !== null) return row.data;
  return Buffer.concat(PIECES.map((name) => Buffer.from((row[name] as string | null) ?? '', 'latin1')));
}

interface RecordRowWithChunk extends RecordRow, ChunkColumns {}
type BlobRow = Omit<RecordRowWithChunk, 'id' | 'doc'>;

const BLOB_REFERENCE_COLUMNS = 'b.blob_id, b.size, b.chunk_count, b.sha256, b.encoding';
const BLOB_COLUMNS = `${BLOB_REFERENCE_COLUMNS}, ${CHUNK_COLUMNS('c', 'b')}`;
/** A blob's (`b`) chunk, when it has one only. */
const ONE_CHUNK = 'LEFT JOIN blob_chunks c ON c.blob_id = b.blob_id AND c.seq = 0 AND b.chunk_count = 1';

/**
 * A row of a prepared answer's lookup (answersWithBlobs). The fragment comes as base64: a
 * third more than its bytes on the wire and a fast decode, where a bytea's hex is twice.
 */
interface AnswerWithBlobsRow extends Omit<AnswerRow, 'fragment'>, BlobRow, NumberedRow {
  readonly content_version: string;
  readonly fragment: string | null;
  readonly listed_blob: number | null;
}

/**
 * The prepared answers of a batch (answer-batch.ts) with the content version and the blobs
 * each lists, in one statement: per lookup (`n`), a row per blob in the fragment's order,
 * the fragment in the first only, or one row with nulls when there is no such answer.
 */
const answersWithBlobs = ({ chunks }: BatchShape) => `
  SELECT q.n, m.value AS content_version,
    CASE WHEN u.ord IS NULL OR u.ord = 1 THEN encode(a.compact, 'base64') END AS fragment,
    a.visible_from, a.visible_until, u.blob_id AS listed_blob,
    ${chunks ? BLOB_COLUMNS : `${BLOB_REFERENCE_COLUMNS}, NULL AS text, NULL AS data`}
  FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS q (operation, key, format, n)
  CROSS JOIN meta m
  LEFT JOIN answers a ON a.operation = q.operation AND a.key = q.key AND a.format = q.format
  LEFT JOIN LATERAL unnest(a.blob_ids) WITH ORDINALITY AS u (blob_id, ord) ON true
  LEFT JOIN blobs b ON b.blob_id = u.blob_id
  ${chunks ? ONE_CHUNK : ''}
  WHERE m.key = 'content_version'
  ORDER BY q.n, u.ord`;

const RECORD_COLUMNS = 'r.id, r.doc, r.blob_id, b.size, b.chunk_count, b.sha256, b.encoding';
const RECORDS_WITH_BLOBS = 'FROM records r LEFT JOIN blobs b ON b.blob_id = r.blob_id';

const SELECT_RECORD = `
  SELECT ${RECORD_COLUMNS}, ${CHUNK_COLUMNS('c', 'b')}
  ${RECORDS_WITH_BLOBS}
  ${ONE_CHUNK}`;

/** As SQLite's `CAST(id AS INTEGER), id`: by the leading integer (0 for none), then bytewise. */
const BY_NUMERIC_ID = `ORDER BY COALESCE(substring(r.id from '^-?[0-9]{1,18}')::bigint, 0), r.id COLLATE "C"`;

/** A version and the records it picks, or one row with nulls when none matches. */
interface VersionedRow extends Partial<RecordRowWithChunk> {
  readonly content_version: string;
}

/**
 * The records of kind $1 that `which` picks, with their blobs (and their one chunks with
 * `chunks`) and the content version, in one statement that vouches for itself
 * (read-versions.ts): a read of records needs no statements of the version around it.
 */
const versionedRecords = (which: string, chunks: boolean, order = '') => `
  SELECT m.value AS content_version, ${RECORD_COLUMNS},
    ${chunks ? CHUNK_COLUMNS('c', 'b') : 'NULL AS text, NULL AS data'}
  FROM meta m
  LEFT JOIN records r ON r.kind = $1 AND ${which}
  LEFT JOIN blobs b ON b.blob_id = r.blob_id
  ${chunks ? ONE_CHUNK : ''}
  WHERE m.key = 'content_version' ${order}`;

/** A blob by its id ($1), the same way. */
const versionedBlob = (chunks: boolean) => `
  SELECT m.value AS content_version, ${chunks ? BLOB_COLUMNS : BLOB_REFERENCE_COLUMNS}
  FROM meta m
  LEFT JOIN blobs b ON b.blob_id = $1
  ${chunks ? ONE_CHUNK : ''}
  WHERE m.key = 'content_version'`;

const VERSION = "SELECT value FROM meta WHERE key = 'content_version'";
/**
 * PostgreSQL's text holds no NUL (SQLSTATE 22021 for a value with one), so no record or
 * answer has an id or key with it: one asked for is not there, without a statement.
 */
const NUL = '\u0000';
const TOKENS_VERSION = "SELECT value FROM meta WHERE key = 'tokens_version'";
/** answerPage's statement: its answers in base64, as the answer lookups read them (cheaper than bytea's hex). */
const ANSWER_PAGE = `SELECT m.value AS content_version, a.operation, a.key, encode(a.compact, 'base64') AS compact,
  a.visible_from, a.visible_until
  FROM meta m LEFT JOIN (SELECT * FROM answers WHERE format = $1 AND (operation, key) > ($2, $3)
    ORDER BY operation, key LIMIT $4) a ON true
  WHERE m.key = 'content_version' ORDER BY a.operation, a.key`;

export class PostgresStore extends TokenCommandsOf implements ContentStore {
  private readonly pool: PostgresPool;
  private readonly cache: RecordCache;
  private readonly watch: PostgresVersionWatch;
  /** Token changes, watched as content is: a revocation reaches every instance at once. */
  private readonly tokenWatch: PostgresVersionWatch;
  private readonly runs: PostgresImportRuns;
  protected readonly tokens: StoreTokens;
  /** The prepared-answer lookups of one turn, in one statement. */
  private readonly answers = new AnswerBatch<AnswerWithBlobsRow>(async (shape, operations, keys, formats) => {
    const name = `scoop_answers${shape.chunks ? '' : '_references'}`;
    const text = answersWithBlobs(shape);
    return (await this.pool.query<AnswerWithBlobsRow>({ name, text }, [operations, keys, formats])).rows;
  });

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
      options.cacheBytes ?? DEFAULT_RECORD_CACHE_BYTES,
      options.cacheObserver,
    );
  }

  private toRecord(row: RecordRow & Partial<ChunkColumns>): StoredRecord {
    return storedRecord(row, this.readChunk, chunkOf(row));
  }

  /**
   * One pooled query per chunk and no transaction held between them: blobs are
   * content-addressed and an import deletes one only a grace period after the last record
   * stopped using it (import.ts collectBlobs), so the rows stay put while a reader streams.
   */
  private readonly readChunk = async (blobId: number, seq: number) => {
    const { rows } = await this.pool.query<PiecedChunk>(
      {
        name: 'scoop_chunk',
        text: `SELECT ${PIECED_CHUNK_COLUMNS} FROM blob_chunks c JOIN blobs b ON b.blob_id = c.blob_id WHERE c.blob_id = $1 AND c.seq = $2`,
      },
      [blobId, seq],
    );
    return pieced(rows[0]);
  };

  /**
   * A read's statements, each on whichever pooled connection is free as it runs: every one
   * selects the content version with its rows, so none needs another's connection, and a
   * read that waits for the answer batch holds no connection the batch could need.
   */
  private snapshotOn(versions: ReadVersions): Snapshot {
    /** The rows of a statement that selects the version with them (versionedRecords, versionedBlob). */
    const versioned = async (name: string, text: string, values: unknown[]) => {
      const { rows } = await this.pool.query<VersionedRow>({ name, text }, values);
      versions.saw(Number(rows[0]!.content_version));
      return rows;
    };
    const records = async (name: string, text: string, values: unknown[]) =>
      (await versioned(name, text, values)).filter(
        (row): row is VersionedRow & RecordRowWithChunk => row.id != null,
      );
    /** Blobs read with a prepared answer: asked for next, they need no statement of their own. */
    const withAnswer = new Map<number, StoredBlob | undefined>();
    /** Whether those were read with their chunks (else they answer only `blob(id, false)`). */
    let withChunks = true;
    const blobOf = (row: BlobRow | undefined, readChunk = true) => {
      const reference = row && blobReference(row);
      if (!readChunk) return reference && storedBlob(reference, this.readChunk);
      const data = chunkOf(row);
      if (!reference || (reference.chunkCount === 1 && !data)) return undefined;
      return storedBlob(reference, this.readChunk, data);
    };
    return {
      get: async (kind, id, readChunk = true) => {
        if (id.includes(NUL)) return undefined;
        const [row] = await records(
          readChunk ? 'scoop_get' : 'scoop_get_reference',
          versionedRecords('r.id = $2', readChunk),
          [kind, id],
        );
        return row ? this.toRecord(row) : undefined;
      },
      getMany: async (kind, ids) => {
        const found = new Map<string, StoredRecord>();
        if (ids.length === 0) return found;
        const wanted = [...new Set(ids)].filter((id) => !id.includes(NUL));
        if (wanted.length === 0) return found;
        const list = await records('scoop_get_many', versionedRecords('r.id = ANY($2)', true), [
          kind,
          wanted,
        ]);
        for (const row of list) found.set(row.id, this.toRecord(row));
        return found;
      },
      all: async (kind) =>
        (await records('scoop_all', versionedRecords('true', true, BY_NUMERIC_ID), [kind])).map((row) => ({
          id: row.id,
          record: this.toRecord(row),
        })),
      blob: async (blobId, readChunk = true) => {
        if (withAnswer.has(blobId) && (withChunks || !readChunk)) return withAnswer.get(blobId);
        const [row] = await versioned(
          readChunk ? 'scoop_blob' : 'scoop_blob_reference',
          versionedBlob(readChunk),
          [blobId],
        );
        return blobOf(row as BlobRow, readChunk);
      },
      answer: async (operation, key, format, readChunks = true) => {
        // In a batch, a key PostgreSQL refuses would fail the statement of every lookup in it.
        if (key.includes(NUL)) return undefined;
        const found = await this.answers.lookup({ chunks: readChunks }, operation, key, format);
        versions.saw(Number(found[0]!.content_version));
        const [first] = found;
        if (!first || first.fragment === null) return undefined;
        withChunks = readChunks;
        for (const row of found)
          if (row.listed_blob !== null) withAnswer.set(row.listed_blob, blobOf(row, readChunks));
        return storedAnswer({ ...first, fragment: Buffer.from(first.fragment, 'base64') });
      },
    };
  }

  private readonly source: RecordSource = {
    knownVersion: () => this.watch.current(),
    // No REPEATABLE READ transaction: it cost two round trips more (BEGIN, COMMIT) on every
    // read that missed the record cache (read-versions.ts says how a read is one version's).
    consistent: async (read) => {
      const done = await vouchedRead(
        async () =>
          Number(
            (await this.pool.query<{ value: string }>({ name: 'scoop_version', text: VERSION })).rows[0]!
              .value,
          ),
        (versions) => read(this.snapshotOn(versions)),
      );
      this.watch.observe(done.version);
      return done;
    },
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

  async answerPage(format: string, after: AnswerKey | undefined, limit: number): Promise<AnswerPage> {
    const { rows } = await this.pool.query<Omit<PagedAnswerRow, 'compact'> & { compact: string | null }>(
      { name: 'scoop_answer_page', text: ANSWER_PAGE },
      [format, after?.operation ?? '', after?.key ?? '', limit],
    );
    return answerPage(
      rows.map((row) => ({
        ...row,
        compact: row.compact === null ? null : Buffer.from(row.compact, 'base64'),
      })),
    );
  }

  async answerChanges(since: VersionMark | undefined): Promise<ChangesSince> {
    // One statement: the version and the rows of one state of the store.
    const { rows } = await this.pool.query<{
      current: string;
      version: string | null;
      token: string | null;
      changes: string | null;
    }>(
      `SELECT m.value AS current, c.version, c.token, c.changes FROM meta m
        LEFT JOIN content_changes c ON c.version >= COALESCE($1::bigint, m.value::bigint)
        WHERE m.key = 'content_version' ORDER BY c.version`,
      [since?.version ?? null],
    );
    const found = rows.flatMap(({ version, token, changes }): ChangeRow[] =>
      version === null || token === null ? [] : [{ version, token, changes }],
    );
    return changesSince(Number(rows[0]!.current), since, found);
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
