/**
 * Issue 17 item 5, cold resizes: the first request for a new `getBild` variant of a
 * 2-megapixel JPEG, and the same variant asked for again, on scoop pinned to one core and
 * started as an operator runs it: log level `info` (the default) whatever SERVE_ENV says.
 *
 *   cold — distinct variants (box, mode), each asked for once, one after the other on one
 *          keep-alive connection by curl pinned to the generator's CPU; p50/p99 of curl's
 *          time per answer, judged p50 ≤ 25 ms. A few distinct ones first warm the process.
 *   warm — one of them again, wrk against the ceiling replaying its exact answer, in
 *          rounds back to back (measure.ts); judged ≥ 0.6 of the ceiling's req/s. With the
 *          defaults the answer cache answers a repeat after the first (which the variant
 *          cache answers), so the same is measured again with the answer cache off: every
 *          request then reaches the variant cache; and, as the floor of any request the answer
 *          cache does not answer, getBereich on that server against its ceiling.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ATTEMPTS, DISTURBED_CORES, waitBeforeRetry, worthRetrying } from './disturbance.ts';
import { capture } from './http.ts';
import { photo, writeImageBundle } from './images.ts';
import { measure, medianRun, pairedRatio, wireBytes } from './measure.ts';
import {
  type Child,
  CpuWatch,
  pinned,
  processTicks,
  SERVE_ENV,
  scoopCommand,
  startBenchChild,
  startScoop,
} from './processes.ts';
import type { ColdResizeResult, ColdRun, Repeated, Run } from './report.ts';
import { type BenchRequest, PUBLIC_PATH, SCENARIO_HEADER } from './scenarios.ts';

export const COLD_TARGET_P50_MS = 25;
export const WARM_TARGET_RATIO = 0.6;
/** 1632×1224: 2.0 megapixels, a 4:3 camera frame. */
const SOURCE = { width: 1632, height: 1224 } as const;
const WARMUP_REQUESTS = 24;
const COLD_REQUESTS = 240;

/** The settings scoop runs with here, over SERVE_ENV (reported with the figures). */
const DEFAULTS: Readonly<Record<string, string>> = { SCOOP_LOG_LEVEL: 'info' };
const NO_ANSWER_CACHE: Readonly<Record<string, string>> = { ...DEFAULTS, SCOOP_RESPONSE_CACHE_BYTES: '0' };
const reported = (env: Readonly<Record<string, string>>) => ({ ...SERVE_ENV, ...env });

interface Box {
  readonly width: number;
  readonly height: number;
  readonly modes: readonly string[];
}

/** What a CMS asks of a photo: thumbnails, teasers, content widths, a few odd modes. */
const BOXES: readonly Box[] = [
  { width: 120, height: 90, modes: ['crop'] },
  { width: 160, height: 160, modes: ['crop'] },
  { width: 200, height: 150, modes: ['standard'] },
  { width: 240, height: 180, modes: ['crop'] },
  { width: 300, height: 300, modes: ['stretch'] },
  { width: 320, height: 240, modes: ['crop'] },
  { width: 400, height: 0, modes: ['standard'] },
  { width: 480, height: 320, modes: ['fit', 'background'] },
  { width: 640, height: 480, modes: ['crop'] },
  { width: 800, height: 600, modes: ['standard'] },
  { width: 1024, height: 0, modes: ['standard'] },
  { width: 1200, height: 675, modes: ['crop'] },
];
const boxName = (box: Box) => `${box.width}×${box.height} ${box.modes.join('+')}`;

/** The warm phase's variant: the 640×480 teaser of the first round. */
const WARM_BOX = 8;

function bildPath(box: Box, round: number): string {
  const modes = box.modes.map((m) => `&resizeModes=${m}`).join('');
  // One pixel more per round: every request of a run is a variant not made before.
  const height = box.height === 0 ? 0 : box.height + round;
  return `${PUBLIC_PATH}/getBild?bildID=1&width=${box.width + round}&height=${height}${modes}`;
}

