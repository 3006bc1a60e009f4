/**
 * `npm run bench -- --profile`: where the time goes. Runs `scoop serve` (one worker,
 * SQLite, log level warn, the built bundle) under `node --cpu-prof`, drives each benchmark
 * scenario for a few seconds with wrk (32 connections), stops it with SIGTERM so V8 writes
 * the profile, and prints the self-time summary (bench/cpuprofile.ts) — once for the small
 * answers and once for the large ones, each with a server of its own. The ceiling
 * (bench/ceiling.ts, replaying ours' answers) is profiled under the same load, for the
 * CPU time per request that node:http itself needs. Keeps the profiles
 * as bench/results/scoop-{small,large}.cpuprofile (open them in Chrome DevTools) and the
 * summaries as bench/results/profile.json.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importAndToken, writeBundle } from './bundle.ts';
import type { CaptureEntry } from './ceiling.ts';
import {
  type BuiltSources,
  builtSources,
  type CpuProfile,
  type ProfileSummary,
  renderSummary,
  summarise,
} from './cpuprofile.ts';
import { capture } from './http.ts';
import { ensureWrk, runWrk } from './load.ts';
import { type Child, startBenchChild, startScoop, stopAll } from './processes.ts';
import { codeState, write } from './report.ts';
import { type Scenario, scenarios } from './scenarios.ts';

const SECONDS_PER_SCENARIO = 3;

/** Profiled apart, so the large answers' write time does not hide the small ones' request path. */
const GROUPS: ReadonlyArray<{ name: string; scenarios: readonly string[] }> = [
  {
    name: 'small',
    scenarios: ['getBereich-get', 'getBereich-soap11', 'getAnhang-tiny-soap11', 'getNewsletter-soap12'],
  },
  { name: 'large', scenarios: ['getArtikelDetails-soap11', 'getAnhang-1mb-soap11'] },
];

/** Drives each scenario for a few seconds against a server started with --cpu-prof, stops it, and summarises its profile. */
async function profileLoad(
  server: Child,
  profDir: string,
  list: readonly Scenario[],
  work: string,
  built: BuiltSources | undefined,
): Promise<{ summary: ProfileSummary; rps: Record<string, number>; requests: number; file: string }> {
  const rps: Record<string, number> = {};
  let requests = 0;
  for (const s of list) {
    process.stderr.write(`profiling ${server.name}, ${s.name} for ${SECONDS_PER_SCENARIO} s…\n`);
    const r = await runWrk({
      url: server.url,
      requests: [s.request],
      connections: 32,
      seconds: SECONDS_PER_SCENARIO,
      scriptFile: path.join(work, 'wrk.lua'),
    });
    rps[s.name] = Math.round(r.rps);
    requests += r.requests;
  }
  await server.stop();
  const name = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!name)
    throw new Error(`no profile written by ${server.name} (it did not exit cleanly?): ${server.stderr()}`);
  const file = path.join(profDir, name);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  return { summary: summarise(profile, built, 30), rps, requests, file };
}

export async function runProfile(options: { command: string }): Promise<void> {
  ensureWrk();
  spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const work = mkdtempSync(path.join(tmpdir(), 'scoop-profile-'));
  try {
    const bundle = await writeBundle(path.join(work, 'bundle'), { huge: false, jpeg: undefined });
    const db = path.join(work, 'scoop.db');
    const { token } = importAndToken(bundle.dir, db);
    const built = builtSources();
    mkdirSync('bench/results', { recursive: true });
    const groups: Array<Record<string, unknown>> = [];
    for (const group of GROUPS) {
      const list = scenarios(token).filter((x) => group.scenarios.includes(x.name));
      // Ours, then the ceiling replaying ours' answers, each under the profiler with the same load.
      const oursDir = path.join(work, `prof-${group.name}`);
      mkdirSync(oursDir);
      const server = await startScoop({ db, nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${oursDir}`] });
      const manifest: CaptureEntry[] = [];
      for (const s of list) {
        const answer = await capture(server.url, s.request);
        if (answer.status !== 200) throw new Error(`${s.name} answered ${answer.status}`);
        const bodyFile = path.join(work, `${group.name}-${s.name}.bin`);
        writeFileSync(bodyFile, answer.body);
        manifest.push({
          name: s.name,
          method: s.request.method,
          path: s.request.path,
          status: answer.status,
          headers: answer.rawHeaders,
          bodyFile,
        });
      }
      const ours = await profileLoad(server, oursDir, list, work, built);
      const manifestFile = path.join(work, `captures-${group.name}.json`);
      writeFileSync(manifestFile, JSON.stringify(manifest));
      const ceilingDir = path.join(work, `prof-ceiling-${group.name}`);
      mkdirSync(ceilingDir);
      const ceilingServer = await startBenchChild('ceiling', 'bench/ceiling.ts', [manifestFile], undefined, [
        '--cpu-prof',
        `--cpu-prof-dir=${ceilingDir}`,
      ]);
      const ceiling = await profileLoad(ceilingServer, ceilingDir, list, work, undefined);
      copyFileSync(ours.file, `bench/results/scoop-${group.name}.cpuprofile`);
      const summary = ours.summary;
      const measured = ours.rps;
      const perRequest = (p: { summary: ProfileSummary; requests: number }) => {
        const writev = p.summary.functions.find((f) => f.name === 'writev')?.ms ?? 0;
        return {
          busyUs: (p.summary.busyMs * 1000) / p.requests,
          writevUs: (writev * 1000) / p.requests,
        };
      };
      const oursPer = perRequest(ours);
      const ceilingPer = perRequest(ceiling);
      process.stdout.write(
        `\n## ${group.name} answers: ${group.scenarios.join(', ')}\n\n` +
          `per request: ours ${oursPer.busyUs.toFixed(1)} µs of CPU (writev ${oursPer.writevUs.toFixed(1)} µs), ` +
          `the ceiling ${ceilingPer.busyUs.toFixed(1)} µs (writev ${ceilingPer.writevUs.toFixed(1)} µs)\n\n${renderSummary(summary)}\n`,
      );
      groups.push({
        name: group.name,
        rpsUnderProfiler: measured,
        perRequestUs: { ours: oursPer, ceiling: ceilingPer },
        ceilingRpsUnderProfiler: ceiling.rps,
        ceilingSummary: ceiling.summary,
        summary,
      });
    }
    const written = write(path.resolve('bench/results/profile.json'), {
      schema: 'scoop-profile/1',
      command: options.command,
      date: new Date().toISOString(),
      code: codeState(),
      secondsPerScenario: SECONDS_PER_SCENARIO,
      groups,
    });
    process.stdout.write(`\nwritten to ${written} and bench/results/scoop-{small,large}.cpuprofile\n`);
  } finally {
    await stopAll();
    rmSync(work, { recursive: true, force: true });
  }
}
