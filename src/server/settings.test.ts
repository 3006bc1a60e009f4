import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEFAULT_NAMESPACE,
  deprecatedSettings,
  type Flags,
  SettingsError,
  serveSettings,
} from './settings.ts';

const publicUrl = (env: Record<string, string>, flags: Record<string, string> = {}) =>
  serveSettings(flags, env).publicUrl;

test('without SCOOP_PUBLIC_URL, WSDL addresses come from the request (no public URL)', () => {
  assert.equal(publicUrl({}), undefined);
  assert.equal(publicUrl({ SCOOP_PUBLIC_URL: '' }), undefined);
});

test('SCOOP_PUBLIC_URL is kept as given, without trailing slashes', () => {
  assert.equal(publicUrl({ SCOOP_PUBLIC_URL: 'https://api.example.org' }), 'https://api.example.org');
  assert.equal(publicUrl({ SCOOP_PUBLIC_URL: 'https://api.example.org/' }), 'https://api.example.org');
  assert.equal(publicUrl({ SCOOP_PUBLIC_URL: 'http://10.0.0.5:8443/cms//' }), 'http://10.0.0.5:8443/cms');
  assert.equal(publicUrl({ SCOOP_PUBLIC_URL: 'https://[2001:db8::1]:8443' }), 'https://[2001:db8::1]:8443');
  assert.equal(
    publicUrl({ SCOOP_PUBLIC_URL: 'HTTPS://Api.Example.org/Base/' }),
    'HTTPS://Api.Example.org/Base',
  );
});

test('--public-url wins over SCOOP_PUBLIC_URL', () => {
  assert.equal(
    publicUrl({ SCOOP_PUBLIC_URL: 'https://env.example.org' }, { 'public-url': 'https://flag.example.org/' }),
    'https://flag.example.org',
  );
});

test('a public URL a client could misread is refused, naming the setting', () => {
  for (const value of [
    'api.example.org',
    '/scoop',
    'ftp://api.example.org',
    'javascript:alert(1)',
    'https://',
    'https:///path',
    'https://api example.org',
    ' https://api.example.org',
    'https://api.example.org?x=1',
    'https://api.example.org/base#top',
    'https://user:secret@api.example.org',
    'https://api.example.org/a b',
  ]) {
    assert.throws(
      () => publicUrl({ SCOOP_PUBLIC_URL: value }),
      (error: unknown) =>
        error instanceof SettingsError && error.message.includes('SCOOP_PUBLIC_URL (--public-url)'),
      JSON.stringify(value),
    );
  }
  assert.throws(() => publicUrl({}, { 'public-url': 'example.org' }), SettingsError);
});

test('defaults of the settings the WSDL depends on', () => {
  const settings = serveSettings({}, {});
  assert.equal(settings.namespace, DEFAULT_NAMESPACE);
  assert.equal(settings.trustProxy, false);
  assert.equal(serveSettings({}, { SCOOP_TRUST_PROXY: 'on' }).trustProxy, true);
  assert.throws(() => serveSettings({}, { SCOOP_TRUST_PROXY: 'maybe' }), SettingsError);
});

