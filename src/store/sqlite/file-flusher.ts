/**
 * Writes what an import writes to disk while the import runs, a flush at a time in libuv's
 * thread pool: its write-ahead log, or (a first import without the log) the database file
 * itself. The commit syncs that file, and for a large import (750 MB for the realistic mix)
 * that meant waiting for all of it at once, at the end: 0.4 s (`strace -T`). Flushed as it
 * grows, it is mostly on disk by then. Only ever more syncing than SQLite's own, so
 * durability is unchanged; a flush that fails is left to SQLite's sync to report.
 */
import { closeSync, fdatasync, openSync } from 'node:fs';

const EVERY_MS = 250;

export class FileFlusher {
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | undefined;

  private constructor(private readonly fd: number) {
    this.timer = setInterval(() => this.flush(), EVERY_MS);
    this.timer.unref();
  }

  /** For `file` (a database's log is `<database>-wal`, SQLite's name); none when there is no such file. */
  static start(file: string): FileFlusher | undefined {
    try {
      return new FileFlusher(openSync(file, 'r'));
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
