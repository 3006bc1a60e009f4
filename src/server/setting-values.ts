/** Reading one setting: flags over variables, integers and on/off in range, renamed names. */

export type Flags = Readonly<Record<string, string | boolean | undefined>>;
export type Env = Readonly<Record<string, string | undefined>>;

export class SettingsError extends Error {}

/** Settings renamed, new name → old name: the old one is still read, with a warning at start. */
const RENAMED: ReadonlyMap<string, string> = new Map([
  ['SCOOP_BASE64_CACHE_DIR', 'SCOOP_BINARY_CACHE_DIR'],
  ['SCOOP_BASE64_CACHE_BYTES', 'SCOOP_BINARY_CACHE_BYTES'],
  ['SCOOP_VARIANT_CACHE_DIR', 'SCOOP_VARIANT_DIR'],
]);

/** A renamed setting's value, and the variable it was read from: its name, else its old name. */
export function renamed(env: Env, name: string): { value: string | undefined; variable: string } {
  const old = RENAMED.get(name)!;
  if (env[name] !== undefined || env[old] === undefined) return { value: env[name], variable: name };
  return { value: env[old], variable: old };
}

/** One line for each renamed setting given under its old name, naming the new one. */
export function deprecatedSettings(env: Env): string[] {
  const lines: string[] = [];
  for (const [name, old] of RENAMED) {
    if (env[old] === undefined) continue;
    lines.push(
      env[name] === undefined
        ? `${old} is deprecated: it is read as ${name}, the name to use from now on`
        : `${old} is deprecated and ignored: ${name} is set too, and wins`,
    );
  }
  return lines;
}

export function pick(flags: Flags, flag: string, env: Env, variable: string): string | undefined {
  const fromFlag = flags[flag];
  if (typeof fromFlag === 'string') return fromFlag;
  const fromEnv = env[variable];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

export function integer(
  value: string | undefined,
  fallback: number,
  name: string,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new SettingsError(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(value)}`);
  }
  return Number(value);
}

export function onOff(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined) return fallback;
  const v = value.trim().toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw new SettingsError(`${name} must be on or off, not ${JSON.stringify(value)}`);
}
