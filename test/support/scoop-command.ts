/** A `scoop` command run to its end as a child process, as an operator runs it. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { scoopArgs } from '../../bench/node-flags.ts';

/** This checkout, by its absolute path: a command may run in another folder. */
const ROOT = path.resolve('.');

export interface CommandRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `SCOOP_DB` of the test's own environment is not passed on: each test says which store it means. */
export function runScoop(
  args: readonly string[],
  options: {
    readonly cwd?: string;
    readonly env?: Readonly<Record<string, string>>;
    /** Written to its stdin; without it, stdin is empty. */
    readonly input?: string;
  } = {},
): Promise<CommandRun> {
  const { SCOOP_DB: _ignored, ...inherited } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, scoopArgs(args, ROOT), {
      cwd: options.cwd,
      env: { ...inherited, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // A command that exits before reading its input closes the pipe: not the test's failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
