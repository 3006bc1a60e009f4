/**
 * Debian's chromium for browser tests, driven by playwright-core (which never downloads a
 * browser): installed by scripts/ensure-debian-packages.sh when missing, and started
 * headless with a profile folder of the test's own.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

type ContextOptions = Omit<
  NonNullable<Parameters<typeof chromium.launchPersistentContext>[1]>,
  'executablePath'
>;

/** Installs chromium when missing (asynchronously: apt may take a while), then starts it on a profile under `dir`. */
export async function launchChromium(dir: string, options: ContextOptions): Promise<BrowserContext> {
  await promisify(execFile)('scripts/ensure-debian-packages.sh', ['chromium'], { timeout: 600_000 });
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing after installing chromium`);
  // Playwright refuses --user-data-dir in `args`; a persistent context is its way to name one.
  return chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    ...options,
  });
}
