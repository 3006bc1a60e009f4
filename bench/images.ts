/**
 * The image part of `npm run bench`: a scoop server in a child process (so its memory is
 * its own), seeded with a generated 12-megapixel JPEG, measured from outside over HTTP
 * GET on 127.0.0.1:
 *
 *   cold     — median time of 7 `crop` resizes to 800×600 … 806×600 (one pixel wider each,
 *              so that each is a cache miss, not the same variant seven times)
 *   hits     — requests/s of one cached variant, 32 keep-alive connections, 5 s
 *   storm    — 50 concurrent distinct resizes: statuses, wall time, the server's peak
 *              RSS, and getBereich latency meanwhile (other operations keep going)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import sharp from 'sharp';
import { defaultConcurrency } from '../src/images/image-settings.ts';
import { BUNDLE_FORMAT } from '../src/store/bundle/bundle.ts';
import { scoopArgs } from './node-flags.ts';

const PUBLIC = '/scoop/api/v6/public.asmx';
const COLD_RUNS = 7;
const HIT_SECONDS = 5;
const HIT_CONNECTIONS = 32;
const STORM = 50;

export interface ImageBenchResult {
  readonly source: { width: number; height: number; bytes: number };
  readonly resizeConcurrency: number;
  /** The server's RSS after start, after the cold phase, after the cache-hit phase. */
  readonly rssMb: { idle: number; afterCold: number; afterHits: number };
  readonly cold: { runs: number; medianMs: number; minMs: number; maxMs: number; answerBytes: number };
  readonly hits: {
    seconds: number;
    connections: number;
    requests: number;
    perSecond: number;
    medianMs: number;
  };
  readonly storm: {
    requests: number;
    ok: number;
    busy: number;
    wallMs: number;
    baselineRssMb: number;
    peakRssMb: number;
    bereichMedianMs: number;
    bereichMaxMs: number;
  };
}

/** A photo-like JPEG (4000×3000 unless told): smooth gradients with fine noise, so it neither compresses to nothing nor is all noise. */
export async function photo(width = 4000, height = 3000): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let seed = 12345;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      const noise = (seed & 31) - 16;
      const i = (y * width + x) * 3;
      raw[i] = Math.max(0, Math.min(255, ((x * 255) / width + noise) | 0));
      raw[i + 1] = Math.max(0, Math.min(255, ((y * 255) / height + noise) | 0));
      raw[i + 2] = Math.max(0, Math.min(255, 128 + 100 * Math.sin(x / 150 + y / 90) + noise));
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** A bundle of one area and one image (bildID 1), the JPEG given. */
export function writeImageBundle(dir: string, jpeg: Buffer): void {
  mkdirSync(path.join(dir, 'files'), { recursive: true });
  writeFileSync(path.join(dir, 'files', 'foto.jpg'), jpeg);
  const bundle = {
    format: BUNDLE_FORMAT,
    bereiche: [{ bereichID: 1, name: 'Rathaus' }],
    bilder: [{ bildID: 1, file: 'files/foto.jpg', filename: 'foto.jpg', mimetype: 'image/jpeg' }],
  };
  writeFileSync(path.join(dir, 'bundle.json'), JSON.stringify(bundle));
}

async function startServer(work: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    [
      ...scoopArgs(['serve']),
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--db',
      path.join(work, 'scoop.db'),
      '--seed',
      path.join(work, 'bundle'),
    ],
    {
      env: { ...process.env, SCOOP_ADMIN_PORT: 'off', SCOOP_LOG_LEVEL: 'info', SCOOP_WORKERS: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const url = /"url":"(http:\/\/127\.0\.0\.1:(\d+))"/.exec(line);
    if (url) {
      lines.removeAllListeners();
      child.stdout!.resume();
      return { child, port: Number(url[2]) };
    }
  }
  throw new Error('the server exited before it listened');
}

interface Got {
  readonly status: number;
  readonly ms: number;
  readonly bytes: number;
}

function get(port: number, pathAndQuery: string, agent?: Agent): Promise<Got> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: pathAndQuery, agent: agent ?? false }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

