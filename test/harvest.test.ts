/**
 * `scoop harvest` against a scoop fixture (the reference dataset), through a source that
 * can misbehave on cue (test/support/harvest-source.ts): unknown ids in every form,
 * retries, failures that withhold the bundle, interruption and --resume, the folders it
 * refuses, the mistakes that stop it before it writes anything, politeness, and the
 * answers it leaves out or warns about.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HarvestStopped } from '../src/migrate/harvest/harvest.ts';
import { closeBundle, readBundle } from '../src/store/bundle/read-bundle.ts';
import { importBundle } from '../src/store/import.ts';
import { scratch } from './support/bundles.ts';
import { SQLITE } from './support/databases.ts';
import { type Fixture, startFixture } from './support/fixture-server.ts';
import { type HarvestRun, runHarvest } from './support/harvest.ts';
import {
  type Behaviour,
  type Source,
  type SourceRequest,
  soapFault,
  startSource,
} from './support/harvest-source.ts';

const s = scratch();
let fixture: Fixture;
const sources: Source[] = [];
before(async () => {
  fixture = await startFixture();
});
after(async () => {
  for (const source of sources) await source.close();
  await fixture.stop();
});

async function source(behave?: (request: SourceRequest, nth: number) => Behaviour): Promise<Source> {
  const started = await startSource(fixture.server.url, behave);
  sources.push(started);
  return started;
}

function out(): string {
  return path.join(s.dir(), 'bundle');
}

function bundleOf(folder: string): Record<string, Array<Record<string, unknown>>> {
  return JSON.parse(readFileSync(path.join(folder, 'bundle.json'), 'utf8'));
}

async function stopped(run: Promise<unknown>, exitCode: number, message: RegExp): Promise<HarvestStopped> {
  let caught: unknown;
  await run.catch((error: unknown) => {
    caught = error;
  });
  assert.ok(caught instanceof HarvestStopped, `expected HarvestStopped, got ${String(caught)}`);
  assert.equal(caught.exitCode, exitCode, caught.message);
  assert.match(caught.message, message);
  assert.ok(!caught.message.includes('\n'), 'one line');
  return caught;
}

/** The original's capture of an unknown-id fault, for another id. */
function originalUnknown(folder: 'errors' | 'errors-customErrors-On', id: number): Behaviour {
  const text = readFileSync(`test/fixtures/reference/${folder}/unknown-id.soap11.txt`, 'utf8');
  const response = text.slice(text.indexOf('\n', text.indexOf('===== RESPONSE')) + 1);
  const body = response
    .slice(response.indexOf('\r\n\r\n') + 4)
    .replace('Unknown bereichID: 999', `Unknown bereichID: ${id}`);
  return { status: 500, body };
}

describe('unknown ids', () => {
  test("are skipped and counted: scoop's UNKNOWN_ID and the original's two forms", async () => {
    const src = await source((r) => {
      if (r.operation === 'getBereich' && r.id === '7') return originalUnknown('errors', 7);
      if (r.operation === 'getBereich' && r.id === '8') return originalUnknown('errors-customErrors-On', 8);
      return 'pass';
    });
    const folder = out();
    const summary = await runHarvest({ from: src.url, out: folder, ranges: { bereiche: '1-3,7-9' } });
    assert.equal(summary.counts.bereiche.records, 3);
    assert.equal(summary.counts.bereiche.unknown, 3);
    assert.deepEqual(
      bundleOf(folder).bereiche!.map((b) => b.bereichID),
      [1, 2, 3],
    );
  });

  test('an unknown-id answer for another id than the one sent stops the harvest', async () => {
    const src = await source(() => ({ status: 500, body: soapFault('soap:Client', 'Unknown bereichID: 0') }));
    const folder = out();
    await stopped(
      runHarvest({ from: src.url, out: folder, ranges: { bereiche: '5' } }),
      2,
      /"Unknown bereichID: 0": the service did not read the id sent/,
    );
    assert.ok(!existsSync(`${folder}.partial`), 'nothing written');
  });
});

