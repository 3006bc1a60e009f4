/**
 * Interop with PHP's SoapClient (ext/soap): test/interop/soapclient.php loads each
 * endpoint's live WSDL with SOAP 1.1 and SOAP 1.2, calls every operation with the token
 * in the wsAuthHeader SOAP header, checks the answers against the demo content and that a
 * wrong token throws a SoapFault, and prints a JSON summary, asserted here — including
 * that the endpoints it called, the operations SoapClient found in each WSDL and the
 * operations it called are the contract's, so a new operation cannot go untested.
 * Needs the Debian packages php-cli, php-soap and php-xml (installed in `before`).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ENDPOINTS, OPERATIONS, operationsAt } from '../../src/contract/operations.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from '../support/fixture-server.ts';

const run = promisify(execFile);
const DEMO = path.resolve('examples/demo-bundle');
const SCRIPT = path.resolve('test/interop/soapclient.php');

let fixture: Fixture | undefined;

before(
  async () => {
    // Asynchronously, and loudly: a stack that cannot be installed fails the test.
    await run(path.resolve('scripts/ensure-debian-packages.sh'), ['php-cli', 'php-soap', 'php-xml'], {
      timeout: 600_000,
    });
    fixture = await startFixture({}, [DEMO]);
  },
  { timeout: 660_000 },
);
after(async () => {
  await fixture?.stop();
});

interface Summary {
  php: string;
  calls: number;
  /** endpoint → SOAP version → the operations of the WSDL's binding (__getFunctions). */
  operations: Record<string, Record<string, string[]>>;
  results: Record<string, Record<string, Record<string, unknown>>>;
  failures: string[];
}

function sha256(file: string): string {
  return createHash('sha256')
    .update(readFileSync(path.join(DEMO, 'files', file)))
    .digest('hex');
}

test('PHP SoapClient calls every operation over SOAP 1.1 and 1.2', { timeout: 120_000 }, async () => {
  // The server answering these calls runs in this process: never a synchronous child.
  let stdout: string;
  try {
    ({ stdout } = await run(
      'php',
      [
        '-d',
        'display_errors=stderr',
        '-d',
        'error_reporting=-1',
        SCRIPT,
        fixture!.server.url,
        REFERENCE_TOKEN,
      ],
      { encoding: 'utf8', timeout: 90_000, maxBuffer: 16 * 1024 * 1024 },
    ));
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    assert.fail(
      `php exited with ${String(failed.code)}\n--- stdout\n${failed.stdout ?? ''}\n--- stderr\n${failed.stderr ?? ''}`,
    );
  }
  const summary = JSON.parse(stdout) as Summary;
  assert.deepEqual(summary.failures, []);
  assert.deepEqual(
    Object.keys(summary.operations),
    ENDPOINTS.map((e) => e.path),
    'every endpoint of the contract',
  );
  for (const endpoint of ENDPOINTS) {
    const contract = operationsAt(endpoint)
      .map((op) => op.name)
      .sort();
    for (const version of ['1.1', '1.2']) {
      const where = `${endpoint.path} SOAP ${version}`;
      assert.deepEqual(
        [...(summary.operations[endpoint.path]?.[version] ?? [])].sort(),
        contract,
        `${where} WSDL`,
      );
      const called = Object.keys(summary.results[endpoint.path]?.[version] ?? {}).filter(
        (k) => k !== 'wrongToken',
      );
      assert.deepEqual(called.sort(), contract, `${where} operations called`);
    }
  }
  assert.equal(summary.calls, OPERATIONS.length * 2, 'every operation, each over SOAP 1.1 and 1.2');

  const pdf = sha256('anhaenge/oeffnungszeiten-buergeramt.pdf');
  const jpeg = sha256('bilder/rathaus.jpg');
  for (const version of ['1.1', '1.2']) {
    const fault = {
      faultcode: version === '1.1' ? 'soap:Client' : 'soap:Sender',
      faultstring: 'Authentication failed: a valid token is required.',
    };
    const at = (endpoint: string) => summary.results[endpoint]?.[version];
    assert.deepEqual(at('/scoop/api/v5/scoop.asmx'), {
      checkAnhangVorhanden: { '500': true, '999': false },
      wrongToken: fault,
    });
    assert.deepEqual(at('/scoop/api/v6/scoop.asmx'), {
      getArtikelDetails: { bereiche: [2, 1], anhaenge: [500, 501], pdfSha256: pdf, kontakte: 2 },
      getAbonnierteNewsletter: { newsletter: [1, 2] },
      wrongToken: fault,
    });
    assert.deepEqual(at('/scoop/api/v7/scoop.asmx'), {
      getNewsletter: { newsletter: [1, 2] },
      getCityAppBereich: { name: 'Freizeit & Kultur' },
      wrongToken: fault,
    });
    assert.deepEqual(at('/scoop/api/v6/public.asmx'), {
      getBild: { size: 101261, sha256: jpeg },
      getAnhang: { filename: 'merkblatt-winterdienst.txt', size: 620 },
      getBereich: { name: 'Rathaus & Politik' },
    });
  }
});