/** `count` distinct variant paths, from round `firstRound` on. */
function coldPaths(count: number, firstRound: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    bildPath(BOXES[i % BOXES.length]!, firstRound + Math.floor(i / BOXES.length)),
  );
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The paths in turn on one keep-alive connection (curl, pinned to the generator's CPU): each answer's time. */
async function curlEach(url: string, paths: readonly string[], work: string): Promise<number[]> {
  const config = join(work, 'cold-urls.txt');
  writeFileSync(config, paths.map((p) => `url = "${url}${p}"\noutput = "/dev/null"\n`).join(''));
  const command = [...pinned('generator'), 'curl', '-sS', '-K', config, '-w', '%{http_code} %{time_total}\n'];
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => {
    out += t;
  });
  child.stderr.setEncoding('utf8').on('data', (t: string) => {
    err += t;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const lines = out.trim().split('\n');
  if (code !== 0 || lines.length !== paths.length) throw new Error(`curl failed (${code}): ${err}`);
  return lines.map((line, i) => {
    const [status, seconds] = line.split(' ');
    if (status !== '200') throw new Error(`${paths[i]} answered ${status}`);
    return Number(seconds) * 1000;
  });
}

async function coldRun(url: string, pid: number, paths: readonly string[], work: string): Promise<ColdRun> {
  const watch = new CpuWatch(pid);
  const ticks = processTicks(pid);
  const inOrder = await curlEach(url, paths, work);
  const serverTicks = processTicks(pid) - ticks;
  const times = [...inOrder].sort((a, b) => a - b);
  const byBox = BOXES.map((box, b) => {
    const own = inOrder.filter((_, i) => i % BOXES.length === b).sort((x, y) => x - y);
    return { box: boxName(box), p50Ms: percentile(own, 50) };
  });
  return {
    requests: times.length,
    p50Ms: percentile(times, 50),
    p90Ms: percentile(times, 90),
    p99Ms: percentile(times, 99),
    maxMs: times[times.length - 1]!,
    serverCpuMsPerRequest: (serverTicks * 10) / times.length,
    cpu: watch.stop(),
    byBox,
  };
}

const log = (line: string) => process.stderr.write(`${line}\n`);

const cpuPerAnswer = (run: Run) => (run.cpu.server / run.rps) * 1e6;

/** `request` again and again on `ours`, and its captured answer from the ceiling, in turn. */
async function repeated(
  ours: Child,
  env: Readonly<Record<string, string>>,
  name: string,
  pathAndQuery: string,
  dir: string,
  rounds: number,
): Promise<Repeated> {
  const request: BenchRequest = { method: 'GET', path: pathAndQuery, headers: { [SCENARIO_HEADER]: name } };
  const answer = await capture(ours.url, request);
  if (answer.status !== 200) throw new Error(`${pathAndQuery} answered ${answer.status}`);
  const bodyFile = join(dir, `${name}.bin`);
  writeFileSync(bodyFile, answer.body);
  const manifest = join(dir, `${name}.json`);
  const entry = {
    name,
    method: 'GET',
    path: pathAndQuery,
    status: 200,
    headers: answer.rawHeaders,
    bodyFile,
  };
  writeFileSync(manifest, JSON.stringify([entry]));
  const ceiling = await startBenchChild('ceiling', 'bench/ceiling.ts', [manifest]);
  try {
    log(`cold resizes: ${name}, ours and the ceiling in turn…`);
    const script = join(dir, 'wrk.lua');
    const oursRuns: Run[] = [];
    const ceilingRuns: Run[] = [];
    for (let round = 0; round < rounds; round++) {
      oursRuns.push(await measure(ours, request, wireBytes(answer), script));
      ceilingRuns.push(await measure(ceiling, request, wireBytes(answer), script));
    }
    const oursRun = medianRun(oursRuns);
    const ceilingRun = medianRun(ceilingRuns);
    const failed = oursRun.failed !== null || ceilingRun.failed !== null;
    return {
      path: pathAndQuery,
      answerBytes: answer.body.length,
      env,
      ours: oursRun,
      ceiling: ceilingRun,
      oursToCeiling: failed ? Number.NaN : pairedRatio(oursRun, ceilingRun, (r) => r.rps),
      cpuUsPerAnswer: { ours: cpuPerAnswer(oursRun), ceiling: cpuPerAnswer(ceilingRun) },
    };
  } finally {
    await ceiling.stop();
  }
}

/** Distinct variants one at a time, made again (with new ones) while other work disturbed it. */
async function coldRuns(ours: Child, dir: string): Promise<ColdResizeResult['cold']> {
  const perRound = BOXES.length;
  await curlEach(ours.url, coldPaths(WARMUP_REQUESTS, 0), dir);
  let next = Math.ceil(WARMUP_REQUESTS / perRound);
  let best: ColdRun | undefined;
  let attempts = 0;
  while (attempts < ATTEMPTS) {
    attempts++;
    log(`cold resizes: ${COLD_REQUESTS} distinct variants of a 2 MP JPEG…`);
    const started = performance.now();
    const run = await coldRun(ours.url, ours.pid, coldPaths(COLD_REQUESTS, next), dir);
    next += Math.ceil(COLD_REQUESTS / perRound);
    if (!best || run.cpu.other < best.cpu.other) best = run;
    if (!worthRetrying(run.cpu.other)) break;
    await waitBeforeRetry(run.cpu.other, performance.now() - started);
  }
  return {
    ...best!,
    attempts,
    disturbed: best!.cpu.other > DISTURBED_CORES,
    targetP50Ms: COLD_TARGET_P50_MS,
    pass: best!.p50Ms <= COLD_TARGET_P50_MS,
  };
}

export async function benchColdResizes(work: string, rounds: number): Promise<ColdResizeResult> {
  const dir = join(work, 'cold-resizes');
  mkdirSync(dir, { recursive: true });
  const jpeg = await photo(SOURCE.width, SOURCE.height);
  writeImageBundle(join(dir, 'bundle'), jpeg);
  const db = join(dir, 'scoop.db');
  scoopCommand(['import', join(dir, 'bundle'), '--db', db]);
  // Made by the cold phase's warm-up: every request for it afterwards is a hit.
  const variant = bildPath(BOXES[WARM_BOX]!, 0);

  const withDefaults = await startScoop({ db, env: DEFAULTS });
  let cold: ColdResizeResult['cold'];
  let warm: Repeated;
  try {
    cold = await coldRuns(withDefaults, dir);
    warm = await repeated(withDefaults, reported(DEFAULTS), 'getBild-variant-again', variant, dir, rounds);
  } finally {
    await withDefaults.stop();
  }
  // The same database and variant folder: the variant is in the folder, not in this process yet.
  const uncached = await startScoop({ db, env: NO_ANSWER_CACHE });
  let warmVariantCache: Repeated;
  let uncachedFloor: Repeated;
  try {
    const name = 'getBild-variant-cache';
    warmVariantCache = await repeated(uncached, reported(NO_ANSWER_CACHE), name, variant, dir, rounds);
    const floor = `${PUBLIC_PATH}/getBereich?bereichID=1`;
    uncachedFloor = await repeated(
      uncached,
      reported(NO_ANSWER_CACHE),
      'getBereich-uncached',
      floor,
      dir,
      rounds,
    );
  } finally {
    await uncached.stop();
  }
  const warmPass = warm.oursToCeiling >= WARM_TARGET_RATIO;
  return {
    source: { ...SOURCE, bytes: jpeg.length },
    settings: {
      env: reported(DEFAULTS),
      pinning: pinned('server').length > 0 ? 'scoop on CPU 0, curl and wrk on CPU 1' : 'none',
      boxes: BOXES.map(boxName),
    },
    cold,
    warm: { ...warm, targetRatio: WARM_TARGET_RATIO, pass: warmPass },
    warmVariantCache,
    uncachedFloor,
    pass: cold.pass && warmPass,
  };
}
