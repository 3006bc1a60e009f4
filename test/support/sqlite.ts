/**
 * Looks at a SQLite store file from outside the store: a full dump of every table and a
 * hash of the file, to prove an operation changed nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';

/** Every row of every table, each table ordered by all its columns. */
export function dumpDatabase(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all();
    const dump: Record<string, unknown[]> = {};
    for (const { name } of tables) {
      const columns = db.prepare(`SELECT * FROM "${name}" LIMIT 0`).columns().length;
      const order = Array.from({ length: columns }, (_, i) => i + 1).join(', ');
      dump[name] = db.prepare(`SELECT * FROM "${name}" ORDER BY ${order}`).all();
    }
    return dump;
  } finally {
    db.close();
  }
}

/** Moves everything committed from the WAL into the main file, then hashes that file. */
export function databaseFileHash(file: string): string {
  const db = new Database(file);
  try {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    if (result?.busy) throw new Error('checkpoint was blocked by a reader');
  } finally {
    db.close();
  }
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The bytes of the database file and its WAL, where one exists. */
export function databaseBytes(file: string): Buffer {
  return Buffer.concat(
    [file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f)).map((f) => readFileSync(f)),
  );
}
