/** The benchmark's report (bench/report.ts) as Markdown tables: printed, and pasted into docs/performance.md. */

import type { CpuShare } from './processes.ts';
import type { BenchReport, codeState, Repeated, Run } from './report.ts';
import type { Target } from './scenarios.ts';

const f0 = (n: number | null | undefined) =>
  n === null || n === undefined || Number.isNaN(n) ? '–' : n.toFixed(0);
const f2 = (n: number | null | undefined) =>
  n === null || n === undefined || Number.isNaN(n) ? '–' : n.toFixed(2);
const ms = (n: number | null | undefined) =>
  n === null || n === undefined || Number.isNaN(n) ? '–' : n < 10 ? n.toFixed(2) : n.toFixed(1);
const pct = (n: number | null) => (n === null ? '–' : `${(n * 100).toFixed(0)}%`);
const times = (n: number | null) => (n === null ? '–' : `${n.toFixed(2)}×`);

function runCell(run: Run | null, value: (r: Run) => string): string {
  if (!run) return '–';
  if (run.failed) return 'FAILED';
  return run.disturbed ? `${value(run)}*` : value(run);
}

const shares = (cpu: CpuShare) =>
  `${cpu.server.toFixed(2)} / ${cpu.generator.toFixed(2)} / ${cpu.other.toFixed(2)}`;
const cores = (run: Run | null) => (run && !run.failed ? shares(run.cpu) : '–');

function targetText(t: Target): string {
  const parts = [`≥${pct(t.minCeilingRatio)} ceil`];
  if (t.maxP99Ratio !== undefined) parts.push(`p99 ≤${t.maxP99Ratio}×`);
  if (t.minPeerRatio !== undefined) parts.push(`≥${t.minPeerRatio}× peer`);
  return parts.join(', ');
}

export function table(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (r: readonly string[]) => `| ${r.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`;
  return [
    line(rows[0]!),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
  ].join('\n');
}

