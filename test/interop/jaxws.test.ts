/**
 * Interop with Java JAX-WS (the Metro reference implementation, Debian's `jaxws`):
 * wsimport generates stubs from each endpoint's live WSDL, javac compiles them with
 * test/interop/java/Client.java in one run, and the client calls every operation of every
 * endpoint over the SOAP 1.1 and the SOAP 1.2 port against the server in this process,
 * checks the answers against the demo content and that a wrong token throws a
 * SOAPFaultException, and prints a JSON summary, asserted here — including that the
 * endpoints and the operations of each generated port interface are the contract's and
 * that each was called, so a new operation cannot go untested.
 * Needs the Debian package jaxws and a JDK (javac; default-jdk-headless when missing).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ENDPOINTS as CONTRACT_ENDPOINTS, OPERATIONS, operationsAt } from '../../src/contract/operations.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from '../support/fixture-server.ts';

const execFileAsync = promisify(execFile);
const DEMO = path.resolve('examples/demo-bundle');
const CLIENT = path.resolve('test/interop/java/Client.java');
const ENSURE = path.resolve('scripts/ensure-debian-packages.sh');
/** What the jaxws package installs: the wsimport launcher and its jars (symlinks into /usr/share/java). */
const WSIMPORT = '/usr/share/jaxws/bin/wsimport.sh';
const CLASSPATH = '/usr/share/jaxws/lib/*';

/** Endpoint path → the Java package wsimport generates its stubs into (Client.java uses these). */
const ENDPOINTS: Record<string, string> = {
  '/scoop/api/v5/scoop.asmx': 'interop.v5scoop',
  '/scoop/api/v6/scoop.asmx': 'interop.v6scoop',
  '/scoop/api/v7/scoop.asmx': 'interop.v7scoop',
  '/scoop/api/v6/public.asmx': 'interop.v6public',
};

/**
 * The warnings wsimport prints for our WSDLs, all expected (the original's WSDLs get the
 * same ones): the `s1:guid` type is defined by the second inline schema, which the first
 * imports without a location (a forward reference its per-schema check cannot resolve;
 * the stubs still get `String token`); the SOAP 1.2 binding is outside JAX-WS's standard
 * (hence -extension); the HTTP GET/POST ports are not SOAP ports.
 */
const EXPECTED_WARNINGS = [
  /^src-resolve: Cannot resolve the name 's1:guid' to a\(n\) 'type definition' component\.$/,
  /^SOAP port "(scoop|public)Soap12": uses a non-standard SOAP 1\.2 binding\.$/,
  /^Port "(scoop|public)Http(Get|Post)" is not a SOAP port, it has no soap:address$/,
  /^port "(scoop|public)Http(Get|Post)": not a standard SOAP port\. The generated artifacts may not work with JAX-WS runtime\.$/,
];

let fixture: Fixture | undefined;
let work: string | undefined;

