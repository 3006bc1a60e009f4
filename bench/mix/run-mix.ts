/**
 * The realistic mix (issue 17 item 1), `npm run bench -- --only mix`: the generated content
 * (dataset.ts) imported into each store, 50,000 distinct requests (requests.ts) sent by wrk
 * in a uniform or a Zipf-distributed order, against `scoop serve` with the whole-answer
 * cache on (its default budget) and off, and against the ceiling: a bare node:http server
 * that reads each request and looks its answer — the bytes scoop gave, captured once —
 * up in memory (bench/ceiling.ts, by the request's name). Ratios are the median of the
 * rounds' ratios, each round running ours and the ceiling back to back on the same order.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { importAndToken } from '../bundle.ts';
import type { CaptureEntry } from '../ceiling.ts';
import { type GcOfRun, gcOfRun, gcTotals } from '../gc-stats.ts';
import { type Captured, capture, captureEach } from '../http.ts';
import type { WrkResult } from '../load.ts';
import { median } from '../measure.ts';
import { type Child, RssSampler, SERVE_ENV, startBenchChild, startScoop } from '../processes.ts';
import { table } from '../render.ts';
import { extraStores } from '../stores.ts';
import { sameBytes } from '../verify.ts';
import { type ImportCurve, importCurve } from './after-import.ts';
import { writeMixBundle } from './dataset.ts';
import type { MixReport, MixRow } from './mix-report.ts';
import { type Distribution, drawOrder, type MixRequest, mixRequests, ORDER_LENGTH } from './requests.ts';
import { type MixFiles, MixStream, runStretch, writeMixOrder, writeMixRequests } from './wrk-script.ts';

/** How the mix is made and sent (also bench/duel.ts's). */
export interface MixLoad {
  readonly rounds: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  /** Connections of each wrk. */
  readonly connections: number;
  /** Distinct requests (50,000 in the issue). */
  readonly requests: number;
  /** 1 = the issue's content; less for a quick look. */
  readonly scale: number;
}

export interface MixOptions extends MixLoad {
  /**
   * Seconds each new server first runs its order, unmeasured, before its rounds: its caches
   * as a server in service has them (`--mix-warm`; 0, the protocol before 2026-11-29: the
   * rounds begin on cold caches). The curve after an import shows the cold start.
   */
  readonly serverWarmSeconds: number;
  /** `--store` as bench/stores.ts reads it; SQLite is always measured. */
  readonly stores: readonly string[] | undefined;
}

const CACHE_ENV = { on: {}, off: { SCOOP_RESPONSE_CACHE_BYTES: '0' } } as const;