describe('the serve settings of the command line and the environment', () => {
  const refused = (flags: Flags, env: Record<string, string>, setting: string) =>
    assert.throws(
      () => serveSettings(flags, env),
      (error: unknown) => error instanceof SettingsError && error.message.startsWith(setting),
      JSON.stringify({ flags, env }),
    );

  test('defaults', () => {
    const settings = serveSettings({}, {});
    assert.equal(settings.host, '127.0.0.1');
    assert.equal(settings.port, 8080);
    assert.equal(settings.namespace, 'http://scoop.example.org/api');
    assert.equal(settings.publicUrl, undefined);
    assert.equal(settings.httpAuth, true);
    assert.equal(settings.responseCacheBytes, 16_777_216);
    assert.equal(settings.answerFileBytes, 1_073_741_824);
    assert.equal(settings.recordCacheBytes, 4_194_304);
  });

  test('environment variables replace the defaults; an empty one counts as unset', () => {
    const settings = serveSettings(
      {},
      {
        SCOOP_HOST: '0.0.0.0',
        SCOOP_PORT: '9000',
        SCOOP_NAMESPACE: 'urn:example:cms',
        SCOOP_PUBLIC_URL: 'https://api.example.org',
        SCOOP_HTTP_AUTH: 'off',
        SCOOP_RESPONSE_CACHE_BYTES: '0',
        SCOOP_RESPONSE_FILE_BYTES: '65536',
      },
    );
    assert.equal(settings.answerFileBytes, 65_536);
    assert.equal(settings.host, '0.0.0.0');
    assert.equal(settings.port, 9000);
    assert.equal(settings.namespace, 'urn:example:cms');
    assert.equal(settings.publicUrl, 'https://api.example.org');
    assert.equal(settings.httpAuth, false);
    assert.equal(settings.responseCacheBytes, 0);
    const blank = serveSettings({}, { SCOOP_HOST: '', SCOOP_PORT: '', SCOOP_NAMESPACE: '' });
    assert.equal(blank.host, '127.0.0.1');
    assert.equal(blank.port, 8080);
    assert.equal(blank.namespace, 'http://scoop.example.org/api');
  });

  test('flags win over environment variables', () => {
    const settings = serveSettings(
      {
        host: '::1',
        port: '8443',
        namespace: 'http://cms.example.net/ws',
        'public-url': 'http://flag.example',
      },
      {
        SCOOP_HOST: '0.0.0.0',
        SCOOP_PORT: '9000',
        SCOOP_NAMESPACE: 'urn:example:cms',
        SCOOP_PUBLIC_URL: 'https://api.example.org',
      },
    );
    assert.equal(settings.host, '::1');
    assert.equal(settings.port, 8443);
    assert.equal(settings.namespace, 'http://cms.example.net/ws');
    assert.equal(settings.publicUrl, 'http://flag.example');
  });

  test('each spelling of on and off for SCOOP_HTTP_AUTH', () => {
    for (const on of ['on', 'ON', 'true', '1', 'yes', ' on ']) {
      assert.equal(serveSettings({}, { SCOOP_HTTP_AUTH: on }).httpAuth, true, on);
    }
    for (const off of ['off', 'Off', 'false', '0', 'no']) {
      assert.equal(serveSettings({}, { SCOOP_HTTP_AUTH: off }).httpAuth, false, off);
    }
  });

  test('the port is an integer from 0 to 65535, from the flag or the variable', () => {
    assert.equal(serveSettings({ port: '0' }, {}).port, 0);
    assert.equal(serveSettings({}, { SCOOP_PORT: '65535' }).port, 65535);
    for (const bad of ['65536', '-1', '80.5', '8080x', 'http', '0x50', ' ']) {
      refused({}, { SCOOP_PORT: bad }, 'SCOOP_PORT (--port)');
      refused({ port: bad }, {}, 'SCOOP_PORT (--port)');
    }
    // The flag wins, so a variable it overrides is not read at all.
    assert.equal(serveSettings({ port: '80' }, { SCOOP_PORT: 'eighty' }).port, 80);
  });

  test('bad values are refused, naming the setting', () => {
    for (const bad of ['', 'local host', 'example.org/x', 'host;rm']) {
      refused({ host: bad }, {}, 'SCOOP_HOST (--host)');
    }
    refused({}, { SCOOP_HOST: '127.0.0.1 ' }, 'SCOOP_HOST (--host)');
    for (const bad of [
      '',
      'scoop',
      '/api',
      'http://x.example/a b',
      'http://x.example/"',
      'urn:<x>',
      '1http://x',
    ]) {
      refused({ namespace: bad }, {}, 'SCOOP_NAMESPACE (--namespace)');
    }
    refused({}, { SCOOP_NAMESPACE: 'no namespace' }, 'SCOOP_NAMESPACE (--namespace)');
    refused({}, { SCOOP_PUBLIC_URL: 'api.example.org' }, 'SCOOP_PUBLIC_URL (--public-url)');
    refused({ 'public-url': '' }, {}, 'SCOOP_PUBLIC_URL (--public-url)');
    for (const bad of ['maybe', 'enabled', '2']) refused({}, { SCOOP_HTTP_AUTH: bad }, 'SCOOP_HTTP_AUTH');
    refused({}, { SCOOP_RESPONSE_CACHE_BYTES: '-1' }, 'SCOOP_RESPONSE_CACHE_BYTES');
    refused({}, { SCOOP_RESPONSE_CACHE_BYTES: '128MB' }, 'SCOOP_RESPONSE_CACHE_BYTES');
    refused({}, { SCOOP_RESPONSE_FILE_BYTES: '-1' }, 'SCOOP_RESPONSE_FILE_BYTES');
  });
});

