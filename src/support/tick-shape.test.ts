/**
 * keepTickShape: after full collections with no tick queued, process.nextTick's literal keeps
 * its monomorphic record. Read from V8's own print of the function's feedback
 * (--allow-natives-syntax), in a child node: first without the keeper, which must show the
 * record lost (else this V8 needs no help and the test says so), then with it, called
 * directly and by `scoop serve` (its `--help` runs the command's start without a server).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const MODULE = new URL('./tick-shape.ts', import.meta.url).href;
const CLI = new URL('../cli/main.ts', import.meta.url).href;

/** What the child runs first: nothing, the keeper, or a command's start through the CLI. */
const SETUPS = {
  none: '',
  keeper: `(await import(${JSON.stringify(MODULE)})).keepTickShape();`,
  serve: `await (await import(${JSON.stringify(CLI)})).main(['serve', '--help']);`,
  token: `await (await import(${JSON.stringify(CLI)})).main(['token', '--help']);`,
} as const;

// Ticks while V8 records the literal's maps, full collections with none queued, ticks again.
const fixture = (setup: string) => `
${setup}
const noop = () => {};
const turn = () => new Promise((resolve) => setImmediate(resolve));
for (let i = 0; i < 50; i++) { process.nextTick(noop); await turn(); }
for (let i = 0; i < 8; i++) { await turn(); gc(); }
for (let i = 0; i < 50; i++) { process.nextTick(noop); await turn(); }
%DebugPrint(process.nextTick);
`;

/**
 * The states V8 prints for nextTick's computed-key literal slots. V8 prints with C's stdio,
 * which drops what a non-blocking pipe does not take at once: the child writes to a file.
 */
function literalStates(setup: keyof typeof SETUPS): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'scoop-tick-shape-'));
  const file = path.join(dir, 'stdout');
  const out = openSync(file, 'w');
  try {
    const run = spawnSync(
      process.execPath,
      [
        '--allow-natives-syntax',
        '--expose-gc',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        fixture(SETUPS[setup]),
      ],
      {
        encoding: 'utf8',
        stdio: ['ignore', out, 'pipe'],
        timeout: 60_000,
      },
    );
    assert.equal(run.status, 0, `${run.error ?? run.signal ?? ''} ${run.stderr}`);
    const printed = readFileSync(file, 'utf8');
    return [...printed.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]!);
  } finally {
    closeSync(out);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The slots that are not monomorphic (none when the record was kept). */
function lost(states: readonly string[]): string[] {
  assert.ok(states.length > 0, 'V8 printed the literal slots of nextTick');
  return states.filter((state) => state !== 'MONOMORPHIC');
}

test('without the keeper a collection costs nextTick its record; with it, and under scoop serve, the record stays', (t) => {
  const without = literalStates('none');
  if (lost(without).length === 0) {
    t.skip(`this node keeps nextTick's literal monomorphic by itself (${without.join(', ')})`);
    return;
  }
  assert.deepEqual(lost(literalStates('keeper')), [], 'keepTickShape keeps every slot monomorphic');
  assert.deepEqual(lost(literalStates('serve')), [], 'scoop serve keeps the tick shape from its start');
  assert.notDeepEqual(lost(literalStates('token')), [], 'a command that serves no requests does not');
});