export async function runMix(
  work: string,
  options: MixOptions,
  notes: string[],
  log: (line: string) => void,
): Promise<MixReport> {
  log(`mix: generating the content (scale ${options.scale})…`);
  const dataset = await writeMixBundle(path.join(work, 'mix-bundle'), options.scale);
  const stores = [
    { label: 'sqlite', location: path.join(work, 'mix.db'), dispose: async () => undefined },
    ...(await extraStores(options.stores, notes)),
  ];
  const rows: MixRow[] = [];
  if (options.serverWarmSeconds > 0)
    notes.push(
      `mix: each server ran its order ${options.serverWarmSeconds} s, unmeasured, before its rounds (--mix-warm)`,
    );
  const curves: ImportCurve[] = [];
  const importMs: Record<string, number> = {};
  let ceiling: Child | undefined;
  let meanAnswerBytes = 0;
  let distinct = 0;
  // Every server's file caches where SQLite's are by default (beside mix.db): the stores hold
  // the same content, so PostgreSQL's servers find the texts SQLite's kept, as a long-running
  // instance would have (and nothing is written to ./data, where a PostgreSQL store's go).
  const folders = {
    SCOOP_VARIANT_CACHE_DIR: path.join(work, 'variants'),
    SCOOP_BASE64_CACHE_DIR: path.join(work, 'binaries'),
  };
  const scriptFile = path.join(work, 'mix.lua');
  try {
    for (const store of stores) {
      const storeName = store.label.split(' ')[0]!;
      log(`mix: importing into ${store.label}…`);
      const imported = importAndToken(dataset.dir, store.location);
      importMs[storeName] = Math.round(imported.importMs);
      const requests = mixRequests(dataset, imported.token, options.requests);
      distinct = requests.length;
      const streamFiles = mixFiles(work, requests);
      if (!ceiling) {
        const captured = await captureAnswers(work, store.location, requests, log);
        meanAnswerBytes = captured.meanBytes;
        ceiling = await startBenchChild('ceiling', 'bench/ceiling.ts', [captured.manifest]);
        await sameAnswers(ceiling.url, requests, captured.sample);
      }
      // The answer cache off first: the runs with it on end with imports (after-import.ts).
      for (const cache of ['off', 'on'] as const) {
        // Each order on a server of its own, as a server in service sees one kind of traffic:
        // on one server the uniform order's filling of the caches weighed on the Zipf rounds
        // (docs/performance.md, "The twenty-fourth round"). Each stream starts at its order's
        // start; the answer cache and the answer pack are each process's own, the file caches'
        // folders (variants, base64 texts) are shared, as by the workers of one machine.
        const served: Served[] = [];
        const setup = { storeName, cache, db: store.location, env: { ...CACHE_ENV[cache], ...folders } };
        try {
          for (const distribution of ['uniform', 'zipf'] as const) {
            const order = await serveOrder(
              { ...setup, distribution },
              new MixStream(streamFiles[distribution], ORDER_LENGTH),
              ceiling,
              scriptFile,
              options,
              notes,
              log,
            );
            served.push(order);
            // With the answer cache on, its curve after an import comes once every round has run.
            if (cache === 'off') await order.stop();
          }
          if (cache === 'on') {
            // Last, as each import changes the content every server reads. A server after the
            // first has seen the imports before its own: it runs its order again first.
            for (const [i, order] of served.entries()) {
              if (i > 0) await rewarm(order, `${storeName}, cache on`, scriptFile, options, notes, log);
              log(`mix: ${storeName}, the rate around an import, ${order.distribution}`);
              curves.push(
                await importCurve({
                  server: order.server,
                  store: storeName,
                  db: store.location,
                  distribution: order.distribution,
                  stream: order.stream,
                  scriptFile,
                  connections: options.connections,
                  work,
                  areas: 20,
                }),
              );
              await order.stop();
            }
          }
        } finally {
          for (const order of served) await order.stop();
        }
        for (const { stream, distribution } of served)
          if (stream.wrapped)
            notes.push(
              `mix, ${storeName}, cache ${cache}: the ${distribution} order came round to its start, so part of it was sent twice (a longer run than ${ORDER_LENGTH} draws cover)`,
            );
        for (const { distribution, runs, peakRssMb } of served) {
          rows.push({
            store: storeName,
            cache,
            distribution,
            oursRps: median(runs.ours.map((x) => x.rps)),
            ceilingRps: median(runs.ceiling.map((x) => x.rps)),
            ratio: median(runs.ours.map((x, i) => x.rps / runs.ceiling[i]!.rps)),
            oursP99Ms: median(runs.ours.map((x) => x.p99Ms)),
            ceilingP99Ms: median(runs.ceiling.map((x) => x.p99Ms)),
            errors: [...runs.ours, ...runs.ceiling].reduce((sum, x) => sum + x.errorCount, 0),
            peakRssMb: peakRssMb(),
            ...(runs.gc.length > 0
              ? {
                  majorGcPerSecond: median(runs.gc.map((x) => x.majorPerSecond)),
                  gcPauseShare: median(runs.gc.map((x) => x.pauseShare)),
                }
              : {}),
          });
        }
      }
    }
  } finally {
    await ceiling?.stop();
    for (const store of stores) await store.dispose();
  }
  return {
    content: { ...dataset.counts, fileBytes: dataset.fileBytes, distinctRequests: distinct },
    meanAnswerBytes,
    importMs,
    rows,
    curves,
    serverEnv: SERVE_ENV,
  };
}

/** One server's runs of one order: its measured rounds, and the ceiling's on the same stretches. */
interface OrderRuns {
  readonly ours: WrkResult[];
  readonly ceiling: WrkResult[];
  readonly gc: GcOfRun[];
}

/** A server that has run its order's rounds, still up (the import's curve comes after). */
interface Served {
  readonly distribution: Distribution;
  readonly server: Child;
  readonly stream: MixStream;
  readonly runs: OrderRuns;
  /** Its peak RSS over everything it ran, known once it is stopped. */
  readonly peakRssMb: () => number;
  stop(): Promise<void>;
}

