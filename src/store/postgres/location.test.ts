import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleJson, importFolder, scratch } from '../../../test/support/bundles.ts';
import { dropSchema, newSchemaUrl, POSTGRES, withPg } from '../../../test/support/databases.ts';
import { hashToken, newToken } from '../../auth/tokens.ts';
import { StoreLocationError } from '../content-store.ts';
import { channelName, parsePostgresLocation } from './location.ts';
import { PostgresStore } from './postgres-store.ts';
import { isPostgresUrl, redactLocation } from './url.ts';

test('postgres:// and postgresql:// URLs are PostgreSQL; paths and other schemes are not', () => {
  for (const url of ['postgres://h/db', 'postgresql://u@h:5432/db', 'POSTGRES://h/db'])
    assert.ok(isPostgresUrl(url));
  for (const other of ['./data/scoop.db', 'sqlite:/srv/x.db', 'mysql://h/db', 'postgres:/h/db'])
    assert.ok(!isPostgresUrl(other), other);
});

test('?schema= picks the schema, sets search_path per connection and names the channel', () => {
  const location = parsePostgresLocation(
    'postgres://scoop@db.example:5432/cms?schema=stadt_a&sslmode=disable',
  );
  assert.equal(location.schema, 'stadt_a');
  assert.equal(location.channel, 'scoop_content.stadt_a');
  assert.equal(location.tokenChannel, 'scoop_tokens.stadt_a');
  assert.equal(location.config.options, '-c search_path=stadt_a');
  assert.equal(location.config.connectionString, 'postgres://scoop@db.example:5432/cms?sslmode=disable');
});

test('without ?schema= it is public, and the channel is scoop_content', () => {
  const location = parsePostgresLocation('postgres://scoop@db/cms');
  assert.equal(location.schema, 'public');
  assert.equal(location.channel, 'scoop_content');
  assert.equal(location.tokenChannel, 'scoop_tokens');
  assert.equal(location.config.options, '-c search_path=public');
});

test("an ?options= of the URL is kept beside scoop's search_path", () => {
  const location = parsePostgresLocation('postgres://u@h/db?options=-c%20statement_timeout%3D5000&schema=x');
  assert.equal(location.config.options, '-c statement_timeout=5000 -c search_path=x');
  assert.equal(location.config.connectionString, 'postgres://u@h/db');
});

test('without a user in the URL, the OS user is asked for (as libpq does)', () => {
  const expected = encodeURIComponent(process.env.PGUSER || userInfo().username);
  assert.equal(
    parsePostgresLocation('postgres://127.0.0.1:5432/test').config.connectionString,
    `postgres://${expected}@127.0.0.1:5432/test`,
  );
  assert.equal(parsePostgresLocation('postgres://anna@h/db').config.connectionString, 'postgres://anna@h/db');
});

test('schema names that search_path would fold or that need quoting are refused', () => {
  for (const bad of ['Stadt', 'stadt-a', '1stadt', 'a b', '"x"', 'x'.repeat(64), '']) {
    assert.throws(
      () => parsePostgresLocation(`postgres://h/db?schema=${encodeURIComponent(bad)}`),
      StoreLocationError,
      bad,
    );
  }
});

test('passwords never reach logs', () => {
  assert.equal(
    redactLocation('postgres://scoop:geheim@db:5432/cms?schema=a'),
    'postgres://scoop:***@db:5432/cms?schema=a',
  );
  assert.equal(redactLocation('postgres://scoop@db/cms'), 'postgres://scoop@db/cms');
  assert.equal(redactLocation('./data/scoop.db'), './data/scoop.db');
  assert.equal(parsePostgresLocation('postgresql://a:b@h/db').shown, 'postgresql://a:***@h/db');
});

test('channels of long schema names stay within 63 bytes, distinct per schema', () => {
  // 49 characters is the longest schema whose content channel is plain, 50 its token channel's.
  assert.equal(channelName('scoop_content', 'a'.repeat(49)), `scoop_content.${'a'.repeat(49)}`);
  assert.equal(channelName('scoop_tokens', 'a'.repeat(50)), `scoop_tokens.${'a'.repeat(50)}`);
  const seen = new Set<string>();
  for (const schema of ['a'.repeat(50), 'a'.repeat(63), `${'a'.repeat(62)}b`, `b${'a'.repeat(62)}`]) {
    const location = parsePostgresLocation(`postgres://h/db?schema=${schema}`);
    for (const channel of [location.channel, location.tokenChannel]) {
      assert.ok(Buffer.byteLength(channel) <= 63, channel);
      assert.ok(!seen.has(channel), `${channel} twice`);
      seen.add(channel);
    }
    assert.match(location.channel, /^scoop_content#[0-9a-f]{32}$/);
  }
  assert.equal(
    parsePostgresLocation(`postgres://h/db?schema=${'a'.repeat(63)}`).channel,
    channelName('scoop_content', 'a'.repeat(63)),
    'the same schema gets the same channel in every process',
  );
});

POSTGRES.test('a 63-character schema: imports commit, and both NOTIFYs reach another instance', async () => {
  const fresh = newSchemaUrl();
  // Still `scoop_t_<seconds>_…`, so a killed run's leftover is dropped like any other.
  const schema = fresh.schema.padEnd(63, 'x');
  const url = new URL(fresh.url);
  url.searchParams.set('schema', schema);
  const s = scratch();
  const opened: PostgresStore[] = [];
  after(async () => {
    for (const store of opened) await store.close();
    await dropSchema(schema);
  });
  const importer = await PostgresStore.open(url.toString());
  opened.push(importer);
  // It checks the versions only every minute: whatever it learns in time, it heard.
  const reader = await PostgresStore.open(url.toString(), { versionCheckMs: 60_000 });
  opened.push(reader);
  assert.equal(await reader.knownVersion(), 0);
  const tokens = await reader.knownTokensVersion();
  const within = async (check: () => Promise<boolean>, what: string) => {
    const deadline = performance.now() + 1000;
    while (!(await check())) {
      assert.ok(performance.now() < deadline, `${what}: not within 1 s`);
      await sleep(10);
    }
  };

  const { channel } = parsePostgresLocation(url.toString());
  const heard = await withPg(async (client) => {
    const payloads: string[] = [];
    client.on('notification', (n) => {
      if (n.channel === channel) payloads.push(n.payload ?? '');
    });
    await client.query(`LISTEN "${channel}"`);
    const summary = await importFolder(
      importer,
      s.bundle(bundleJson({ bereiche: [{ bereichID: 1, name: 'lang' }] })),
    );
    assert.equal(summary.contentVersion, 1);
    await within(async () => payloads.length > 0, 'the NOTIFY');
    return payloads;
  });
  assert.deepEqual(heard, ['1']);
  await within(async () => (await reader.knownVersion()) === 1, 'the other instance learning of the import');

  await importer.addToken(hashToken(newToken()), 'lang', new Date().toISOString());
  await within(
    async () => (await reader.knownTokensVersion()) > tokens,
    'the other instance learning of the token',
  );
});
