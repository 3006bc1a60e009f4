/**
 * Settings of the `serve` command: flags win over environment variables, which win
 * over the defaults. Every setting is documented in the README's configuration table.
 */
import { DEFAULT_XML_LIMITS, type XmlLimits } from '../xml/reader.ts';

export interface ServeSettings {
  readonly host: string;
  readonly port: number;
  readonly db: string;
  readonly namespace: string;
  readonly publicUrl: string | undefined;
  readonly trustProxy: boolean;
  readonly httpMaxAge: number;
  readonly httpAuth: boolean;
  readonly maxBodyBytes: number;
  readonly maxListItems: number;
  readonly maxImageDimension: number;
  readonly xmlLimits: XmlLimits;
  readonly logLevel: string;
}

export const DEFAULT_DB = './data/scoop.db';
export const DEFAULT_NAMESPACE = 'http://scoop.example.org/api';

export type Flags = Readonly<Record<string, string | boolean | undefined>>;
type Env = Readonly<Record<string, string | undefined>>;

export class SettingsError extends Error {}

function pick(flags: Flags, flag: string, env: Env, variable: string): string | undefined {
  const fromFlag = flags[flag];
  if (typeof fromFlag === 'string') return fromFlag;
  const fromEnv = env[variable];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

function integer(
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

function onOff(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined) return fallback;
  const v = value.trim().toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw new SettingsError(`${name} must be on or off, not ${JSON.stringify(value)}`);
}

export function databaseSetting(flags: Flags, env: Env): string {
  return pick(flags, 'db', env, 'SCOOP_DB') ?? DEFAULT_DB;
}

export function serveSettings(flags: Flags, env: Env): ServeSettings {
  const namespace = pick(flags, 'namespace', env, 'SCOOP_NAMESPACE') ?? DEFAULT_NAMESPACE;
  const publicUrl = pick(flags, 'public-url', env, 'SCOOP_PUBLIC_URL');
  if (publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(publicUrl)) {
    throw new SettingsError(`SCOOP_PUBLIC_URL must be an http(s) URL, not ${JSON.stringify(publicUrl)}`);
  }
  return {
    host: pick(flags, 'host', env, 'SCOOP_HOST') ?? '127.0.0.1',
    port: integer(pick(flags, 'port', env, 'SCOOP_PORT'), 8080, 'SCOOP_PORT', 0, 65535),
    db: databaseSetting(flags, env),
    namespace,
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    trustProxy: onOff(env.SCOOP_TRUST_PROXY, false, 'SCOOP_TRUST_PROXY'),
    httpMaxAge: integer(env.SCOOP_HTTP_MAX_AGE, 60, 'SCOOP_HTTP_MAX_AGE', 0, 31_536_000),
    httpAuth: onOff(env.SCOOP_HTTP_AUTH, true, 'SCOOP_HTTP_AUTH'),
    maxBodyBytes: integer(env.SCOOP_MAX_BODY_BYTES, 4 * 1024 * 1024, 'SCOOP_MAX_BODY_BYTES', 1024, 1 << 30),
    maxListItems: integer(env.SCOOP_MAX_LIST_ITEMS, 16, 'SCOOP_MAX_LIST_ITEMS', 1, 10_000),
    maxImageDimension: integer(env.SCOOP_MAX_IMAGE_DIMENSION, 4096, 'SCOOP_MAX_IMAGE_DIMENSION', 1, 65_535),
    xmlLimits: DEFAULT_XML_LIMITS,
    logLevel: env.SCOOP_LOG_LEVEL ?? 'info',
  };
}