describe('retries', () => {
  test('a reset, server faults, a proxy page and a 503 with Retry-After are retried', async () => {
    let pausedAt = 0;
    const src = await source((r, nth) => {
      if (r.operation !== 'getBereich') return 'pass';
      if (r.id === '1' && nth === 1) return 'reset';
      if (r.id === '2' && nth <= 2)
        return { status: 500, body: soapFault('soap:Server', 'Server was unable to process request.') };
      if (r.id === '3' && nth === 1)
        return {
          status: 502,
          headers: { 'content-type': 'text/html' },
          body: '<html><title>Bad Gateway</title></html>',
        };
      if (r.id === '10' && nth === 1) {
        pausedAt = r.at;
        const headers: Record<string, string> = { 'retry-after': '1', 'content-type': 'text/html' };
        return { status: 503, headers, body: '' };
      }
      return 'pass';
    });
    const summary = await runHarvest({
      from: src.url,
      out: out(),
      ranges: { bereiche: '1-3,10-13' },
      concurrency: 2,
    });
    assert.equal(summary.counts.bereiche.records, 3);
    assert.equal(summary.counts.bereiche.failed, 0);
    assert.equal(src.count('getBereich', '2'), 3);
    assert.equal(src.count('getBereich', '3'), 2);
    // The probe asks id 1 (reset, then answered), and its answer is kept.
    assert.equal(src.count('getBereich', '1'), 2);
    // Retry-After pauses every request, not only the one it answered: after what was
    // already on its way, nothing starts for a second.
    const after503 = src.requests.filter((r) => r.at - pausedAt > 50).map((r) => r.at - pausedAt);
    assert.ok(after503.length >= 2, 'the retry of 10, and what follows it');
    assert.ok(
      Math.min(...after503) >= 900,
      `requests ${after503.map(Math.round).join(', ')} ms after the 503`,
    );
  });

  test('a request that still fails withholds the bundle; --resume asks only what is missing', async () => {
    const failing = await source((r) =>
      r.operation === 'getBereich' && r.id === '2' ? { status: 503, body: '' } : 'pass',
    );
    const folder = out();
    const run: HarvestRun = {
      from: failing.url,
      out: folder,
      ranges: { bereiche: '1-3', anhaenge: '500-501' },
    };
    const first = runHarvest(run);
    await stopped(first, 1, /1 request still failed after 6 attempts .*--resume/);
    assert.ok(
      first.display.warnings.some((w) =>
        /getBereich\(bereichID 2\) failed after 6 attempts: HTTP 503/.test(w),
      ),
    );
    assert.equal(failing.count('getBereich', '2'), 6);
    assert.ok(!existsSync(folder), 'no bundle');
    assert.ok(existsSync(`${folder}.partial/.harvest/state.json`), 'the journal is kept');

    const healthy = await source();
    const summary = await runHarvest({ ...run, from: healthy.url, resume: true });
    assert.equal(summary.resumedAt, 1, 'bereich 1 was done before the failure');
    assert.equal(healthy.count('getBereich', '1'), 0);
    assert.equal(healthy.count('getBereich', '3'), 0, 'harvested after the failure, and kept');
    assert.equal(healthy.count('getBereich', '2'), 1, 'by the probe, whose answer is kept');
    assert.deepEqual(
      bundleOf(folder)
        .bereiche!.map((b) => b.bereichID)
        .sort(),
      [1, 2, 3],
    );
    assert.equal(bundleOf(folder).anhaenge!.length, 2);
  });
});

