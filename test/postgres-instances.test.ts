/**
 * Several instances on one PostgreSQL, as deployed: `scoop serve` processes on one
 * schema, content imported by another process (`scoop import`). Each instance caches hot
 * records and learns of an import from its NOTIFY; the database's connections can be cut
 * under them and they recover by themselves.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { scoopArgs } from '../bench/node-flags.ts';
import { generation, pattern, scratch } from './support/bundles.ts';
import { dropSchema, newSchemaUrl, POSTGRES, withPg } from './support/databases.ts';
import { getFresh, listeningUrl, type ServeProcess, serveProcesses } from './support/serve-process.ts';

const s = scratch();
const serves = serveProcesses();
const schemas: string[] = [];
const started: ServeProcess[] = [];
const { test } = POSTGRES;

after(async () => {
  for (const serve of started) if (serve.child.exitCode === null) serve.child.kill('SIGTERM');
  await Promise.all(started.map((serve) => serve.exited));
  for (const schema of schemas) await dropSchema(schema);
});

function freshUrl(extra: Record<string, string> = {}): string {
  const { url, schema } = newSchemaUrl(extra);
  schemas.push(schema);
  return url;
}

/** `scoop serve --port 0 --db url`; resolves with its base URL (and its admin URL, when asked for). */
async function serve(
  url: string,
  env: Record<string, string> = {},
): Promise<{ base: string; admin?: string }> {
  const instance = serves.start(['--port', '0', '--db', url], env);
  started.push(instance);
  const line = await listeningUrl(instance);
  return { base: line.url as string, ...(typeof line.admin === 'string' ? { admin: line.admin } : {}) };
}

/** `scoop import folder --db url` in a process of its own; resolves when it exited 0. */
function importProcess(folder: string, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, scoopArgs(['import', folder, '--db', url]), {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`import exited ${code}: ${stderr}`)),
    );
  });
}

/** Generation `gen` (every name ends in "gen N") with a large attachment, so importing it takes a while. */
function largeGeneration(gen: number): string {
  const { json, files } = generation(gen, {});
  const anhaenge = [
    ...(json.anhaenge as object[]),
    { anhangID: 101, file: 'files/gross.bin', name: `gross gen ${gen}` },
  ];
  return s.bundle({ ...json, anhaenge }, { ...files, 'files/gross.bin': pattern(12_000_000, gen) });
}

/** When the last committed import finished, by the store's own record (just before its commit). */
async function lastImportFinished(url: string): Promise<number> {
  const schema = new URL(url).searchParams.get('schema')!;
  const { rows } = await withPg((client) =>
    client.query<{ finished_at: string }>(
      `SELECT finished_at FROM "${schema}".import_runs ORDER BY id DESC LIMIT 1`,
    ),
  );
  return Date.parse(rows[0]!.finished_at);
}

const BEREICH = '/scoop/api/v6/public.asmx/getBereich?bereichID=1';
const nameIn = (body: string) => /<name>Rathaus gen (\d+)<\/name>/.exec(body)?.[1];

interface Seen {
  readonly at: number;
  readonly status: number;
  readonly gen: string | undefined;
}

/** Asks `base` for bereich 1 over and over until `stop` is set; every answer is recorded. */
async function poll(base: string, stop: { done: boolean }): Promise<Seen[]> {
  const seen: Seen[] = [];
  while (!stop.done) {
    const answer = await getFresh(`${base}${BEREICH}`);
    seen.push({ at: Date.now(), status: answer.status, gen: nameIn(answer.body) });
  }
  return seen;
}

describe('two instances on one PostgreSQL', () => {
  test("both answer with an import's content within 1 s of it, and no request fails meanwhile", async (t) => {
    const url = freshUrl();
    // Both start at once on an empty schema: one migrates it, the other waits on its advisory lock.
    const [a, b] = await Promise.all([serve(url), serve(url)]);
    await importProcess(largeGeneration(1), url);
    for (const base of [a.base, b.base]) {
      const answer = await getFresh(`${base}${BEREICH}`);
      assert.equal(answer.status, 200);
      assert.equal(nameIn(answer.body), '1');
    }

    const stop = { done: false };
    const polling = [poll(a.base, stop), poll(b.base, stop)];
    const importStarted = Date.now();
    await importProcess(largeGeneration(2), url);
    const committed = await lastImportFinished(url);
    await sleep(1200);
    stop.done = true;
    const [seenA, seenB] = await Promise.all(polling);

    for (const [name, seen] of [
      ['first', seenA!],
      ['second', seenB!],
    ] as const) {
      const during = seen.filter((x) => x.at >= importStarted && x.at <= committed);
      assert.ok(
        during.length >= 20,
        `the ${name} instance answered only ${during.length} times during the import`,
      );
      for (const answer of seen) {
        assert.equal(answer.status, 200, `the ${name} instance failed a request`);
        assert.ok(answer.gen === '1' || answer.gen === '2', `the ${name} instance answered ${answer.gen}`);
      }
      const firstNew = seen.findIndex((x) => x.gen === '2');
      assert.ok(firstNew >= 0, `the ${name} instance never answered with the new content`);
      assert.ok(
        seen.slice(firstNew).every((x) => x.gen === '2'),
        `the ${name} instance went back to the old content`,
      );
      const lag = seen[firstNew]!.at - committed;
      assert.ok(lag <= 1000, `the ${name} instance showed the new content ${lag} ms after the commit`);
      t.diagnostic(
        `${name} instance: ${seen.length} answers, ${during.length} during the import, new content ${lag} ms after the commit`,
      );
    }
  });
});

