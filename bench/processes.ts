/**
 * Child processes of the benchmark (scoop serve, the ceiling, the peer): started by the
 * harness, known by pid, stopped by pid (SIGTERM, then SIGKILL after a grace period) —
 * never by name. Also the /proc readers for their memory.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { scoopArgs } from './node-flags.ts';

const started = new Set<Child>();

export interface Child {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  /** `scoop serve`'s admin listener (/metrics), when it has one. */
  readonly adminUrl?: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** A port free on 127.0.0.1 right now (the OS picks it; we close and hand it on). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * CPU pinning (`--pin`, the default on a machine with 2 or more cores): the servers on
 * CPU 0, the load generator on CPU 1, so neither is moved around by the scheduler or
 * lands on the other's core; undefined when not pinning.
 */
let pinning: { server: string; generator: string } | undefined;

export function pinCpus(on: boolean): { server: string; generator: string } | undefined {
  pinning = on && availableParallelism() >= 2 ? { server: '0', generator: '1' } : undefined;
  return pinning;
}

/** The command prefix that pins a process of `role`, or nothing. */
export function pinned(role: 'server' | 'generator'): string[] {
  return pinning ? ['taskset', '-c', pinning[role]] : [];
}

/** `node args…`, pinned to the server CPU, optionally with the soft file-descriptor limit raised first (ulimit -n in the spawned shell). */
function spawnNode(
  nodeArgs: readonly string[],
  env: NodeJS.ProcessEnv,
  fdLimit: number | undefined,
  stdout: 'pipe' | number = 'pipe',
  cwd?: string,
): ChildProcess {
  const options = { env, cwd, stdio: ['ignore', stdout, 'pipe'] as Array<'ignore' | 'pipe' | number> };
  const command = [...pinned('server'), process.execPath, ...nodeArgs];
  // `exec` (and taskset's own exec) keep the pid: the pid we sample and kill is the server's.
  if (fdLimit === undefined) return spawn(command[0]!, command.slice(1), options);
  return spawn('bash', ['-c', `ulimit -n ${fdLimit} && exec "$0" "$@"`, ...command], options);
}

function track(
  name: string,
  child: ChildProcess,
  url: string,
  errors: () => string,
  adminUrl?: string,
): Child {
  const handle: Child = {
    name,
    child,
    pid: child.pid!,
    url,
    ...(adminUrl ? { adminUrl } : {}),
    stderr: errors,
    async stop() {
      started.delete(handle);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  started.add(handle);
  return handle;
}

function collectStderr(child: ChildProcess): () => string {
  let text = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    text = (text + chunk).slice(-20_000);
  });
  return () => text;
}

function exitedEarly(child: ChildProcess, name: string, errors: () => string): Promise<never> {
  // 'close', not 'exit': by then its stderr has been read to the end, refusal included.
  return new Promise((_, reject) =>
    child.once('close', (code, signal) =>
      reject(new Error(`${name} exited before it listened (${code ?? signal}): ${errors()}`)),
    ),
  );
}

