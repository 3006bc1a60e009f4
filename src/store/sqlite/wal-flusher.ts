/**
 * Writes an import's write-ahead log to disk while the import runs, a flush at a time in
 * libuv's thread pool. The commit checkpoints the log into the database, and a checkpoint
 * first syncs the log: for a large import (750 MB of log for the realistic mix) that
 * meant waiting for all of it at once, at the end. Flushed as it grows, the log is mostly
 * on disk by then. Only ever more syncing than SQLite's own, so durability is unchanged;
 * a flush that fails is left to SQLite's sync to report.
 */
import { closeSync, fdatasync, openSync } from 'node:fs';

const EVERY_MS = 250;

export class WalFlusher {
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | undefined;

  private constructor(private readonly fd: number) {
    this.timer = setInterval(() => this.flush(), EVERY_MS);
    this.timer.unref();
  }

  /** For the database `file` (its log is `file-wal`, SQLite's name); none when there is no log to flush. */
  static start(file: string): WalFlusher | undefined {
    try {
      return new WalFlusher(openSync(`${file}-wal`, 'r'));
    } catch {
      return undefined;
    }
  }

  /** Stops flushing; the descriptor is closed once no flush uses it. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    closeSync(this.fd);
  }

  private flush(): void {
    if (this.flushing) return;
    this.flushing = new Promise((resolve) =>
      fdatasync(this.fd, () => {
        this.flushing = undefined;
        resolve();
      }),
    );
  }
}