describe('interrupted', () => {
  test('no bundle appears; --resume goes on without asking again for what it has', async () => {
    const interrupt = new AbortController();
    const slow = await source((r) => {
      if (r.operation === 'getBereich' && r.id === '20') interrupt.abort();
      return { delayMs: 2 };
    });
    const folder = out();
    const run: HarvestRun = {
      from: slow.url,
      out: folder,
      ranges: { artikel: '100-101', bereiche: '1-40' },
      concurrency: 2,
    };
    await stopped(runHarvest({ ...run, signal: interrupt.signal }), 130, /interrupted; .* --resume/);
    assert.ok(!existsSync(folder));
    const journal = readFileSync(`${folder}.partial/.harvest/bereiche.jsonl`, 'utf8');
    const had = journal
      .split('\n')
      .filter(Boolean)
      .map((line) => String(JSON.parse(line).bereichID));
    assert.ok(had.length >= 2, `the journal holds ${had.length} areas`);

    const again = await source();
    await runHarvest({ ...run, from: again.url, resume: true });
    for (const id of had) assert.equal(again.count('getBereich', id), 0, `bereich ${id} asked again`);
    assert.equal(again.count('getArtikelDetails'), 0, 'the articles were done');
    assert.deepEqual(
      bundleOf(folder)
        .bereiche!.map((b) => b.bereichID)
        .sort(),
      [1, 2, 3],
    );
  });

  test('--resume with other ranges is refused', async () => {
    const interrupt = new AbortController();
    const src = await source((r) => {
      if (r.id === '5') interrupt.abort();
      return 'pass';
    });
    const folder = out();
    await stopped(
      runHarvest({
        from: src.url,
        out: folder,
        ranges: { bereiche: '1-9' },
        concurrency: 1,
        signal: interrupt.signal,
      }),
      130,
      /interrupted/,
    );
    await stopped(
      runHarvest({ from: src.url, out: folder, ranges: { bereiche: '1-10' }, resume: true }),
      2,
      /was started with another --bereiche; run it again with the same, or without --resume/,
    );
    // Without --resume it starts over.
    await runHarvest({ from: src.url, out: folder, ranges: { bereiche: '1-10' } });
    assert.equal(bundleOf(folder).bereiche!.length, 3);
  });
});

describe('folders', () => {
  test('an --out that exists and is not a harvest is refused, and nothing is written', async () => {
    const src = await source();
    const folder = s.dir();
    writeFileSync(path.join(folder, 'notes.txt'), 'mine');
    await stopped(
      runHarvest({ from: src.url, out: folder, ranges: { bereiche: '1' } }),
      2,
      /exists and is not a harvest/,
    );
    assert.deepEqual(readdirSync(folder), ['notes.txt']);
    assert.ok(!existsSync(`${folder}.partial`));
    assert.equal(src.requests.length, 0, 'refused before asking anything');

    const file = path.join(s.dir(), 'a-file');
    writeFileSync(file, '');
    await stopped(
      runHarvest({ from: src.url, out: file, ranges: { bereiche: '1' } }),
      2,
      /exists and is not a folder/,
    );

    await stopped(
      runHarvest({ from: src.url, out: path.join(s.dir(), 'missing', 'bundle'), ranges: { bereiche: '1' } }),
      2,
      /--out .*: the folder .*missing does not exist/,
    );

    const other = out();
    mkdirSync(`${other}.partial`);
    await stopped(
      runHarvest({ from: src.url, out: other, ranges: { bereiche: '1' } }),
      2,
      /is not an interrupted harvest/,
    );
  });

  test('an empty folder is taken, and an earlier harvest is replaced', async () => {
    const src = await source();
    const folder = s.dir();
    await runHarvest({ from: src.url, out: folder, ranges: { bereiche: '1-2' } });
    assert.equal(bundleOf(folder).bereiche!.length, 2);
    assert.equal(
      JSON.parse(readFileSync(path.join(folder, 'harvest.json'), 'utf8')).format,
      'scoop-harvest/1',
    );
    await runHarvest({ from: src.url, out: folder, ranges: { bereiche: '3' } });
    assert.deepEqual(bundleOf(folder).bereiche, [
      { bereichID: 3, name: bundleOf(folder).bereiche![0]!.name },
    ]);
    assert.ok(!readdirSync(path.dirname(folder)).some((name) => name.includes('.previous-')));
  });
});