const bild = (width: number, height: number) =>
  `${PUBLIC}/getBild?bildID=1&width=${width}&height=${height}&resizeModes=crop`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Resident set size of a process, and its peak since the last reset (Linux /proc). */
function memory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

function resetPeak(pid: number): void {
  // Writing 5 to clear_refs resets VmHWM to the current RSS (Linux ≥ 4.0); our own child only.
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

async function cold(port: number): Promise<ImageBenchResult['cold']> {
  const times: number[] = [];
  let answerBytes = 0;
  for (let i = 0; i < COLD_RUNS; i++) {
    // Distinct widths: each request is a cache miss, i.e. a real resize of the 12 MP source.
    const got = await get(port, bild(800 + i, 600));
    if (got.status !== 200) throw new Error(`cold resize answered ${got.status}`);
    times.push(got.ms);
    answerBytes = got.bytes;
  }
  return {
    runs: COLD_RUNS,
    medianMs: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    answerBytes,
  };
}

async function hits(port: number): Promise<ImageBenchResult['hits']> {
  const target = bild(800, 600); // made by the cold phase: every request is a hit
  const agent = new Agent({ keepAlive: true, maxSockets: HIT_CONNECTIONS });
  const times: number[] = [];
  const until = performance.now() + HIT_SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      const got = await get(port, target, agent);
      if (got.status !== 200) throw new Error(`cache hit answered ${got.status}`);
      times.push(got.ms);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: HIT_CONNECTIONS }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    seconds: HIT_SECONDS,
    connections: HIT_CONNECTIONS,
    requests: times.length,
    perSecond: times.length / seconds,
    medianMs: median(times),
  };
}

async function storm(port: number, pid: number): Promise<ImageBenchResult['storm']> {
  const baselineRssMb = memory(pid).rssMb;
  resetPeak(pid);
  let done = false;
  const bereich: number[] = [];
  const probe = (async () => {
    while (!done) {
      bereich.push((await get(port, `${PUBLIC}/getBereich?bereichID=1`)).ms);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: STORM }, (_, i) => get(port, bild(640 + i, 480))));
  const wallMs = performance.now() - started;
  done = true;
  await probe;
  return {
    requests: STORM,
    ok: answers.filter((a) => a.status === 200).length,
    busy: answers.filter((a) => a.status === 503).length,
    wallMs,
    baselineRssMb,
    peakRssMb: memory(pid).peakMb,
    bereichMedianMs: median(bereich),
    bereichMaxMs: Math.max(...bereich),
  };
}

/** `source`: the 12 MP JPEG when the caller has made one already (the benchmark bundle's). */
export async function benchImages(source?: Buffer): Promise<ImageBenchResult> {
  const work = mkdtempSync(path.join(tmpdir(), 'scoop-bench-'));
  let child: ChildProcess | undefined;
  try {
    const jpeg = source ?? (await photo());
    writeImageBundle(path.join(work, 'bundle'), jpeg);
    const server = await startServer(work);
    child = server.child;
    const idle = memory(child.pid!).rssMb;
    const coldResult = await cold(server.port);
    const afterCold = memory(child.pid!).rssMb;
    const hitResult = await hits(server.port);
    const afterHits = memory(child.pid!).rssMb;
    const stormResult = await storm(server.port, child.pid!);
    return {
      source: { width: 4000, height: 3000, bytes: jpeg.length },
      resizeConcurrency: Number(process.env.SCOOP_RESIZE_CONCURRENCY) || defaultConcurrency(),
      rssMb: { idle, afterCold, afterHits },
      cold: coldResult,
      hits: hitResult,
      storm: stormResult,
    };
  } finally {
    child?.kill('SIGTERM');
    if (child && child.exitCode === null) await new Promise((resolve) => child!.once('exit', resolve));
    rmSync(work, { recursive: true, force: true });
  }
}