describe('connections cut under a serving instance', () => {
  test('requests fail fast (503) or succeed while they are cut, and the instance recovers by itself', async (t) => {
    const app = `scoop_t_serve_${process.pid}`;
    const url = freshUrl({ application_name: app });
    await importProcess(largeGeneration(1), url);
    const { base, admin } = await serve(url, { SCOOP_ADMIN_PORT: '0' });
    assert.ok(admin, 'the admin listener');
    let unknownId = 1000;
    const targets: ReadonlyArray<{ name: string; url: () => string; answered: number }> = [
      // The large attachment streams from the database on every request (binaries are not cached).
      {
        name: 'getAnhang',
        url: () => `${base}/scoop/api/v6/public.asmx/getAnhang?anhangID=101`,
        answered: 200,
      },
      { name: 'getBereich', url: () => `${base}${BEREICH}`, answered: 200 },
      // An id never asked for is a cache miss: a read in the database (which finds nothing).
      {
        name: 'getBereich, new id',
        url: () => `${base}/scoop/api/v6/public.asmx/getBereich?bereichID=${unknownId++}`,
        answered: 404,
      },
      { name: '/readyz', url: () => `${admin}/readyz`, answered: 200 },
    ];
    for (const target of targets)
      assert.equal((await getFresh(target.url(), {}, 5000)).status, target.answered);

    const outcomes: Array<{ target: string; at: number; ms: number; outcome: string }> = [];
    const stop = { done: false };
    const hammer = async (target: (typeof targets)[number]) => {
      while (!stop.done) {
        const began = Date.now();
        let outcome: string;
        try {
          const answer = await getFresh(target.url(), {}, 5000);
          // The API says when to retry; for /readyz, a load balancer's probe, a bare 503 is the answer.
          const unavailable =
            answer.status === 503 && (target.name === '/readyz' || answer.headers['retry-after'] === '1');
          outcome =
            answer.status === target.answered
              ? 'answered'
              : unavailable
                ? 'unavailable'
                : String(answer.status);
        } catch {
          outcome = 'cut'; // a 200 whose stream was cut with its connection to the database
        }
        outcomes.push({ target: target.name, at: Date.now(), ms: Date.now() - began, outcome });
      }
    };
    const hammering = targets.map(hammer);
    let terminated = 0;
    for (let round = 0; round < 3; round++) {
      await sleep(300);
      const cut = await withPg((client) =>
        client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
          app,
        ]),
      );
      terminated += cut.rowCount ?? 0;
    }
    const lastCut = Date.now();
    await sleep(2500);
    stop.done = true;
    await Promise.all(hammering);

    assert.ok(terminated >= 3, `only ${terminated} connections were cut`);
    for (const o of outcomes) {
      const allowed =
        o.target === 'getAnhang' ? ['answered', 'unavailable', 'cut'] : ['answered', 'unavailable'];
      assert.ok(allowed.includes(o.outcome), `${o.target}: ${o.outcome}`);
      assert.ok(o.ms < 2000, `${o.target} took ${o.ms} ms`);
    }
    // Recovered: from a second after the last cut on, every request is answered.
    for (const { name } of targets) {
      const late = outcomes.filter((o) => o.target === name && o.at > lastCut + 1000);
      assert.ok(late.length > 0, `no answers from ${name} after the cuts`);
      assert.deepEqual(new Set(late.map((o) => o.outcome)), new Set(['answered']), name);
    }
    const tally: Record<string, number> = {};
    for (const { target, outcome } of outcomes)
      tally[`${target}: ${outcome}`] = (tally[`${target}: ${outcome}`] ?? 0) + 1;
    t.diagnostic(`${terminated} connections cut; answers ${JSON.stringify(tally)}`);
    // The LISTEN connection came back too: the next import shows within a second.
    await importProcess(largeGeneration(2), url);
    const committed = await lastImportFinished(url);
    const current = async () => nameIn((await getFresh(`${base}${BEREICH}`)).body);
    let gen = await current();
    while (gen !== '2' && Date.now() - committed < 1000) {
      await sleep(10);
      gen = await current();
    }
    assert.equal(gen, '2', 'the new content within 1 s of the commit');
  });
});
