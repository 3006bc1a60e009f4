/**
 * docs/deploy/nginx.conf, run as written: Debian's nginx (installed by
 * scripts/ensure-debian-packages.sh when missing; the test fails when it cannot be) in
 * front of two `scoop serve` instances on one SQLite file. Only the ports, the
 * certificate and the test's own main configuration (no daemon, a single process, files
 * in a scratch folder) differ from what an operator copies. Requests are spread over both
 * instances (counted from each one's per-request log lines), WSDL addresses follow the
 * forwarded proto and host, and with one instance stopped every request still succeeds.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  type Answer,
  eventually,
  listeningUrl,
  type ServeProcess,
  serveProcesses,
} from './support/serve-process.ts';

const run = promisify(execFile);
const NGINX = '/usr/sbin/nginx';
const SITE = readFileSync('docs/deploy/nginx.conf', 'utf8');
const NS = 'http://scoop.example.org/api';
const HOST = 'api.example.org';

const dir = mkdtempSync(path.join(tmpdir(), 'scoop-nginx-'));
const serves = serveProcesses();
let nginx: ChildProcess | undefined;
after(async () => {
  if (nginx && nginx.exitCode === null && nginx.signalCode === null) {
    const exited = new Promise((resolve) => nginx!.once('exit', resolve));
    nginx.kill('SIGTERM');
    const timer = setTimeout(() => nginx!.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }),
  );
}

/** Replaces `from`, which must stand in the file exactly once (so an edit cannot slip past the test). */
function substitute(text: string, from: string, to: string): string {
  assert.equal(text.split(from).length, 2, `${JSON.stringify(from)} once in docs/deploy/nginx.conf`);
  return text.replace(from, to);
}

interface Ports {
  readonly http: number;
  readonly https: number;
  readonly a: number;
  readonly b: number;
}

