/**
 * `scoop serve --shadow` as an operator runs it: the flags and SCOOP_SHADOW_* variables
 * reach the shadow, a difference shows in the log, in /metrics and in SCOOP_SHADOW_DIR,
 * and a folder that cannot be used stops the start with one line.
 */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { scratch } from './support/bundles.ts';
import { CHANGED_ARTIKEL_ID, changedArticleBundle } from './support/changed-article.ts';
import {
  EXTRAS_BUNDLE,
  type Fixture,
  REFERENCE_BUNDLE,
  REFERENCE_TOKEN,
  startFixture,
} from './support/fixture-server.ts';
import { runScoop } from './support/scoop-command.ts';
import { getFresh, listeningUrl, serveProcesses } from './support/serve-process.ts';

const s = scratch();
const serves = serveProcesses();

describe('scoop serve --shadow', () => {
  let original: Fixture;
  before(async () => {
    original = await startFixture({}, [REFERENCE_BUNDLE, EXTRAS_BUNDLE, changedArticleBundle(s)]);
  });
  after(() => original?.stop());

  test('a difference is logged, counted and kept', async () => {
    const root = s.dir();
    const db = path.join(root, 'scoop.db');
    const created = await runScoop(['migrate', '--create', '--db', db]);
    assert.equal(created.code, 0, created.stderr);
    const token = (await runScoop(['token', 'create', '--db', db])).stdout.trim();
    const shadowDir = path.join(root, 'kept');
    const serve = serves.start(
      ['--seed', REFERENCE_BUNDLE, '--port', '0', '--shadow', original.server.url, '--shadow-sample', '1'],
      {
        SCOOP_DB: db,
        SCOOP_ADMIN_PORT: '0',
        SCOOP_SHADOW_TOKEN: REFERENCE_TOKEN,
        SCOOP_SHADOW_DIR: shadowDir,
      },
    );
    const listening = await listeningUrl(serve);
    assert.ok(serve.lines.some((l) => String(l.msg).startsWith(`shadowing ${original.server.url}`)));
    const url = `${listening.url}/scoop/api/v6/scoop.asmx/getArtikelDetails?artikelID=${CHANGED_ARTIKEL_ID}`;
    const answer = await getFresh(url, { authorization: `Bearer ${token}` });
    assert.equal(answer.status, 200);
    const same = await getFresh(`${listening.url}/scoop/api/v6/public.asmx/getBereich?bereichID=1`);
    assert.equal(same.status, 200);
    const warning = await serve.line((l) => l.msg === 'shadow: the original answered differently');
    assert.deepEqual([warning.level, warning.op, warning.binding], ['warn', 'getArtikelDetails', 'httpget']);
    const metrics = await getFresh(`${listening.admin}/metrics`);
    assert.match(
      metrics.body,
      /scoop_shadow_requests_total\{operation="getArtikelDetails",binding="httpget",outcome="different"\} 1/,
    );
    assert.match(
      metrics.body,
      /scoop_shadow_requests_total\{operation="getBereich",binding="httpget",outcome="same"\} 1/,
    );
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0);
    const kept = readdirSync(shadowDir);
    assert.equal(kept.filter((n) => n.endsWith('.json')).length, 1, kept.join());
    assert.ok(kept.includes('report.html'), kept.join());
    assert.ok(!JSON.stringify(serve.lines).includes(token), 'the client token is never logged');
  });

  test('a SCOOP_SHADOW_DIR that cannot be used stops the start with one line', async () => {
    const file = path.join(s.dir(), 'a-file');
    writeFileSync(file, '');
    const serve = serves.start(['--shadow', original.server.url], {
      SCOOP_DB: path.join(s.dir(), 'scoop.db'),
      SCOOP_SHADOW_DIR: path.join(file, 'shadow'),
    });
    assert.equal(await serve.exited, 1);
    const lines = serve.stderr().trimEnd().split('\n');
    assert.equal(lines.length, 1, serve.stderr());
    assert.match(lines[0]!, /^scoop serve: SCOOP_SHADOW_DIR .* cannot be used .*SCOOP_SHADOW_DIR=off/);
  });

  test('a bad setting is one line and exit code 2', async () => {
    const serve = serves.start(['--shadow', original.server.url, '--shadow-sample', '2'], {
      SCOOP_DB: path.join(s.dir(), 'scoop.db'),
    });
    assert.equal(await serve.exited, 2);
    assert.match(
      serve.stderr(),
      /^scoop serve: SCOOP_SHADOW_SAMPLE \(--shadow-sample\) must be a number from 0 to 1/,
    );
  });
});
