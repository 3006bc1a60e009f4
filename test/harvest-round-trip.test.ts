/**
 * The round trip of issue 15: a bundle (the demo content and the wire's edge cases) is
 * imported into scoop A, harvested from A, imported into scoop B, and every operation on
 * every binding, for every id either holds plus unknown ones and every subscriber
 * address, is answered the same by A and B: status, content type, the body after C14N,
 * and the body's bytes. Run against SQLite and PostgreSQL stores.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe } from 'node:test';
import { type Arguments, OPERATIONS } from '../src/contract/operations.ts';
import type { BindingName } from '../src/protocol/binding.ts';
import { type ClientRequest, encodeRequest } from '../src/protocol/client-request.ts';
import { canonicalize } from '../src/xml/c14n.ts';
import { scratch } from './support/bundles.ts';
import { DATABASES } from './support/databases.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';
import { DEMO_BUNDLE, DEMO_EMAILS, edgeBundle, NAMESPACE, runHarvest } from './support/harvest.ts';

const BINDINGS: readonly BindingName[] = ['soap11', 'soap12', 'httpget', 'httppost'];
const s = scratch();

interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: Buffer;
}

async function send(fixture: Fixture, request: ClientRequest): Promise<Answer> {
  const response = await fetch(`${fixture.server.url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.method === 'POST' ? { body: request.body } : {}),
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

function idsOf(bundle: unknown, kind: string, field: string): number[] {
  const records = (bundle as Record<string, Array<Record<string, unknown>>>)[kind] ?? [];
  return records.map((r) => r[field] as number);
}

/** Every request the comparison makes: each operation with each id of both bundles, unknown ids, every address. */
function calls(emails: readonly string[]): Array<{ operation: string; args: Arguments }> {
  const demo = JSON.parse(readFileSync(path.join(DEMO_BUNDLE, 'bundle.json'), 'utf8'));
  const ids = (kind: string, field: string, edge: number[]) => [...idsOf(demo, kind, field), ...edge, 999, 0];
  const list: Array<{ operation: string; args: Arguments }> = [];
  for (const id of ids('artikel', 'artikelID', [900, 901, 902, 903]))
    list.push({ operation: 'getArtikelDetails', args: { artikelID: id } });
  for (const id of ids('bereiche', 'bereichID', [900, 901, 902, -5]))
    list.push({ operation: 'getBereich', args: { bereichID: id } });
  for (const id of ids('cityAppBereiche', 'cityAppBereichID', [900, 901]))
    list.push({ operation: 'getCityAppBereich', args: { cityAppBereichID: id } });
  for (const id of ids('anhaenge', 'anhangID', [900, 901, 902])) {
    list.push({ operation: 'getAnhang', args: { anhangID: id } });
    list.push({ operation: 'checkAnhangVorhanden', args: { anhangID: id } });
  }
  for (const id of ids('bilder', 'bildID', [900, 901])) {
    list.push({ operation: 'getBild', args: { bildID: id, width: 0, height: 0, resizeModes: [] } });
    list.push({ operation: 'getBild', args: { bildID: id, width: 40, height: 30, resizeModes: ['crop'] } });
  }
  list.push({ operation: 'getNewsletter', args: {} });
  for (const email of [...emails, emails[0]!.toUpperCase(), 'niemand@example.org'])
    list.push({ operation: 'getAbonnierteNewsletter', args: { email } });
  return list;
}

describe('harvest round trip: A → harvest → B answers as A', () => {
  const fixtures: Fixture[] = [];
  after(async () => {
    for (const f of fixtures) await f.stop();
  });

  for (const db of DATABASES) {
    db.test(`${db.name}: every operation and binding answers the same`, async (t) => {
      const edge = s.dir();
      const { emails: edgeEmails } = edgeBundle(edge);
      const emails = [...DEMO_EMAILS, ...edgeEmails];
      const a = await startFixture({}, [DEMO_BUNDLE, edge], db);
      fixtures.push(a);

      const emailsFile = path.join(s.dir(), 'emails.txt');
      writeFileSync(emailsFile, `${emails.join('\r\n')}\n\nniemand@example.org\n`);
      const out = path.join(s.dir(), 'harvest');
      const run = runHarvest({
        from: a.server.url,
        out,
        emails: emailsFile,
        ranges: {
          artikel: '95-110,899-905',
          bereiche: '-10-20,899-905',
          'city-app-bereiche': '0-20,899-905',
          anhaenge: '490-510,899-905',
          bilder: '190-210,899-905',
        },
      });
      const summary = await run;
      t.diagnostic(
        `${summary.requests} requests, ${(summary.answerBytes / 1e6).toFixed(1)} MB, ${summary.seconds.toFixed(1)} s`,
      );
      assert.deepEqual(run.display.warnings, []);
      assert.equal(
        summary.counts.artikel.records,
        6,
        'the demo articles 100, 101, 103 (102 is hidden), and 900–902',
      );
      assert.equal(summary.counts.artikel.unknown, 16 + 7 - 6);
      assert.equal(summary.counts.newsletter.records, 5);
      assert.equal(summary.counts.abonnements.records, 5);
      assert.equal(summary.counts.abonnements.unknown, 1);

      const b = await startFixture({}, [out], db);
      fixtures.push(b);
      let compared = 0;
      for (const { operation: name, args } of calls(emails)) {
        const operation = OPERATIONS.find((o) => o.name === name)!;
        for (const binding of BINDINGS) {
          const request = encodeRequest(binding, operation, args, {
            namespace: NAMESPACE,
            token: REFERENCE_TOKEN,
          });
          const [fromA, fromB] = await Promise.all([send(a, request), send(b, request)]);
          const what = `${name} ${JSON.stringify(args)} over ${binding}`;
          assert.equal(fromB.status, fromA.status, what);
          assert.equal(fromB.contentType, fromA.contentType, what);
          assert.equal(
            canonicalize(fromB.body.toString('utf8')),
            canonicalize(fromA.body.toString('utf8')),
            what,
          );
          // C14N's parser turns CR into LF as any XML parser does, so only the bytes show a CR
          // lost; A and B are both scoop, so every binding's bytes must be equal.
          assert.ok(fromB.body.equals(fromA.body), `${what}: the bytes`);
          compared++;
        }
      }
      t.diagnostic(`${compared} requests answered the same by A and B`);
    });
  }
});
