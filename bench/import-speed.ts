/**
 * `npm run bench -- --only import` (issue 17 item 6): how fast `scoop import` loads the
 * realistic mix's content (bench/mix/dataset.ts: 20,000 articles and the rest, files
 * included) into a fresh store, prepared answers and all, exactly as an operator runs it:
 * `node bin/scoop.js import DIR --db …` as a child process, timed from its start to its
 * exit. The bundle is generated once; each round imports it into a new SQLite file and,
 * when PostgreSQL answers (bench/stores.ts), into a new schema, the stores alternating.
 * Figures are medians of the rounds: records/s counts every record of every kind, MB/s
 * the bundle's files; a warm-up round before them is reported but not counted. Before each
 * round the harness has the machine's pending writes put on disk (`sync`) and waits (up to
 * a minute) for the machine to be quiet, and records how busy it was. Writes
 * bench/results/import.json.
 *
 *   npm run bench -- --only import [--rounds 5] [--store sqlite] [--mix-scale 0.1]
 *                                  [--import-bundle DIR]   (a bundle this harness wrote before, kept with --keep)
 *
 * `--store postgres://…` imports into that store every round: after the first, its content
 * is already the bundle's, so those rounds measure an import that changes nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { median } from './measure.ts';
import { writeMixBundle } from './mix/dataset.ts';
import { scoopArgs } from './node-flags.ts';
import { waitQuiet } from './processes.ts';
import { codeState, machine, write } from './report.ts';
import { extraStores } from './stores.ts';

export interface ImportBenchOptions {
  readonly work: string;
  readonly scale: number;
  readonly rounds: number;
  /** `--store` as bench/stores.ts reads it; SQLite is always measured. */
  readonly stores: readonly string[] | undefined;
  /** A bundle folder generated before (with its dataset.json), instead of a new one. */
  readonly bundle: string | undefined;
  readonly command: string;
  readonly log: (line: string) => void;
}

interface Content {
  readonly dir: string;
  readonly records: number;
  readonly fileBytes: number;
}

interface Round {
  readonly ms: number;
  /** Share of both CPUs busy in the second before the round (other work skews it). */
  readonly busyBefore: number;
}

interface StoreFigures {
  readonly store: string;
  /** The round before the counted ones. */
  readonly warmUpMs: number;
  readonly rounds: readonly Round[];
  readonly medianMs: number;
  readonly recordsPerSecond: number;
  readonly fileMbPerSecond: number;
}

const TARGETS: Readonly<Record<string, number>> = { sqlite: 10_000, postgres: 3_000 };

/** The dataset's figures are kept beside the bundle, so a bundle can be reused across builds. */
async function content(options: ImportBenchOptions): Promise<Content> {
  if (options.bundle) {
    const saved = path.join(options.bundle, 'dataset.json');
    if (!existsSync(saved)) throw new Error(`${saved} is missing: not a bundle this harness made`);
    return { dir: options.bundle, ...JSON.parse(readFileSync(saved, 'utf8')) };
  }
  options.log(`import: generating the mix's content (scale ${options.scale})…`);
  const dataset = await writeMixBundle(path.join(options.work, 'bundle'), options.scale);
  const records = Object.values(dataset.counts).reduce((a, b) => a + b, 0);
  const figures = { records, fileBytes: dataset.fileBytes };
  writeFileSync(path.join(dataset.dir, 'dataset.json'), JSON.stringify(figures));
  return { dir: dataset.dir, ...figures };
}

/** One `scoop import` as its own process, timed from spawn to exit. */
function timedImport(dir: string, db: string): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, scoopArgs(['import', dir, '--db', db]), {
    encoding: 'utf8',
    env: { ...process.env, SCOOP_LOG_LEVEL: 'warn' },
  });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`scoop import failed (${run.status ?? run.signal}): ${run.stderr}`);
  return ms;
}

