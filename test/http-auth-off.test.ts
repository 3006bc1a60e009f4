/**
 * `SCOOP_HTTP_AUTH=off` as an operator runs it: `serve` logs a warning at start, and the
 * help pages of token-protected endpoints say that HTTP GET/POST needs no token there.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ENDPOINTS } from '../src/contract/operations.ts';
import { getFresh, listeningUrl, serveProcesses } from './support/serve-process.ts';

const serves = serveProcesses();
const dir = mkdtempSync(path.join(tmpdir(), 'scoop-http-auth-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const protectedEndpoint = ENDPOINTS.find((e) => e.requiresToken)!;
const warned = (line: { msg?: unknown }) => /^SCOOP_HTTP_AUTH=off:/.test(String(line.msg));

test('SCOOP_HTTP_AUTH=off logs a warning at start and the help pages say no token is needed over HTTP', async () => {
  const db = path.join(dir, 'scoop.db');
  const off = serves.start(['--port', '0', '--db', db], { SCOOP_HTTP_AUTH: 'off' });
  const url = String((await listeningUrl(off)).url);
  const warning = off.lines.find(warned);
  assert.ok(warning, 'a warning line');
  assert.equal(warning.level, 'warn');
  assert.match(String(warning.msg), /need no token, so anyone who reaches this server can call them/);
  const page = await getFresh(`${url}${protectedEndpoint.path}`);
  assert.equal(page.status, 200);
  assert.match(page.body, /no token needed on this server \(<code>SCOOP_HTTP_AUTH=off<\/code>\)/);
  off.child.kill('SIGTERM');
  assert.equal(await off.exited, 0);

  const on = serves.start(['--port', '0', '--db', db]);
  const onUrl = String((await listeningUrl(on)).url);
  assert.equal(on.lines.find(warned), undefined, 'no warning with the default');
  const onPage = await getFresh(`${onUrl}${protectedEndpoint.path}`);
  assert.match(onPage.body, /Authorization: Bearer/);
  assert.doesNotMatch(onPage.body, /no token needed on this server/);
  on.child.kill('SIGTERM');
  assert.equal(await on.exited, 0);
});
