/**
 * The JSON API's reference page (`/api/v1/`, Swagger UI from swagger-ui-dist, served by
 * scoop) in a real browser (Debian's chromium driven by playwright-core), under the help
 * pages' Content-Security-Policy: it loads only from this service, shows every operation
 * of the OpenAPI document, calls one through "Try it out", and breaks no CSP rule.
 * `SCOOP_UPDATE_SCREENSHOTS=1` rewrites the screenshot in docs/screenshots/api-reference.png.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { HELP_CSP } from '../src/describe/html.ts';
import { JSON_ROUTES } from '../src/protocol/json/routes.ts';
import { launchChromium } from './support/chromium.ts';
import { type Fixture, startFixture } from './support/fixture-server.ts';

const SCREENSHOT = 'docs/screenshots/api-reference.png';
const UPDATE = process.env.SCOOP_UPDATE_SCREENSHOTS === '1';

/** The DOM members the functions run in the page use (the project has no DOM lib). */
interface InPage {
  readonly document: {
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (event: { readonly violatedDirective: string; readonly blockedURI: string }) => void,
    ): void;
  };
  scoopReportViolation(text: string): void;
}

let fixture: Fixture;
let context: BrowserContext;
let dir: string;

before(async () => {
  fixture = await startFixture({}, [path.resolve('examples/demo-bundle')]);
  dir = mkdtempSync(path.join(tmpdir(), 'scoop-reference-'));
  context = await launchChromium(dir, { viewport: { width: 1280, height: 900 } });
});

after(async () => {
  await context?.close();
  await fixture?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the reference page shows every operation, calls one, and keeps to the help pages’ CSP', async () => {
  const page = await context.newPage();
  const errors: string[] = [];
  const violations: string[] = [];
  const elsewhere: string[] = [];
  const origin = new URL(fixture.server.url).origin;
  const favicon = `${origin}/favicon.ico`;
  page.on('console', (message) => {
    if (message.type() === 'error' && message.location().url !== favicon)
      errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:'))
      elsewhere.push(request.url());
  });
  await page.exposeFunction('scoopReportViolation', (text: string) => violations.push(text));
  await page.addInitScript(() => {
    const w = globalThis as unknown as InPage;
    w.document.addEventListener('securitypolicyviolation', (event) => {
      w.scoopReportViolation(`${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });

  const response = await page.goto(`${fixture.server.url}/api/v1/`);
  assert.equal(response?.status(), 200);
  assert.equal(response?.headers()['content-security-policy'], HELP_CSP);
  await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('.opblock').count(), JSON_ROUTES.length);
  for (const route of JSON_ROUTES) {
    const tag = route.token ? 'token' : 'public';
    assert.equal(await page.locator(`#operations-${tag}-${route.operationId}`).count(), 1, route.operationId);
  }

  // Try it out: getBereich with the id 1, answered by this server as JSON.
  const block = page.locator('#operations-public-getBereich');
  await block.locator('.opblock-summary').click();
  await block.getByRole('button', { name: 'Try it out' }).click();
  await block.locator('input[placeholder="bereichID"]').fill('1');
  const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/bereiche/1'));
  await block.getByRole('button', { name: 'Execute' }).click();
  assert.equal((await answered).status(), 200);
  await block
    .locator('.response-col_description .microlight, .responses-wrapper .highlight-code')
    .first()
    .waitFor();
  assert.match((await block.locator('.responses-wrapper').textContent()) ?? '', /Rathaus & Politik/);

  await page.screenshot({ path: UPDATE ? SCREENSHOT : path.join(dir, 'api-reference.png'), fullPage: false });
  assert.deepEqual(elsewhere, [], 'nothing is loaded from elsewhere');
  assert.deepEqual(violations, [], 'no CSP violation');
  assert.deepEqual(errors, []);
});
