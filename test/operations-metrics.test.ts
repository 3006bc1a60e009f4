/**
 * The metric families an operator watches, from `scoop serve` as it runs: import runs by
 * outcome — counted from the store, so imports made by a separate `scoop import` process
 * show on the server's /metrics — the resize queue, and the hit rates of the record,
 * variant and whole-answer caches.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, test } from 'node:test';
import { bundleJson, scratch } from './support/bundles.ts';
import { runScoop as scoop } from './support/scoop-command.ts';
import { getFresh, listeningUrl, type ServeProcess, serveProcesses } from './support/serve-process.ts';

const DEMO = path.resolve('examples/demo-bundle');
const s = scratch();
const serves = serveProcesses();

/** The value of one series in the exposition text, or undefined when it is absent. */
function value(text: string, series: string): number | undefined {
  const escaped = series.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

let db: string;
let serve: ServeProcess;
let url: string;
let admin: string;

before(async () => {
  db = s.dbPath();
  serve = serves.start(['--port', '0', '--db', db, '--seed', DEMO], {
    SCOOP_ADMIN_PORT: '0',
    SCOOP_VARIANT_CACHE_DIR: s.dir(),
  });
  const line = await listeningUrl(serve);
  url = String(line.url);
  admin = String(line.admin);
});

const metrics = async () => (await getFresh(`${admin}/metrics`)).body;

test('imports by a separate `scoop import` process are counted by outcome on the server', async () => {
  const before = await metrics();
  assert.equal(value(before, 'scoop_import_runs{outcome="committed"}'), 1, 'the seed import');
  assert.equal(value(before, 'scoop_import_runs{outcome="refused"}'), 0);
  assert.equal(value(before, 'scoop_last_refused_import_timestamp_seconds'), 0);

  const refused = await scoop([
    'import',
    s.bundle(bundleJson({ bereiche: [{ bereichID: 'x' }] })),
    '--db',
    db,
  ]);
  assert.equal(refused.code, 1, refused.stderr);
  const missing = await scoop(['import', path.join(s.root, 'no-such-bundle'), '--db', db]);
  assert.equal(missing.code, 1, missing.stderr);
  const committed = await scoop(['import', DEMO, '--db', db]);
  assert.equal(committed.code, 0, committed.stderr);

  const after = await metrics();
  assert.equal(value(after, 'scoop_import_runs{outcome="committed"}'), 2);
  assert.equal(value(after, 'scoop_import_runs{outcome="refused"}'), 2);
  assert.equal(value(after, 'scoop_imports_committed'), 2);
  const refusedAt = value(after, 'scoop_last_refused_import_timestamp_seconds')!;
  assert.ok(Math.abs(refusedAt - Date.now() / 1000) < 60, `last refusal at ${refusedAt}`);
  assert.ok(value(after, 'scoop_last_import_timestamp_seconds')! >= refusedAt);
});

test('the resize queue is exported, and variant cache lookups are counted as hits and misses', async () => {
  const text = await metrics();
  assert.equal(value(text, 'scoop_resize_queue_length'), 0);
  assert.equal(value(text, 'scoop_resizes_running'), 0);
  assert.equal(value(text, 'scoop_log_lines_dropped'), 0);
  // The same variant asked for over HTTP GET and then SOAP, so neither the whole-answer cache
  // (keyed on the request) nor the answer pack (which keeps the answer made in the GET's
  // layout) answers the second: the variant cache does.
  const bild = `${url}/scoop/api/v6/public.asmx/getBild?bildID=201&width=40&height=30&resizeModes=fit`;
  assert.equal((await getFresh(bild, {}, 10_000)).status, 200);
  const soap = await fetch(`${url}/scoop/api/v6/public.asmx`, {
    method: 'POST',
    headers: {
      'content-type': 'text/xml; charset=utf-8',
      soapaction: '"http://scoop.example.org/api/getBild"',
    },
    body:
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
      '<getBild xmlns="http://scoop.example.org/api"><bildID>201</bildID><width>40</width><height>30</height>' +
      '<resizeModes><resizeMode>fit</resizeMode></resizeModes></getBild></soap:Body></soap:Envelope>',
  });
  assert.equal(soap.status, 200, await soap.text());
  const after = await metrics();
  assert.equal(value(after, 'scoop_cache_lookups_total{cache="variants",result="miss"}'), 1);
  assert.equal(value(after, 'scoop_cache_lookups_total{cache="variants",result="hit"}'), 1);
  assert.ok((value(after, 'scoop_cache_lookups_total{cache="records",result="hit"}') ?? 0) >= 1);
});

test('whole-answer cache lookups are counted as hits and misses', async () => {
  const bereich = `${url}/scoop/api/v6/public.asmx/getBereich?bereichID=1`;
  // Kept once asked for again (ResponseCache.admits), then found twice.
  for (let i = 0; i < 4; i++) assert.equal((await getFresh(bereich)).status, 200);
  const text = await metrics();
  assert.ok((value(text, 'scoop_cache_lookups_total{cache="answers",result="miss"}') ?? 0) >= 1, text);
  assert.ok((value(text, 'scoop_cache_lookups_total{cache="answers",result="hit"}') ?? 0) >= 2, text);
});
