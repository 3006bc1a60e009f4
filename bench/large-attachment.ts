/**
 * The 200 MB attachment (SOAP 1.1), measured once per bench run: time to last byte for
 * ours and the ceiling, read by the harness's own client and by curl, each median of
 * several after warm-ups, and the server's RSS growth meanwhile.
 */
import { MB } from './bundle.ts';
import { ATTEMPTS, waitBeforeRetry, worthRetrying } from './disturbance.ts';
import { curlTimeToLastByte, type Timed, timeToLastByte } from './http.ts';
import type { Targets } from './measure.ts';
import { type Child, type CpuShare, CpuWatch, memory, pinned, RssSampler, resetPeak } from './processes.ts';
import type { HugeResult } from './report.ts';
import { HUGE_TARGET, hugeRequest } from './scenarios.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Requests of the 200 MB answer made, and not counted, before measuring (JIT, heap sizing). */
const HUGE_WARM_UPS = 2;
/** Requests counted per client: the median by time to last byte is reported. */
const HUGE_MEASURED = 3;

type HugeClient = 'harness' | 'curl';
interface HugeTiming {
  t: Timed;
  cpu: CpuShare;
}

/** The first 200 MB answer after the start (the capture): from the store, not the base64 cache. */
export interface FirstAnswer {
  readonly ms: number;
  readonly bytes: number;
  readonly rssGrowthMb: number;
}

export async function measureHuge(
  targets: Targets,
  bytes: number,
  work: string,
  firstAnswer?: FirstAnswer,
): Promise<HugeResult> {
  const request = hugeRequest();
  const pid = targets.ours.pid;
  const beforeMb = memory(pid).rssMb;
  const peakReset = resetPeak(pid);
  const sampler = new RssSampler(pid, 10);
  /**
   * One counted request, made again (within the retry budget) when other work disturbed
   * it. The harness client (node:http, this process) is the target's measure; curl, a C
   * client pinned where wrk runs, shows the rate when the client is not the limit.
   */
  const counted = async (target: Child, client: HugeClient): Promise<HugeTiming> => {
    let best: HugeTiming | undefined;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const watch = new CpuWatch(target.pid);
      let t: Timed;
      if (client === 'harness') {
        watch.generator(process.pid, true);
        t = await timeToLastByte(target.url, request);
      } else {
        const timed = await curlTimeToLastByte(target.url, request, work, pinned('generator'));
        watch.generatorUsed(timed.clientTicks);
        t = timed;
      }
      const cpu = watch.stop();
      if (!best || cpu.other < best.cpu.other) best = { t, cpu };
      if (!worthRetrying(cpu.other) || t.status !== 200) break;
      await waitBeforeRetry(cpu.other, t.ms);
    }
    return best!;
  };
  /** Each server is warmed up alike, then timed HUGE_MEASURED times per client; medians. */
  const timed = async (target: Child): Promise<Record<HugeClient, HugeTiming>> => {
    for (let i = 0; i < HUGE_WARM_UPS; i++) await timeToLastByte(target.url, request);
    const median = async (client: HugeClient) => {
      const runs: HugeTiming[] = [];
      for (let i = 0; i < HUGE_MEASURED; i++) runs.push(await counted(target, client));
      runs.sort((x, y) => x.t.ms - y.t.ms);
      return runs[Math.floor(runs.length / 2)]!;
    };
    return { harness: await median('harness'), curl: await median('curl') };
  };
  log('200 MB attachment: ours…');
  const ours = await timed(targets.ours);
  const sampled = sampler.stop();
  const hwm = memory(pid).peakMb;
  const peakMb = peakReset ? Math.max(hwm, sampled.peakMb) : sampled.peakMb;
  let ceiling: Record<HugeClient, HugeTiming> | null = null;
  if (targets.ceiling) {
    log('200 MB attachment: ceiling…');
    ceiling = await timed(targets.ceiling);
  }
  const rate = (t: { ms: number; bytes: number }) => t.bytes / MB / (t.ms / 1000);
  const reading = (x: HugeTiming) => ({ ms: x.t.ms, mbPerSecond: rate(x.t), status: x.t.status, cpu: x.cpu });
  const ratioOf = (client: HugeClient) =>
    ceiling && ours[client].t.status === 200 ? rate(ours[client].t) / rate(ceiling[client].t) : null;
  const misses: string[] = [];
  const first = ours.harness.t;
  if (first.status !== 200 || first.bytes !== bytes)
    misses.push(`ours answered ${first.status}, ${first.bytes} bytes`);
  const ratio = ratioOf('harness');
  if (ratio === null) misses.push('no ceiling rate');
  else if (ratio < HUGE_TARGET.minCeilingRatio)
    misses.push(`rate ${(ratio * 100).toFixed(0)}% of the ceiling < ${HUGE_TARGET.minCeilingRatio * 100}%`);
  const growthMb = peakMb - beforeMb;
  if (growthMb >= HUGE_TARGET.maxRssGrowthMb)
    misses.push(`RSS grew ${growthMb.toFixed(0)} MB ≥ ${HUGE_TARGET.maxRssGrowthMb} MB`);
  if (firstAnswer && firstAnswer.rssGrowthMb >= HUGE_TARGET.maxRssGrowthMb)
    misses.push(
      `RSS grew ${firstAnswer.rssGrowthMb.toFixed(0)} MB ≥ ${HUGE_TARGET.maxRssGrowthMb} MB on the first answer`,
    );
  return {
    name: 'getAnhang-200mb-soap11',
    bytes,
    ours: reading(ours.harness),
    ceiling: ceiling ? reading(ceiling.harness) : null,
    ratio,
    firstAnswer: firstAnswer
      ? {
          ms: firstAnswer.ms,
          mbPerSecond: rate({ ms: firstAnswer.ms, bytes: first.bytes }),
          rssGrowthMb: firstAnswer.rssGrowthMb,
        }
      : null,
    serverBound: {
      ours: reading(ours.curl),
      ceiling: ceiling ? reading(ceiling.curl) : null,
      ratio: ratioOf('curl'),
    },
    rss: {
      beforeMb,
      peakMb,
      growthMb,
      peakFrom: peakReset
        ? 'VmHWM after clear_refs, and VmRSS sampled every 10 ms'
        : 'VmRSS sampled every 10 ms',
    },
    target: HUGE_TARGET,
    pass: misses.length === 0,
    misses,
  };
}
