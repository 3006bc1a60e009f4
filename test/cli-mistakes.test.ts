/**
 * An operator's mistakes get one line naming the setting to change and exit code 2, never
 * a stack trace (issue 14, items 7, 8, 10): a port in use, a store that cannot be opened,
 * a bad log level, a typo in --db for token and migrate; and `scoop --version`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { scratch } from './support/bundles.ts';
import { type CommandRun, runScoop } from './support/scoop-command.ts';

const s = scratch();
const DEMO = path.resolve('examples/demo-bundle');
const NO_STACK = /\n\s+at |Error:/;

function oneLine(run: CommandRun, names: RegExp): void {
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, names);
  assert.doesNotMatch(run.stderr, NO_STACK);
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
}

async function occupied(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return { server, port: address.port };
}

describe('operators’ mistakes', () => {
  const servers: Server[] = [];
  after(() => {
    for (const server of servers) server.close();
  });

  test('scoop --version prints the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const run = await runScoop(['--version']);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, `scoop ${version}\n`);
  });

  test('a log level pino does not know is refused by name', async () => {
    const run = await runScoop(['serve', '--port', '0', '--db', s.dbPath()], {
      env: { SCOOP_LOG_LEVEL: 'loud' },
    });
    oneLine(run, /SCOOP_LOG_LEVEL must be one of .*not "loud"/);
  });

  test('a store that cannot be opened names --db / SCOOP_DB', async () => {
    for (const command of [
      ['import', DEMO],
      ['serve', '--port', '0'],
    ]) {
      const run = await runScoop([...command, '--db', '/proc/scoop-test/x.db'], {
        env: { SCOOP_ADMIN_PORT: 'off' },
      });
      oneLine(run, /cannot open the store \/proc\/scoop-test\/x\.db .*set --db \/ SCOOP_DB/);
    }
  });

  test('a store another process keeps locked (the first import into a new file) is said, not a stack trace', async () => {
    const file = path.join(s.dir(), 'locked.db');
    const holder = new Database(file);
    holder.pragma('journal_mode = DELETE');
    holder.exec('CREATE TABLE t (x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)');
    try {
      const run = await runScoop(['serve', '--port', '0', '--db', file], {
        env: { SCOOP_ADMIN_PORT: 'off' },
      });
      oneLine(
        run,
        /the store .*locked\.db stayed locked by another process .*try again when that has finished/,
      );
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  test('token and migrate never create a store: a typo in --db is said, and no file appears', async () => {
    const typo = path.join(s.dir(), 'typo', 'scoop.db');
    for (const args of [['token', 'list'], ['token', 'create'], ['migrate']]) {
      const run = await runScoop([...args, '--db', typo]);
      oneLine(run, /there is no store at .*typo\/scoop\.db; check --db \/ SCOOP_DB/);
      assert.equal(run.stdout, '');
    }
    assert.throws(() => readFileSync(typo), /ENOENT/);
    // …unless migrate is told to (the first start of a SQLite deployment, docs/deploy.md).
    const created = await runScoop(['migrate', '--create', '--db', typo]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /created a new store at .*typo\/scoop\.db/);
    assert.match(created.stdout, /schema version \d+ \(applied 1/);
  });

  test('the public port in use names SCOOP_PORT; the admin port in use names SCOOP_ADMIN_PORT', async () => {
    const busy = await occupied();
    servers.push(busy.server);
    const db = s.dbPath();
    const pub = await runScoop(['serve', '--port', String(busy.port), '--db', db], {
      env: { SCOOP_ADMIN_PORT: 'off', SCOOP_LOG_LEVEL: 'warn' },
    });
    oneLine(
      pub,
      new RegExp(`cannot listen on 127\\.0\\.0\\.1:${busy.port}: the address is already in use .*SCOOP_PORT`),
    );
    const admin = await runScoop(['serve', '--port', '0', '--db', db], {
      env: { SCOOP_ADMIN_PORT: String(busy.port), SCOOP_LOG_LEVEL: 'warn' },
    });
    oneLine(admin, /cannot listen on 127\.0\.0\.1:\d+: the address is already in use .*SCOOP_ADMIN_PORT/);
  });

  test('import says when it creates a store, and token says which store it used', async () => {
    const db = s.dbPath();
    const imported = await runScoop(['import', DEMO, '--db', db]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, new RegExp(`created a new store at ${db.replaceAll('.', '\\.')}`));
    const again = await runScoop(['import', DEMO, '--db', db]);
    assert.doesNotMatch(again.stderr, /created a new store/);
    const listed = await runScoop(['token', 'list', '--db', db]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stderr, `scoop token: store ${db}\n`);
  });
});
