/**
 * Telling a PostgreSQL location from a SQLite path, and showing it without its password:
 * apart from location.ts, so that code which only asks (settings, every command) does not
 * load the PostgreSQL driver.
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
