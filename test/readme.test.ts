/** Every `bash` block under "Calling the service" in README.md works as printed. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { POSTGRES_MIGRATIONS } from '../src/store/postgres/migrations.ts';
import { type Fixture, startFixture } from './support/fixture-server.ts';

let fixture: Fixture;
before(async () => {
  fixture = await startFixture({}, [path.resolve('examples/demo-bundle')]);
});
after(async () => {
  await fixture.stop();
});

function exampleBlocks(): string[] {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('## Calling the service');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

test('the README examples run against the demo content', async () => {
  const blocks = exampleBlocks();
  assert.ok(blocks.length >= 5, 'examples found');
  const address = new URL(fixture.server.url).host;
  const script = `set -e\n${blocks.join('\n')}`.replaceAll('127.0.0.1:8080', address);
  // Asynchronously: the server answering these requests runs in this process.
  const run = await promisify(execFile)('bash', ['-c', script], {
    encoding: 'utf8',
    env: { ...process.env, SCOOP_DB: fixture.location },
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const expected of [
    '<name>Rathaus &amp; Politik</name>',
    '<artikelDetails>',
    '<wsGetBildResponse',
    '<newsletter>\n    <int>1</int>\n    <int>2</int>\n  </newsletter>',
    '<filename>merkblatt-winterdienst.txt</filename>',
    '<wsNewsletter><name>Amtsblatt der Stadt Beispielstadt</name><newsletterID>1</newsletterID></wsNewsletter><wsNewsletter><name>Veranstaltungen &amp; Kultur</name><newsletterID>2</newsletterID></wsNewsletter></newsletter>',
  ]) {
    assert.ok(run.stdout.includes(expected), `output holds ${expected}`);
  }
  assert.ok(!/Fault|<error/.test(run.stdout), 'no errors');
  // `-w '\n'` after every answer: the prompt starts on a line of its own.
  assert.ok(run.stdout.endsWith('\n'), 'the last answer is followed by a newline');
});

test('the README names the schema version `scoop migrate` reaches today on PostgreSQL', () => {
  const readme = readFileSync('README.md', 'utf8');
  const said = /scoop migrate +# schema version (\d+) \(applied ([\d, ]+)\)/.exec(readme);
  assert.ok(said, 'the PostgreSQL snippet shows what migrate prints');
  const latest = POSTGRES_MIGRATIONS.length;
  assert.equal(Number(said[1]), latest);
  assert.equal(said[2], Array.from({ length: latest }, (_, i) => i + 1).join(', '));
});
