/**
 * Issue 17 item 5, cold resizes: the first request for a new `getBild` variant of a
 * 2-megapixel JPEG, and the same variant asked for again (a variant-cache hit), on scoop
 * pinned to one core. Its own server, started as an operator runs it: log level `info`
 * (the default) whatever SERVE_ENV says, and the answer cache off, so that a repeated
 * request reaches the variant cache instead of the whole-answer cache.
 *
 *   cold — distinct variants (box, mode), each asked for once, one after the other on one
 *          keep-alive connection by curl pinned to the generator's CPU; p50/p99 of curl's
 *          time per answer, judged p50 ≤ 25 ms. A few distinct ones first warm the process.
 *   warm — one of them again, wrk against the ceiling replaying its exact answer, in
 *          rounds back to back (measure.ts); judged ≥ 0.6 of the ceiling's req/s.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ATTEMPTS, DISTURBED_CORES, waitBeforeRetry, worthRetrying } from './disturbance.ts';
import { capture } from './http.ts';
import { photo, writeImageBundle } from './images.ts';
import { measure, medianRun, pairedRatio, wireBytes } from './measure.ts';
import {
  type CpuShare,
  CpuWatch,
  pinned,
  processTicks,
  SERVE_ENV,
  scoopCommand,
  startBenchChild,
  startScoop,
} from './processes.ts';
import type { Run } from './report.ts';
import { type BenchRequest, PUBLIC_PATH, SCENARIO_HEADER } from './scenarios.ts';

export const COLD_TARGET_P50_MS = 25;
export const WARM_TARGET_RATIO = 0.6;
/** 1632×1224: 2.0 megapixels, a 4:3 camera frame. */
const SOURCE = { width: 1632, height: 1224 } as const;
const WARMUP_REQUESTS = 24;
const COLD_REQUESTS = 240;
const WARM_SCENARIO = 'getBild-variant-hit';

/** The settings scoop runs with here, over SERVE_ENV (reported with the figures). */
const ENV: Readonly<Record<string, string>> = {
  SCOOP_LOG_LEVEL: 'info',
  SCOOP_RESPONSE_CACHE_BYTES: '0',
};

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

export interface ColdRun {
  readonly requests: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The server's CPU time over the run, per request (clock ticks, so ±10 ms over the run). */
  readonly serverCpuMsPerRequest: number;
  readonly cpu: CpuShare;
  /** The median of each box's requests, so the mix behind p50 can be seen. */
  readonly byBox: readonly { readonly box: string; readonly p50Ms: number }[];
}

export interface ColdResizeResult {
  readonly source: { width: number; height: number; bytes: number };
  readonly settings: {
    readonly env: Readonly<Record<string, string>>;
    readonly pinning: string;
    readonly boxes: readonly string[];
  };
  readonly cold: ColdRun & {
    readonly attempts: number;
    readonly disturbed: boolean;
    readonly targetP50Ms: number;
    readonly pass: boolean;
  };
  readonly warm: {
    readonly path: string;
    readonly answerBytes: number;
    readonly ours: Run;
    readonly ceiling: Run;
    readonly oursToCeiling: number;
    readonly targetRatio: number;
    readonly pass: boolean;
  };
  readonly pass: boolean;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The paths in turn on one keep-alive connection (curl, pinned to the generator's CPU): each answer's time. */
async function curlEach(url: string, paths: readonly string[], work: string): Promise<number[]> {
  const config = path.join(work, 'cold-urls.txt');
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

export async function benchColdResizes(work: string, rounds: number): Promise<ColdResizeResult> {
  const dir = path.join(work, 'cold-resizes');
  mkdirSync(dir, { recursive: true });
  const jpeg = await photo(SOURCE.width, SOURCE.height);
  writeImageBundle(path.join(dir, 'bundle'), jpeg);
  const db = path.join(dir, 'scoop.db');
  scoopCommand(['import', path.join(dir, 'bundle'), '--db', db]);
  const ours = await startScoop({ db, env: ENV });
  let ceiling: Awaited<ReturnType<typeof startBenchChild>> | undefined;
  try {
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
    const cold = best!;

    // Made by the warm-up: every request of the warm phase is a variant-cache hit.
    const request: BenchRequest = {
      method: 'GET',
      path: bildPath(BOXES[WARM_BOX]!, 0),
      headers: { [SCENARIO_HEADER]: WARM_SCENARIO },
    };
    const answer = await capture(ours.url, request);
    if (answer.status !== 200) throw new Error(`the warm variant answered ${answer.status}`);
    const captureDir = path.join(dir, 'captures');
    mkdirSync(captureDir, { recursive: true });
    const bodyFile = path.join(captureDir, `${WARM_SCENARIO}.bin`);
    writeFileSync(bodyFile, answer.body);
    const manifest = path.join(dir, 'captures.json');
    writeFileSync(
      manifest,
      JSON.stringify([
        {
          name: WARM_SCENARIO,
          method: request.method,
          path: request.path,
          status: answer.status,
          headers: answer.rawHeaders,
          bodyFile,
        },
      ]),
    );
    ceiling = await startBenchChild('ceiling', 'bench/ceiling.ts', [manifest]);
    log('cold resizes: the same variant again (variant cache), ours and the ceiling in turn…');
    const script = path.join(dir, 'wrk.lua');
    const oursRuns: Run[] = [];
    const ceilingRuns: Run[] = [];
    for (let round = 0; round < rounds; round++) {
      oursRuns.push(await measure(ours, request, wireBytes(answer), script));
      ceilingRuns.push(await measure(ceiling, request, wireBytes(answer), script));
    }
    const oursRun = medianRun(oursRuns);
    const ceilingRun = medianRun(ceilingRuns);
    const failed = oursRun.failed !== null || ceilingRun.failed !== null;
    const ratio = failed ? Number.NaN : pairedRatio(oursRun, ceilingRun, (r) => r.rps);
    const coldPass = cold.p50Ms <= COLD_TARGET_P50_MS;
    const warmPass = !failed && ratio >= WARM_TARGET_RATIO;
    return {
      source: { ...SOURCE, bytes: jpeg.length },
      settings: {
        env: { ...SERVE_ENV, ...ENV },
        pinning: pinned('server').length > 0 ? 'scoop on CPU 0, curl and wrk on CPU 1' : 'none',
        boxes: BOXES.map(boxName),
      },
      cold: {
        ...cold,
        attempts,
        disturbed: cold.cpu.other > DISTURBED_CORES,
        targetP50Ms: COLD_TARGET_P50_MS,
        pass: coldPass,
      },
      warm: {
        path: request.path,
        answerBytes: answer.body.length,
        ours: oursRun,
        ceiling: ceilingRun,
        oursToCeiling: ratio,
        targetRatio: WARM_TARGET_RATIO,
        pass: warmPass,
      },
      pass: coldPass && warmPass,
    };
  } finally {
    await ceiling?.stop();
    await ours.stop();
  }
}
