/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time per function and per
 * area (our source files, npm packages, node internals, GC), busy time only (idle excluded).
 * Frames in the esbuild output (dist/*.mjs: the entry, the workers, the commands' and
 * shared chunks) are attributed to their source file by the `// src/…` comment esbuild
 * writes before each module.
 *
 *   node --import tsx bench/cpuprofile.ts <file.cpuprofile> [--top 25]
 */
import { readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface Entry {
  readonly name: string;
  readonly ms: number;
  /** Share of busy time (all samples but idle). */
  readonly share: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly idleMs: number;
  readonly busyMs: number;
  readonly functions: readonly Entry[];
  readonly areas: readonly Entry[];
}

/** Maps a line of the esbuild bundle to the source file it came from. */
export function bundleSources(bundleText: string): (line: number) => string | undefined {
  const markers: Array<[number, string]> = [];
  bundleText.split('\n').forEach((text, i) => {
    const match = /^\/\/ (src\/\S+\.ts)$/.exec(text);
    if (match) markers.push([i, match[1]!]);
  });
  return (line) => {
    let lo = 0;
    let hi = markers.length - 1;
    let found: string | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (markers[mid]![0] <= line) {
        found = markers[mid]![1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/** A built file's line to its source file; undefined for a file that is not one of dist's. */
export type BuiltSources = (file: string) => ((line: number) => string | undefined) | undefined;

/** Reads the built files of `dir` (each once, when a frame first names it). */
export function builtSources(dir = 'dist'): BuiltSources {
  const root = nodePath.resolve(dir);
  const read = new Map<string, ((line: number) => string | undefined) | undefined>();
  return (file) => {
    if (nodePath.dirname(file) !== root || !file.endsWith('.mjs')) return undefined;
    if (!read.has(file)) {
      let text: string | undefined;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        text = undefined;
      }
      read.set(file, text === undefined ? undefined : bundleSources(text));
    }
    return read.get(file);
  };
}

function where(frame: CallFrame, built: BuiltSources | undefined): string {
  const url = frame.url;
  if (!url) return '';
  if (url.startsWith('node:')) return url;
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (npm) return `npm:${npm[1]}`;
  const bundle = built?.(path);
  if (bundle) return bundle(frame.lineNumber) ?? `dist/${nodePath.basename(path)}`;
  const src = /\/((?:src|bench|bin)\/.*)$/.exec(path);
  return src ? src[1]! : path;
}

function area(frame: CallFrame, place: string): string {
  if (!frame.url) {
    if (frame.functionName.startsWith('(')) return frame.functionName; // (garbage collector), (program), (idle)
    return '(native/builtins)';
  }
  if (place.startsWith('node:')) return `node:${place.slice(5).split('/')[0]}`;
  if (place.startsWith('npm:')) return place;
  const dir = /^src\/([^/]+)\//.exec(place);
  return dir ? `src/${dir[1]}` : place;
}

export function summarise(profile: CpuProfile, built?: BuiltSources, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const areas = new Map<string, number>();
  let idle = 0;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    // timeDeltas[i] is the time before sample i; the time a sample stands for is the next delta.
    const us = profile.timeDeltas[i + 1] ?? 0;
    total += us;
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    const frame = node.callFrame;
    if (frame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const place = where(frame, built);
    const name = `${frame.functionName || '(anonymous)'}${place ? ` ${place}` : ''}`;
    fn.set(name, (fn.get(name) ?? 0) + us);
    const a = area(frame, place);
    areas.set(a, (areas.get(a) ?? 0) + us);
  }
  const busy = total - idle;
  const entries = (m: Map<string, number>, n: number): Entry[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busy > 0 ? us / busy : 0 }));
  return {
    totalMs: total / 1000,
    idleMs: idle / 1000,
    busyMs: busy / 1000,
    functions: entries(fn, top),
    areas: entries(areas, 20),
  };
}

export function renderSummary(summary: ProfileSummary): string {
  const rows = (title: string, list: readonly Entry[]) =>
    [
      `| ${title} | self ms | share of busy |`,
      '|---|---:|---:|',
      ...list.map((e) => `| \`${e.name}\` | ${e.ms.toFixed(0)} | ${(e.share * 100).toFixed(1)}% |`),
    ].join('\n');
  return [
    `sampled ${summary.totalMs.toFixed(0)} ms: busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms`,
    '',
    rows('area', summary.areas),
    '',
    rows('function (self time)', summary.functions),
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node --import tsx bench/cpuprofile.ts <file.cpuprofile> [--top N]\n');
    process.exit(2);
  }
  const topAt = process.argv.indexOf('--top');
  const top = topAt > 0 ? Number(process.argv[topAt + 1]) : 25;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${renderSummary(summarise(profile, builtSources(), top))}\n`);
}
