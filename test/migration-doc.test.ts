/**
 * docs/migration.md: the systemd units it shows pass `systemd-analyze verify` (as
 * test/deploy.test.ts checks docs/deploy/), and the harvest they run names only options
 * `scoop harvest` has, with ranges it accepts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { HARVEST_OPTIONS } from '../src/cli/harvest-command.ts';
import { parseIdRanges } from '../src/migrate/harvest/id-ranges.ts';
import { RANGE_OPTIONS } from '../src/migrate/harvest/plan.ts';

const run = promisify(execFile);
const doc = readFileSync('docs/migration.md', 'utf8');

/** The ini block that follows the line naming `file`. */
function unit(file: string): string {
  const at = doc.indexOf(`\`/etc/systemd/system/${file}\`:`);
  assert.ok(at >= 0, `${file} is shown`);
  const block = /```ini\n([\s\S]*?)```/.exec(doc.slice(at));
  assert.ok(block, `${file} has an ini block`);
  return block[1]!;
}

test('the harvest timer units verify', { timeout: 620_000 }, async () => {
  await run('scripts/ensure-debian-packages.sh', ['systemd'], { timeout: 600_000 });
  const dir = mkdtempSync(path.join(tmpdir(), 'scoop-harvest-units-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const files = ['scoop-harvest.service', 'scoop-harvest.timer'];
  for (const file of files) writeFileSync(path.join(dir, file), unit(file));
  const { stderr } = await run('systemd-analyze', [
    'verify',
    '--man=no',
    ...files.map((f) => path.join(dir, f)),
  ]);
  assert.equal(stderr, '', 'no warnings');
});

test('the harvest the unit runs has only options scoop harvest takes', () => {
  const line = unit('scoop-harvest.service')
    .split('\n')
    .find((l) => l.startsWith('ExecStart=') && l.includes(' harvest '));
  assert.ok(line);
  const words = line.split(/\s+/);
  const ranges = new Set<string>(RANGE_OPTIONS.map((r) => r.option));
  for (const [i, word] of words.entries()) {
    if (!word.startsWith('--')) continue;
    const name = word.slice(2);
    assert.ok(Object.hasOwn(HARVEST_OPTIONS, name), `--${name} is an option`);
    if (ranges.has(name)) parseIdRanges(words[i + 1]!);
  }
  assert.ok(!line.includes('--token'), 'the token comes from the environment file');
});
