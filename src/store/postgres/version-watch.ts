/**
 * How a serving process learns that another process imported: every import runs
 * `NOTIFY <channel>, '<version>'` in its transaction, so PostgreSQL tells every listener
 * the moment it commits. Notifications are lost while the listening connection is down,
 * and a silently dead connection hears nothing, so the version is also read every
 * CHECK_EVERY_MS, and at once after a reconnect.
 *
 * The version is trusted for TRUST_FOR_MS after it was last confirmed (a notification, a
 * check, or a read that saw it); past that a read checks first and, with the database
 * unreachable, fails (UNAVAILABLE) rather than answer from a cache that may be stale.
 */
import type pg from 'pg';
import { unavailableOnConnectionError } from './connection-errors.ts';

const CHECK_EVERY_MS = 2000;
const TRUST_FOR_MS = 5000;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 2000;

export interface PostgresVersionWatchOptions {
  readonly channel: string;
  /** A new, unconnected client for LISTEN: a connection of its own, outside the pool. */
  readonly newClient: () => pg.Client;
  /** Reads the committed content version. */
  readonly check: () => Promise<number>;
  /** Told about failures in the background (a lost listener, a failed check). */
  readonly onError: (error: unknown) => void;
  readonly checkEveryMs?: number;
  /** How long a confirmed version is trusted without checking (default 5 s). */
  readonly trustForMs?: number;
}

export class PostgresVersionWatch {
  private version = -1;
  private confirmedAt = Number.NEGATIVE_INFINITY;
  /** Bumped by every notification or observation, so a check that began before one does not undo it. */
  private news = 0;
  private started = false;
  private closed = false;
  private listener: pg.Client | undefined;
  private reconnectDelay = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(private readonly options: PostgresVersionWatchOptions) {}

  /** The content version; cheap, except when it has not been confirmed lately. */
  async current(): Promise<number> {
    this.start();
    if (performance.now() - this.confirmedAt > (this.options.trustForMs ?? TRUST_FOR_MS))
      await this.checkNow();
    return this.version;
  }

  /** current() without waiting: undefined when the version has not been confirmed lately. */
  peek(): number | undefined {
    this.start();
    if (performance.now() - this.confirmedAt > (this.options.trustForMs ?? TRUST_FOR_MS)) return undefined;
    return this.version;
  }

  /** A version this process saw committed (its own import, or a consistent read). */
  observe(version: number): void {
    this.news++;
    if (version > this.version) this.version = version;
    this.confirmedAt = performance.now();
  }

  close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.checkTimer);
    const listener = this.listener;
    this.listener = undefined;
    return listener ? listener.end().catch(() => undefined) : Promise.resolve();
  }

  /** Starts listening and the periodic check, once, on the first read. */
  private start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.connectListener();
    this.scheduleCheck();
  }

  /** One check at a time: concurrent callers share it. Rejects when the database is unreachable. */
  private checkNow(): Promise<void> {
    this.checking ??= (async () => {
      const news = this.news;
      try {
        const version = await this.options.check();
        // A newer notification may have overtaken this check; otherwise the check is the truth
        // (even a lower version: the database was restored).
        this.version = this.news === news ? version : Math.max(version, this.version);
        this.confirmedAt = performance.now();
      } finally {
        this.checking = undefined;
      }
    })();
    return this.checking;
  }

  private scheduleCheck(): void {
    if (this.closed) return;
    this.checkTimer = setTimeout(() => {
      this.checkNow()
        .catch((error: unknown) => this.options.onError(error))
        .finally(() => this.scheduleCheck());
    }, this.options.checkEveryMs ?? CHECK_EVERY_MS);
    this.checkTimer.unref();
  }

  private connectListener(): void {
    const client = this.options.newClient();
    let dropped = false;
    const drop = (error?: unknown) => {
      if (dropped) return;
      dropped = true;
      if (error !== undefined) this.options.onError(error);
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    // An idle client whose connection is cut emits 'error'; unhandled, it would end the process.
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', (message) => {
      const version = Number(message.payload);
      if (message.channel === this.options.channel && Number.isSafeInteger(version)) this.observe(version);
    });
    unavailableOnConnectionError(async () => {
      await client.connect();
      await client.query(`LISTEN "${this.options.channel}"`);
    }).then(
      () => {
        if (this.closed) {
          client.end().catch(() => undefined);
          return;
        }
        this.listener = client;
        this.reconnectDelay = RECONNECT_MIN_MS;
        // Whatever was committed while nobody listened is only seen by reading it.
        this.checkNow().catch((error: unknown) => this.options.onError(error));
      },
      (error: unknown) => drop(error),
    );
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connectListener();
    }, this.reconnectDelay);
    this.reconnectTimer.unref();
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, RECONNECT_MAX_MS);
  }
}