interface OrderSetup {
  readonly storeName: string;
  readonly cache: 'on' | 'off';
  readonly distribution: Distribution;
  readonly db: string;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Starts a server, waits for its answer pack, warms it on its order (`--mix-warm`), then runs
 * the rounds: each a warm-up and a measured run of ours, then the ceiling sent the very
 * stretches ours was (only ours moves the stream on).
 */
async function serveOrder(
  setup: OrderSetup,
  stream: MixStream,
  ceiling: Child,
  scriptFile: string,
  options: MixOptions,
  notes: string[],
  log: (line: string) => void,
): Promise<Served> {
  const { storeName, cache, distribution } = setup;
  const named = `${storeName}, cache ${cache}, ${distribution}`;
  const server = await startScoop({ db: setup.db, env: setup.env });
  let sampler: RssSampler | undefined;
  let peakMb = 0;
  const stop = async () => {
    if (sampler) peakMb = sampler.stop().peakMb;
    sampler = undefined;
    await server.stop();
  };
  try {
    const filledMs = await packFilled(server);
    notes.push(
      filledMs === undefined
        ? `mix, ${named}: the answer pack was not filled within ${PACK_WAIT_MS / 1000} s; measured anyway`
        : `mix, ${named}: the answer pack filled ${(filledMs / 1000).toFixed(1)} s after the start; the rounds begin then (the rate while it fills: the curve after an import)`,
    );
    sampler = new RssSampler(server.pid, 100);
    if (options.serverWarmSeconds > 0) {
      log(`mix: ${named}, warming for ${options.serverWarmSeconds} s`);
      await warm(server, stream, scriptFile, options);
    }
    const runs: OrderRuns = { ours: [], ceiling: [], gc: [] };
    for (let round = 0; round < options.rounds; round++) {
      log(`mix: ${named}, round ${round + 1}/${options.rounds}`);
      const measured = await timed(server, stream, { warmUp: stream.at }, scriptFile, options, runs.gc);
      stream.advance(measured.sent);
      runs.ours.push(measured.result);
      const alike = { warmUp: measured.warmedAt, measured: measured.measuredAt };
      runs.ceiling.push((await timed(ceiling, stream, alike, scriptFile, options)).result);
    }
    return { distribution, server, stream, runs, peakRssMb: () => peakMb, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `--mix-warm` seconds of the server's order, unmeasured, from where its stream is. */
async function warm(
  server: Child,
  stream: MixStream,
  scriptFile: string,
  options: MixOptions,
): Promise<void> {
  const warmed = await timed(server, stream, { warmUp: stream.at }, scriptFile, {
    ...options,
    warmupSeconds: 0,
    seconds: options.serverWarmSeconds,
  });
  stream.advance(warmed.sent);
}

/** A server that has sat idle through another's import, brought back to its steady state. */
async function rewarm(
  order: Served,
  named: string,
  scriptFile: string,
  options: MixOptions,
  notes: string[],
  log: (line: string) => void,
): Promise<void> {
  const seconds = Math.max(options.serverWarmSeconds, 5);
  log(`mix: ${named}, ${order.distribution}, warming again for ${seconds} s after the import before`);
  await warm(order.server, order.stream, scriptFile, { ...options, serverWarmSeconds: seconds });
  notes.push(
    `mix, ${named}, ${order.distribution}: its curve after an import came after the other order's import; the server ran its order ${seconds} s first`,
  );
}

const PACK_WAIT_MS = 180_000;

/**
 * Waits until the server's answer pack holds every prepared answer (its admin listener's
 * scoop_answer_pack_filled_version), so the rounds measure the steady state; ms waited, or
 * undefined when it did not fill in time (or the server has no admin listener).
 */
export async function packFilled(server: Child): Promise<number | undefined> {
  if (!server.adminUrl) return undefined;
  const started = Date.now();
  while (Date.now() - started < PACK_WAIT_MS) {
    const metrics = await fetch(`${server.adminUrl}/metrics`).then(
      (answer) => answer.text(),
      () => '',
    );
    const filled = /^scoop_answer_pack_filled_version (\d+)/m.exec(metrics);
    // A server without a pack (turned off) has nothing to wait for.
    if (metrics !== '' && !filled) return undefined;
    if (filled && Number(filled[1]) > 0) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return undefined;
}

/** Each order's files, over the same requests (their bytes written once). */
function mixFiles(work: string, requests: readonly MixRequest[]): Record<Distribution, MixFiles> {
  const file = path.join(work, 'mix-requests.bin');
  writeMixRequests(requests, file);
  const files = (distribution: Distribution) => {
    const order = path.join(work, `mix-order-${distribution}.txt`);
    writeMixOrder(drawOrder(requests.length, ORDER_LENGTH, distribution), order);
    return { requests: file, order };
  };
  return { uniform: files('uniform'), zipf: files('zipf') };
}

/**
 * Warm-up, then the measured run, of one server on one order's stream: the warm-up from
 * `at.warmUp`, the measured run from `at.measured` or else where the warm-up stopped; with
 * `gc`, the measured run's collections are added to it (read from the server's admin
 * listener, when it has one). `sent`: the draws both runs took, to move the stream on by;
 * `warmedAt` and `measuredAt`: where each began, for a run that is to be sent the same.
 */
async function timed(
  target: Child,
  stream: MixStream,
  at: { readonly warmUp: number; readonly measured?: number },
  scriptFile: string,
  options: MixOptions,
  gc?: GcOfRun[],
): Promise<{ result: WrkResult; sent: number; warmedAt: number; measuredAt: number }> {
  let next = at.warmUp;
  const wrkTarget = { url: target.url, pid: target.pid, scriptFile, connections: options.connections };
  const run = async (seconds: number) => {
    const { result, draws } = await runStretch(wrkTarget, stream, next, seconds);
    next += draws;
    return result;
  };
  if (options.warmupSeconds > 0) await run(options.warmupSeconds);
  if (at.measured !== undefined) next = at.measured;
  const measuredAt = next;
  const admin = gc && target.adminUrl;
  const before = admin ? await gcTotals(admin) : undefined;
  const result = await run(options.seconds);
  if (gc && admin && before) gc.push(gcOfRun(before, await gcTotals(admin), options.seconds));
  return { result, sent: next - at.warmUp, warmedAt: at.warmUp, measuredAt };
}

/**
 * Every request's answer from a scoop of its own (then stopped, so the measured servers start
 * with empty caches), written for the ceiling. All must be 200: the mix has no refusals.
 */
async function captureAnswers(
  work: string,
  db: string,
  requests: readonly MixRequest[],
  log: (line: string) => void,
): Promise<{ manifest: string; meanBytes: number; sample: Map<number, Captured> }> {
  const dir = path.join(work, 'mix-captures');
  mkdirSync(dir, { recursive: true });
  const server = await startScoop({ db });
  log(`mix: capturing ${requests.length} answers…`);
  const manifest: CaptureEntry[] = new Array(requests.length);
  const sample = new Map<number, Captured>();
  let bytes = 0;
  try {
    await captureEach(server.url, requests, 8, (i, answer) => {
      const request = requests[i]!;
      if (answer.status !== 200)
        throw new Error(
          `mix-${i} (${request.operation} over ${request.binding}) answered ${answer.status}: ${answer.body.toString().slice(0, 200)}`,
        );
      const bodyFile = path.join(dir, `${i}.bin`);
      writeFileSync(bodyFile, answer.body);
      bytes += answer.body.length + answer.headBytes;
      if (i % 250 === 0) sample.set(i, answer);
      manifest[i] = {
        name: `mix-${i}`,
        method: request.method,
        path: request.path,
        status: answer.status,
        headers: answer.rawHeaders,
        bodyFile,
      };
    });
  } finally {
    await server.stop();
  }
  const file = path.join(work, 'mix-captures.json');
  writeFileSync(file, JSON.stringify(manifest));
  return { manifest: file, meanBytes: Math.round(bytes / requests.length), sample };
}

async function sameAnswers(
  url: string,
  requests: readonly MixRequest[],
  sample: Map<number, Captured>,
): Promise<void> {
  for (const [i, ours] of sample) {
    const differs = sameBytes(ours, await capture(url, requests[i]!));
    if (differs) throw new Error(`the ceiling's answer to mix-${i} is not ours: ${differs}`);
  }
}

export function renderMix(report: MixReport): string {
  const rows = [
    [
      'store',
      'answer cache',
      'order',
      'scoop req/s',
      'ceiling req/s',
      'scoop / ceiling',
      'scoop p99 ms',
      'ceiling p99 ms',
      'errors',
      'peak RSS MiB',
      'major GCs/s',
      'GC pauses',
    ],
    ...report.rows.map((r) => [
      r.store,
      r.cache,
      r.distribution,
      r.oursRps.toFixed(0),
      r.ceilingRps.toFixed(0),
      r.ratio.toFixed(2),
      r.oursP99Ms.toFixed(1),
      r.ceilingP99Ms.toFixed(1),
      String(r.errors),
      r.peakRssMb.toFixed(0),
      r.majorGcPerSecond === undefined ? '–' : r.majorGcPerSecond.toFixed(1),
      r.gcPauseShare === undefined ? '–' : `${(r.gcPauseShare * 100).toFixed(1)}%`,
    ]),
  ];
  const c = report.content;
  const curves = report.curves.map(
    (k) =>
      `around an import (${k.store}, ${k.distribution}, ${k.changedAreas} areas renamed, import ${(k.importMs / 1000).toFixed(1)} s): steady ${k.steadyRps.toFixed(0)} req/s; the 10 s after: ${k.after.map((x) => (x / k.steadyRps).toFixed(2)).join(' ')} of it, mean ${k.firstSecondsRatio.toFixed(2)}`,
  );
  return `${table(rows)}

${curves.join('\n')}

content: ${c.artikel} articles, ${c.bereiche} areas, ${c.cityAppBereiche} city-app areas, ${c.anhaenge} attachments, ${c.bilder} images, ${c.abonnements} subscriptions (${(c.fileBytes / 1e6).toFixed(0)} MB of files); ${c.distinctRequests} distinct requests, answers of ${(report.meanAnswerBytes / 1024).toFixed(1)} KiB on average; import ${Object.entries(
    report.importMs,
  )
    .map(([store, ms]) => `${store} ${(ms / 1000).toFixed(1)} s`)
    .join(', ')}`;
}
