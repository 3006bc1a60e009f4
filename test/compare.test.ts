/**
 * `scoop compare` against two scoop instances in this process (a scoop instance is a
 * valid "original": it speaks the same wire): identical content compares the same over
 * every operation and binding; one changed article is exactly that difference, from a
 * bundle, a HAR file and a requests file alike; bad input is one line and exit code 2.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OPERATIONS } from '../src/contract/operations.ts';
import { bundleIds, countRequests, requestsFor } from '../src/migrate/compare/from-bundle.ts';
import { HttpSender } from '../src/migrate/compare/http-sender.ts';
import type { CompareReport } from '../src/migrate/compare/report.ts';
import { compareOne, type Side } from '../src/migrate/compare/run-compare.ts';
import type { BindingName } from '../src/protocol/binding.ts';
import { scratch } from './support/bundles.ts';
import {
  CHANGED_ARTIKEL_ID,
  CHANGED_TEXT,
  CHANGED_TOKEN,
  startChangedFixture,
} from './support/changed-article.ts';
import { type Fixture, REFERENCE_BUNDLE, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';
import { runScoop } from './support/scoop-command.ts';

const BINDINGS: readonly BindingName[] = ['soap11', 'soap12', 'httpget', 'httppost'];
const HAR = path.resolve('test/fixtures/compare/calls.har');
const SUMMARY = /^(\d+) same, (\d+) both refused, (\d+) different, (\d+) failed$/m;

const work = scratch();
let baseline: Fixture;
let twin: Fixture;
let changed: Fixture;

before(async () => {
  baseline = await startFixture();
  twin = await startFixture();
  changed = await startChangedFixture(work);
});
after(async () => {
  await Promise.all([baseline?.stop(), twin?.stop(), changed?.stop()]);
});

function summaryOf(stdout: string): { same: number; refused: number; different: number; failed: number } {
  const match = SUMMARY.exec(stdout);
  assert.ok(match, `no summary line in ${stdout.slice(-500)}`);
  const [same, refused, different, failed] = match.slice(1).map(Number) as [number, number, number, number];
  return { same, refused, different, failed };
}

function compare(candidate: Fixture, ...args: string[]) {
  return runScoop([
    'compare',
    '--baseline',
    baseline.server.url,
    '--candidate',
    candidate.server.url,
    '--baseline-token',
    REFERENCE_TOKEN,
    '--candidate-token',
    candidate === changed ? CHANGED_TOKEN : REFERENCE_TOKEN,
    ...args,
  ]);
}

describe('identical content', () => {
  test('every operation on every binding, from the bundle, is the same or both refused', async () => {
    const ids = await bundleIds(REFERENCE_BUNDLE);
    const sender = (fixture: Fixture) =>
      new HttpSender(new URL(fixture.server.url), { timeoutMs: 10_000, keepBytes: 1 << 20, maxSockets: 4 });
    const a: Side = { sender: sender(baseline), token: REFERENCE_TOKEN };
    const b: Side = { sender: sender(twin), token: REFERENCE_TOKEN };
    const same = new Set<string>();
    const outcomes = new Map<string, number>();
    try {
      for (const request of requestsFor(ids, BINDINGS, 'http://scoop.example.org/api')) {
        const { verdict } = await compareOne(request, a, b);
        outcomes.set(verdict.outcome, (outcomes.get(verdict.outcome) ?? 0) + 1);
        if (verdict.outcome === 'same') same.add(`${request.operation} ${request.binding}`);
      }
    } finally {
      a.sender.close();
      b.sender.close();
    }
    assert.deepEqual([...outcomes.keys()].sort(), ['both refused', 'same']);
    for (const operation of OPERATIONS)
      for (const binding of BINDINGS)
        assert.ok(
          same.has(`${operation.name} ${binding}`),
          `${operation.name} over ${binding} was never the same`,
        );
  });

  test('the command says so, and exits 0', async () => {
    const run = await compare(twin, '--from-bundle', REFERENCE_BUNDLE);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const summary = summaryOf(run.stdout);
    const total = countRequests(await bundleIds(REFERENCE_BUNDLE), BINDINGS);
    assert.equal(summary.same + summary.refused, total);
    assert.equal(summary.different + summary.failed, 0);
    assert.ok(summary.refused > 0, 'the unknown ids were asked for');
  });
});

describe('one changed article', () => {
  test('from the bundle: exactly getArtikelDetails of that article, on each binding', async () => {
    const json = path.join(work.dir(), 'result.json');
    const html = path.join(work.dir(), 'report.html');
    const run = await compare(changed, '--from-bundle', REFERENCE_BUNDLE, '--json', json, '--report', html);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(summaryOf(run.stdout).different, 4);
    assert.equal(summaryOf(run.stdout).failed, 0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as CompareReport;
    assert.deepEqual(
      report.differences.map((d) => `${d.description} ${d.binding}`),
      BINDINGS.map((b) => `getArtikelDetails(artikelID=${CHANGED_ARTIKEL_ID}) ${b}`),
    );
    for (const difference of report.differences) {
      assert.match(difference.diff!, /^-.*Straßenfest am Rathausplatz/m);
      assert.ok(difference.diff!.includes('+'), difference.diff);
      assert.match(difference.baseline, /^HTTP 200 /);
      assert.match(difference.candidate, /^HTTP 200 /);
    }
    // The terminal shows each with its request, both status lines and the diff.
    assert.match(
      run.stdout,
      /different: getArtikelDetails\(artikelID=100\) over soap11\n {2}POST \/scoop\/api\/v6\/scoop\.asmx\n {2}baseline: {2}HTTP 200 OK/,
    );
    assert.ok(run.stdout.includes('abgesagt &lt;wegen Regen&gt; &amp; verschoben.'), run.stdout);
    const page = readFileSync(html, 'utf8');
    assert.ok(page.includes('4 different'));
    assert.ok(
      page.includes(
        CHANGED_TEXT.replace(/&/g, '&amp;amp;').replace(/</g, '&amp;lt;').replace(/>/g, '&amp;gt;'),
      ),
    );
  });

  test("from a HAR file: the calls with bodies, tokens replaced by each side's, other entries skipped", async () => {
    const run = await compare(changed, '--har', HAR);
    assert.equal(run.code, 1, run.stderr + run.stdout);
    assert.deepEqual(summaryOf(run.stdout), { same: 4, refused: 0, different: 1, failed: 0 });
    assert.match(run.stderr, /1 HAR entries skipped/);
    assert.match(run.stdout, /different: POST \/scoop\/api\/v6\/scoop\.asmx over soap11/);
    // The token shown is neither the captured one nor a side's.
    assert.ok(!run.stdout.includes('99999999-'));
    assert.ok(!run.stdout.includes(CHANGED_TOKEN) && !run.stdout.includes(REFERENCE_TOKEN));
  });

  test("--bindings leaves a HAR's calls over other bindings out", async () => {
    const run = await compare(changed, '--har', HAR, '--bindings', 'httpget');
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.deepEqual(summaryOf(run.stdout), { same: 2, refused: 0, different: 0, failed: 0 });
  });

  test('from a requests file, each line over each chosen binding', async () => {
    const file = path.join(work.dir(), 'calls.txt');
    writeFileSync(
      file,
      [
        '# calls to compare',
        `getArtikelDetails artikelID=${CHANGED_ARTIKEL_ID}`,
        'getBereich bereichID=abc',
        '',
        'getBereich\tbereichID=1',
        'getAbonnierteNewsletter email=anna%40example.org',
      ].join('\n'),
    );
    const run = await compare(changed, '--requests', file, '--bindings', 'soap11,httpget');
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(summaryOf(run.stdout), { same: 4, refused: 2, different: 2, failed: 0 });
  });
});

describe('the HTML report', () => {
  let hostile: Server;
  let url: string;
  before(async () => {
    // A "service" whose every answer is SOAP that carries markup meant for a browser.
    hostile = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
        res.end(
          '<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
            '<x xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script><img src="http://evil.example/x.png" onerror="alert(2)"/>' +
            '<a href="javascript:alert(3)">&lt;/td&gt;&lt;script&gt;alert(4)&lt;/script&gt;</a></x></soap:Body></soap:Envelope>',
        );
      });
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    const address = hostile.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(() => new Promise<void>((resolve) => hostile.close(() => resolve())));

  test('is one self-contained file, and escapes what the answers and requests hold', async () => {
    const file = path.join(work.dir(), 'calls.txt');
    writeFileSync(file, 'getBereich bereichID=%3Cscript%3Ealert(5)%3C%2Fscript%3E\ngetBereich bereichID=1\n');
    const html = path.join(work.dir(), 'report.html');
    const run = await runScoop([
      'compare',
      '--baseline',
      baseline.server.url,
      '--candidate',
      url,
      '--requests',
      file,
      '--bindings',
      'soap11',
      '--report',
      html,
    ]);
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(summaryOf(run.stdout), { same: 0, refused: 0, different: 2, failed: 0 });
    const page = readFileSync(html, 'utf8');
    const allowed = new Set(
      'html head meta title style body h1 h2 p strong code table tr td th colgroup col section pre br'.split(
        ' ',
      ),
    );
    const tags = [...page.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)];
    assert.deepEqual(
      tags.map((t) => t[1]!.toLowerCase()).filter((name) => !allowed.has(name)),
      [],
      "only the report's own elements",
    );
    for (const [tag, , attributes] of tags) {
      assert.ok(
        !/\b(src|href|on\w+)\s*=/i.test(attributes!),
        `an attribute that loads or runs something: ${tag}`,
      );
    }
    assert.match(
      page,
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">/,
    );
    assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(page.includes('alert(5)'));
  });
});

describe('bad input: one line, exit code 2', () => {
  const oneLine = (run: { code: number | null; stderr: string }, pattern: RegExp) => {
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(run.stderr, pattern);
  };

  test('an address nothing answers at', async () => {
    const run = await runScoop([
      'compare',
      '--baseline',
      'http://127.0.0.1:9',
      '--candidate',
      twin.server.url,
      '--har',
      HAR,
    ]);
    oneLine(
      run,
      /^scoop compare: the baseline http:\/\/127\.0\.0\.1:9\/ cannot be reached: connection refused/,
    );
  });

  test('an HTML page instead of SOAP', async () => {
    const html = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><body>Login</body></html>');
    });
    await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
    const address = html.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const run = await runScoop([
        'compare',
        '--baseline',
        baseline.server.url,
        '--candidate',
        `http://127.0.0.1:${port}/`,
        '--har',
        HAR,
      ]);
      oneLine(
        run,
        /the candidate .* is not the service: a SOAP request to \/scoop\/api\/v6\/public\.asmx was answered 200 with text\/html/,
      );
    } finally {
      html.close();
    }
  });

  test('a HAR file that is not JSON', async () => {
    const file = path.join(work.dir(), 'broken.har');
    writeFileSync(file, '<html>not a HAR</html>');
    const run = await compare(twin, '--har', file);
    oneLine(run, /--har .*broken\.har is not JSON/);
  });

  test('a HAR file without a call of the service, a folder for a file, a bundle that is not there', async () => {
    const file = path.join(work.dir(), 'site.har');
    writeFileSync(file, JSON.stringify({ log: { entries: [] } }));
    oneLine(
      await compare(twin, '--har', file),
      /--har .*site\.har holds no calls of the service over soap11, soap12, httpget, httppost \(0 entries skipped\)/,
    );
    oneLine(await compare(twin, '--har', work.dir()), /--har .*: not a file\n$/);
    oneLine(
      await compare(twin, '--from-bundle', path.join(work.root, 'missing')),
      /--from-bundle .*missing: .*the bundle folder does not exist/,
    );
  });

  test('a requests file with a mistake names its line', async () => {
    const file = path.join(work.dir(), 'calls.txt');
    writeFileSync(file, 'getBereich bereichID=1\ngetBereich bereichId=1\n');
    const run = await compare(twin, '--requests', file);
    oneLine(run, /--requests .*: line 2: getBereich has no parameter "bereichId"/);
  });

  test('a bad URL, a bad token, a bad binding', async () => {
    oneLine(
      await runScoop(['compare', '--baseline', 'ftp://x', '--candidate', twin.server.url, '--har', HAR]),
      /--baseline must be an http\(s\) URL/,
    );
    oneLine(
      await compare(twin, '--har', HAR, '--baseline-token', 'secret'),
      /--baseline-token must be a GUID/,
    );
    oneLine(await compare(twin, '--har', HAR, '--bindings', 'soap11,json'), /--bindings lists bindings/);
  });

  test('no source, or two', async () => {
    const none = await compare(twin);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /give exactly one of --from-bundle, --har and --requests/);
    const two = await compare(twin, '--har', HAR, '--requests', HAR);
    assert.equal(two.code, 2);
  });
});
