/**
 * docs/deploy/: the systemd units pass `systemd-analyze verify` (no unknown key, no bad
 * value, the commands exist), every SCOOP_ variable the environment files set is one
 * that scoop reads and the README or docs/operations.md documents, and every folder an
 * instance writes with those settings lies under the units' ReadWritePaths. (nginx.conf
 * and the units' commands are run by test/nginx.test.ts.)
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { scoopNodeFlags } from '../bench/node-flags.ts';
import { serveSettings } from '../src/server/settings.ts';
import { isPostgresUrl } from '../src/store/postgres/url.ts';
import { settingsSource } from './support/settings-source.ts';

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
  const read = settingsSource();
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

/** The values of `key=` in a unit file, in order. */
function unitValues(unit: string, key: string): string[] {
  const text = readFileSync(path.join(DEPLOY, unit), 'utf8');
  return [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!.trim());
}

/** VARIABLE=value lines of an environment file; with `commented`, the `#VARIABLE=value` alternatives instead. */
function envFile(file: string, commented = false): Record<string, string>[] {
  const lines = readFileSync(path.join(DEPLOY, file), 'utf8').split('\n');
  const pattern = commented ? /^#([A-Z][A-Z0-9_]*)=(.*)$/ : /^([A-Z][A-Z0-9_]*)=(.*)$/;
  return lines.flatMap((line) => {
    const m = pattern.exec(line);
    return m ? [{ [m[1]!]: m[2]! }] : [];
  });
}

test('everything an instance writes lies under ReadWritePaths; the store is PostgreSQL first', () => {
  const units = ['scoop@.service', 'scoop-import.service'];
  const writable = unitValues('scoop@.service', 'ReadWritePaths');
  for (const unit of units) assert.deepEqual(unitValues(unit, 'ReadWritePaths'), writable, unit);
  const [workingDirectory] = unitValues('scoop@.service', 'WorkingDirectory');
  assert.ok(workingDirectory);
  const under = (place: string) => {
    const resolved = path.resolve(workingDirectory, place);
    return writable.some((root) => resolved === root || resolved.startsWith(`${root}/`));
  };

  const shared = Object.assign({}, ...envFile('scoop.env')) as Record<string, string>;
  assert.ok(
    isPostgresUrl(shared.SCOOP_DB ?? ''),
    `scoop.env's SCOOP_DB is a PostgreSQL URL: ${shared.SCOOP_DB}`,
  );
  // The store as documented, and each commented-out alternative to it (the SQLite file).
  const alternatives = envFile('scoop.env', true).flatMap((entry) => entry.SCOOP_DB ?? []);
  assert.ok(alternatives.length > 0, 'scoop.env shows the SQLite alternative');
  for (const db of [shared.SCOOP_DB!, ...alternatives]) {
    for (const instance of ['scoop-a.env', 'scoop-b.env']) {
      const env = Object.assign({}, shared, ...envFile(instance), { SCOOP_DB: db });
      const { cacheDir } = serveSettings({}, env).images;
      assert.ok(
        cacheDir !== undefined && under(cacheDir),
        `${db}: the variant cache ${cacheDir} is writable`,
      );
      if (!isPostgresUrl(db)) assert.ok(under(db), `the SQLite file ${db} is writable`);
      const shadow = serveSettings({}, { ...env, SCOOP_SHADOW: 'https://cms.example.org' }).shadow;
      assert.ok(
        shadow?.dir !== undefined && under(shadow.dir),
        `${db}: the shadow folder ${shadow?.dir} is writable`,
      );
    }
  }
});

test('the units start after PostgreSQL, and the instances migrate before serving', () => {
  for (const unit of ['scoop@.service', 'scoop-import.service']) {
    for (const key of ['After', 'Wants'])
      assert.ok(
        unitValues(unit, key).join(' ').split(' ').includes('postgresql.service'),
        `${unit}: ${key}=`,
      );
  }
  assert.deepEqual(unitValues('scoop@.service', 'ExecStartPre'), [
    '/usr/bin/node /opt/scoop/bin/scoop.js migrate --create',
  ]);
});

test('the instances serve with the node flags bin/scoop.js runs with', () => {
  const flags = scoopNodeFlags();
  assert.ok(flags.length > 0);
  assert.deepEqual(unitValues('scoop@.service', 'ExecStart'), [
    `/usr/bin/node ${flags.join(' ')} /opt/scoop/bin/scoop.js serve`,
  ]);
});
