/**
 * `npm run bench -- --harvest` (issue 15): how fast `scoop harvest` copies a scoop
 * instance, against how fast that instance answers the same requests to a plain load
 * client. The demo content is scaled to 20,000 articles (each a copy of one of the four
 * demo articles with its own id, so a quarter are outside their window and answered as
 * unknown; their attachments are in their answers), imported into a SQLite store and
 * served by `scoop serve` pinned to CPU 0. The two clients, pinned to CPU 1, send the
 * same requests at the same concurrency:
 *
 *   load     bench/harvest-load.ts: getArtikelDetails 1…20000 and getNewsletter, each
 *            answer read and dropped
 *   harvest  scoop harvest --artikel 1-20000 --token … (its summary's requests and seconds:
 *            from its first request to the bundle renamed into place)
 *
 * Judged on a cold source: each measured pass against a `scoop serve` just started, as a
 * harvest meets its source (every request asked once, none of it in the answer cache);
 * the target is a harvest rate of at least 70 % of the load client's (median of the
 * rounds' ratios). Also reported: a warm source, whose answers all come from its answer
 * cache. Writes bench/results/harvest.json.
 *
 *   npm run bench -- --harvest [--harvest-articles 20000] [--harvest-concurrency 4] [--rounds 3]
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { importAndToken } from './bundle.ts';
import { scoopArgs } from './node-flags.ts';
import { machineBusy, pinned, startScoop } from './processes.ts';
import { codeState, machine, write } from './report.ts';

const DEMO = path.resolve('examples/demo-bundle');
const TARGET = 0.7;

export interface HarvestBenchOptions {
  readonly work: string;
  readonly articles: number;
  readonly concurrency: number;
  readonly rounds: number;
  readonly command: string;
  readonly log: (line: string) => void;
}

interface Round {
  readonly loadPerSecond: number;
  readonly harvestPerSecond: number;
  readonly ratio: number;
}

/** The demo bundle with `articles` articles: article i is a copy of demo article (i - 1) mod 4. */
function scaledBundle(folder: string, articles: number): void {
  const demo = JSON.parse(readFileSync(path.join(DEMO, 'bundle.json'), 'utf8'));
  const templates: Array<Record<string, unknown>> = demo.artikel;
  demo.artikel = Array.from({ length: articles }, (_, i) => {
    const template = templates[i % templates.length]!;
    return {
      ...template,
      artikelID: i + 1,
      text: String(template.text).replace('</h2>', ` (${i + 1})</h2>`),
    };
  });
  mkdirSync(folder, { recursive: true });
  cpSync(path.join(DEMO, 'files'), path.join(folder, 'files'), { recursive: true });
  writeFileSync(path.join(folder, 'bundle.json'), JSON.stringify(demo));
}

