/**
 * docs/deploy/: the systemd units pass `systemd-analyze verify` (no unknown key, no bad
 * value, the commands exist), and every SCOOP_ variable the environment files set is one
 * that scoop reads and the README or docs/operations.md documents. (nginx.conf is run by
 * test/nginx.test.ts.)
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const DEPLOY = 'docs/deploy';
const files = readdirSync(DEPLOY);

test('the systemd units verify', { timeout: 620_000 }, async () => {
  await run('scripts/ensure-debian-packages.sh', ['systemd'], { timeout: 600_000 });
  const dir = mkdtempSync(path.join(tmpdir(), 'scoop-units-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const units = files.filter((f) => /\.(service|timer)$/.test(f));
  assert.deepEqual(units.sort(), ['scoop-import.service', 'scoop-import.timer', 'scoop@.service']);
  for (const unit of units) copyFileSync(path.join(DEPLOY, unit), path.join(dir, unit));
  // A template is verified through an instance of it.
  const named = units.map((u) => path.join(dir, u.replace('@.', '@a.')));
  const { stderr } = await run('systemd-analyze', ['verify', '--man=no', ...named]);
  assert.equal(stderr, '', 'no warnings');
});

test('the environment files set only documented settings', () => {
  const documented = readFileSync('README.md', 'utf8') + readFileSync('docs/operations.md', 'utf8');
  const read = readFileSync('src/server/settings.ts', 'utf8');
  const envFiles = files.filter((f) => f.endsWith('.env'));
  assert.ok(envFiles.length >= 3);
  for (const file of envFiles) {
    for (const line of readFileSync(path.join(DEPLOY, file), 'utf8').split('\n')) {
      const name = /^\s*#?\s*(SCOOP_[A-Z_]+)=/.exec(line)?.[1];
      if (name === undefined) continue;
      assert.ok(read.includes(`'${name}'`) || read.includes(`.${name}`), `${file}: ${name} is read`);
      assert.ok(documented.includes(`\`${name}\``), `${file}: ${name} is documented`);
    }
  }
});