describe('mistakes stop it before it writes anything', () => {
  async function refused(run: Omit<HarvestRun, 'out'>, exitCode: number, message: RegExp): Promise<void> {
    const folder = out();
    await stopped(runHarvest({ ...run, out: folder }), exitCode, message);
    assert.ok(!existsSync(folder) && !existsSync(`${folder}.partial`), 'nothing written');
  }

  test('a wrong token', async () => {
    await refused(
      { from: fixture.server.url, token: '22222222-2222-2222-2222-222222222222', ranges: { artikel: '100' } },
      2,
      /the token was refused: AUTH_FAILED: Authentication failed.*\(check --token\)/,
    );
  });

  test("the original's wrong-token fault", async () => {
    const src = await source(() => ({
      status: 500,
      body: soapFault('soap:Client', 'Authentication failed: the token is not valid.'),
    }));
    await refused({ from: src.url, ranges: { artikel: '100' } }, 2, /the token was refused/);
  });

  test("a wrong namespace: the service's own is named from its WSDL", async () => {
    await refused(
      { from: fixture.server.url, namespace: 'urn:wrong', ranges: { bereiche: '1' } },
      2,
      /the service's WSDL names the namespace http:\/\/scoop\.example\.org\/api: pass --namespace http:\/\/scoop\.example\.org\/api/,
    );
  });

  test('an endpoint that is not this service: an HTML page, a 404', async () => {
    for (const [status, page] of [
      [200, '<html><head><title>Welcome to nginx!</title></head></html>'],
      [404, '<html><head><title>404 Not Found</title></head></html>'],
    ] as const) {
      const server = http.createServer((_req, res) => {
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end(page);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        await refused(
          { from: url, ranges: { bereiche: '1' } },
          2,
          /is not an endpoint of this service: it answered HTTP \d+, an HTML page titled/,
        );
      } finally {
        server.closeAllConnections();
        server.close();
      }
    }
  });

  test('a fault for every request', async () => {
    const src = await source(() => ({ status: 500, body: soapFault('soap:Client', 'Computer says no') }));
    await refused(
      { from: src.url, ranges: { bereiche: '1-100' } },
      2,
      /getBereich\(bereichID 1\) was refused: Computer says no/,
    );
    assert.equal(src.requests.length, 1 + 1, 'the probe and the WSDL asked for a hint');
  });

  test('an unreachable URL', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await refused(
      { from: `http://127.0.0.1:${port}`, ranges: { bereiche: '1' } },
      1,
      /does not answer: the connection was refused \(3 attempts\); nothing was written/,
    );
  });
});

describe('politeness', () => {
  test('at most --concurrency requests in flight', async () => {
    const src = await source(() => ({ delayMs: 20 }));
    await runHarvest({ from: src.url, out: out(), ranges: { bereiche: '1-30' }, concurrency: 3 });
    assert.equal(src.maxInFlight(), 3);
  });

  test('at most --rate request starts per second', async () => {
    const src = await source();
    await runHarvest({ from: src.url, out: out(), ranges: { bereiche: '1-12' }, rate: 40, concurrency: 4 });
    const starts = src.requests.map((r) => r.at).sort((a, b) => a - b);
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    // 40 per second is one start every 25 ms (a little jitter from the timers and the proxy).
    assert.ok(Math.min(...gaps) >= 18, `gaps ${gaps.map((g) => g.toFixed(0)).join(', ')} ms`);
  });
});

