/**
 * The rules every store's schema migrations follow, whatever the database: versions
 * numbered from 1 in the order written, each applied once and after every one before it,
 * recorded with when it was applied, and the schema version the record amounts to. Each
 * database keeps its SQL, its transactions and its lock (sqlite/migrations.ts,
 * postgres/migrations.ts).
 */

export interface Migration {
  readonly version: number;
  readonly sql: string;
}

/**
 * A store's migrations as written, numbered from 1: a migration, once released, keeps its
 * place (files and schemas record it by number), and a new one goes at the end.
 */
export function numbered(sqls: readonly string[]): readonly Migration[] {
  return sqls.map((sql, index) => ({ version: index + 1, sql }));
}

/**
 * What `applied` lacks, in version order. A store reads `applied` again under its lock
 * before applying, so a process that waited for another finds nothing left to do.
 */
export function pendingMigrations(migrations: readonly Migration[], applied: Iterable<number>): Migration[] {
  const done = new Set(applied);
  return migrations.filter((migration) => !done.has(migration.version)).sort((a, b) => a.version - b.version);
}

/** When a migration was applied, as recorded beside its version. */
export function appliedAt(now: Date = new Date()): string {
  return now.toISOString();
}

/** The schema version the applied migrations amount to: 1, 2, … without a gap. */
export function schemaVersionOf(applied: Iterable<number>): number {
  const versions = new Set(applied);
  let version = 0;
  while (versions.has(version + 1)) version++;
  return version;
}

export interface SchemaStatus {
  /** How many of this build's migrations are applied, counting from the first. */
  readonly schemaVersion: number;
  /** How many migrations this build knows. */
  readonly latestSchemaVersion: number;
  /** Every migration this build knows is applied: the store's tables can be used. */
  readonly migrated: boolean;
}

/** For readiness: whether the schema has every migration of this build. */
export function schemaStatus(migrations: readonly Migration[], applied: Iterable<number>): SchemaStatus {
  const schemaVersion = schemaVersionOf(applied);
  const latestSchemaVersion = migrations.length;
  return { schemaVersion, latestSchemaVersion, migrated: schemaVersion >= latestSchemaVersion };
}
