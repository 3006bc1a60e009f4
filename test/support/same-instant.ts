/**
 * Several processes doing the same thing at the same instant, for races between
 * processes (instances and workers opening a new file together): each child runs
 * `open(round)` at a shared wall-clock time per round, spinning until then, so the
 * processes meet within microseconds rather than whenever their modules finished loading.
 */
import { spawn } from 'node:child_process';

/** Runs an ES module's text in a child node (with the TypeScript loader). */
export function runModule(code: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', reject).on('close', (exit) => resolve({ code: exit, stderr }));
  });
}

/**
 * `processes` children each run `body` (module text using `round`, awaited) in `rounds`
 * rounds, all starting a round at the same instant; resolves with each child's exit.
 * `setup` is module text run once first (imports).
 */
export function atTheSameInstant(options: {
  processes: number;
  rounds: number;
  setup: string;
  body: string;
}): Promise<Array<{ code: number | null; stderr: string }>> {
  // Time for every child to load its modules before the first round.
  const start = Date.now() + 3000;
  const code = `${options.setup}
    for (let round = 0; round < ${options.rounds}; round++) {
      const at = ${start} + round * 150;
      while (Date.now() < at) {}
      ${options.body}
    }`;
  return Promise.all(Array.from({ length: options.processes }, () => runModule(code)));
}
