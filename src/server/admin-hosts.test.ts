import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { adminHostCheck, isHostName } from './admin-hosts.ts';
import { type AdminServer, listenAdmin } from './admin-server.ts';
import { SettingsError, serveSettings } from './settings.ts';

describe('adminHostCheck', () => {
  const check = adminHostCheck('0.0.0.0', ['metrics.internal']);

  test('IP literals, localhost forms and configured names are answered, with or without a port', () => {
    for (const host of [
      '127.0.0.1',
      '127.0.0.1:9090',
      '10.1.2.3:9090',
      '[::1]:9090',
      '[fe80::1]',
      'localhost',
      'LOCALHOST:9090',
      'localhost.',
      'app.localhost:9090',
      'metrics.internal:9090',
      'Metrics.Internal',
    ])
      assert.equal(check(host), true, host);
    assert.equal(check(undefined), true);
  });

  test('other names, and malformed values, are refused', () => {
    for (const host of [
      'attacker.example',
      'attacker.example:9090',
      '127.0.0.1.attacker.example',
      'localhost.attacker.example',
      'internal',
      '[::1',
      '[evil]:9090',
      '',
      'a:b:c',
    ])
      assert.equal(check(host), false, host);
  });

  test('a named bind address is known', () => {
    assert.equal(adminHostCheck('admin.example', [])('admin.example:9090'), true);
    assert.equal(adminHostCheck('127.0.0.1', [])('admin.example'), false);
  });

  test('isHostName takes DNS names only', () => {
    assert.equal(isHostName('metrics.internal'), true);
    assert.equal(isHostName('127.0.0.1'), false);
    assert.equal(isHostName('a b'), false);
    assert.equal(isHostName('-a'), false);
  });
});

describe('SCOOP_ADMIN_HOSTNAMES', () => {
  test('a comma-separated list of names, none by default', () => {
    assert.deepEqual(serveSettings({}, {}).adminHostnames, []);
    assert.deepEqual(serveSettings({}, { SCOOP_ADMIN_HOSTNAMES: ' a.internal, b ' }).adminHostnames, [
      'a.internal',
      'b',
    ]);
  });

  test('anything but a name is refused under the setting name', () => {
    assert.throws(
      () => serveSettings({}, { SCOOP_ADMIN_HOSTNAMES: 'a.internal,http://x' }),
      (e: unknown) => e instanceof SettingsError && /SCOOP_ADMIN_HOSTNAMES/.test(e.message),
    );
  });
});

describe('the admin listener and DNS rebinding', () => {
  let admin: AdminServer;
  let port: number;
  before(async () => {
    const probes = {
      contentType: 'text/plain',
      metrics: async () => 'scoop_up 1\n',
      readiness: async () => ({ ready: true, body: { status: 'ready' } }),
    };
    admin = await listenAdmin(probes, '127.0.0.1', 0, ['metrics.internal']);
    port = Number(new URL(admin.url).port);
  });
  after(() => admin.close());

  const get = (path: string, host: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });

  test('a Host naming another site is 421 with a small body (RFC 9110 §15.5.20)', async () => {
    for (const path of ['/metrics', '/healthz', '/readyz']) {
      const answer = await get(path, `rebind.attacker.example:${port}`);
      assert.equal(answer.status, 421, path);
      assert.equal(answer.body, 'unknown host\n');
    }
  });

  test('its address, localhost and a configured name are answered', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'metrics.internal']) {
      const answer = await get('/metrics', host);
      assert.equal(answer.status, 200, host);
      assert.equal(answer.body, 'scoop_up 1\n');
    }
  });
});