/** Runs a tool asynchronously (the server in this process must keep answering); fails with its output. */
async function run(
  command: string,
  args: string[],
  timeout: number,
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await execFileAsync(command, args, { encoding: 'utf8', timeout, maxBuffer: 32 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { code?: unknown; signal?: unknown; stdout?: string; stderr?: string };
    return assert.fail(
      `${command} ${args.join(' ')}\nexited with ${String(failed.code)} ${String(failed.signal ?? '')}\n` +
        `--- stdout\n${failed.stdout ?? ''}\n--- stderr\n${failed.stderr ?? ''}`,
    );
  }
}

before(
  async () => {
    // Loudly: a stack that cannot be installed fails the test.
    await run(ENSURE, ['jaxws'], 600_000);
    try {
      await execFileAsync('javac', ['-version'], { timeout: 60_000 });
    } catch {
      await run(ENSURE, ['default-jdk-headless'], 600_000);
    }
    fixture = await startFixture({}, [DEMO]);
    work = mkdtempSync(path.join(tmpdir(), 'scoop-jaxws-'));
  },
  { timeout: 1_260_000 },
);
after(async () => {
  await fixture?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

function javaFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.java'))
    .map((name) => path.join(dir, name));
}

function sha256(file: string): string {
  return createHash('sha256')
    .update(readFileSync(path.join(DEMO, 'files', file)))
    .digest('hex');
}

test(
  'JAX-WS stubs from wsimport call every operation over SOAP 1.1 and 1.2',
  { timeout: 300_000 },
  async (t) => {
    const base = fixture!.server.url;
    const sources = path.join(work!, 'src');
    const classes = path.join(work!, 'classes');
    mkdirSync(sources);
    mkdirSync(classes);

    // -extension: the SOAP 1.2 ports; -XadditionalHeaders: the wsAuthHeader, bound from a
    // message of its own (as .NET writes it), becomes a header parameter of each method.
    // allSettled: no wsimport is left running into the cleanup when another one fails.
    const settled = await Promise.allSettled(
      Object.entries(ENDPOINTS).map(([endpoint, pkg]) =>
        run(
          'sh',
          [
            WSIMPORT,
            '-keep',
            '-Xnocompile',
            '-extension',
            '-XadditionalHeaders',
            '-p',
            pkg,
            '-d',
            sources,
            `${base}${endpoint}?wsdl`,
          ],
          120_000,
        ),
      ),
    );
    const imported = settled.map((r) => {
      if (r.status === 'rejected') throw r.reason;
      return r.value;
    });
    const output = imported.map((r) => r.stdout + r.stderr).join('\n');
    assert.doesNotMatch(output, /\[ERROR\]/);
    const warnings = [...output.matchAll(/^\[WARNING\] (.*)$/gm)].map((m) => m[1]!.trim());
    for (const warning of warnings) {
      assert.ok(
        EXPECTED_WARNINGS.some((re) => re.test(warning)),
        `unexpected wsimport warning: ${warning}`,
      );
    }
    t.diagnostic(`wsimport: ${warnings.length} expected warnings`);

    // One javac run for all four endpoints and the client.
    await run(
      'javac',
      ['-nowarn', '-encoding', 'UTF-8', '-cp', CLASSPATH, '-d', classes, ...javaFiles(sources), CLIENT],
      180_000,
    );

    const { stdout } = await run(
      'java',
      ['-cp', `${CLASSPATH}${path.delimiter}${classes}`, 'Client', base, REFERENCE_TOKEN, DEMO],
      120_000,
    );
    const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      calls: number;
      /** endpoint → the operations of its generated port interface (sorted). */
      operations: Record<string, string[]>;
      results: Record<string, Record<string, Record<string, string>>>;
      failures: string[];
    };
    assert.deepEqual(summary.failures, []);
    assert.deepEqual(
      Object.keys(summary.operations),
      CONTRACT_ENDPOINTS.map((e) => e.path),
      'stubs for every endpoint of the contract',
    );
    for (const endpoint of CONTRACT_ENDPOINTS) {
      const contract = operationsAt(endpoint)
        .map((op) => op.name)
        .sort();
      assert.deepEqual(summary.operations[endpoint.path], contract, `${endpoint.path} port operations`);
      for (const version of ['1.1', '1.2']) {
        const called = Object.keys(summary.results[endpoint.path]?.[version] ?? {}).filter(
          (k) => k !== 'wrongToken',
        );
        assert.deepEqual(called.sort(), contract, `${endpoint.path} SOAP ${version} operations called`);
      }
    }
    assert.equal(summary.calls, OPERATIONS.length * 2, 'every operation, each over SOAP 1.1 and 1.2');

    const pdf = sha256('anhaenge/oeffnungszeiten-buergeramt.pdf');
    const jpeg = sha256('bilder/rathaus.jpg');
    for (const version of ['1.1', '1.2']) {
      const wrongToken = `${version === '1.1' ? '{http://schemas.xmlsoap.org/soap/envelope/}Client' : '{http://www.w3.org/2003/05/soap-envelope}Sender'} Authentication failed: a valid token is required.`;
      const at = (endpoint: string) => summary.results[endpoint]?.[version];
      assert.deepEqual(at('/scoop/api/v5/scoop.asmx'), {
        checkAnhangVorhanden: '500=true 999=false',
        wrongToken,
      });
      assert.deepEqual(at('/scoop/api/v6/scoop.asmx'), {
        getArtikelDetails: `bereiche=[2, 1] anhaenge=[500, 501] pdf=${pdf} kontakte=2`,
        getAbonnierteNewsletter: 'newsletter=[1, 2]',
        wrongToken,
      });
      assert.deepEqual(at('/scoop/api/v7/scoop.asmx'), {
        getNewsletter: 'newsletter=[1, 2]',
        getCityAppBereich: 'name=Freizeit & Kultur',
        wrongToken,
      });
      assert.deepEqual(at('/scoop/api/v6/public.asmx'), {
        getBild: `size=101261 sha256=${jpeg}`,
        getAnhang: 'filename=merkblatt-winterdienst.txt size=620',
        getBereich: 'name=Rathaus & Politik',
      });
    }
  },
);
