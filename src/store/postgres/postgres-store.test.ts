/**
 * What only the PostgreSQL store has to show (the behaviour both stores share is in
 * store/content-store.test.ts and store/import.test.ts): migrations under concurrent
 * start-up, readiness, imports queueing, LISTEN/NOTIFY with its reconnect, and a
 * database that goes away and comes back.
 */
import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { bundleJson, generation, importFolder, pattern, scratch } from '../../../test/support/bundles.ts';
import { dropSchema, newSchemaUrl, POSTGRES, withPg } from '../../../test/support/databases.ts';
import { tcpProxy } from '../../../test/support/tcp-proxy.ts';
import { OPERATIONS } from '../../contract/operations.ts';
import { createMetrics } from '../../observe/metrics.ts';
import { preparedInside } from '../../prepare/prepared-answer.ts';
import { ANSWERS_FORMAT } from '../../prepare/prepared-operations.ts';
import { startAdminServer } from '../../server/admin-server.ts';
import { materialize } from '../../server/send.ts';
import { type ContentStore, StoreUnavailableError } from '../content-store.ts';
import { POSTGRES_MIGRATIONS } from './migrations.ts';
import { PostgresStore, type PostgresStoreOptions } from './postgres-store.ts';

const s = scratch();
const { test } = POSTGRES;
const schemas: string[] = [];
const stores: ContentStore[] = [];

after(async () => {
  for (const store of stores) await store.close();
  for (const schema of schemas) await dropSchema(schema);
});

/** A fresh schema's URL, dropped when the file ends. */
function freshUrl(extra: Record<string, string> = {}): string {
  const { url, schema } = newSchemaUrl(extra);
  schemas.push(schema);
  return url;
}

async function open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const store = await PostgresStore.open(url, options);
  stores.push(store);
  return store;
}

/** Waits until `check` holds, at most `ms`; returns how long that took. */
async function within(ms: number, check: () => Promise<boolean>, what: string): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) assert.fail(`${what}: not within ${ms} ms`);
    await sleep(10);
  }
  return performance.now() - started;
}

const nameOf = (store: ContentStore, id = '1') =>
  store.read(async (snapshot) => {
    const record = await snapshot.get('bereiche', id);
    return record ? (JSON.parse(record.doc) as { name?: string }).name : undefined;
  });

function bereich(name: string): string {
  return s.bundle(bundleJson({ bereiche: [{ bereichID: 1, name }] }));
}

