/**
 * The peak resident memory of a `scoop` command run as a child process, as the memory
 * tests measure it: VmHWM from /proc/<pid>/status, sampled every 10 ms while it runs and
 * once more after its work is done, before it is reaped.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { scoopArgs } from '../../bench/node-flags.ts';

/** The peak resident memory in bytes the process has had so far; undefined once it is gone. */
export function peakRss(pid: number): number | undefined {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** `scoop <args>` in a process of its own; resolves with its peak RSS once it exited 0. */
export function scoopPeakRss(args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, scoopArgs(args), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, peakRss(child.pid!) ?? 0);
  };
  const sampler = setInterval(sample, 10);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return new Promise((resolve, reject) => {
    // The last sample after the work is done and before the process is reaped.
    child.stderr.once('end', sample);
    child.once('exit', (code) => {
      clearInterval(sampler);
      if (code !== 0) reject(new Error(`scoop ${args[0]} exited ${code}: ${stderr}`));
      else if (peak === 0) reject(new Error(`no VmHWM read from /proc/${child.pid}/status`));
      else resolve(peak);
    });
  });
}
