/**
 * docs/deploy/ run as written: the units' commands with scoop.env and scoop-a.env /
 * scoop-b.env as they stand — the release step (`ExecStartPre`, `scoop migrate`), the
 * import job (`scoop import`, of the demo bundle), then two instances (`ExecStart`, `scoop
 * serve`, each a cluster of SCOOP_WORKERS processes) — behind docs/deploy/nginx.conf in
 * Debian's nginx (installed by scripts/ensure-debian-packages.sh when missing; the test
 * fails when it cannot be). Once on one PostgreSQL, as documented, and once on the SQLite
 * file scoop.env offers instead. Replaced are only: ports, the certificate, the database
 * (a fresh schema of the test server; the SQLite file in a scratch folder), /var/lib/scoop
 * (a scratch folder) and nginx's own main configuration (no daemon, a single process,
 * files in the scratch folder).
 *
 * Both instances are ready (/readyz), requests are spread over both (counted from each
 * one's per-request log lines), WSDL addresses follow the forwarded proto and host, and
 * with one instance stopped every request still succeeds.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import { promisify } from 'node:util';
import { POSTGRES, SQLITE, type TestDatabase, type TestLocation } from './support/databases.ts';
import {
  type Answer,
  eventually,
  getFresh,
  type LogLine,
  listeningUrl,
  type ServeProcess,
  serveProcesses,
} from './support/serve-process.ts';

const run = promisify(execFile);
const NGINX = '/usr/sbin/nginx';
const DEPLOY = 'docs/deploy';
const SITE = readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8');
const HOST = 'api.example.org';
/** The units' one writable folder (ReadWritePaths), where every path scoop writes lies (test/deploy.test.ts). */
const DATA = /^ReadWritePaths=(\S+)$/m.exec(readFileSync(path.join(DEPLOY, 'scoop@.service'), 'utf8'))![1]!;
/**
 * How the units run scoop: `/usr/bin/node [node flags] /opt/scoop/bin/scoop.js <args>` (the
 * node flags are bin/scoop.js's own, which deploy.test.ts checks).
 */
const SCOOP = /^\/usr\/bin\/node(?: --\S+)* \/opt\/scoop\/bin\/scoop\.js (.*)$/;
const BUNDLE = '/srv/scoop/bundle';

const dir = mkdtempSync(path.join(tmpdir(), 'scoop-nginx-'));
const serves = serveProcesses();
after(() => rmSync(dir, { recursive: true, force: true }));

/** VARIABLE=value lines of a docs/deploy environment file (`#VARIABLE=value` ones with `commented`). */
function envFile(name: string, commented = false): Record<string, string> {
  const pattern = commented ? /^#([A-Z][A-Z0-9_]*)=(.*)$/ : /^([A-Z][A-Z0-9_]*)=(.*)$/;
  const entries = readFileSync(path.join(DEPLOY, name), 'utf8')
    .split('\n')
    .flatMap((line) => {
      const m = pattern.exec(line);
      return m ? [[m[1]!, m[2]!] as const] : [];
    });
  return Object.fromEntries(entries);
}

/** The scoop arguments of a unit's `key=` command line. */
function unitCommand(unit: string, key: string): string[] {
  const lines = [
    ...readFileSync(path.join(DEPLOY, unit), 'utf8').matchAll(new RegExp(`^${key}=(.*)$`, 'gm')),
  ];
  assert.equal(lines.length, 1, `one ${key}= in ${unit}`);
  const line = lines[0]![1]!.trim();
  const args = SCOOP.exec(line)?.[1];
  assert.ok(args, `${unit} runs scoop: ${line}`);
  return args.split(/\s+/);
}

/** The test's stand-in for `/var/lib/scoop` of one database's run. */
const dataFolder = (database: TestDatabase) => path.join(dir, database.name, 'var-lib-scoop');

/** A value of the env files, with /var/lib/scoop moved into the scratch folder. */
function placed(value: string, database: TestDatabase): string {
  return value === DATA || value.startsWith(`${DATA}/`)
    ? dataFolder(database) + value.slice(DATA.length)
    : value;
}

