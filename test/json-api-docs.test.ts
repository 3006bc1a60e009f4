/**
 * The curl and Python examples of docs/json-api.md ("Calling it") work as printed against
 * the demo content: bash blocks run in bash, python blocks in Debian's python3 with its
 * python3-requests (installed when missing, as the interop tests install theirs).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
let fixture: Fixture;
let work: string;

before(async () => {
  // Asynchronously: apt may take a while, and nothing may block this process.
  await run('scripts/ensure-debian-packages.sh', ['python3-requests'], { timeout: 600_000 });
  fixture = await startFixture({}, [path.resolve('examples/demo-bundle')]);
  work = mkdtempSync(path.join(tmpdir(), 'scoop-docs-'));
});
after(async () => {
  await fixture?.stop();
  rmSync(work, { recursive: true, force: true });
});

function blocks(language: string): string[] {
  const doc = readFileSync('docs/json-api.md', 'utf8');
  const start = doc.indexOf('## Calling it');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

async function runBlock(command: string, args: string[], script: string): Promise<string> {
  const address = new URL(fixture.server.url).host;
  const { stdout } = await run(command, [...args, script.replaceAll('127.0.0.1:8080', address)], {
    encoding: 'utf8',
    cwd: work,
    env: { ...process.env, TOKEN: REFERENCE_TOKEN },
    timeout: 60_000,
  });
  return stdout;
}

test('the curl examples run against the demo content', async () => {
  const [script] = blocks('bash');
  assert.ok(script, 'a bash block');
  const out = await runBlock('bash', ['-c'], `set -e\n${script}`);
  assert.match(out, /^\{"name":"Rathaus & Politik","bereichID":1\}$/m);
  assert.match(out, /"newsletterID":1/);
  assert.match(out, /^\[1\]$/m);
  assert.match(out, /^content-type: image\/jpeg/im);
  assert.match(out, /"code":"UNKNOWN_ID"/);
});

test('the Python example runs against the demo content', async () => {
  const [script] = blocks('python');
  assert.ok(script, 'a python block');
  const out = await runBlock(PYTHON, ['-c'], script!);
  assert.match(out, /\.pdf True$/m);
  assert.doesNotMatch(out, / False$/m);
  assert.match(out, /^newsletter \[1\]$/m);
  assert.match(out, /^404 application\/problem\+json UNKNOWN_ID$/m);
});