describe('migrations', () => {
  test('instances starting at once on a new schema migrate it exactly once', async () => {
    const url = freshUrl();
    const opened = await Promise.all(Array.from({ length: 5 }, () => open(url)));
    const versions = await withPg((client) =>
      client.query<{ version: number }>(
        `SELECT version FROM "${new URL(url).searchParams.get('schema')}".schema_migrations ORDER BY version`,
      ),
    );
    assert.deepEqual(
      versions.rows.map((r) => r.version),
      POSTGRES_MIGRATIONS.map((_, i) => i + 1),
    );
    for (const store of opened) assert.equal(await store.contentVersion(), 0);
    assert.deepEqual(await opened[0]!.migrate(), [], 'nothing left to apply');
  });

  test('/readyz is 503 until the schema has every migration, then 200', async () => {
    const store = await open(freshUrl(), { migrate: false });
    const admin = await startAdminServer(createMetrics(), store, '127.0.0.1', 0);
    try {
      assert.deepEqual(await store.health(), {
        schemaVersion: 0,
        latestSchemaVersion: POSTGRES_MIGRATIONS.length,
      });
      const before = await fetch(`${admin.url}/readyz`);
      assert.equal(before.status, 503);
      assert.deepEqual(await before.json(), {
        status: 'store not migrated',
        schemaVersion: 0,
        latestSchemaVersion: POSTGRES_MIGRATIONS.length,
      });
      assert.deepEqual(
        await store.migrate(),
        POSTGRES_MIGRATIONS.map((_, i) => i + 1),
      );
      const ready = await fetch(`${admin.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { status: 'ready', contentVersion: 0 });
    } finally {
      await admin.close();
    }
  });
});

describe('imports', () => {
  test('two imports at once queue on the advisory lock: both commit, one after the other', async () => {
    const url = freshUrl();
    const [a, b] = [await open(url), await open(url)];
    const big = (gen: number) => {
      const { json, files } = generation(gen, {
        anhaenge: [{ anhangID: 100, file: 'files/gross.bin' }],
        artikel: [{ artikelID: 1, bereiche: [1, 2], anhaenge: [100] }],
      });
      return s.bundle(json, { ...files, 'files/gross.bin': pattern(2_000_000, gen) });
    };
    const [one, two] = await Promise.all([importFolder(a!, big(1)), importFolder(b!, big(2))]);
    assert.deepEqual([one.contentVersion, two.contentVersion].sort(), [1, 2]);
    // Each saw the other's result as the state before it, never a half-written one.
    const later = one.contentVersion === 2 ? one : two;
    assert.equal(later.kinds.bereiche.changed, 2);
    assert.equal((await a!.importRuns()).committed, 2);
  });

  test("an import is announced with NOTIFY on the schema's channel, in its transaction, unless it changed nothing", async () => {
    const url = freshUrl();
    const store = await open(url);
    const channel = `scoop_content.${new URL(url).searchParams.get('schema')}`;
    const heard = await withPg(async (client) => {
      const payloads: string[] = [];
      client.on('notification', (n) => {
        if (n.channel === channel) payloads.push(n.payload ?? '');
      });
      await client.query(`LISTEN "${channel}"`);
      await importFolder(store, bereich('eins'));
      const unchanged = await importFolder(store, bereich('eins'));
      assert.equal(unchanged.contentChanged, false);
      await assert.rejects(
        importFolder(store, s.bundle(bundleJson({ artikel: [{ artikelID: 1, bereiche: [9] }] }))),
      );
      await importFolder(store, bereich('zwei'));
      await within(1000, async () => payloads.length >= 2, 'notifications');
      await sleep(50);
      return payloads;
    });
    assert.deepEqual(heard, ['1', '2'], 'the unchanged and the refused import announced nothing');
  });
});

describe('instances learn of imports', () => {
  test('by notification: another instance knows the new version at once, without reading', async () => {
    const url = freshUrl();
    const importer = await open(url);
    // A version check only every minute: what this instance learns in time, it learned by NOTIFY.
    const reader = await open(url, { versionCheckMs: 60_000 });
    await importFolder(importer, bereich('alt'));
    assert.equal(await nameOf(reader), 'alt');
    await importFolder(importer, bereich('neu'));
    const took = await within(1000, async () => (await reader.knownVersion()) === 2, 'new version');
    assert.ok(took < 1000);
    assert.equal(await nameOf(reader), 'neu');
  });

  test('a listener whose connection is cut reconnects and hears the next import', async () => {
    const app = `scoop_t_listener_${process.pid}`;
    const url = freshUrl({ application_name: app });
    const importer = await open(freshUrlSibling(url));
    const errors: unknown[] = [];
    const reader = await open(url, { versionCheckMs: 60_000, onBackgroundError: (e) => errors.push(e) });
    await importFolder(importer, bereich('alt'));
    assert.equal(await nameOf(reader), 'alt');
    const cut = await withPg((client) =>
      client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
        app,
      ]),
    );
    assert.ok((cut.rowCount ?? 0) >= 1, 'no connection of the reader was cut');
    await within(3000, async () => errors.length > 0, 'the reader noticed');
    // Reconnected (and re-read the version after it): the next import is heard at once.
    await sleep(500);
    await importFolder(importer, bereich('neu'));
    await within(1000, async () => (await nameOf(reader)) === 'neu', 'new content after the reconnect');
  });
});

/** The same schema as `url`, without its application_name (so only the reader's connections carry it). */
function freshUrlSibling(url: string): string {
  const sibling = new URL(url);
  sibling.searchParams.delete('application_name');
  return sibling.toString();
}

describe('a database that goes away', () => {
  test('an unreachable server is StoreUnavailableError at once', async () => {
    const started = performance.now();
    await assert.rejects(PostgresStore.open('postgres://127.0.0.1:1/scoop'), StoreUnavailableError);
    assert.ok(performance.now() - started < 2000);
  });

  test('reads fail fast while it is gone, /readyz says so, and everything recovers by itself', async () => {
    const url = freshUrl();
    const importer = await open(url);
    await importFolder(
      importer,
      s.bundle(bundleJson({ anhaenge: [{ anhangID: 1, file: 'a.bin' }] }), { 'a.bin': pattern(600_000, 1) }),
    );
    const proxy = await tcpProxy(Number(new URL(url).port || 5432));
    const viaProxy = new URL(url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const store = await open(viaProxy.toString(), { connectTimeoutMs: 1000 });
    const admin = await startAdminServer(createMetrics(), store, '127.0.0.1', 0);
    let id = 100;
    // An id not read before: a cache miss, so a database read.
    const miss = () => nameOf(store, String(id++));
    const stream = () =>
      store.read(async (snapshot) => {
        let bytes = 0;
        for await (const chunk of (await snapshot.get('anhaenge', '1'))!.blob!.source.chunks())
          bytes += chunk.byteLength;
        return bytes;
      });
    try {
      assert.equal(await miss(), undefined);
      assert.equal(await stream(), 600_000);
      await proxy.stop();
      for (const attempt of [miss, stream]) {
        const started = performance.now();
        await assert.rejects(attempt(), StoreUnavailableError);
        assert.ok(performance.now() - started < 1500, `failed after ${performance.now() - started} ms`);
      }
      const down = await fetch(`${admin.url}/readyz`);
      assert.equal(down.status, 503);
      assert.deepEqual(await down.json(), { status: 'store unreachable' });

      await proxy.start();
      await within(3000, async () => (await fetch(`${admin.url}/readyz`)).status === 200, 'ready again');
      assert.equal(await miss(), undefined);
      assert.equal(await stream(), 600_000);
      // The listener is back too: the next import is seen.
      await importFolder(importer, bereich('danach'));
      await within(2500, async () => (await nameOf(store)) === 'danach', 'an import after the outage');
    } finally {
      await admin.close();
      await proxy.stop();
    }
  });
});

describe('prepared answers', () => {
  /**
   * The named statements sent while `work` runs: a read's are all named, the version watch's
   * (LISTEN, its periodic check) are not, so they cannot blur the count.
   */
  async function statements<T>(work: () => Promise<T>): Promise<{ result: T; sent: number }> {
    const query = pg.Client.prototype.query;
    let sent = 0;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const [config] = args;
      if (typeof config === 'object' && config !== null && 'name' in config) sent++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      return { result: await work(), sent };
    } finally {
      pg.Client.prototype.query = query;
    }
  }

  const article = async (store: ContentStore) =>
    (
      await materialize(
        (await preparedInside(
          store,
          OPERATIONS.find((o) => o.name === 'getArtikelDetails')!,
          { artikelID: 1 },
          'compact',
          Date.parse('2026-06-01T00:00:00Z'),
          () => undefined,
        ))!,
      )
    ).toString();

  test('an article with its attachment is one statement: the fragment, the blobs it shows and the content version', async () => {
    const url = freshUrl();
    const { json, files } = generation(1);
    await importFolder(await open(url), s.bundle(json, files));
    const store = await open(url, { cacheBytes: 0 });
    const { result, sent } = await statements(() => article(store));
    assert.equal(sent, 1);
    assert.ok(result.includes(Buffer.from('Satzung, Fassung 1\n').toString('base64')));
    assert.match(result, /Kultur gen 1/);
  });

  test('an answer prepared before its blobs were listed is read with them all the same', async () => {
    const url = freshUrl();
    const { json, files } = generation(1);
    await importFolder(await open(url), s.bundle(json, files));
    const store = await open(url, { cacheBytes: 0 });
    const listed = await article(store);
    await withPg((client) => client.query('UPDATE answers SET blob_ids = NULL'), url);
    const { result, sent } = await statements(() => article(store));
    assert.equal(result, listed);
    // The answer, then its blob: each selects the content version with its rows.
    assert.equal(sent, 2);
  });

  test('the answers keep the column an older build reads (a rolling deploy), empty', async () => {
    const url = freshUrl();
    const { json, files } = generation(1);
    await importFolder(await open(url), s.bundle(json, files));
    const { rows } = await withPg(
      (client) => client.query<{ bytes: number }>('SELECT octet_length(indented) AS bytes FROM answers'),
      url,
    );
    assert.ok(rows.length > 0);
    for (const { bytes } of rows) assert.equal(bytes, 0);
  });

  test("a record's read is one statement that vouches for itself; one an import changed meanwhile is made again", async () => {
    const url = freshUrl();
    const { json, files } = generation(1);
    await importFolder(await open(url), s.bundle(json, files));
    const store = await open(url, { cacheBytes: 0 });
    for (const [id, name] of [
      ['1', 'Rathaus gen 1'],
      ['9', undefined],
    ] as const) {
      const { result, sent } = await statements(() => nameOf(store, id));
      assert.equal(result, name);
      assert.equal(sent, 1, `bereich ${id}: the record and the version in one statement`);
    }
    const many = await statements(() =>
      store.read(async (snapshot) =>
        [...(await snapshot.getMany('bereiche', ['2', '1', '9'])).keys()].sort(),
      ),
    );
    assert.deepEqual(many, { result: ['1', '2'], sent: 1 });
    const all = await statements(() =>
      store.read(async (snapshot) => (await snapshot.all('bereiche')).map((entry) => entry.id)),
    );
    assert.deepEqual(all, { result: ['1', '2'], sent: 1 });
    // Two statements of one read, an import committing between them: made again on the new content.
    const next = generation(2);
    let imported = false;
    const names = await store.read(async (snapshot) => {
      const first = JSON.parse((await snapshot.get('bereiche', '1'))!.doc).name as string;
      if (!imported) {
        imported = true;
        await importFolder(await open(url), s.bundle(next.json, next.files));
      }
      const second = JSON.parse((await snapshot.get('bereiche', '2'))!.doc).name as string;
      return [first, second];
    });
    assert.deepEqual(names, ['Rathaus gen 2', 'Kultur gen 2']);
  });

  const prepared = (store: ContentStore, name: string, args: Record<string, number>) =>
    preparedInside(
      store,
      OPERATIONS.find((o) => o.name === name)!,
      args,
      'compact',
      Date.parse('2026-06-01T00:00:00Z'),
      () => undefined,
    ).then(async (parts) => parts && (await materialize(parts)).toString());

  test('the answers asked for at once are one statement, each read as it is alone', async () => {
    const url = freshUrl();
    const { json, files } = generation(1);
    await importFolder(await open(url), s.bundle(json, files));
    const store = await open(url, { cacheBytes: 0 });
    const asked: Array<[string, Record<string, number>]> = [
      ['getArtikelDetails', { artikelID: 1 }],
      ['getBereich', { bereichID: 2 }],
      ['getArtikelDetails', { artikelID: 99 }],
      ['getAnhang', { anhangID: 100 }],
      ['getBereich', { bereichID: 1 }],
    ];
    const alone: Array<string | undefined> = [];
    for (const [name, args] of asked) alone.push(await prepared(store, name, args));
    const { result, sent } = await statements(() =>
      Promise.all(asked.map(([name, args]) => prepared(store, name, args))),
    );
    assert.equal(sent, 1);
    assert.deepEqual(result, alone);
    assert.equal(alone[2], undefined, 'no such article');
    assert.match(alone[1]!, /Kultur gen 1/);
    assert.match(alone[4]!, /Rathaus gen 1/);
  });

  test('an id or key with a NUL (which PostgreSQL refuses) is not there, and fails no other lookup of its batch', async () => {
    const url = freshUrl();
    const { json, files } = generation(1);
    await importFolder(await open(url), s.bundle(json, files));
    const store = await open(url, { cacheBytes: 0 });
    const { result, sent } = await statements(() =>
      store.read(async (snapshot) => {
        const [bad, good] = await Promise.all([
          snapshot.answer('getBereich', '1\u0000', ANSWERS_FORMAT),
          snapshot.answer('getBereich', '1', ANSWERS_FORMAT),
        ]);
        return {
          bad,
          good: good !== undefined,
          record: await snapshot.get('bereiche', '\u00001'),
          many: [...(await snapshot.getMany('bereiche', ['2', '\u0000'])).keys()],
        };
      }),
    );
    assert.deepEqual(result, { bad: undefined, good: true, record: undefined, many: ['2'] });
    assert.equal(sent, 2, 'the good answer, then the records: none for the NUL ones');
  });

  test('more reads at once than the pool has connections all complete: waiting for the batch holds none', async () => {
    const url = freshUrl();
    const { json, files } = generation(1);
    await importFolder(await open(url), s.bundle(json, files));
    const store = await open(url, { cacheBytes: 0, connectTimeoutMs: 2000 });
    const one = await prepared(store, 'getArtikelDetails', { artikelID: 1 });
    const all = await Promise.all(
      Array.from({ length: 40 }, () => prepared(store, 'getArtikelDetails', { artikelID: 1 })),
    );
    assert.deepEqual(new Set(all), new Set([one]));
  });
});
