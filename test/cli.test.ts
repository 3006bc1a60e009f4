/**
 * The `scoop` command end to end: each test spawns `node bin/scoop.js …` against a
 * database in a scratch folder (also the working directory, so a default path could
 * never touch the repository), or a fresh PostgreSQL schema, and checks exit code,
 * stdout and stderr.
 */

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { scoopArgs, scoopNodeFlags } from '../bench/node-flags.ts';
import { Authenticator } from '../src/auth/authenticator.ts';
import { hashToken } from '../src/auth/tokens.ts';
import { ScoopError } from '../src/contract/errors.ts';
import type { ContentStore } from '../src/store/content-store.ts';
import { POSTGRES_MIGRATIONS } from '../src/store/postgres/migrations.ts';
import { redactLocation } from '../src/store/postgres/url.ts';
import { SQLITE_MIGRATIONS } from '../src/store/sqlite/migrations.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { bundleJson, generation, pattern, scratch } from './support/bundles.ts';
import { DATABASES, POSTGRES, SQLITE, type TestDatabase } from './support/databases.ts';
import { type CommandRun, runScoop } from './support/scoop-command.ts';

const s = scratch();
const BIN = path.resolve('bin/scoop.js');
const GUID_LINE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n$/;

function scoop(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  input?: string,
): Promise<CommandRun> {
  return runScoop(args, { cwd: s.root, env, ...(input === undefined ? {} : { input }) });
}

