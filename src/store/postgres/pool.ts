/**
 * The PostgreSQL store's connections: one pool, whose connection failures become
 * StoreUnavailableError and whose failed connections are discarded, not reused.
 */
import pg from 'pg';
import { isConnectionError, storeError, unavailableOnConnectionError } from './connection-errors.ts';

const POOL_SIZE = 10;

export interface PostgresPoolOptions {
  /** How long to wait for a connection before answering UNAVAILABLE. */
  readonly connectTimeoutMs: number;
  /** Told about connections cut while idle. */
  readonly onError: (error: unknown) => void;
}

export class PostgresPool {
  private readonly pool: pg.Pool;

  constructor(config: pg.ClientConfig, options: PostgresPoolOptions) {
    this.pool = new pg.Pool({ ...config, max: POOL_SIZE, connectionTimeoutMillis: options.connectTimeoutMs });
    // A connection that is cut (a server restart, pg_terminate_backend) makes its client
    // emit 'error', idle or checked out; unhandled, that would end the process. The pool
    // drops an idle one (and reports it here); a checked-out one fails its query, and
    // withClient discards it.
    this.pool.on('error', options.onError);
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  /** A pooled connection for `work`; one that failed at the connection level is discarded, not reused. */
  async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await unavailableOnConnectionError(() => this.pool.connect());
    let failure: Error | undefined;
    try {
      return await work(client);
    } catch (error) {
      if (isConnectionError(error)) failure = error as Error;
      throw storeError(error);
    } finally {
      client.release(failure);
    }
  }

  /** A statement on any pooled connection; a named one is parsed once per connection. */
  query<R extends pg.QueryResultRow>(
    text: string | { name: string; text: string },
    values: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    const config = typeof text === 'string' ? { text, values } : { ...text, values };
    return unavailableOnConnectionError(() => this.pool.query<R>(config));
  }

  /**
   * `work` in one transaction on one pooled connection: committed when it resolves, rolled
   * back when it throws (unless the connection itself failed, which ends the transaction).
   */
  inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    return this.withClient(async (client) => {
      await client.query(begin);
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        if (!isConnectionError(error)) await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  end(): Promise<void> {
    return this.pool.end().catch(() => undefined);
  }
}
