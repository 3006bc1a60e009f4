/**
 * Right after an import (issue 17 item 3): the mix's rate second by second, before and
 * after an import that changes content, against one `scoop serve` with its default
 * settings. An import moves the content version on, so the answer cache and the record
 * cache start empty; the curve shows what that costs. The import is an editorial one: it
 * renames areas, which every article that shows them depends on.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BUNDLE_FORMAT } from '../../src/store/bundle/bundle.ts';
import type { Child } from '../processes.ts';
import { scoopCommand } from '../processes.ts';
import { type MixStream, runStretch } from './wrk-script.ts';

export interface ImportCurve {
  readonly store: string;
  readonly distribution: string;
  /** Median of the seconds before the import. */
  readonly steadyRps: number;
  /** Requests/s in each second before the import. */
  readonly before: readonly number[];
  /** Requests/s in each of the seconds after it committed. */
  readonly after: readonly number[];
  /** Mean of `after` over the steady rate: the item's figure (target ≥ 0.5). */
  readonly firstSecondsRatio: number;
  readonly importMs: number;
  readonly changedAreas: number;
}

const SECONDS_BEFORE = 5;
const SECONDS_AFTER = 10;

/** An upsert bundle renaming `count` areas (a different name on every call). */
function renameAreas(dir: string, count: number, generation: number): string {
  mkdirSync(dir, { recursive: true });
  const bereiche = Array.from({ length: count }, (_, i) => ({
    bereichID: 1 + ((generation * count + i) % 2000),
    name: `Umbenannt ${generation}.${i}`,
  }));
  writeFileSync(
    path.join(dir, 'bundle.json'),
    JSON.stringify({ format: BUNDLE_FORMAT, mode: 'upsert', bereiche }),
  );
  return dir;
}

let generation = 0;

export async function importCurve(options: {
  readonly server: Child;
  readonly store: string;
  readonly db: string;
  readonly distribution: string;
  /** The order's stream: each second goes on where the last stopped. */
  readonly stream: MixStream;
  readonly scriptFile: string;
  readonly connections: number;
  readonly work: string;
  readonly areas: number;
}): Promise<ImportCurve> {
  const { server, stream } = options;
  const wrkTarget = {
    url: server.url,
    pid: server.pid,
    scriptFile: options.scriptFile,
    connections: options.connections,
  };
  const load = async (seconds: number) => {
    const { result, draws } = await runStretch(wrkTarget, stream, stream.at, seconds);
    stream.advance(draws);
    return result.rps;
  };
  const second = () => load(1);
  // Warm: the steady state the curve starts from.
  await load(5);
  const before: number[] = [];
  for (let i = 0; i < SECONDS_BEFORE; i++) before.push(await second());
  generation++;
  const bundle = renameAreas(path.join(options.work, `mix-update-${generation}`), options.areas, generation);
  const started = performance.now();
  scoopCommand(['import', bundle, '--db', options.db]);
  const importMs = performance.now() - started;
  const after: number[] = [];
  for (let i = 0; i < SECONDS_AFTER; i++) after.push(await second());
  const steadyRps = [...before].sort((a, b) => a - b)[before.length >> 1]!;
  return {
    store: options.store,
    distribution: options.distribution,
    steadyRps,
    before,
    after,
    firstSecondsRatio: after.reduce((sum, x) => sum + x, 0) / after.length / steadyRps,
    importMs,
    changedAreas: options.areas,
  };
}