/**
 * Writes every dirty page of the machine to disk before a round, as waitQuiet waits for
 * the CPUs: otherwise a round also waits on the write-back of files written before it —
 * the bundle the harness just generated (346 MB at scale 1), which took the first round
 * from about 5.1 to 6–7 s (docs/performance.md "Import speed").
 */
function flushWrites(): void {
  const run = spawnSync('sync');
  if (run.status !== 0) throw new Error(`sync failed: ${run.stderr}`);
}

export async function runImportBench(options: ImportBenchOptions): Promise<void> {
  const data = await content(options);
  const notes: string[] = [];
  const probe = await extraStores(options.stores, notes);
  await Promise.all(probe.map((s) => s.dispose()));
  const withPostgres = probe.some((s) => s.label.startsWith('postgres'));
  const rounds: Record<string, Round[]> = { sqlite: [], ...(withPostgres ? { postgres: [] } : {}) };
  const warmUp: Record<string, number> = {};
  // Round 0 warms up and is not counted: right after the bundle was generated, the first
  // imports ran up to 1.4 times longer even with the writes flushed (the virtual disk still
  // busy with them, it seems), and a bundle written earlier showed no such first round.
  for (let round = 0; round <= options.rounds; round++) {
    for (const store of Object.keys(rounds)) {
      flushWrites();
      const busyBefore = await waitQuiet(60);
      let ms: number;
      if (store === 'sqlite') {
        const db = path.join(options.work, `import-${round}.db`);
        ms = timedImport(data.dir, db);
        for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
      } else {
        // A new schema each round (or the store `--store postgres://…` names, as it is).
        const [fresh] = await extraStores(options.stores, []);
        try {
          ms = timedImport(data.dir, fresh!.location);
        } finally {
          await fresh!.dispose();
        }
      }
      if (round === 0) warmUp[store] = ms;
      else rounds[store]!.push({ ms, busyBefore });
      options.log(
        `import: ${round === 0 ? 'warm-up round' : `round ${round}`}, ${store}: ${(ms / 1000).toFixed(2)} s, ${Math.round(data.records / (ms / 1000))} records/s (machine ${(busyBefore * 100).toFixed(0)}% busy before)`,
      );
    }
  }
  const figures: StoreFigures[] = Object.entries(rounds).map(([store, list]) => {
    const medianMs = median(list.map((r) => r.ms));
    return {
      store,
      warmUpMs: warmUp[store]!,
      rounds: list,
      medianMs,
      recordsPerSecond: data.records / (medianMs / 1000),
      fileMbPerSecond: data.fileBytes / 1e6 / (medianMs / 1000),
    };
  });
  const report = {
    schema: 'scoop-bench-import/1',
    command: options.command,
    date: new Date().toISOString(),
    machine: machine('none'),
    code: codeState(),
    content: { scale: options.scale, records: data.records, fileBytes: data.fileBytes },
    notes,
    stores: figures.map((f) => ({
      ...f,
      target: TARGETS[f.store] ?? null,
      pass: f.recordsPerSecond >= (TARGETS[f.store] ?? 0),
    })),
  };
  const lines = [
    `content: ${data.records} records, ${(data.fileBytes / 1e6).toFixed(1)} MB of files (scale ${options.scale}); ${options.rounds} rounds after a warm-up round`,
    '| store | median | records/s | MB/s of files | target | rounds (s) | warm-up (s) |',
    '|---|---:|---:|---:|---:|---|---:|',
    ...report.stores.map(
      (f) =>
        `| ${f.store} | ${(f.medianMs / 1000).toFixed(2)} s | ${Math.round(f.recordsPerSecond)} | ${f.fileMbPerSecond.toFixed(1)} | ≥ ${f.target ?? '–'} ${f.pass ? 'pass' : 'FAIL'} | ${f.rounds.map((r) => (r.ms / 1000).toFixed(2)).join(', ')} | ${(f.warmUpMs / 1000).toFixed(2)} |`,
    ),
    ...notes,
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
  process.stdout.write(`\nwritten to ${write(path.resolve('bench/results/import.json'), report)}\n`);
}