/** A word for `sh -c`: single-quoted, its single quotes spelled '\''. */
function shellWord(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * Runs `scoop` on a pseudo-terminal, as from an interactive shell: util-linux `script`
 * gives it one for stdin, stdout and stderr, and copies what it writes (both streams,
 * interleaved, with CR LF line ends) to its own stdout. `-e` passes the exit code on.
 */
function scoopOnTerminal(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const { SCOOP_DB: _ignored, ...inherited } = process.env;
  const command = [process.execPath, BIN, ...args].map(shellWord).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: s.root,
      env: inherited,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Runs a command that must succeed, returning its stdout. */
async function ok(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<string> {
  const run = await scoop(args, env);
  assert.equal(run.code, 0, `scoop ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

/** Opens the store at `location` (a SQLite file unless `database` says otherwise) for `use`. */
async function withStore<T>(
  location: string,
  use: (store: ContentStore) => Promise<T>,
  database: TestDatabase = SQLITE,
): Promise<T> {
  const store = database === SQLITE ? new SqliteStore(location) : await database.attach(location);
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

function generationBundle(gen: number, extra: Record<string, unknown> = {}): string {
  const { json, files } = generation(gen, extra);
  return s.bundle(json, files);
}

describe('the scoop command', () => {
  test('bin/scoop.js runs as a command of its own, with the node flags of its first line', () => {
    // `npx scoop` and `npm start` execute the file: its `env -S` line must start node.
    const run = spawnSync(BIN, ['--version'], { cwd: s.root, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^scoop \S+\n$/);
    // What the benchmark starts its servers with (bench/node-flags.ts).
    const flags = scoopNodeFlags(path.dirname(path.dirname(BIN)));
    assert.deepEqual(flags, ['--max-semi-space-size=8', '--no-memory-reducer']);
    // node got them: it prints its own arguments before scoop runs.
    const shown = spawnSync(BIN, ['--version'], {
      cwd: s.root,
      encoding: 'utf8',
      env: {
        ...process.env,
        NODE_OPTIONS: '--import=data:text/javascript,process.stderr.write(JSON.stringify(process.execArgv))',
      },
    });
    assert.equal(shown.status, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stderr), flags);
    // npm start passes the same flags.
    const start = JSON.parse(readFileSync(path.join(path.dirname(BIN), '..', 'package.json'), 'utf8')).scripts
      .start;
    assert.ok(start.includes(`node ${flags.join(' ')} bin/scoop.js serve`), start);
  });

  test('the benchmark reads no flags from a plain first line, and refuses one it cannot read', () => {
    const checkout = path.join(s.root, 'checkout');
    mkdirSync(path.join(checkout, 'bin'), { recursive: true });
    const withFirstLine = (line: string) => {
      writeFileSync(path.join(checkout, 'bin/scoop.js'), `${line}\nimport './x.js';\n`);
      return () => scoopNodeFlags(checkout);
    };
    assert.deepEqual(withFirstLine('#!/usr/bin/env node')(), []);
    assert.deepEqual(withFirstLine('#!/usr/bin/env -S node\t--a=1  --b')(), ['--a=1', '--b']);
    assert.deepEqual(scoopArgs(['serve', '--port', '0'], checkout, ['--cpu-prof']), [
      '--a=1',
      '--b',
      '--cpu-prof',
      path.join(checkout, 'bin/scoop.js'),
      'serve',
      '--port',
      '0',
    ]);
    for (const line of [
      '#!/usr/bin/node --a',
      '#!/usr/bin/env -S node --import tsx',
      '#!/usr/bin/env -S node "--a"',
    ])
      assert.throws(withFirstLine(line), /cannot read node's flags/, line);
  });
});

describe('scoop import', { concurrency: true }, () => {
  test('import exits 0 and prints a per-kind summary', async () => {
    const db = s.dbPath();
    const stdout = await ok(['import', generationBundle(1), '--db', db]);
    assert.match(stdout, /kind\s+added\s+changed\s+unchanged\s+removed/);
    const rows: Array<[string, number]> = [
      ['bereiche', 2],
      ['cityAppBereiche', 1],
      ['anhaenge', 1],
      ['bilder', 1],
      ['artikel', 1],
      ['newsletter', 2],
      ['abonnements', 1],
    ];
    for (const [kind, added] of rows)
      assert.match(stdout, new RegExp(`\\n  ${kind} +${added} +0 +0 +0\\n`), kind);
    assert.match(stdout, /content version 1$/m);

    const again = await ok(['import', generationBundle(1), '--db', db]);
    for (const [kind, unchanged] of rows) {
      assert.match(again, new RegExp(`\\n  ${kind} +0 +0 +${unchanged} +0\\n`), kind);
    }
    assert.match(again, /content version 1 \(unchanged\)/);
    assert.equal(await withStore(db, (store) => store.contentVersion()), 1);
  });

  test('on a terminal, import shows its progress: files hashed, then records written', async () => {
    const { json, files } = generation(1);
    const bundle = s.bundle(json, { ...files, 'files/rathaus.bin': pattern(3 * 1_048_576) });
    const run = await scoopOnTerminal(['import', bundle, '--db', s.dbPath()]);
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /\r {2}hashing files 2\/2, bytes 3\.0 MB\/3\.0 MB {2}\r?\n/);
    assert.match(run.output, /\r {2}writing records 9\/9, bytes 3\.0 MB\/3\.0 MB {2}\r?\n/);
    assert.ok(
      run.output.indexOf('hashing files') < run.output.indexOf('writing records'),
      'hashing comes first',
    );
    assert.match(run.output, /content version 1/);
  });

  test('without a terminal, import prints no progress', async () => {
    const { json, files } = generation(1);
    const bundle = s.bundle(json, { ...files, 'files/rathaus.bin': pattern(3 * 1_048_576) });
    const db = s.dbPath();
    const run = await scoop(['import', bundle, '--db', db]);
    assert.equal(run.code, 0, run.stderr);
    // The one line: that a store was created (issue 14: the store in use is visible).
    assert.equal(run.stderr, `scoop import: created a new store at ${db}\n`);
    assert.doesNotMatch(run.stdout, /hashing|writing records|\r/);
    assert.match(run.stdout, /content version 1/);
  });

  test('SCOOP_DB is honoured, and --db wins over it', async () => {
    const fromEnv = s.dbPath();
    const fromFlag = s.dbPath();
    const stdout = await ok(['import', s.bundle(bundleJson({ bereiche: [{ bereichID: 1 }] }))], {
      SCOOP_DB: fromEnv,
    });
    assert.match(stdout, new RegExp(`into ${fromEnv.replaceAll('\\', '\\\\')}`));
    assert.equal(await withStore(fromEnv, (store) => store.contentVersion()), 1);

    await ok(['import', s.bundle(bundleJson({ bereiche: [{ bereichID: 2 }] })), '--db', fromFlag], {
      SCOOP_DB: fromEnv,
    });
    assert.equal(await withStore(fromFlag, (store) => store.contentVersion()), 1);
    assert.equal(await withStore(fromEnv, (store) => store.contentVersion()), 1);

    const token = (await ok(['token', 'create'], { SCOOP_DB: fromEnv })).trim();
    await withStore(fromEnv, (store) => new Authenticator(store).verify(token));
    assert.equal(existsSync(path.join(s.root, 'data')), false, 'the default database was created');
  });

  test('import takes the path of bundle.json as its folder', async () => {
    const db = s.dbPath();
    const folder = s.bundle(bundleJson({ bereiche: [{ bereichID: 1 }] }));
    const stdout = await ok(['import', path.join(folder, 'bundle.json'), '--db', db]);
    assert.match(stdout, /\n {2}bereiche +1 +0 +0 +0\n/);
  });

  test('a file with two hard links is refused, and imported with --allow-hardlinks', async () => {
    const db = s.dbPath();
    const folder = s.bundle(bundleJson({ anhaenge: [{ anhangID: 1, file: 'a.txt' }] }), {
      'a.txt': 'inhalt',
    });
    linkSync(path.join(folder, 'a.txt'), path.join(s.dir(), 'a.txt'));
    const refused = await scoop(['import', folder, '--db', db]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(
      refused.stderr,
      /^import refused, nothing was changed: anhaenge\[0\] \(anhangID 1\)\.file: "a\.txt" has 2 hard links.*--allow-hardlinks/m,
    );
    const stdout = await ok(['import', folder, '--allow-hardlinks', '--db', db]);
    assert.match(stdout, /\n {2}anhaenge +1 +0 +0 +0\n/);
  });

  test('usage errors exit 2 and create no database', async () => {
    const usageErrors = [
      ['import'],
      ['import', 'a', 'b'],
      ['import', '--nope', 'a'],
      ['token'],
      ['token', 'delete'],
      ['token', 'create', 'x'],
      ['token', 'revoke', 'a', 'b'],
      ['token', 'list', 'x'],
    ];
    for (const args of usageErrors) {
      const db = s.dbPath();
      const run = await scoop([...args, '--db', db]);
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.stderr, /Usage/, args.join(' '));
      assert.equal(existsSync(db), false, `scoop ${args.join(' ')} created ${db}`);
    }
  });
});

for (const database of DATABASES) {
  describe(`scoop import and migrate on ${database.name}`, { concurrency: true }, () => {
    const { test } = database;

    test('a refused bundle exits 1, names the record and field on stderr, and changes nothing', async () => {
      const place = await database.newLocation();
      try {
        const db = place.location;
        await ok(['import', generationBundle(1), '--db', db]);
        const { import_runs: runs = [], ...dump } = await place.dump();

        const invalid = generationBundle(2, {
          artikel: [{ artikelID: 1, kontakte: [{ art: 'privat' }] }],
        });
        const refused = await scoop(['import', invalid, '--db', db]);
        assert.equal(refused.code, 1);
        assert.match(
          refused.stderr,
          /import refused, nothing was changed: artikel\[0\] \(artikelID 1\)\.kontakte\[0\]\.art: /,
        );
        assert.equal(refused.stdout, '');

        // Refused inside the transaction, after every record (and a new binary) was written.
        const dangling = generationBundle(3, {
          artikel: [{ artikelID: 1 }, { artikelID: 2, anhaenge: [404] }],
        });
        const late = await scoop(['import', dangling, '--db', db]);
        assert.equal(late.code, 1);
        assert.match(late.stderr, /artikel\[1\] \(artikelID 2\)\.anhaenge: anhaenge 404 is neither/);

        // Every row of every table as before, but for the two refusals recorded in import_runs.
        const { import_runs: runsAfter = [], ...dumpAfter } = await place.dump();
        assert.deepEqual(dumpAfter, dump);
        assert.deepEqual(runsAfter.slice(0, runs.length), runs);
        assert.deepEqual(
          runsAfter.slice(runs.length).map((row) => (row as { outcome: string }).outcome),
          ['refused', 'refused'],
        );
      } finally {
        await place.dispose();
      }
    });

    test('migrate brings a new store to the latest schema version, then has nothing to do', async () => {
      const place = await database.newLocation();
      try {
        const shown = redactLocation(place.location);
        if (database.name === 'sqlite') {
          // migrate never creates a SQLite file (a typo in --db would make an empty store)…
          const refused = await scoop(['migrate', '--db', place.location]);
          assert.equal(refused.code, 2);
          assert.match(refused.stderr, /there is no store at .*; check --db \/ SCOOP_DB/);
          assert.equal(existsSync(place.location), false);
          // …but migrates one that exists, an empty file included.
          mkdirSync(path.dirname(place.location), { recursive: true });
          writeFileSync(place.location, '');
        }
        const migrations = database.name === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
        const latest = migrations.length;
        assert.equal(
          await ok(['migrate', '--db', place.location]),
          `${shown}: schema version ${latest} (applied ${migrations.map((_, i) => i + 1).join(', ')})\n`,
        );
        assert.equal(
          await ok(['migrate'], { SCOOP_DB: place.location }),
          `${shown}: schema version ${latest} (nothing to apply)\n`,
        );
        const stdout = await ok(['import', generationBundle(1)], { SCOOP_DB: place.location });
        assert.match(stdout, /content version 1/);
        const token = (await ok(['token', 'create', '--db', place.location])).trim();
        await withStore(place.location, (store) => new Authenticator(store).verify(token), database);
      } finally {
        await place.dispose();
      }
    });
  });
}

describe('scoop with PostgreSQL', { concurrency: true }, () => {
  POSTGRES.test('a password in the URL is never printed', async () => {
    const place = await POSTGRES.newLocation();
    try {
      const url = new URL(place.location);
      url.password = 'geheim-123'; // trust authentication: the server never asks for it
      const migrated = await ok(['migrate', '--db', url.toString()]);
      assert.match(migrated, /^postgres:\/\/[^/]*:\*\*\*@127\.0\.0\.1/);
      const imported = await ok(['import', generationBundle(1)], { SCOOP_DB: url.toString() });
      for (const stdout of [migrated, imported]) assert.doesNotMatch(stdout, /geheim/);
    } finally {
      await place.dispose();
    }
  });

  test('an unreachable PostgreSQL is one line on stderr and exit code 1', async () => {
    const run = await scoop(['token', 'list', '--db', 'postgres://127.0.0.1:1/scoop']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^scoop token: PostgreSQL store unavailable \(ECONNREFUSED: .*\)\n$/);
    assert.equal(run.stdout, '');
  });

  test('a schema name PostgreSQL would fold or need quoted is a usage error', async () => {
    const run = await scoop(['migrate', '--db', 'postgres://127.0.0.1:1/scoop?schema=Scoop-Prod']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /schema="Scoop-Prod": a schema name is lower-case letters/);
  });
});

describe('scoop commands', { concurrency: true }, () => {
  for (const args of [
    ['--help'],
    ['-h'],
    ['import', '--help'],
    ['token', '--help'],
    ['serve', '--help'],
    ['migrate', '--help'],
  ]) {
    test(`${args.join(' ')} exits 0 and prints usage`, async () => {
      const run = await scoop(args);
      assert.equal(run.code, 0);
      assert.match(run.stdout, /^Usage:/);
      assert.equal(run.stderr, '');
      assert.equal(existsSync(path.join(s.root, 'data')), false, 'help opened the default database');
    });
  }

  test('an unknown command exits 2', async () => {
    const run = await scoop(['impotr', 'x']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /unknown command "impotr"/);
    assert.equal(run.stdout, '');
  });

  test('no command prints usage and exits 2', async () => {
    const run = await scoop([]);
    assert.equal(run.code, 2);
    assert.match(run.stdout, /^Usage:/);
  });
});

for (const database of DATABASES) {
  describe(`scoop token on ${database.name}`, { concurrency: true }, () => {
    const { test } = database;

    /** Runs `use` with a new, empty location for `--db`, removed afterwards. */
    /** A store that exists (token never creates one), empty: a SQLite file of no bytes. */
    async function withLocation(use: (db: string) => Promise<void>): Promise<void> {
      const place = await database.newLocation();
      if (database.name === 'sqlite') {
        mkdirSync(path.dirname(place.location), { recursive: true });
        writeFileSync(place.location, '');
      }
      try {
        await use(place.location);
      } finally {
        await place.dispose();
      }
    }

    test('token create prints exactly one GUID line on stdout', () =>
      withLocation(async (db) => {
        const run = await scoop(['token', 'create', '--label', 'redaktion', '--db', db]);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, GUID_LINE);
        assert.equal(run.stderr, `scoop token: store ${redactLocation(db)}\n`);
        await withStore(db, (store) => new Authenticator(store).verify(run.stdout.trim()), database);
      }));

    test('token list shows id, label, created and last used, never the token or its hash', () =>
      withLocation(async (db) => {
        const token = (await ok(['token', 'create', '--label', 'redaktion', '--db', db])).trim();
        await ok(['token', 'create', '--label', 'app', '--db', db]);
        const usedAt = new Date('2026-05-04T03:02:01.000Z');
        await withStore(db, (store) => new Authenticator(store, () => usedAt).verify(token), database);

        const list = await ok(['token', 'list', '--db', db]);
        const lines = list.trimEnd().split('\n');
        assert.match(lines[0]!, /^id\s+label\s+created\s+last used\s+revoked$/);
        assert.equal(lines.length, 3);
        const hash = hashToken(token);
        const id = hash.toString('hex').slice(0, 8);
        const redaktion = lines.find((line) => line.startsWith(`${id} redaktion`));
        assert.match(
          redaktion!,
          /^[0-9a-f]{8} redaktion\s+\d{4}-\d{2}-\d{2}T[\d:.]+Z\s+2026-05-04T03:02:01\.000Z\s+-$/,
        );
        assert.match(lines.find((line) => line.includes(' app '))!, /^[0-9a-f]{8} app\s+\S+Z\s+-\s+-$/);
        for (const secret of [token, token.toUpperCase(), hash.toString('hex'), hash.toString('base64')]) {
          assert.equal(list.includes(secret), false, `list shows ${secret}`);
        }
      }));

    test('token revoke works and a revoked token no longer verifies', () =>
      withLocation(async (db) => {
        const token = (await ok(['token', 'create', '--db', db])).trim();
        assert.equal(await ok(['token', 'revoke', token.toUpperCase(), '--db', db]), 'revoked\n');
        await withStore(
          db,
          (store) => assert.rejects(new Authenticator(store).verify(token), ScoopError),
          database,
        );
        assert.match(await ok(['token', 'list', '--db', db]), /\n[0-9a-f]{8} -\s+\S+Z\s+-\s+\S+Z\n$/);

        const run = await scoop(['token', 'revoke', token, '--db', db]);
        assert.equal(run.code, 1);
        assert.match(run.stderr, /no active token matches/);
      }));

    test('token revoke reads the token from stdin, with - or no argument', () =>
      withLocation(async (db) => {
        for (const args of [['-'], []]) {
          const token = (await ok(['token', 'create', '--db', db])).trim();
          const run = await scoop(
            ['token', 'revoke', ...args, '--db', db],
            {},
            `${token.toUpperCase()}\nmore\n`,
          );
          assert.equal(run.code, 0, run.stderr);
          assert.equal(run.stdout, 'revoked\n');
          assert.equal(run.stderr.includes(token), false);
          await withStore(
            db,
            (store) => assert.rejects(new Authenticator(store).verify(token), ScoopError),
            database,
          );
        }
        const empty = await scoop(['token', 'revoke', '-', '--db', db], {}, 'kein-token\n');
        assert.equal(empty.code, 2);
        assert.match(
          empty.stderr,
          /^scoop token: revoke: the first line of stdin is not a token \(a GUID\)\n$/,
        );
      }));

    test('token revoke takes the id that token list shows', () =>
      withLocation(async (db) => {
        const token = (await ok(['token', 'create', '--label', 'weg', '--db', db])).trim();
        const kept = (await ok(['token', 'create', '--label', 'bleibt', '--db', db])).trim();
        const line = (await ok(['token', 'list', '--db', db])).split('\n').find((l) => l.includes(' weg '))!;
        const id = line.slice(0, 8);
        assert.equal(id, hashToken(token).toString('hex').slice(0, 8));
        assert.equal(await ok(['token', 'revoke', id.toUpperCase(), '--db', db]), 'revoked\n');
        await withStore(
          db,
          async (store) => {
            await assert.rejects(new Authenticator(store).verify(token), ScoopError);
            await new Authenticator(store).verify(kept);
          },
          database,
        );
        const again = await scoop(['token', 'revoke', id, '--db', db]);
        assert.equal(again.code, 1);
        assert.match(again.stderr, /no active token matches/);
        const unknown = await scoop([
          'token',
          'revoke',
          'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
          '--db',
          db,
        ]);
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /no token has the id f{64}/);
      }));

    test('token revoke refuses an id that matches more than one token', () =>
      withLocation(async (db) => {
        // Two hashes that share their first eight hex characters, as no real pair is known to.
        await withStore(
          db,
          async (store) => {
            await store.addToken(Buffer.from('ab01cd2300', 'hex'), 'eins', '2026-01-01T00:00:00.000Z');
            await store.addToken(Buffer.from('ab01cd2311', 'hex'), 'zwei', '2026-01-01T00:00:01.000Z');
          },
          database,
        );
        const run = await scoop(['token', 'revoke', 'ab01cd23', '--db', db]);
        assert.equal(run.code, 1);
        assert.match(run.stderr, /id ab01cd23 matches 2 tokens/);
        assert.equal(await ok(['token', 'revoke', 'ab01cd2311', '--db', db]), 'revoked\n');
      }));

    test('token revoke refuses a malformed argument, exit 2, without echoing it', () =>
      withLocation(async (db) => {
        for (const bad of ['kein-token', 'a3f', '0123456789abcdef-x', '{not-a-guid}']) {
          const run = await scoop(['token', 'revoke', bad, '--db', db]);
          assert.equal(run.code, 2, bad);
          assert.match(
            run.stderr,
            /neither a token id \(8 hex characters, from `scoop token list`\) nor a token \(a GUID\)/,
          );
          assert.equal(run.stderr.includes(bad), false, bad);
        }
      }));
  });
}