/** The report as Markdown tables (printed, and pasted into docs/performance.md). */
export function render(report: BenchReport): string {
  const out: string[] = [];
  out.push(
    `scoop benchmark — ${report.date}, ${report.machine.cpus} × ${report.machine.cpu}, Node ${report.machine.node}, ${report.machine.generator}`,
  );
  out.push(`command: ${report.command}`);
  const code = report.settings.code as ReturnType<typeof codeState> | undefined;
  if (code)
    out.push(
      `code: ${code.commit} with ${code.changedSourceFiles} changed files under src/, dist/*.mjs ${code.distSha256 ?? '–'}, node flags: ${code.nodeFlags === undefined ? '–' : code.nodeFlags.join(' ') || 'none'}`,
    );
  out.push('');
  if (report.scenarios.length > 0) {
    const rows = [
      [
        'scenario',
        'ours req/s',
        'p50 ms',
        'p99 ms',
        'ceiling req/s',
        'ceil p99 ms',
        'peer req/s',
        'ours/ceil',
        'p99/ceil',
        'ours/peer',
        'target',
        'result',
      ],
    ];
    for (const s of report.scenarios) {
      rows.push([
        s.name,
        runCell(s.ours, (r) => f0(r.rps)),
        runCell(s.ours, (r) => ms(r.p50Ms)),
        runCell(s.ours, (r) => ms(r.p99Ms)),
        runCell(s.ceiling, (r) => f0(r.rps)),
        runCell(s.ceiling, (r) => ms(r.p99Ms)),
        s.peer ? runCell(s.peer, (r) => f0(r.rps)) : (s.peerNote ?? '–'),
        pct(s.ratios.oursToCeiling),
        times(s.ratios.p99ToCeiling),
        times(s.ratios.oursToPeer),
        targetText(s.target),
        s.pass ? 'PASS' : 'FAIL',
      ]);
    }
    out.push(table(rows));
    out.push(
      "req/s and p99: the round with the median rate and the median p99 of the rounds; ours/ceil and p99/ceil: the median of the rounds' own ratios (ours and the ceiling measured back to back)",
    );
    out.push('');
    out.push(
      table([
        ['CPU cores used: server / wrk / other', 'ours', 'ceiling', 'peer'],
        ...report.scenarios.map((s) => [s.name, cores(s.ours), cores(s.ceiling), cores(s.peer)]),
      ]),
    );
    if (report.scenarios.some((s) => [s.ours, s.ceiling, s.peer].some((r) => r?.disturbed)))
      out.push(
        '* other work on the machine used more than 0.25 cores during that run, in 3 tries: unreliable',
      );
    const misses = report.scenarios.filter((s) => s.misses.length > 0);
    if (misses.length > 0) {
      out.push('');
      for (const s of misses) out.push(`- ${s.name}: ${s.misses.join('; ')}`);
    }
    out.push('');
  }
  const h = report.largeAttachment;
  if (h) {
    out.push(
      table([
        [
          '200 MB attachment (SOAP 1.1, median of 3 after 2 warm-ups)',
          'ours',
          'ceiling',
          'ratio',
          'target',
          'result',
        ],
        [
          'time to last byte, harness client (node:http)',
          h.ours ? `${f0(h.ours.ms)} ms (${f0(h.ours.mbPerSecond)} MB/s)` : '–',
          h.ceiling ? `${f0(h.ceiling.ms)} ms (${f0(h.ceiling.mbPerSecond)} MB/s)` : '–',
          pct(h.ratio),
          `≥${pct(h.target.minCeilingRatio)} of ceiling`,
          h.misses.some((m) => m.includes('rate')) ? 'FAIL' : 'PASS',
        ],
        [
          'CPU cores: server / client / other',
          h.ours ? shares(h.ours.cpu) : '–',
          h.ceiling ? shares(h.ceiling.cpu) : '–',
          '',
          '',
          '',
        ],
        [
          'time to last byte, curl (server-bound; informational)',
          `${f0(h.serverBound.ours.ms)} ms (${f0(h.serverBound.ours.mbPerSecond)} MB/s)`,
          h.serverBound.ceiling
            ? `${f0(h.serverBound.ceiling.ms)} ms (${f0(h.serverBound.ceiling.mbPerSecond)} MB/s)`
            : '–',
          pct(h.serverBound.ratio),
          '',
          '',
        ],
        [
          'CPU cores with curl: server / client / other',
          shares(h.serverBound.ours.cpu),
          h.serverBound.ceiling ? shares(h.serverBound.ceiling.cpu) : '–',
          '',
          '',
          '',
        ],
        [
          'server RSS growth',
          `${f0(h.rss.beforeMb)} → ${f0(h.rss.peakMb)} MB (+${f0(h.rss.growthMb)} MB)`,
          '',
          '',
          `< ${h.target.maxRssGrowthMb} MB`,
          h.rss.growthMb < h.target.maxRssGrowthMb ? 'PASS' : 'FAIL',
        ],
        ...(h.firstAnswer
          ? [
              [
                'first answer after the start (from the store, cache file written; informational)',
                `${f0(h.firstAnswer.ms)} ms (${f0(h.firstAnswer.mbPerSecond)} MB/s)`,
                '',
                '',
                '',
                '',
              ],
              [
                'server RSS growth, first answer',
                `+${f0(h.firstAnswer.rssGrowthMb)} MB`,
                '',
                '',
                `< ${h.target.maxRssGrowthMb} MB`,
                h.firstAnswer.rssGrowthMb < h.target.maxRssGrowthMb ? 'PASS' : 'FAIL',
              ],
            ]
          : []),
      ]),
    );
    out.push('');
  }
  out.push(
    table([
      ['server memory', 'value', 'target', 'result'],
      ['RSS idle (after start and capture)', `${f0(report.rss.idleMb)} MB`, '', ''],
      [
        `peak RSS under load (${report.rss.samples} samples)`,
        `${f0(report.rss.peakUnderLoadMb)} MB`,
        `≤ ${report.rss.targetMb} MB`,
        report.rss.pass ? 'PASS' : 'FAIL',
      ],
    ]),
  );
  for (const store of report.stores) {
    out.push('');
    if (store.error) {
      out.push(`store ${store.store}: not measured — ${store.error}`);
      continue;
    }
    out.push(
      table([
        [
          `store ${store.store}`,
          'req/s',
          'SQLite req/s (just before)',
          'p99 ms',
          'ratio to SQLite',
          'target',
          'result',
        ],
        ...store.scenarios.map((s) => [
          s.name,
          s.failed ? 'FAILED' : f0(s.rps),
          f0(s.sqliteRps),
          ms(s.p99Ms),
          pct(s.ratioToSqlite),
          `≥${pct(store.target.minRatio)}`,
          s.pass ? 'PASS' : 'FAIL',
        ]),
      ]),
    );
  }
  if (report.images) {
    const i = report.images;
    out.push('');
    out.push(
      table([
        ['images (getBild, own server)', 'value'],
        ['cold crop 800…806×600 (misses), median', `${ms(i.cold.medianMs)} ms (${i.cold.runs} runs)`],
        ['cache hits', `${f0(i.hits.perSecond)} req/s (median ${ms(i.hits.medianMs)} ms)`],
        [
          `${i.storm.requests} concurrent distinct resizes`,
          `${i.storm.ok} ok, ${i.storm.busy} busy, ${f0(i.storm.wallMs)} ms`,
        ],
        ['RSS during the storm', `${f0(i.storm.baselineRssMb)} → ${f0(i.storm.peakRssMb)} MB`],
        [
          'getBereich during the storm',
          `median ${ms(i.storm.bereichMedianMs)} ms, max ${ms(i.storm.bereichMaxMs)} ms`,
        ],
      ]),
    );
  }
  if (report.coldResizes) {
    const c = report.coldResizes;
    const mark = (pass: boolean) => (pass ? 'pass' : 'FAIL');
    const env = (e: Readonly<Record<string, string>>) =>
      Object.entries(e)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
    const again = (r: Repeated) =>
      `${runCell(r.ours, (x) => f0(x.rps))} req/s, ceiling ${runCell(r.ceiling, (x) => f0(x.rps))}: ${pct(r.oursToCeiling)}; CPU/answer ${f0(r.cpuUsPerAnswer.ours)} µs, ceiling ${f0(r.cpuUsPerAnswer.ceiling)} µs`;
    out.push('');
    out.push(
      table([
        [
          `cold resizes (issue 17 item 5): ${c.source.width}×${c.source.height} JPEG, ${c.settings.pinning}`,
          'value',
          'target',
        ],
        [
          `${c.cold.requests} new variants, one at a time`,
          `p50 ${ms(c.cold.p50Ms)} ms, p99 ${ms(c.cold.p99Ms)} ms${c.cold.disturbed ? '*' : ''}`,
          `p50 ≤ ${c.cold.targetP50Ms} ms: ${mark(c.cold.pass)}`,
        ],
        ['  server CPU per new variant', `${ms(c.cold.serverCpuMsPerRequest)} ms`, ''],
        ['  p50 by box', c.cold.byBox.map((b) => `${b.box} ${ms(b.p50Ms)}`).join(', '), ''],
        ['  cores used: server / curl / other', shares(c.cold.cpu), ''],
        [
          `one variant again, ${f0(c.warm.answerBytes / 1024)} KB (answer cache after the first)`,
          again(c.warm),
          `≥ ${pct(c.warm.targetRatio)} ceil: ${mark(c.warm.pass)}`,
        ],
        ['  settings', env(c.settings.env), ''],
        ['the same, answer cache off: each a variant-cache hit', again(c.warmVariantCache), 'informational'],
        ['getBereich, answer cache off (the floor of uncached)', again(c.uncachedFloor), 'informational'],
        ['  settings', env(c.warmVariantCache.env), ''],
      ]),
    );
  }
  if (report.notes.length > 0) {
    out.push('');
    for (const note of report.notes) out.push(`note: ${note}`);
  }
  out.push('');
  out.push(`overall: ${report.pass ? 'PASS' : 'FAIL'} (${f2(report.durationSeconds)} s)`);
  return out.join('\n');
}