function renderConfig(ports: Ports): string {
  let site = SITE;
  site = substitute(site, 'server 127.0.0.1:8081;', `server 127.0.0.1:${ports.a};`);
  site = substitute(site, 'server 127.0.0.1:8082;', `server 127.0.0.1:${ports.b};`);
  site = substitute(site, 'listen 80;', `listen 127.0.0.1:${ports.http};`);
  site = substitute(site, 'listen 443 ssl;', `listen 127.0.0.1:${ports.https} ssl;`);
  site = substitute(site, '/etc/ssl/scoop/fullchain.pem', path.join(dir, 'cert.pem'));
  site = substitute(site, '/etc/ssl/scoop/privkey.pem', path.join(dir, 'key.pem'));
  writeFileSync(path.join(dir, 'scoop.conf'), site);
  const temp = (name: string) => path.join(dir, 'temp', name);
  for (const name of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(temp(name), { recursive: true });
  // What Debian's /etc/nginx/nginx.conf provides around sites-enabled/, but in the scratch
  // folder, in the foreground and as one process, so nothing outlives the test.
  return `daemon off;
master_process off;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log ${path.join(dir, 'access.log')};
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  include ${path.join(dir, 'scoop.conf')};
}
`;
}

async function startNginx(ports: Ports): Promise<void> {
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(conf, renderConfig(ports));
  const errorLog = path.join(dir, 'error.log');
  const child = spawn(NGINX, ['-e', errorLog, '-p', `${dir}/`, '-c', conf], { stdio: 'ignore' });
  nginx = child;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) {
      assert.fail(`nginx exited (${child.exitCode}): ${existsSync(errorLog) ? readFileSync(errorLog) : ''}`);
    }
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(ports.http, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    assert.ok(Date.now() < deadline, 'nginx listens within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });
after(() => agent.destroy());

interface Call {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

const GET_BEREICH: Call = { method: 'GET', path: '/scoop/api/v6/public.asmx/getBereich?bereichID=1' };
const SOAP_ANHANG: Call = {
  method: 'POST',
  path: '/scoop/api/v6/public.asmx',
  headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${NS}/getAnhang"` },
  body: `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><getAnhang xmlns="${NS}"><anhangID>502</anhangID></getAnhang></soap:Body></soap:Envelope>`,
};

/** One request through nginx's plain-HTTP listener (keep-alive; no retries). */
function send(port: number, call: Call, id: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { host: HOST, 'x-request-id': id, ...call.headers };
    const req = request(
      { host: '127.0.0.1', port, method: call.method, path: call.path, headers, agent, timeout: 10_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', reject);
    req.end(call.body);
  });
}

const requestsTagged = (serve: ServeProcess, prefix: string) =>
  serve.lines.filter((l) => l.msg === 'request' && String(l.reqId).startsWith(prefix)).length;

describe('nginx in front of two instances (docs/deploy/nginx.conf)', () => {
  let a: ServeProcess;
  let b: ServeProcess;
  let ports: Ports;

  before(
    async () => {
      // Asynchronously: apt may take a while, and nothing may block this process. No skip:
      // a machine that cannot install nginx fails here.
      await run('scripts/ensure-debian-packages.sh', ['nginx', 'openssl'], { timeout: 600_000 });
      assert.ok(existsSync(NGINX), `${NGINX} is missing after installing nginx`);
      await run(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
        ].concat(
          ['-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`],
          ['-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')],
        ),
      );
      const db = path.join(dir, 'data', 'scoop.db');
      const env = { SCOOP_TRUST_PROXY: 'on' };
      a = serves.start(['--port', '0', '--db', db, '--seed', 'examples/demo-bundle'], env);
      const portOf = async (serve: ServeProcess) =>
        Number(new URL(String((await listeningUrl(serve)).url)).port);
      const portA = await portOf(a);
      // The second starts once the first has seeded the shared file.
      b = serves.start(['--port', '0', '--db', db], env);
      ports = { http: await freePort(), https: await freePort(), a: portA, b: await portOf(b) };
      await startNginx(ports);
    },
    { timeout: 620_000 },
  );

  test('requests are spread over both instances', { timeout: 30_000 }, async () => {
    const lanes = Array.from({ length: 4 }, async (_, lane) => {
      for (let i = 0; i < 50; i++) {
        const id = `spread-${lane}-${i}`;
        const answer = await send(ports.http, i % 2 ? SOAP_ANHANG : GET_BEREICH, id);
        assert.equal(answer.status, 200, answer.body);
        assert.equal(answer.headers['x-request-id'], id, 'the request id passes through');
      }
    });
    await Promise.all(lanes);
    const logged = () => requestsTagged(a, 'spread-') + requestsTagged(b, 'spread-');
    await eventually(() => logged() === 200, 'a log line for each request');
    const shares = [requestsTagged(a, 'spread-'), requestsTagged(b, 'spread-')];
    for (const share of shares) assert.ok(share >= 50, `each instance answered a share: ${shares}`);
  });

  test('WSDL addresses use the proto and host nginx forwards', { timeout: 30_000 }, async () => {
    const wsdlPath = '/scoop/api/v6/public.asmx?WSDL';
    const plain = await send(ports.http, { method: 'GET', path: wsdlPath }, 'wsdl-http');
    assert.match(plain.body, new RegExp(`location="http://${HOST}/scoop/api/v6/public.asmx"`));
    const secure = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: ports.https,
          path: wsdlPath,
          servername: HOST,
          headers: { host: HOST },
          ca: readFileSync(path.join(dir, 'cert.pem')),
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.match(secure, new RegExp(`location="https://${HOST}/scoop/api/v6/public.asmx"`));
  });

  test('with one instance stopped (SIGTERM) every request still succeeds', { timeout: 30_000 }, async (t) => {
    let stopped = false;
    let late = 0;
    const failures: string[] = [];
    const deadline = Date.now() + 20_000;
    const lanes = Array.from({ length: 4 }, async (_, lane) => {
      for (let i = 0; late < 200 && Date.now() < deadline; i++) {
        const id = `${stopped ? 'late' : 'stop'}-${lane}-${i}`;
        if (stopped) late++;
        try {
          const answer = await send(ports.http, i % 2 ? SOAP_ANHANG : GET_BEREICH, id);
          if (answer.status !== 200) failures.push(`${id}: ${answer.status}`);
        } catch (error) {
          failures.push(`${id}: ${(error as Error).message}`);
        }
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    b.child.kill('SIGTERM');
    assert.equal(await b.exited, 0, 'the stopped instance drained and exited 0');
    stopped = true;
    await Promise.all(lanes);
    t.diagnostic(
      `${requestsTagged(a, 'stop-') + requestsTagged(b, 'stop-')} before and ${late} after the stop`,
    );
    assert.deepEqual(failures, [], 'no request failed, during the stop or after it');
    assert.ok(late >= 200);
    await eventually(() => requestsTagged(a, 'late-') === late, 'the remaining instance answered each');
    const skipped = readFileSync(path.join(dir, 'error.log'), 'utf8').match(/upstream/g)?.length ?? 0;
    t.diagnostic(`nginx logged ${skipped} upstream errors (the stopped instance, skipped)`);
  });
});