/** Any HTTP answer at all from `url` (a 404 will do): the server listens. */
function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${url}/`, { agent: false, timeout: 1000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(true));
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

export interface ScoopOptions {
  /** `--db`: a SQLite path or a store URL. */
  readonly db: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Extra node flags, e.g. --cpu-prof. */
  readonly nodeFlags?: readonly string[];
  readonly fdLimit?: number;
  /** The checkout whose `bin/scoop.js` runs (another build's, bench/duel.ts); this one's by default. */
  readonly root?: string;
}

/**
 * The environment `scoop serve` runs with in every benchmark (reported with the results):
 * its defaults but one worker. So the request log is on, at `info`, written to a file
 * (requestLog below), and the admin listener with its metrics is on, on a port of its own.
 */
export const SERVE_ENV: Readonly<Record<string, string>> = {
  SCOOP_WORKERS: '1',
};

/** Past this, the request log file is emptied, as logrotate's copytruncate would. */
const LOG_FILE_BYTES = 256 * 1024 * 1024;

/**
 * The file `scoop serve`'s stdout (its request log) is appended to, as an operator's
 * service manager would; emptied when it grows past LOG_FILE_BYTES (the writer appends,
 * so it goes on at the new end), and removed when the server stops.
 */
function requestLog(): { fd: number; stop(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'scoop-bench-log-'));
  const file = path.join(dir, 'scoop.log');
  const fd = openSync(file, 'a');
  const timer = setInterval(() => {
    if (statSync(file).size > LOG_FILE_BYTES) truncateSync(file, 0);
  }, 2000);
  timer.unref();
  return {
    fd,
    stop() {
      clearInterval(timer);
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `scoop serve` as an operator runs it, one worker. The harness picks free ports (the
 * server's and the admin listener's) and waits until it answers.
 */
export async function startScoop(options: ScoopOptions): Promise<Child> {
  // A port freePort found free can be taken by an outgoing connection's local end (the
  // ephemeral range is shared) before the child listens on it: pick others and start again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startScoopOnce(options);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

async function startScoopOnce(options: ScoopOptions): Promise<Child> {
  const port = await freePort();
  const adminPort = await freePort();
  const log = requestLog();
  const child = spawnNode(
    [
      ...scoopArgs(['serve'], options.root, options.nodeFlags),
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--db',
      options.db,
    ],
    { ...process.env, SCOOP_ADMIN_PORT: String(adminPort), ...SERVE_ENV, ...options.env },
    options.fdLimit,
    log.fd,
    options.root,
  );
  child.once('exit', () => log.stop());
  const errors = collectStderr(child);
  const url = `http://127.0.0.1:${port}`;
  // Unless the caller's env moved the admin listener (or turned it off), it is on adminPort.
  const ownAdmin = (options.env?.SCOOP_ADMIN_PORT ?? String(adminPort)) === String(adminPort);
  const adminUrl = ownAdmin ? `http://127.0.0.1:${adminPort}` : undefined;
  const handle = track('scoop', child, url, errors, adminUrl);
  const early = exitedEarly(child, 'scoop serve', errors);
  early.catch(() => undefined);
  const deadline = Date.now() + 60_000;
  // The admin listener opens after the main one, and may be the one whose port was taken.
  const listening = async () => (await answers(url)) && (adminUrl === undefined || (await answers(adminUrl)));
  while (!(await Promise.race([listening(), early]))) {
    if (Date.now() > deadline) {
      await handle.stop();
      throw new Error(`scoop serve did not answer on ${url} within 60 s: ${errors()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return handle;
}

/**
 * V8's setting `scoop` runs with (bin/scoop.js), given to the ceiling and the peer too: an
 * idle server is not to be measured slower for V8's collections of its heap meanwhile
 * (docs/performance.md, "The twenty-seventh round").
 */
const CHILD_FLAGS = ['--no-memory-reducer'];

/** A benchmark child (bench/ceiling.ts, bench/peer.ts) that prints `{"url": …}` on stdout once it listens. */
export async function startBenchChild(
  name: string,
  script: string,
  args: readonly string[],
  fdLimit?: number,
  nodeFlags: readonly string[] = [],
): Promise<Child> {
  const child = spawnNode(
    [...CHILD_FLAGS, ...nodeFlags, '--import', 'tsx', script, ...args],
    { ...process.env },
    fdLimit,
  );
  const errors = collectStderr(child);
  const early = exitedEarly(child, name, errors);
  early.catch(() => undefined);
  const lines = createInterface({ input: child.stdout! });
  const url = await Promise.race([
    (async () => {
      for await (const line of lines) {
        const match = /"url":"(http:\/\/[^"]+)"/.exec(line);
        if (match) return match[1]!;
      }
      throw new Error(`${name} closed stdout before it listened: ${errors()}`);
    })(),
    early,
  ]);
  lines.removeAllListeners();
  child.stdout!.resume();
  return track(name, child, url, errors);
}

/** Stops every child still running (by pid), e.g. on a failure half-way. */
export async function stopAll(): Promise<void> {
  await Promise.all([...started].map((c) => c.stop()));
}

export interface Memory {
  readonly rssMb: number;
  /** VmHWM: the peak RSS since start or since the last resetPeak. */
  readonly peakMb: number;
}

export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** Resets VmHWM to the current RSS (writing 5 to clear_refs; Linux ≥ 4.0); our own child only. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Samples VmRSS of a process every `intervalMs` until stopped; the peak also counts VmHWM when reset worked. */
export class RssSampler {
  private peak = 0;
  private first = 0;
  private count = 0;
  private readonly started = performance.now();
  /** RSS at every sample: [ms since the start, MB]. */
  readonly curve: [number, number][] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs: number,
  ) {
    this.first = memory(pid).rssMb;
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  private sample(): void {
    try {
      const rssMb = memory(this.pid).rssMb;
      this.peak = Math.max(this.peak, rssMb);
      this.curve.push([Math.round(performance.now() - this.started), Math.round(rssMb)]);
      this.count++;
    } catch {
      // the process has exited; the last sample stands
    }
  }

  stop(): { startMb: number; peakMb: number; samples: number } {
    clearInterval(this.timer);
    this.sample();
    return { startMb: this.first, peakMb: this.peak, samples: this.count };
  }
}

/** Runs `node bin/scoop.js <args>` (of the checkout at `root`, with its node flags); throws with its stderr on a non-zero exit. Returns stdout. */
export function scoopCommand(args: readonly string[], root?: string): string {
  const run = spawnSync(process.execPath, scoopArgs(args, root), {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, SCOOP_LOG_LEVEL: 'warn' },
    maxBuffer: 16 * 1024 * 1024,
  });
  if (run.status !== 0)
    throw new Error(`scoop ${args[0]} failed (${run.status ?? run.signal}): ${run.stderr || run.stdout}`);
  return run.stdout;
}

function cpuTimes(): { idle: number; interrupts: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: idle + iowait is idle time; irq and
  // softirq are kept apart (loopback TCP's receive work lands there, caused by the run itself).
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  return {
    idle: idle + iowait,
    interrupts: irq + softirq,
    total: user + nice + system + idle + iowait + irq + softirq + steal,
  };
}

/** Share of the machine's CPU time (all cores) that was busy over the next `ms`. */
export async function machineBusy(ms = 1000): Promise<number> {
  const a = cpuTimes();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const b = cpuTimes();
  const total = b.total - a.total;
  return total > 0 ? 1 - (b.idle - a.idle) / total : 0;
}

/**
 * Waits up to `seconds` until the machine is quiet (under `threshold` busy over a second);
 * returns the last busy share seen. Other work on a 2-core machine skews every figure.
 */
export async function waitQuiet(seconds: number, threshold = 0.15): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let busy = await machineBusy();
  while (busy > threshold && Date.now() < deadline) busy = await machineBusy();
  return busy;
}

/** CPU time a process has used so far, in clock ticks (utime + stime, /proc/<pid>/stat). */
export function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces; fields after its closing parenthesis are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return Number.NaN;
  }
}

/** /proc's clock ticks (USER_HZ, 100 on Linux) in µs. */
const TICK_US = 10_000;

/** µs of CPU per answered request, from a process's ticks before and after a run. */
export function cpuUsPerRequest(ticksBefore: number, ticksAfter: number, requests: number): number {
  return ((ticksAfter - ticksBefore) * TICK_US) / requests;
}

export interface CpuShare {
  /**
   * Cores used on average over the run, by the measured server, the generator and everything
   * else (interrupt and softirq time, where loopback TCP's receive work lands, not counted).
   */
  readonly server: number;
  readonly generator: number;
  readonly other: number;
}

/**
 * Watches the machine's CPU over a run: how much the server (by pid) and the generator
 * (by pid, polled while it lives) used, and how much went to anything else — other work
 * on the machine, which makes a figure unreliable.
 */
export class CpuWatch {
  private readonly machine0 = cpuTimes();
  private readonly server0: number;
  private generatorTicks = 0;
  private generatorPid: number | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly serverPid: number | undefined) {
    this.server0 = serverPid === undefined ? 0 : processTicks(serverPid);
    this.timer = setInterval(() => this.poll(), 100);
  }

  private generatorBase = 0;

  /** The generator's pid: a process started for this run, or (`running`) one counted from now on, e.g. the harness itself. */
  generator(pid: number, running = false): void {
    this.generatorPid = pid;
    this.generatorBase = running ? processTicks(pid) : 0;
  }

  /** The generator's CPU ticks, told after it ended (a process that has exited cannot be read). */
  generatorUsed(ticks: number): void {
    this.generatorPid = undefined;
    this.generatorTicks = ticks;
  }

  private poll(): void {
    if (this.generatorPid === undefined) return;
    const ticks = processTicks(this.generatorPid);
    if (!Number.isNaN(ticks)) this.generatorTicks = ticks - this.generatorBase;
  }

  stop(): CpuShare {
    this.poll();
    clearInterval(this.timer);
    const machine1 = cpuTimes();
    const cores = availableParallelism();
    const wallTicks = (machine1.total - this.machine0.total) / cores;
    if (wallTicks <= 0) return { server: 0, generator: 0, other: 0 };
    const busy =
      machine1.total -
      this.machine0.total -
      (machine1.idle - this.machine0.idle) -
      (machine1.interrupts - this.machine0.interrupts);
    const server = this.serverPid === undefined ? 0 : processTicks(this.serverPid) - this.server0;
    const generator = this.generatorTicks;
    return {
      server: server / wallTicks,
      generator: generator / wallTicks,
      other: Math.max(0, busy - server - generator) / wallTicks,
    };
  }
}
