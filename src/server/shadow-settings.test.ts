import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SettingsError } from './setting-values.ts';
import { shadowSettings } from './shadow-settings.ts';

const TOKEN = '11111111-2222-3333-4444-555555555555';

test('off unless SCOOP_SHADOW or --shadow names the original', () => {
  assert.equal(shadowSettings({}, {}, 'data/variants'), undefined);
  assert.equal(shadowSettings({}, { SCOOP_SHADOW: '' }, 'data/variants'), undefined);
});

test('the defaults, and flags over variables', () => {
  const settings = shadowSettings(
    { shadow: 'http://cms.internal/app' },
    { SCOOP_SHADOW: 'http://other' },
    'data/variants',
  )!;
  assert.equal(settings.url.href, 'http://cms.internal/app');
  assert.deepEqual(
    { ...settings, url: undefined },
    {
      url: undefined,
      sample: 0.1,
      token: undefined,
      concurrency: 4,
      queue: 100,
      timeoutMs: 10_000,
      dir: 'data/shadow',
      dirChosen: false,
    },
  );
  const env = {
    SCOOP_SHADOW: 'https://cms.internal',
    SCOOP_SHADOW_SAMPLE: '0.25',
    SCOOP_SHADOW_TOKEN: TOKEN,
    SCOOP_SHADOW_DIR: '/var/lib/scoop/shadow',
  };
  const fromEnv = shadowSettings({ 'shadow-sample': '1' }, env, 'data/variants')!;
  assert.deepEqual(
    [fromEnv.sample, fromEnv.token, fromEnv.dir, fromEnv.dirChosen],
    [1, TOKEN, '/var/lib/scoop/shadow', true],
  );
  assert.equal(shadowSettings({}, { ...env, SCOOP_SHADOW_DIR: 'off' }, 'x')!.dir, undefined);
});

test('bad values are refused, naming the setting', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ SCOOP_SHADOW: 'cms.internal' }, /^SCOOP_SHADOW \(--shadow\) must be the original's base URL/],
    [{ SCOOP_SHADOW: 'http://x?token=1' }, /^SCOOP_SHADOW/],
    [
      { SCOOP_SHADOW: 'http://x', SCOOP_SHADOW_SAMPLE: '1.5' },
      /^SCOOP_SHADOW_SAMPLE \(--shadow-sample\) must be a number from 0 to 1/,
    ],
    [{ SCOOP_SHADOW: 'http://x', SCOOP_SHADOW_SAMPLE: '10%' }, /^SCOOP_SHADOW_SAMPLE/],
    [
      { SCOOP_SHADOW: 'http://x', SCOOP_SHADOW_TOKEN: 'secret' },
      /^SCOOP_SHADOW_TOKEN \(--shadow-token\) must be a GUID/,
    ],
    [{ SCOOP_SHADOW: 'http://x', SCOOP_SHADOW_QUEUE: '-1' }, /^SCOOP_SHADOW_QUEUE must be an integer/],
    [
      { SCOOP_SHADOW: 'http://x', SCOOP_SHADOW_TIMEOUT_MS: '5' },
      /^SCOOP_SHADOW_TIMEOUT_MS must be an integer from 100/,
    ],
  ];
  for (const [env, message] of cases)
    assert.throws(
      () => shadowSettings({}, env, 'x'),
      (e: unknown) => e instanceof SettingsError && message.test(e.message),
      JSON.stringify(env),
    );
});