/** A child process pinned to the generator CPU; resolves with its stdout once it exited 0. */
function run(args: readonly string[]): Promise<string> {
  const command = [...pinned('generator'), process.execPath, ...args];
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SCOOP_LOG_LEVEL: 'warn' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => {
    stdout += t;
  });
  child.stderr.setEncoding('utf8').on('data', (t: string) => {
    stderr = (stderr + t).slice(-4000);
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${args[0]} exited ${code}: ${stderr}`)),
    ),
  );
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function loadPass(url: string, token: string, articles: number, concurrency: number): Promise<number> {
  const load = JSON.parse(
    await run([
      '--import',
      'tsx',
      'bench/harvest-load.ts',
      url,
      token,
      String(articles),
      String(concurrency),
    ]),
  );
  return load.requests / load.seconds;
}

async function harvestPass(
  url: string,
  token: string,
  options: HarvestBenchOptions,
  n: number,
): Promise<number> {
  const out = path.join(options.work, `harvested-${n}`);
  const summary = JSON.parse(
    (
      await run([
        ...scoopArgs(['harvest']),
        '--from',
        url,
        '--out',
        out,
        '--token',
        token,
        '--artikel',
        `1-${options.articles}`,
        '--concurrency',
        String(options.concurrency),
        '--progress=json',
      ])
    ).trim(),
  );
  rmSync(out, { recursive: true, force: true });
  return summary.requests / summary.seconds;
}

function summarise(rounds: readonly Round[]) {
  const ratio = median(rounds.map((r) => r.ratio));
  return {
    rounds,
    loadPerSecond: median(rounds.map((r) => r.loadPerSecond)),
    harvestPerSecond: median(rounds.map((r) => r.harvestPerSecond)),
    ratio,
    pass: ratio >= TARGET,
  };
}

export async function runHarvestBench(options: HarvestBenchOptions): Promise<void> {
  const { work, articles, concurrency, log } = options;
  const busy = await machineBusy();
  log(`harvest: scaling the demo content to ${articles} articles…`);
  const bundle = path.join(work, 'scaled');
  scaledBundle(bundle, articles);
  const db = path.join(work, 'harvest-source.db');
  const { token, importMs } = importAndToken(bundle, db);
  log(`harvest: imported in ${(importMs / 1000).toFixed(1)} s`);
  let passes = 0;

  // Cold: every pass against a scoop serve just started, as a harvest meets its source — each
  // request asked once, nothing of it cached yet. Load client and harvest take turns going first.
  const cold: Round[] = [];
  for (let i = 0; i < options.rounds; i++) {
    const rates: Record<'load' | 'harvest', number> = { load: 0, harvest: 0 };
    for (const which of i % 2 === 0 ? (['load', 'harvest'] as const) : (['harvest', 'load'] as const)) {
      const server = await startScoop({ db });
      try {
        rates[which] =
          which === 'load'
            ? await loadPass(server.url, token, articles, concurrency)
            : await harvestPass(server.url, token, options, passes++);
      } finally {
        await server.stop();
      }
    }
    cold.push({
      loadPerSecond: rates.load,
      harvestPerSecond: rates.harvest,
      ratio: rates.harvest / rates.load,
    });
    log(
      `harvest, cold source: round ${i + 1}: load client ${rates.load.toFixed(0)}/s, harvest ${rates.harvest.toFixed(0)}/s (${((rates.harvest / rates.load) * 100).toFixed(0)} %)`,
    );
  }

  // Warm: one server, after a pass that fills its answer cache: every answer then comes from
  // memory, so this measures the two clients more than the source.
  const warm: Round[] = [];
  const server = await startScoop({ db });
  try {
    await loadPass(server.url, token, articles, concurrency);
    for (let i = 0; i < options.rounds; i++) {
      const load = await loadPass(server.url, token, articles, concurrency);
      const harvested = await harvestPass(server.url, token, options, passes++);
      warm.push({ loadPerSecond: load, harvestPerSecond: harvested, ratio: harvested / load });
      log(
        `harvest, warm source: round ${i + 1}: load client ${load.toFixed(0)}/s, harvest ${harvested.toFixed(0)}/s (${((harvested / load) * 100).toFixed(0)} %)`,
      );
    }
  } finally {
    await server.stop();
  }

  const report = {
    schema: 'scoop-bench-harvest/1',
    command: options.command,
    date: new Date().toISOString(),
    machine: machine('bench/harvest-load.ts'),
    code: codeState(),
    settings: {
      articles,
      concurrency,
      rounds: options.rounds,
      machineBusyAtStart: busy,
      loadAverageAtStart: loadavg()[0],
      server: 'scoop serve, SQLite, one worker, pinned to CPU 0',
      clients: 'load client and harvest each pinned to CPU 1, one after the other',
    },
    cold: summarise(cold),
    warm: summarise(warm),
    target: TARGET,
    judgedOn: 'cold',
  };
  const file = write(path.resolve('bench/results/harvest.json'), report);
  const line = (name: string, r: ReturnType<typeof summarise>) =>
    `  ${name}: load client ${r.loadPerSecond.toFixed(0)} requests/s, harvest ${r.harvestPerSecond.toFixed(0)} requests/s: ${(r.ratio * 100).toFixed(0)} %`;
  process.stdout.write(
    `\nharvest of ${articles} articles at concurrency ${concurrency} (medians of ${options.rounds} rounds; machine ${(busy * 100).toFixed(0)} % busy at the start):\n` +
      `${line('cold source (judged)', report.cold)} (target ≥ ${TARGET * 100} %) ${report.cold.pass ? 'PASS' : 'FAIL'}\n` +
      `${line('warm source', report.warm)}\n` +
      `written to ${file}\n`,
  );
}
