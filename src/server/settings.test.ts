import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_NAMESPACE, SettingsError, serveSettings } from './settings.ts';

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
