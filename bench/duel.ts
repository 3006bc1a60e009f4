/**
 * Two builds side by side under the same load at the same time:
 * `npm run bench -- --only duel --baseline <git ref>`. This machine is shared: run one after
 * the other, two runs of the same build on the realistic mix differ by 10-20% in the CPU a
 * request costs (docs/performance.md, "The seventh round"), more than most single changes
 * gain. Here both servers are pinned to the same core and loaded at once, each by its own
 * wrk on the generator core, so whatever else the machine does meets both in the same
 * seconds; the figure is each server's CPU time per answered request (/proc/<pid>/stat), and
 * each round's ratio baseline / ours (above 1: this checkout costs less). Sharing a core,
 * they also evict each other's caches, so a round's ratio still scatters and the median of
 * several is the figure. `--baseline HEAD` on a tree whose src/ is HEAD's compares a build
 * with itself: the spread that noise alone leaves.
 *
 * The baseline is checked out into a git worktree, built with this checkout's node_modules,
 * imports the same generated content into a file of its own (its prepared answers are its
 * own format) and answers the same requests with its own token; each server has its own
 * variant and base64 cache folders, filled by one pass over every request before the rounds.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { loadTwoAtOnce } from './at-once.ts';
import { importAndToken } from './bundle.ts';
import { captureEach } from './http.ts';
import { runWrk } from './load.ts';
import { median, ratioSpread } from './measure.ts';
import { writeMixBundle } from './mix/dataset.ts';
import { type Distribution, drawOrder, mixRequests, ORDER_LENGTH } from './mix/requests.ts';
import { type MixLoad, packFilled } from './mix/run-mix.ts';
import { mixScript, writeMixOrder, writeMixRequests } from './mix/wrk-script.ts';
import { scoopNodeFlags } from './node-flags.ts';
import { type Child, startScoop } from './processes.ts';
import { table } from './render.ts';
import type { BenchRequest } from './scenarios.ts';

export interface DuelOptions extends MixLoad {
  /** A git ref of this repository: the build this checkout is compared with. */
  readonly baseline: string;
  /** The whole-answer cache of both servers: off measures the path every miss takes. */
  readonly answerCache: 'on' | 'off';
}

/** One round of one order: what each server did while both were loaded. */
export interface DuelSample {
  readonly oursUs: number;
  readonly baselineUs: number;
  readonly oursRps: number;
  readonly baselineRps: number;
  readonly errors: number;
}

export interface DuelRow {
  readonly distribution: Distribution;
  readonly oursUs: number;
  readonly baselineUs: number;
  readonly oursRps: number;
  readonly baselineRps: number;
  /** Median of the rounds' baseline / ours CPU per request; the lowest and highest beside it. */
  readonly ratio: number;
  readonly lowest: number;
  readonly highest: number;
  readonly errors: number;
}

export interface DuelReport {
  readonly baseline: string;
  readonly baselineCommit: string;
  /** The node flags each build's `bin/scoop.js` runs with (its servers are started with them). */
  readonly nodeFlags?: { readonly ours: readonly string[]; readonly baseline: readonly string[] };
  readonly answerCache: 'on' | 'off';
  readonly rounds: number;
  readonly seconds: number;
  readonly rows: readonly DuelRow[];
}

/** The rounds of one order, summed up: medians, and the ratio's spread. */
export function duelRow(distribution: Distribution, samples: readonly DuelSample[]): DuelRow {
  if (samples.length === 0) throw new Error('a duel row needs at least one round');
  return {
    distribution,
    oursUs: median(samples.map((s) => s.oursUs)),
    baselineUs: median(samples.map((s) => s.baselineUs)),
    oursRps: median(samples.map((s) => s.oursRps)),
    baselineRps: median(samples.map((s) => s.baselineRps)),
    ...ratioSpread(samples.map((s) => s.baselineUs / s.oursUs)),
    errors: samples.reduce((sum, s) => sum + s.errors, 0),
  };
}

