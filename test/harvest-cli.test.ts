/**
 * `scoop harvest` as an operator runs it: mistakes in the options are one line and exit
 * code 2 before anything is asked; a run prints JSON lines when stderr is not a terminal
 * and a summary at the end; a harvest killed with SIGKILL leaves no bundle that imports,
 * and `--resume` finishes it; SIGINT stops it with exit code 130, ready to resume.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { scoopArgs } from '../bench/node-flags.ts';
import { scratch } from './support/bundles.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';
import { type Source, startSource } from './support/harvest-source.ts';
import { runScoop } from './support/scoop-command.ts';

const s = scratch();

/** `scoop harvest --from url --out out`, to which each test adds its options. */
function harvestOf(url: string, out: string): string[] {
  return ['harvest', '--from', url, '--out', out];
}
let fixture: Fixture;
let slow: Source;
before(async () => {
  fixture = await startFixture();
  slow = await startSource(fixture.server.url, () => ({ delayMs: 15 }));
});
after(async () => {
  await slow.close();
  await fixture.stop();
});

describe('mistakes in the options', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['a malformed range', ['--artikel', '5-3'], /^scoop harvest: --artikel: "5-3" ends before it starts$/],
    [
      'an id outside xs:int',
      ['--bereiche', '1,2147483648'],
      /^scoop harvest: --bereiche: "2147483648" is outside the xs:int range/,
    ],
    ['no --from', ['--from'], /^scoop harvest: Option '--from <value>' argument missing/],
    [
      'a --from that is not http',
      ['--from', 'ftp://x'],
      /^scoop harvest: --from: "ftp:\/\/x" is not an http: or https: URL$/,
    ],
    ['a --from that is not a URL', ['--from', 'localhost:8080/x'], /^scoop harvest: --from: /],
    [
      'articles without a token',
      ['--no-token', '--artikel', '1'],
      /^scoop harvest: --artikel calls scoop\.asmx operations, which need --token$/,
    ],
    ['a token that is not a GUID', ['--token', 'secret'], /^scoop harvest: --token must be a GUID/],
    [
      '--concurrency 0',
      ['--concurrency', '0'],
      /^scoop harvest: --concurrency must be a whole number from 1 to 64, not "0"$/,
    ],
    [
      '--rate abc',
      ['--rate', 'abc'],
      /^scoop harvest: --rate must be a number from above 0 to 100000, not "abc"$/,
    ],
    ['--progress=xml', ['--progress=xml'], /^scoop harvest: --progress takes only "json"/],
    [
      'an --emails file that is not there',
      ['--emails', '/nonexistent/emails.txt'],
      /^scoop harvest: --emails \/nonexistent\/emails\.txt: cannot be read \(ENOENT\)$/,
    ],
  ];
  for (const [name, args, message] of cases) {
    test(name, async () => {
      const out = path.join(s.dir(), 'bundle');
      const base = [...harvestOf(fixture.server.url, out), '--token', REFERENCE_TOKEN, '--bereiche', '1'];
      // Later options win over the defaults above; `--no-token` drops the token.
      const withoutToken = args.includes('--no-token');
      const full = [
        ...(withoutToken ? base.filter((a, i) => a !== '--token' && base[i - 1] !== '--token') : base),
        ...args.filter((a) => a !== '--no-token'),
      ];
      const run = await runScoop(full);
      assert.equal(run.code, 2, run.stderr);
      const firstLine = run.stderr.split('\n')[0]!;
      assert.match(firstLine, message);
      assert.ok(!run.stderr.includes('    at '), 'no stack trace');
      assert.ok(!existsSync(out) && !existsSync(`${out}.partial`), 'nothing written');
    });
  }

  test('the token from SCOOP_HARVEST_TOKEN', async () => {
    const out = path.join(s.dir(), 'bundle');
    const run = await runScoop(['harvest', '--from', fixture.server.url, '--out', out, '--artikel', '100'], {
      env: { SCOOP_HARVEST_TOKEN: REFERENCE_TOKEN },
    });
    assert.equal(run.code, 0, run.stderr);
    const bad = await runScoop(['harvest', '--from', fixture.server.url, '--out', out, '--artikel', '100'], {
      env: { SCOOP_HARVEST_TOKEN: 'secret' },
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^scoop harvest: SCOOP_HARVEST_TOKEN must be a GUID/);
  });

  test('nothing to harvest', async () => {
    const run = await runScoop(['harvest', '--from', fixture.server.url, '--out', path.join(s.dir(), 'b')]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^scoop harvest: nothing to harvest/);
  });

  test('--help', async () => {
    const run = await runScoop(['harvest', '--help']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Usage: scoop harvest --from BASE_URL --out DIR/);
    assert.match((await runScoop(['--help'])).stdout, /harvest --from URL --out DIR/);
  });
});

