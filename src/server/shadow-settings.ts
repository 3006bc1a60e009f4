/** The settings of `serve --shadow` (shadow.ts): where the original is, what share to replay, the bounds. */
import path from 'node:path';
import { parseBaseUrl } from '../migrate/compare/http-sender.ts';
import { type Env, type Flags, integer, pick, SettingsError } from './setting-values.ts';

export interface ShadowSettings {
  /** The original's base URL. */
  readonly url: URL;
  /** Share of answered requests replayed, 0 to 1. */
  readonly sample: number;
  /** The original's token for this instance; without it the client's token is sent on. */
  readonly token: string | undefined;
  readonly concurrency: number;
  /** Replays waiting for a slot; one more is dropped. */
  readonly queue: number;
  /** For the original's whole answer. */
  readonly timeoutMs: number;
  /** Where differing exchanges are kept; undefined with SCOOP_SHADOW_DIR=off. */
  readonly dir: string | undefined;
  /** Set by SCOOP_SHADOW_DIR: an unusable folder then stops the start instead of keeping nothing. */
  readonly dirChosen: boolean;
}

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function share(value: string | undefined): number {
  if (value === undefined) return 0.1;
  const trimmed = value.trim();
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(trimmed) || Number(trimmed) > 1)
    throw new SettingsError(
      `SCOOP_SHADOW_SAMPLE (--shadow-sample) must be a number from 0 to 1 (0.1 replays a tenth of the requests), not ${JSON.stringify(value)}`,
    );
  return Number(trimmed);
}

/** Undefined unless SCOOP_SHADOW (--shadow) names the original. `variantDir`: the folder `shadow/` goes beside. */
export function shadowSettings(flags: Flags, env: Env, variantDir: string): ShadowSettings | undefined {
  const given = pick(flags, 'shadow', env, 'SCOOP_SHADOW');
  if (given === undefined) return undefined;
  const url = parseBaseUrl(given);
  if (!url)
    throw new SettingsError(
      `SCOOP_SHADOW (--shadow) must be the original's base URL, an http(s) URL such as http://cms.internal, not ${JSON.stringify(given)}`,
    );
  const token = pick(flags, 'shadow-token', env, 'SCOOP_SHADOW_TOKEN');
  if (token !== undefined && !GUID.test(token))
    throw new SettingsError(
      'SCOOP_SHADOW_TOKEN (--shadow-token) must be a GUID such as 11111111-2222-3333-4444-555555555555',
    );
  const dir = env.SCOOP_SHADOW_DIR;
  const off = dir?.trim().toLowerCase() === 'off';
  return {
    url,
    sample: share(pick(flags, 'shadow-sample', env, 'SCOOP_SHADOW_SAMPLE')),
    token,
    concurrency: integer(env.SCOOP_SHADOW_CONCURRENCY, 4, 'SCOOP_SHADOW_CONCURRENCY', 1, 256),
    queue: integer(env.SCOOP_SHADOW_QUEUE, 100, 'SCOOP_SHADOW_QUEUE', 0, 100_000),
    timeoutMs: integer(env.SCOOP_SHADOW_TIMEOUT_MS, 10_000, 'SCOOP_SHADOW_TIMEOUT_MS', 100, 600_000),
    dir: off ? undefined : dir || path.join(path.dirname(variantDir), 'shadow'),
    dirChosen: Boolean(dir) && !off,
  };
}