describe('renamed settings: an old name still works, with one warning for the log naming the new one', () => {
  const RENAMED = [
    ['SCOOP_BINARY_CACHE_DIR', 'SCOOP_BASE64_CACHE_DIR', '/srv/cache'],
    ['SCOOP_BINARY_CACHE_BYTES', 'SCOOP_BASE64_CACHE_BYTES', '4096'],
    ['SCOOP_VARIANT_DIR', 'SCOOP_VARIANT_CACHE_DIR', '/srv/cache'],
  ] as const;

  test('no warning without an old name', () => {
    assert.deepEqual(serveSettings({}, {}).deprecations, []);
    assert.deepEqual(
      serveSettings({}, Object.fromEntries(RENAMED.map(([, name, value]) => [name, value]))).deprecations,
      [],
    );
  });

  test('an old name alone: one warning, naming the old and the new name', () => {
    for (const [old, name, value] of RENAMED) {
      const lines = serveSettings({}, { [old]: value }).deprecations;
      assert.equal(lines.length, 1, old);
      assert.equal(lines[0], `${old} is deprecated: it is read as ${name}, the name to use from now on`);
    }
  });

  test('an old and a new name together: the new one wins, and the warning says so', () => {
    for (const [old, name, value] of RENAMED) {
      const lines = serveSettings({}, { [old]: value, [name]: value }).deprecations;
      assert.deepEqual(lines, [`${old} is deprecated and ignored: ${name} is set too, and wins`]);
    }
  });

  test('every old name set: one warning each; `scoop import` gets the same lines', () => {
    const env = Object.fromEntries(RENAMED.map(([old, , value]) => [old, value]));
    const lines = serveSettings({}, env).deprecations;
    assert.deepEqual(
      lines.map((line) => line.split(' ')[0]),
      RENAMED.map(([old]) => old),
    );
    assert.deepEqual(deprecatedSettings(env), lines);
  });
});

test('request bodies: 64 KiB each, 32 MiB in flight; the budget at least one body, raised with it', () => {
  const defaults = serveSettings({}, {});
  assert.equal(defaults.maxBodyBytes, 65_536);
  assert.equal(defaults.maxBodyBytesInFlight, 33_554_432);
  const raised = serveSettings({}, { SCOOP_MAX_BODY_BYTES: String(64 * 1024 * 1024) });
  assert.equal(raised.maxBodyBytesInFlight, 64 * 1024 * 1024);
  assert.equal(
    serveSettings({}, { SCOOP_MAX_BODY_BYTES_IN_FLIGHT: '1048576' }).maxBodyBytesInFlight,
    1_048_576,
  );
  assert.throws(
    () => serveSettings({}, { SCOOP_MAX_BODY_BYTES: '200000', SCOOP_MAX_BODY_BYTES_IN_FLIGHT: '100000' }),
    (e: unknown) =>
      e instanceof SettingsError && /SCOOP_MAX_BODY_BYTES_IN_FLIGHT .* SCOOP_MAX_BODY_BYTES/.test(e.message),
  );
});

test('SCOOP_CORS_ORIGINS: none by default; origins as browsers send them; anything else refused', () => {
  const origins = (value?: string) =>
    serveSettings({}, value === undefined ? {} : { SCOOP_CORS_ORIGINS: value }).corsOrigins;
  assert.deepEqual(origins(), []);
  assert.deepEqual(origins('https://App.Example.org, http://localhost:5173/ ,https://a.example:443'), [
    'https://app.example.org',
    'http://localhost:5173',
    'https://a.example',
  ]);
  for (const bad of [
    '*',
    'app.example.org',
    'https://app.example.org/path',
    'https://u@app.example.org',
    'ftp://x.org',
  ]) {
    assert.throws(
      () => origins(bad),
      (error: unknown) => error instanceof SettingsError && error.message.startsWith('SCOOP_CORS_ORIGINS'),
      bad,
    );
  }
});