/** The environment of a unit: no SCOOP_ variable of the test's own, then the env files. */
function unitEnvironment(
  files: readonly Record<string, string>[],
  database: TestDatabase,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !name.startsWith('SCOOP_')) env[name] = value;
  for (const file of files)
    for (const [name, value] of Object.entries(file)) env[name] = placed(value, database);
  return env;
}

/** `node bin/scoop.js <args>` as a unit's oneshot command; resolves once it exited 0. */
function runScoop(args: readonly string[], env: Readonly<Record<string, string>>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/scoop.js', ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`scoop ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

/** The listening line, or a refusal as soon as the process says a port was taken. */
async function listeningOrPortTaken(serve: ServeProcess, workers: number): Promise<LogLine> {
  const listening = listeningUrl(serve, workers);
  // Left waiting when the port was taken: its own timeout must not surface as unhandled.
  listening.catch(() => undefined);
  for (;;) {
    const line = await Promise.race([
      listening,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 50)),
    ]);
    if (line) return line;
    if (serve.stderr().includes('EADDRINUSE')) throw new Error(`a port was taken: ${serve.stderr()}`);
  }
}

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

/** nginx's main configuration around the site file, both written into `folder`. */
function renderConfig(ports: Ports, folder: string): string {
  let site = SITE;
  site = substitute(site, 'server 127.0.0.1:8081;', `server 127.0.0.1:${ports.a};`);
  site = substitute(site, 'server 127.0.0.1:8082;', `server 127.0.0.1:${ports.b};`);
  site = substitute(site, 'listen 80;', `listen 127.0.0.1:${ports.http};`);
  site = substitute(site, 'listen 443 ssl;', `listen 127.0.0.1:${ports.https} ssl;`);
  site = substitute(site, '/etc/ssl/scoop/fullchain.pem', path.join(dir, 'cert.pem'));
  site = substitute(site, '/etc/ssl/scoop/privkey.pem', path.join(dir, 'key.pem'));
  writeFileSync(path.join(folder, 'scoop.conf'), site);
  const temp = (name: string) => path.join(folder, 'temp', name);
  for (const name of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(temp(name), { recursive: true });
  // What Debian's /etc/nginx/nginx.conf provides around sites-enabled/, but in the scratch
  // folder, in the foreground and as one process, so nothing outlives the test.
  return `daemon off;
master_process off;
pid ${path.join(folder, 'nginx.pid')};
error_log ${path.join(folder, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log ${path.join(folder, 'access.log')};
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  include ${path.join(folder, 'scoop.conf')};
}
`;
}

const nginxes: ChildProcess[] = [];
after(async () => {
  for (const nginx of nginxes) await stopProcess(nginx);
});

/** SIGTERM, then SIGKILL after 5 s; resolves once it exited. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function startNginx(ports: Ports, folder: string): Promise<ChildProcess> {
  mkdirSync(folder, { recursive: true });
  const conf = path.join(folder, 'nginx.conf');
  writeFileSync(conf, renderConfig(ports, folder));
  const errorLog = path.join(folder, 'error.log');
  const child = spawn(NGINX, ['-e', errorLog, '-p', `${folder}/`, '-c', conf], { stdio: 'ignore' });
  nginxes.push(child);
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
    if (up) return child;
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

const NS = envFile('scoop.env').SCOOP_NAMESPACE;
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

let prepared: Promise<void> | undefined;
/** nginx installed and a certificate for HOST, once for every run. */
function prepare(): Promise<void> {
  prepared ??= (async () => {
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
  })();
  return prepared;
}

/**
 * Where the store of this run lives, as SCOOP_DB: for PostgreSQL a fresh schema of the
 * test server (scoop.env's own URL names the production database); for SQLite the file
 * scoop.env offers as its alternative, under the stand-in for /var/lib/scoop.
 */
async function storeFor(database: TestDatabase): Promise<{ db: string; place?: TestLocation }> {
  if (database.name === 'postgres') {
    assert.match(envFile('scoop.env').SCOOP_DB ?? '', /^postgres:\/\//, 'scoop.env: SCOOP_DB is PostgreSQL');
    const place = await database.newLocation();
    return { db: place.location, place };
  }
  const file = envFile('scoop.env', true).SCOOP_DB;
  assert.ok(file?.startsWith(`${DATA}/`), `scoop.env offers a SQLite file under ${DATA}: ${file}`);
  return { db: placed(file, database) };
}

// PostgreSQL first: the deployment as documented; then the SQLite file it offers instead.
for (const database of [POSTGRES, SQLITE]) {
  describe(`nginx in front of two instances on ${database.name} (docs/deploy)`, () => deployment(database));
}

function deployment(database: TestDatabase): void {
  const check = (name: string, fn: (t: TestContext) => Promise<void>) =>
    test(name, { skip: database.skip ?? false, timeout: 30_000 }, fn);
  let a: ServeProcess;
  let b: ServeProcess;
  let ports: Ports;
  let folder: string;
  let place: TestLocation | undefined;

  before(
    async () => {
      if (database.skip) return;
      await prepare();
      const store = await storeFor(database);
      place = store.place;
      const shared = envFile('scoop.env');
      const env = unitEnvironment([shared, { SCOOP_DB: store.db }], database);
      // The release step, then the import job (the CMS's bundle: the demo one), as the units run them.
      await runScoop(unitCommand('scoop@.service', 'ExecStartPre'), env);
      const importArgs = unitCommand('scoop-import.service', 'ExecStart');
      assert.ok(importArgs.includes(BUNDLE));
      await runScoop(
        importArgs.map((arg) => (arg === BUNDLE ? 'examples/demo-bundle' : arg)),
        env,
      );
      // Both instances at once, as `systemctl enable --now scoop@a scoop@b` starts them.
      const serveArgs = unitCommand('scoop@.service', 'ExecStart');
      assert.equal(serveArgs[0], 'serve');
      const workers = Number(shared.SCOOP_WORKERS);
      const instance = async (name: 'a' | 'b') => {
        const own: Record<string, string> = { ...envFile(`scoop-${name}.env`) };
        assert.ok(own.SCOOP_PORT && own.SCOOP_ADMIN_PORT, `scoop-${name}.env sets both ports`);
        for (let attempt = 1; ; attempt++) {
          own.SCOOP_PORT = String(await freePort());
          own.SCOOP_ADMIN_PORT = String(await freePort());
          const serve = serves.start(
            serveArgs.slice(1),
            unitEnvironment([shared, { SCOOP_DB: store.db }, own], database),
          );
          try {
            return { serve, line: await listeningOrPortTaken(serve, workers) };
          } catch (error) {
            // Another test may take a port between freePort and the bind (seen in a full
            // run): only that is tried again, with other ports.
            if (attempt === 3 || !serve.stderr().includes('EADDRINUSE')) throw error;
            serve.child.kill('SIGKILL');
            await serve.exited;
          }
        }
      };
      // serveProcesses lays the test's own environment beneath (a SCOOP_ variable exported in
      // the shell that the env files leave unset would reach the instances too).
      const [startedA, startedB] = await Promise.all([instance('a'), instance('b')]);
      [a, b] = [startedA.serve, startedB.serve];
      const [lineA, lineB] = [startedA.line, startedB.line];
      for (const line of [lineA, lineB]) {
        const ready = await getFresh(`${String(line.admin)}/readyz`);
        assert.equal(ready.status, 200, ready.body);
        assert.equal((JSON.parse(ready.body) as { status: string }).status, 'ready');
      }
      const portOf = (line: typeof lineA) => Number(new URL(String(line.url)).port);
      ports = { http: await freePort(), https: await freePort(), a: portOf(lineA), b: portOf(lineB) };
      folder = path.join(dir, database.name, 'nginx');
      await startNginx(ports, folder);
    },
    { timeout: 620_000 },
  );

  after(async () => {
    for (const serve of [a, b]) if (serve && serve.child.exitCode === null) serve.child.kill('SIGTERM');
    await Promise.all([a, b].map((serve) => serve?.exited));
    await place?.dispose();
  });

  check('requests are spread over both instances', async () => {
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

  check('WSDL addresses use the proto and host nginx forwards', async () => {
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

  check('with one instance stopped (SIGTERM) every request still succeeds', async (t) => {
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
    const skipped = readFileSync(path.join(folder, 'error.log'), 'utf8').match(/upstream/g)?.length ?? 0;
    t.diagnostic(`nginx logged ${skipped} upstream errors (the stopped instance, skipped)`);
  });
}