describe('a run', () => {
  test('JSON lines on stderr when it is not a terminal, the summary on stdout; the bundle imports', async () => {
    const out = path.join(s.dir(), 'bundle');
    const emails = path.join(s.dir(), 'emails.txt');
    writeFileSync(emails, 'anna@example.org\nunknown@example.org\n');
    const run = await runScoop([
      ...harvestOf(fixture.server.url, out),
      '--token',
      REFERENCE_TOKEN,
      '--artikel',
      '100-103',
      '--bilder',
      '200-201',
      '--emails',
      emails,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const events = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.ok(events.length >= 1 && events.every((e) => e.event === 'progress'));
    const last = events[events.length - 1];
    assert.equal(last.done, last.total);
    assert.equal(last.total, 4 + 2 + 1 + 2);
    for (const field of [
      'found',
      'unknown',
      'failed',
      'bytes',
      'rate',
      'elapsedSeconds',
      'secondsLeft',
      'operation',
    ])
      assert.ok(field in last, field);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.event, 'summary');
    assert.equal(summary.counts.artikel.records, 2);
    assert.equal(summary.counts.artikel.unknown, 2);
    assert.ok(!run.stdout.includes('anna@'), 'no address in the output');

    const imported = await runScoop(['import', out, '--db', path.join(s.dir(), 'b.db')]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /artikel\s+2\s/);
  });
});

describe('stopped', () => {
  function start(out: string, extra: string[] = []) {
    const child = spawn(
      process.execPath,
      scoopArgs([...harvestOf(slow.url, out), '--bereiche', '1-400', '--concurrency', '2', ...extra]),
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, exited, stderr: () => stderr };
  }

  async function whenJournalled(out: string): Promise<void> {
    for (let i = 0; i < 400 && !existsSync(`${out}.partial/.harvest/state.json`); i++)
      await new Promise((r) => setTimeout(r, 25));
    // Some answers in, some still to come.
    await new Promise((r) => setTimeout(r, 300));
  }

  test('SIGKILL leaves no bundle that imports; --resume finishes it', async () => {
    const out = path.join(s.dir(), 'bundle');
    const first = start(out);
    await whenJournalled(out);
    first.child.kill('SIGKILL');
    await first.exited;
    assert.ok(!existsSync(out), 'no bundle');
    const refused = await runScoop(['import', out, '--db', path.join(s.dir(), 'a.db')]);
    assert.notEqual(refused.code, 0);

    const resumed = start(out, ['--resume']);
    assert.equal(await resumed.exited, 0, resumed.stderr());
    const imported = await runScoop(['import', out, '--db', path.join(s.dir(), 'b.db')]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /bereiche\s+3\s/);
  });

  test('a folder it cannot write is one line, exit code 1', async () => {
    const out = path.join(s.dir(), 'bundle');
    const run = start(out);
    await whenJournalled(out);
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 130);
    // What a full disk or a changed permission would do to the next write, made by hand.
    rmSync(`${out}.partial/files/anhaenge`, { recursive: true });
    writeFileSync(`${out}.partial/files/anhaenge`, '');
    const resumed = await runScoop([...harvestOf(slow.url, out), '--bereiche', '1-400', '--resume']);
    assert.equal(resumed.code, 1, resumed.stderr);
    assert.match(
      resumed.stderr,
      /^scoop harvest: cannot scandir .*files\/anhaenge: ENOTDIR \(not a directory\); what was harvested is kept in .*\.partial for --resume\n$/,
    );
  });

  test('SIGINT stops it with exit code 130, ready to resume', async () => {
    const out = path.join(s.dir(), 'bundle');
    const run = start(out);
    await whenJournalled(out);
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 130);
    assert.match(
      run.stderr(),
      /scoop harvest: interrupted; what was harvested is kept in .*\.partial: run again with --resume to go on/,
    );
    assert.ok(!existsSync(out));
  });
});
