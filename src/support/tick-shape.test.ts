/**
 * keepTickShape: after full collections with no tick queued, process.nextTick's literal keeps
 * its monomorphic record. Read from V8's own print of the function's feedback
 * (--allow-natives-syntax), in a child node: first without the keeper, which must show the
 * record lost (else this V8 needs no help and the test says so), then with it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const MODULE = new URL('./tick-shape.ts', import.meta.url).href;

// Ticks while V8 records the literal's maps, full collections with none queued, ticks again.
const FIXTURE = `
if (process.env.KEEP === '1') (await import(${JSON.stringify(MODULE)})).keepTickShape();
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
function literalStates(keep: boolean): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'scoop-tick-shape-'));
  const file = path.join(dir, 'stdout');
  const out = openSync(file, 'w');
  try {
    const run = spawnSync(
      process.execPath,
      ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', '--input-type=module', '-e', FIXTURE],
      {
        encoding: 'utf8',
        env: { ...process.env, KEEP: keep ? '1' : '0' },
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

test('without the keeper a collection costs nextTick its record; with it the record stays', (t) => {
  const without = literalStates(false);
  assert.ok(without.length > 0, 'V8 printed the literal slots of nextTick without the keeper');
  if (!without.includes('MEGAMORPHIC')) {
    t.skip(`this node keeps nextTick's literal monomorphic by itself (${without.join(', ')})`);
    return;
  }
  const kept = literalStates(true);
  assert.ok(kept.length > 0, 'V8 printed the literal slots');
  assert.deepEqual(
    kept.filter((state) => state !== 'MONOMORPHIC'),
    [],
    `every slot monomorphic: ${kept.join(', ')}`,
  );
});
