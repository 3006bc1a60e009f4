/**
 * Interop with Python zeep (Debian python3-zeep): test/interop/zeep_client.py loads each
 * endpoint's WSDL from this process's server, calls every operation on the SOAP 1.1 and
 * SOAP 1.2 ports, checks the answers against the demo content, expects a Fault for a
 * wrong token, and prints a JSON summary, asserted here.
 *
 * python3-zeep is installed by scripts/ensure-debian-packages.sh in `before`; when it
 * cannot be installed the hook fails, and with it the test.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ENDPOINTS, operationsAt } from '../../src/contract/operations.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from '../support/fixture-server.ts';

const PYTHON = '/usr/bin/python3';
const SCRIPT = path.resolve('test/interop/zeep_client.py');
const run = promisify(execFile);

interface BindingSummary {
  readonly endpoint: string;
  readonly port: string;
  readonly calls: number;
  readonly ok: number;
  readonly operations: string[];
  readonly portOperations: string[];
  readonly contentTypes: string[];
  readonly failures: string[];
}

interface FaultSummary {
  readonly endpoint: string;
  readonly port: string;
  readonly ok: boolean;
  readonly code?: string;
  readonly message?: string;
  readonly errorCode?: string;
  readonly error?: string;
}

interface Summary {
  readonly zeep: string;
  readonly ok: boolean;
  readonly bindings: BindingSummary[];
  readonly faults: FaultSummary[];
  readonly loaded: string[];
}

/** Calls zeep_client.py makes per port (every operation, checkAnhangVorhanden twice). */
const CALLS_PER_PORT: Record<string, number> = {
  '/scoop/api/v5/scoop.asmx': 2,
  '/scoop/api/v6/scoop.asmx': 2,
  '/scoop/api/v7/scoop.asmx': 2,
  '/scoop/api/v6/public.asmx': 3,
};

let fixture: Fixture;
before(async () => {
  // Asynchronously: apt may take a while, and nothing may block this process.
  await run('scripts/ensure-debian-packages.sh', ['python3-zeep'], { timeout: 600_000 });
  fixture = await startFixture({}, [path.resolve('examples/demo-bundle')]);
});
after(async () => {
  await fixture?.stop();
});

test('zeep calls every operation on the SOAP 1.1 and SOAP 1.2 ports and gets a Fault for a wrong token', async () => {
  const base = new URL(fixture.server.url).origin;
  // Asynchronously: the server answering zeep runs in this process.
  const result = await run(PYTHON, [SCRIPT, base, REFERENCE_TOKEN], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  }).catch((error: Error & { stdout?: string; stderr?: string }) =>
    assert.fail(`zeep_client.py failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`),
  );
  const summary = JSON.parse(result.stdout) as Summary;
  const report = JSON.stringify(summary, null, 2);

  assert.match(summary.zeep, /^4\./, 'zeep 4.x (Debian python3-zeep)');
  // The four WSDLs, and nothing else: zeep needed no other document.
  assert.deepEqual(
    summary.loaded,
    ENDPOINTS.map((e) => `${base}${e.path}?wsdl`),
  );

  const expectedPorts = ENDPOINTS.flatMap((e) =>
    ['Soap', 'Soap12'].map((suffix) => ({ endpoint: e.path, port: `${e.serviceName}${suffix}` })),
  );
  assert.deepEqual(
    summary.bindings.map((b) => ({ endpoint: b.endpoint, port: b.port })),
    expectedPorts,
  );
  for (const binding of summary.bindings) {
    const where = `${binding.endpoint} ${binding.port}`;
    const endpoint = ENDPOINTS.find((e) => e.path === binding.endpoint)!;
    const operations = operationsAt(endpoint).map((op) => op.name);
    assert.deepEqual(binding.failures, [], `${where} failures`);
    assert.equal(binding.calls, CALLS_PER_PORT[binding.endpoint], `${where} calls`);
    assert.equal(binding.ok, binding.calls, `${where} calls that passed`);
    assert.deepEqual(binding.operations, operations, `${where} operations called`);
    assert.deepEqual(
      binding.portOperations,
      [...operations].sort(),
      `${where} operations zeep found in the WSDL`,
    );
    const mediaType = binding.port.endsWith('Soap12') ? 'application/soap+xml' : 'text/xml';
    assert.deepEqual(binding.contentTypes, [mediaType], `${where} media type`);
  }

  const tokenPorts = expectedPorts.filter((p) => p.port.startsWith('scoop'));
  assert.deepEqual(
    summary.faults.map((f) => ({ endpoint: f.endpoint, port: f.port })),
    tokenPorts,
  );
  for (const fault of summary.faults) {
    assert.deepEqual(
      { ok: fault.ok, code: fault.code, message: fault.message, errorCode: fault.errorCode },
      {
        ok: true,
        code: fault.port.endsWith('Soap12') ? 'soap:Sender' : 'soap:Client',
        message: 'Authentication failed: a valid token is required.',
        errorCode: 'AUTH_FAILED',
      },
      `${fault.endpoint} ${fault.port}: ${fault.error ?? ''}`,
    );
  }
  assert.equal(summary.ok, true, report);
});
