/**
 * The help pages in a real browser (Debian's chromium driven by playwright-core) on a
 * phone-sized screen: the test form invokes operations through /_scoop/help.js under the
 * pages' Content-Security-Policy, and no page is wider than the phone.
 *
 * chromium is installed by scripts/ensure-debian-packages.sh in `before`; when it cannot
 * be installed the hook fails, and with it every test here. playwright-core never
 * downloads a browser: it only drives /usr/bin/chromium.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { ENDPOINTS, operationsAt } from '../src/contract/operations.ts';
import { HELP_CSP } from '../src/describe/html.ts';
import { launchChromium } from './support/chromium.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

const PHONE = { width: 390, height: 844 };
/** `SCOOP_KEEP_SCREENSHOTS=1` keeps the screenshot (its path is printed as a diagnostic). */
const KEEP_SCREENSHOTS = process.env.SCOOP_KEEP_SCREENSHOTS === '1';

/**
 * The DOM members used by the functions that run in the page (the project's tsconfig has
 * no DOM lib). Those functions are sent to the browser as source, so each one names
 * `globalThis as unknown as InPage` itself; the cast is erased before they are sent.
 */
interface InPage {
  readonly document: {
    readonly documentElement: { readonly scrollWidth: number };
    readonly body: { append(node: unknown): void };
    readonly images: { readonly length: number };
    getElementById(id: string): { readonly textContent: string | null } | null;
    createElement(tag: 'img'): { src: string };
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (event: { readonly violatedDirective: string; readonly blockedURI: string }) => void,
    ): void;
  };
  readonly innerWidth: number;
  scoopReportViolation(text: string): void;
  getComputedStyle(element: InPageElement): { readonly wordBreak: string; readonly hyphens: string };
}

interface InPageRange {
  setStart(node: InPageNode, offset: number): void;
  setEnd(node: InPageNode, offset: number): void;
  getClientRects(): ArrayLike<{ readonly top: number; readonly width: number }>;
}

interface InPageNode {
  readonly textContent: string | null;
  readonly parentElement: InPageElement | null;
}

interface InPageElement {
  readonly tagName: string;
}

/** What the word check uses of the document, beyond `InPage`. */
interface InPageWalk {
  readonly document: {
    readonly body: unknown;
    createTreeWalker(root: unknown, whatToShow: number): { nextNode(): InPageNode | null };
    createRange(): InPageRange;
    querySelectorAll(selector: '*'): ArrayLike<InPageElement>;
  };
}

const DESKTOP = { width: 1280, height: 800 };

let fixture: Fixture;
let context: BrowserContext;
let dir: string;

