/**
 * A PostgreSQL URL told from a SQLite path, and shown without its password: apart from
 * location.ts, which needs node-postgres, so that the commands and settings that only ask
 * these load none of it (a SQLite `scoop import` starts without it).
 */

export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The location without a password, for logs and messages; other values are returned as they are. */
export function redactLocation(location: string): string {
  if (!isPostgresUrl(location)) return location;
  try {
    const url = new URL(location);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return location.replace(/:[^:@/]*@/, ':***@');
  }
}
