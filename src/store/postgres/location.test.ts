import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { test } from 'node:test';
import { StoreLocationError } from '../content-store.ts';
import { isPostgresUrl, parsePostgresLocation, redactLocation } from './location.ts';

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