before(async () => {
  fixture = await startFixture({}, [path.resolve('examples/demo-bundle')]);
  dir = mkdtempSync(path.join(tmpdir(), 'scoop-browser-'));
  context = await launchChromium(dir, {
    viewport: PHONE,
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
});

after(async () => {
  await context?.close();
  await fixture?.stop();
  if (dir) {
    if (KEEP_SCREENSHOTS) rmSync(path.join(dir, 'profile'), { recursive: true, force: true });
    else rmSync(dir, { recursive: true, force: true });
  }
});

interface Watched {
  readonly page: Page;
  /** Console errors and uncaught exceptions, except the browser's own /favicon.ico probe. */
  readonly errors: string[];
  /** `securitypolicyviolation` events seen by the page. */
  readonly violations: string[];
}

async function watchedPage(): Promise<Watched> {
  const page = await context.newPage();
  const errors: string[] = [];
  const violations: string[] = [];
  const favicon = new URL('/favicon.ico', fixture.server.url).href;
  page.on('console', (message) => {
    // Chromium asks every site for /favicon.ico, and scoop serves none (a 404).
    if (message.type() === 'error' && message.location().url !== favicon)
      errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  // The binding and the init script come in through the DevTools protocol, so the page's
  // CSP does not stop them; the listener reports what the CSP stops in the page itself.
  await page.exposeFunction('scoopReportViolation', (text: string) => violations.push(text));
  await page.addInitScript(() => {
    const w = globalThis as unknown as InPage;
    w.document.addEventListener('securitypolicyviolation', (event) => {
      w.scoopReportViolation(`${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  return { page, errors, violations };
}

async function open(page: Page, pathAndQuery: string) {
  const response = await page.goto(new URL(pathAndQuery, fixture.server.url).href);
  assert.ok(response, `no response for ${pathAndQuery}`);
  assert.equal(response.status(), 200, pathAndQuery);
  return response;
}

/** Submits the test form, which POSTs to `<endpoint>/<op>`, and returns the answer shown. */
async function invoke(page: Page, operationPath: string): Promise<string> {
  const posted = page.waitForResponse((r) => r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Invoke' }).click();
  assert.equal(new URL((await posted).url()).pathname, operationPath);
  const result = page.locator('#test-result');
  await page.waitForFunction(() => {
    const shown = (globalThis as unknown as InPage).document.getElementById('test-result')?.textContent;
    return /^HTTP \d{3}\n/.test(shown ?? '');
  });
  assert.ok(await result.isVisible(), '#test-result is shown');
  return (await result.textContent()) ?? '';
}

async function widths(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => {
    const w = globalThis as unknown as InPage;
    return { scrollWidth: w.document.documentElement.scrollWidth, innerWidth: w.innerWidth };
  });
}

/**
 * With `isMobile`, a page wider than the screen is zoomed out, which widens innerWidth to
 * the content; so innerWidth must also still be the phone's width.
 */
async function assertFitsPhone(page: Page, what: string): Promise<void> {
  const { scrollWidth, innerWidth } = await widths(page);
  assert.equal(innerWidth, PHONE.width, `${what}: the page was zoomed out to ${innerWidth}px`);
  assert.ok(scrollWidth <= innerWidth, `${what}: ${scrollWidth}px wide on a ${innerWidth}px screen`);
}

test('getBereich through the test form on a phone: the XML answer, no errors, no CSP violations', async (t) => {
  const { page, errors, violations } = await watchedPage();
  const response = await open(page, '/scoop/api/v6/public.asmx?op=getBereich');
  assert.equal(response.headers()['content-security-policy'], HELP_CSP);

  await page.locator('input[name="bereichID"]').fill('1');
  const shown = await invoke(page, '/scoop/api/v6/public.asmx/getBereich');
  // textContent is the raw XML text, so the escaped ampersand is shown as written.
  assert.ok(shown.startsWith('HTTP 200\n'), shown);
  assert.ok(shown.includes('<name>Rathaus &amp; Politik</name>'), shown);
  assert.ok(shown.includes('<bereichID>1</bereichID>'), shown);

  await assertFitsPhone(page, 'getBereich page with its answer');
  assert.deepEqual(errors, [], 'console errors');
  assert.deepEqual(violations, [], 'CSP violations');

  const screenshot = path.join(dir, 'getBereich-phone.png');
  await page.screenshot({ path: screenshot });
  const png = readFileSync(screenshot);
  assert.equal(png.readUInt32BE(16), PHONE.width * 2, 'screenshot width (device pixels)');
  t.diagnostic(`screenshot: ${screenshot}${KEEP_SCREENSHOTS ? '' : ' (removed after the run)'}`);

  // The listener is live: an image from elsewhere is refused by img-src and reported.
  await page.evaluate(() => {
    const { document } = globalThis as unknown as InPage;
    const img = document.createElement('img');
    img.src = 'https://images.example.invalid/x.png';
    document.body.append(img);
  });
  for (let waited = 0; violations.length === 0 && waited < 5000; waited += 50) await page.waitForTimeout(50);
  assert.equal(violations.length, 1, `one CSP violation reported: ${violations.join('; ')}`);
  assert.match(violations[0]!, /^img-src blocked https:\/\/images\.example\.invalid/);
  await page.close();
});

test('getCityAppBereich (scoop.asmx) through the test form: with the token field, then without (401)', async () => {
  const { page, errors, violations } = await watchedPage();
  const response = await open(page, '/scoop/api/v7/scoop.asmx?op=getCityAppBereich');
  assert.equal(response.headers()['content-security-policy'], HELP_CSP);

  await page.locator('input[name="cityAppBereichID"]').fill('10');
  await page.locator('input[name="token"]').fill(REFERENCE_TOKEN);
  const ok = await invoke(page, '/scoop/api/v7/scoop.asmx/getCityAppBereich');
  assert.ok(ok.startsWith('HTTP 200\n'), ok);
  assert.ok(ok.includes('<name>Freizeit &amp; Kultur</name>'), ok);
  assert.ok(ok.includes('<cityAppBereichID>10</cityAppBereichID>'), ok);
  assert.deepEqual(errors, [], 'console errors');

  await page.locator('input[name="token"]').fill('');
  const refused = await invoke(page, '/scoop/api/v7/scoop.asmx/getCityAppBereich');
  assert.ok(refused.startsWith('HTTP 401\n'), refused);
  assert.ok(refused.includes('<code>AUTH_FAILED</code>'), refused);
  // Chromium logs every 4xx answer to fetch(); that one, and nothing else, is expected.
  assert.equal(errors.length, 1, errors.join('\n'));
  assert.match(errors[0]!, /status of 401 .*\/scoop\/api\/v7\/scoop\.asmx\/getCityAppBereich\)$/);
  assert.deepEqual(violations, [], 'CSP violations');
  await assertFitsPhone(page, 'getCityAppBereich page with its answer');
  await page.close();
});

test('every endpoint and operation help page fits a phone and loads without errors', async () => {
  const { page, errors, violations } = await watchedPage();
  const pages = [
    '/',
    ...ENDPOINTS.flatMap((e) => [e.path, ...operationsAt(e).map((op) => `${e.path}?op=${op.name}`)]),
  ];
  for (const url of pages) {
    await open(page, url);
    await assertFitsPhone(page, url);
  }
  assert.deepEqual(errors, [], 'console errors');
  assert.deepEqual(violations, [], 'CSP violations');
  await page.close();
});

/**
 * Words split across lines: each run of letters and digits in the page's text must lie on
 * one line (its client rects share a top), and no element may break words anywhere.
 */
async function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const w = globalThis as unknown as InPage & InPageWalk;
    const found: string[] = [];
    for (const element of Array.from(w.document.querySelectorAll('*'))) {
      const style = w.getComputedStyle(element);
      if (style.wordBreak === 'break-all' || style.hyphens === 'auto')
        found.push(`${element.tagName}: word-break ${style.wordBreak}, hyphens ${style.hyphens}`);
    }
    const SHOW_TEXT = 4;
    const walker = w.document.createTreeWalker(w.document.body, SHOW_TEXT);
    const range = w.document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/[\p{L}\p{N}_]{2,}/gu)) {
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set(
          Array.from(range.getClientRects())
            .filter((r) => r.width > 0)
            .map((r) => Math.round(r.top)),
        );
        if (tops.size > 1) found.push(`${node.parentElement?.tagName}: "${match[0]}" on ${tops.size} lines`);
      }
    }
    return found;
  });
}

test('at 1280 px no page breaks a word mid-word (screenshot of the getBild page)', async (t) => {
  const { page, errors, violations } = await watchedPage();
  await page.setViewportSize(DESKTOP);
  const pages = [
    '/',
    ...ENDPOINTS.flatMap((e) => [e.path, ...operationsAt(e).map((op) => `${e.path}?op=${op.name}`)]),
  ];
  for (const url of pages) {
    await open(page, url);
    const { innerWidth } = await widths(page);
    assert.equal(innerWidth, DESKTOP.width, url);
    assert.deepEqual(await brokenWords(page), [], url);
  }
  await open(page, '/scoop/api/v6/public.asmx?op=getBild');
  const screenshot = path.join(dir, 'getBild-1280.png');
  await page.screenshot({ path: screenshot, fullPage: true });
  assert.equal(
    readFileSync(screenshot).readUInt32BE(16),
    DESKTOP.width * 2,
    'screenshot width (device pixels)',
  );
  t.diagnostic(`screenshot: ${screenshot}${KEEP_SCREENSHOTS ? '' : ' (removed after the run)'}`);
  assert.deepEqual(errors, [], 'console errors');
  assert.deepEqual(violations, [], 'CSP violations');
  await page.close();
});

test('a browser asking for an unknown operation gets an HTML page: 404 and the catalogue code', async () => {
  const { page, errors } = await watchedPage();
  const response = await page.goto(new URL('/scoop/api/v6/public.asmx?op=unknown', fixture.server.url).href);
  assert.ok(response);
  assert.equal(response.status(), 404);
  assert.equal(response.headers()['content-type'], 'text/html; charset=utf-8');
  assert.equal(await page.locator('main code').first().textContent(), 'UNKNOWN_OPERATION');
  // Chromium logs the 404 of the navigation; nothing else is expected.
  assert.ok(
    errors.every((e) => /status of 404/.test(e)),
    errors.join('\n'),
  );
  await page.close();
});
