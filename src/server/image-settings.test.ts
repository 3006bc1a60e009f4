import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { DEFAULT_IMAGE_SETTINGS } from '../images/image-settings.ts';
import { SettingsError, serveSettings } from './settings.ts';

const images = (env: Record<string, string>, flags: Record<string, string> = {}) =>
  serveSettings(flags, env).images;

test('image settings: defaults, with the variant cache next to the database', () => {
  const settings = images({});
  assert.equal(settings.cacheDir, path.join('data', 'variants'));
  assert.equal(settings.maxPixels, 40_000_000);
  assert.equal(settings.maxWaiting, 64);
  assert.equal(settings.cacheBytes, 256 * 1024 * 1024);
  assert.equal(settings.concurrency, DEFAULT_IMAGE_SETTINGS.concurrency);
  assert.deepEqual(settings.background, { r: 255, g: 255, b: 255, alpha: 0 });
  assert.equal(settings.timeoutSeconds, 10);
  assert.equal(settings.svg, false);
  assert.equal(images({}, { db: '/srv/scoop/content.db' }).cacheDir, '/srv/scoop/variants');
  assert.equal(images({ SCOOP_DB: 'sqlite:/srv/x/scoop.db' }).cacheDir, '/srv/x/variants');
  // PostgreSQL has no file to sit next to: the default folder, on each machine.
  assert.equal(
    images({ SCOOP_DB: 'postgres://scoop@db:5432/scoop' }).cacheDir,
    path.join('data', 'variants'),
  );
});

test('image settings from the environment', () => {
  const settings = images({
    SCOOP_RESIZE_CONCURRENCY: '3',
    SCOOP_RESIZE_QUEUE: '0',
    SCOOP_MAX_IMAGE_PIXELS: '1000000',
    SCOOP_VARIANT_CACHE_BYTES: '0',
    SCOOP_VARIANT_CACHE_DIR: '/var/cache/scoop',
    SCOOP_IMAGE_BACKGROUND: '#336699',
    SCOOP_RESIZE_TIMEOUT_SECONDS: '3',
    SCOOP_RESIZE_SVG: 'on',
  });
  assert.deepEqual([settings.timeoutSeconds, settings.svg], [3, true]);
  assert.deepEqual(
    [settings.concurrency, settings.maxWaiting, settings.maxPixels, settings.cacheBytes, settings.cacheDir],
    [3, 0, 1_000_000, 0, '/var/cache/scoop'],
  );
  assert.deepEqual(settings.background, { r: 0x33, g: 0x66, b: 0x99, alpha: 1 });
});

test('invalid image settings are refused, naming the variable', () => {
  for (const [name, value] of [
    ['SCOOP_IMAGE_BACKGROUND', 'white'],
    ['SCOOP_RESIZE_CONCURRENCY', '0'],
    ['SCOOP_RESIZE_QUEUE', '-1'],
    ['SCOOP_MAX_IMAGE_PIXELS', 'lots'],
    ['SCOOP_RESIZE_TIMEOUT_SECONDS', '0'],
    ['SCOOP_RESIZE_SVG', 'sometimes'],
  ] as const) {
    assert.throws(
      () => images({ [name]: value }),
      (error: unknown) => {
        assert.ok(error instanceof SettingsError);
        assert.match(error.message, new RegExp(name));
        return true;
      },
    );
  }
});

test('base64 cache settings: beside the variant folder by default, or where SCOOP_BASE64_CACHE_DIR says', () => {
  const cache = (env: Record<string, string>, flags: Record<string, string> = {}) =>
    serveSettings(flags, env).base64Cache;
  assert.deepEqual(cache({}), { dir: path.join('data', 'binaries'), maxBytes: 1024 ** 3, chosen: false });
  assert.equal(cache({}, { db: '/srv/scoop/content.db' }).dir, '/srv/scoop/binaries');
  assert.equal(cache({ SCOOP_VARIANT_CACHE_DIR: '/var/lib/scoop/variants' }).dir, '/var/lib/scoop/binaries');
  assert.equal(cache({ SCOOP_DB: 'postgres://scoop@db:5432/scoop' }).dir, path.join('data', 'binaries'));
  assert.deepEqual(
    cache({ SCOOP_BASE64_CACHE_DIR: '/var/cache/scoop-text', SCOOP_BASE64_CACHE_BYTES: '0' }),
    {
      dir: '/var/cache/scoop-text',
      maxBytes: 0,
      chosen: true,
    },
  );
  assert.throws(() => cache({ SCOOP_BASE64_CACHE_BYTES: 'much' }), /SCOOP_BASE64_CACHE_BYTES/);
});

test('the old names of the cache folders and bound are still read; the new names win', () => {
  const settings = (env: Record<string, string>) => serveSettings({}, env);
  const old = settings({
    SCOOP_BINARY_CACHE_DIR: '/var/cache/scoop-text',
    SCOOP_BINARY_CACHE_BYTES: '4096',
    SCOOP_VARIANT_DIR: '/var/cache/scoop',
  });
  assert.deepEqual(old.base64Cache, { dir: '/var/cache/scoop-text', maxBytes: 4096, chosen: true });
  assert.equal(old.images.cacheDir, '/var/cache/scoop');
  // The base64 folder's default follows the variant folder, under either name.
  assert.equal(
    settings({ SCOOP_VARIANT_DIR: '/var/lib/scoop/variants' }).base64Cache.dir,
    '/var/lib/scoop/binaries',
  );
  const both = settings({
    SCOOP_BASE64_CACHE_DIR: '/new/binaries',
    SCOOP_BINARY_CACHE_DIR: '/old/binaries',
    SCOOP_BASE64_CACHE_BYTES: '0',
    SCOOP_BINARY_CACHE_BYTES: '4096',
    SCOOP_VARIANT_CACHE_DIR: '/new/variants',
    SCOOP_VARIANT_DIR: '/old/variants',
  });
  assert.deepEqual(both.base64Cache, { dir: '/new/binaries', maxBytes: 0, chosen: true });
  assert.equal(both.images.cacheDir, '/new/variants');
  // A bad value is refused under the name it was given.
  assert.throws(() => settings({ SCOOP_BINARY_CACHE_BYTES: 'much' }), /: SCOOP_BINARY_CACHE_BYTES must be/);
  assert.throws(
    () => settings({ SCOOP_BASE64_CACHE_BYTES: 'much', SCOOP_BINARY_CACHE_BYTES: '1' }),
    /: SCOOP_BASE64_CACHE_BYTES must be/,
  );
});