function git(args: readonly string[]): string {
  const run = spawnSync('git', args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout.trim();
}

/** The baseline's worktree, built; `dispose` removes it. */
function checkOut(ref: string, dir: string): { commit: string; dispose(): void } {
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`]);
  git(['worktree', 'add', '--detach', dir, commit]);
  const dispose = () => {
    spawnSync('git', ['worktree', 'remove', '--force', dir]);
    spawnSync('git', ['worktree', 'prune']);
  };
  try {
    symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir');
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`the baseline ${ref} did not build: ${build.stderr}`);
  } catch (error) {
    dispose();
    throw error;
  }
  return { commit, dispose };
}

/** Every request once (variants made, whole texts kept); all must be 200. */
async function warm(server: Child, requests: readonly BenchRequest[], name: string): Promise<void> {
  let refused = 0;
  let first = '';
  await captureEach(server.url, requests, 8, (i, answer) => {
    if (answer.status === 200) return;
    refused++;
    first ||= `mix-${i}: ${answer.status} ${answer.body.toString().slice(0, 200)}`;
  });
  if (refused > 0)
    throw new Error(`${name} answered ${refused} of the mix's requests with an error, e.g. ${first}`);
}

export async function runDuel(
  work: string,
  options: DuelOptions,
  log: (line: string) => void,
): Promise<DuelReport> {
  log(`duel: checking out and building ${options.baseline}…`);
  const baseline = checkOut(options.baseline, path.join(work, 'baseline'));
  const servers: Child[] = [];
  try {
    log(`duel: generating the content (scale ${options.scale})…`);
    const dataset = await writeMixBundle(path.join(work, 'mix-bundle'), options.scale);
    const sides = (['ours', 'baseline'] as const).map((side) => {
      const root = side === 'ours' ? undefined : path.join(work, 'baseline');
      log(`duel: importing with ${side === 'ours' ? 'this checkout' : options.baseline}…`);
      const { token } = importAndToken(dataset.dir, path.join(work, `${side}.db`), root);
      const files = path.join(work, `${side}-files`);
      mkdirSync(files, { recursive: true });
      return { side, root, files, requests: mixRequests(dataset, token, options.requests) };
    });
    for (const side of sides) {
      const server = await startScoop({
        db: path.join(work, `${side.side}.db`),
        root: side.root,
        env: {
          ...(options.answerCache === 'off' ? { SCOOP_RESPONSE_CACHE_BYTES: '0' } : {}),
          SCOOP_VARIANT_CACHE_DIR: path.join(side.files, 'variants'),
          SCOOP_BASE64_CACHE_DIR: path.join(side.files, 'binaries'),
        },
      });
      servers.push(server);
      log(`duel: ${side.side} (pid ${server.pid}) answering each request once…`);
      await warm(server, side.requests, side.side);
      // A build with an answer pack measures it filled, as the mix does (run-mix.ts).
      await packFilled(server);
    }
    for (const side of sides) writeMixRequests(side.requests, path.join(side.files, 'mix.bin'));
    const rows: DuelRow[] = [];
    for (const distribution of ['uniform', 'zipf'] as const) {
      const samples: DuelSample[] = [];
      for (let round = 0; round <= options.rounds; round++) {
        // Round 0 is the warm-up (both at once, as measured), not counted.
        const seconds = round === 0 ? options.warmupSeconds : options.seconds;
        if (seconds <= 0) continue;
        const order = drawOrder(sides[0]!.requests.length, ORDER_LENGTH, distribution, 7 + round);
        // A new order each round: no round replays the sequence the one before it sent.
        const scripts = sides.map((side) => {
          const file = (name: string) => path.join(side.files, name);
          const files = { requests: file('mix.bin'), order: file('order.txt') };
          writeMixOrder(order, files.order);
          return { script: mixScript(files, 0), scriptFile: file('mix.lua') };
        });
        const [o, b] = await loadTwoAtOnce([servers[0]!.pid, servers[1]!.pid], round, (i) =>
          runWrk({
            url: servers[i]!.url,
            requests: [],
            ...scripts[i]!,
            connections: options.connections,
            seconds,
            serverPid: servers[i]!.pid,
          }),
        );
        if (round === 0) continue;
        const sample: DuelSample = {
          oursUs: o.cpuUs,
          baselineUs: b.cpuUs,
          oursRps: o.result.rps,
          baselineRps: b.result.rps,
          errors: o.result.errorCount + b.result.errorCount,
        };
        samples.push(sample);
        log(
          `duel: ${distribution} round ${round}/${options.rounds}: ours ${sample.oursUs.toFixed(0)} µs, ${options.baseline} ${sample.baselineUs.toFixed(0)} µs a request (${(sample.baselineUs / sample.oursUs).toFixed(3)})`,
        );
      }
      rows.push(duelRow(distribution, samples));
    }
    return {
      baseline: options.baseline,
      baselineCommit: baseline.commit,
      nodeFlags: { ours: scoopNodeFlags(), baseline: scoopNodeFlags(path.join(work, 'baseline')) },
      answerCache: options.answerCache,
      rounds: options.rounds,
      seconds: options.seconds,
      rows,
    };
  } finally {
    for (const server of servers) await server.stop();
    baseline.dispose();
  }
}

export function renderDuel(report: DuelReport): string {
  const flags = report.nodeFlags;
  const named = (list: readonly string[]) => list.join(' ') || 'none';
  const head = flags
    ? `node flags: ours ${named(flags.ours)}, ${report.baseline} ${named(flags.baseline)}\n`
    : '';
  return `${head}${table([
    [
      'order',
      'ours µs/request',
      `${report.baseline} µs/request`,
      'ours req/s',
      `${report.baseline} req/s`,
      `${report.baseline} / ours (median)`,
      'lowest – highest',
      'errors',
    ],
    ...report.rows.map((r) => [
      r.distribution,
      r.oursUs.toFixed(0),
      r.baselineUs.toFixed(0),
      r.oursRps.toFixed(0),
      r.baselineRps.toFixed(0),
      r.ratio.toFixed(3),
      `${r.lowest.toFixed(3)} – ${r.highest.toFixed(3)}`,
      String(r.errors),
    ]),
  ])}`;
}