describe('the URL', () => {
  test('a user and password in --from are sent as Basic authentication and shown nowhere', async () => {
    const src = await source();
    const folder = out();
    const url = new URL(src.url);
    url.username = 'harvester';
    url.password = 'se cret';
    await runHarvest({ from: url.href, out: folder, ranges: { bereiche: '1' } });
    assert.equal(
      src.requests[0]!.headers.authorization,
      `Basic ${Buffer.from('harvester:se cret').toString('base64')}`,
    );
    const harvestJson = readFileSync(path.join(folder, 'harvest.json'), 'utf8');
    assert.ok(!harvestJson.includes('cret') && !harvestJson.includes('harvester'), harvestJson);
  });

  test('a base URL with a path prefixes every request', async () => {
    const src = await source();
    await stopped(
      runHarvest({ from: `${src.url}/app/`, out: out(), ranges: { bereiche: '1' } }),
      2,
      /\/app\/scoop\/api\/v6\/public\.asmx is not an endpoint of this service: it answered HTTP 404/,
    );
    assert.equal(src.requests[0]!.path, '/app/scoop/api/v6/public.asmx');
  });
});

describe('what the bundle cannot hold', () => {
  test('is left out or warned about, naming the request; the bundle still imports', async () => {
    const src = await source((r) => {
      if (r.operation === 'getArtikelDetails' && r.id === '100')
        return { rewrite: (body) => body.replace('<art>persoenlich</art>', '<art>privat</art>') };
      if (r.operation === 'getBild' && r.id === '201')
        return {
          rewrite: (body) =>
            body.replace('<mimetype>image/png</mimetype>', '<mimetype>image/jpeg</mimetype>'),
        };
      if (r.operation === 'getBereich' && r.id === '2')
        return { rewrite: (body) => body.replace('</name>', '&#x1;</name>') };
      if (r.operation === 'getAnhang' && r.id === '500')
        return { rewrite: (body) => body.replace('<size>56</size>', '<size>57</size>') };
      if (r.operation === 'getNewsletter')
        return {
          rewrite: (body) =>
            body.replace(/(<wsNewsletter>.*?<\/wsNewsletter>)(<wsNewsletter>.*?<\/wsNewsletter>)/, '$2$1'),
        };
      return 'pass';
    });
    const folder = out();
    const run = runHarvest({
      from: src.url,
      out: folder,
      ranges: { artikel: '100-101', bereiche: '2', anhaenge: '500', bilder: '200-201' },
    });
    const summary = await run;
    const warnings = run.display.warnings;
    assert.ok(
      warnings.some((w) =>
        /^getArtikelDetails\(artikelID 100\): left out: .*kontakte\[0\]\.art: must be one of persoenlich, sammelkontakt/.test(
          w,
        ),
      ),
      warnings.join('\n'),
    );
    assert.ok(warnings.some((w) => /^getBild\(bildID 201\): left out: .*"image\/jpeg" contradicts/.test(w)));
    assert.ok(warnings.some((w) => /^getBereich\(bereichID 2\): left out: not well-formed XML/.test(w)));
    assert.ok(
      warnings.some((w) =>
        /^getAnhang\(anhangID 500\): anhaenge 500: <size> says 57 but <data> holds 56 bytes/.test(w),
      ),
    );
    assert.ok(
      warnings.some((w) => /^getNewsletter: the newsletters are not in the order of their ids/.test(w)),
    );
    assert.equal(summary.counts.artikel.leftOut, 1);
    assert.equal(summary.counts.bilder.leftOut, 1);
    assert.equal(summary.counts.bereiche.leftOut, 1);
    const bundle = bundleOf(folder);
    assert.deepEqual(
      bundle.artikel!.map((a) => a.artikelID),
      [101],
    );
    assert.deepEqual(
      bundle.bilder!.map((b) => b.bildID),
      [200],
    );
    const harvestJson = JSON.parse(readFileSync(path.join(folder, 'harvest.json'), 'utf8'));
    assert.equal(harvestJson.warningCount, warnings.length);

    const store = await s.open(SQLITE);
    const read = await readBundle(folder);
    await importBundle(store.store, read).finally(() => closeBundle(read));
  });
});
