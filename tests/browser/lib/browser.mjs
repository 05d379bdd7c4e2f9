// Debian's Chromium, driven by playwright-core, for the panel tests. No test
// tool can download its own browser on these machines; the flags keep the
// headless browser off the (closed) network. Playwright gives every launch a
// fresh, empty profile directory of its own.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const distDir = join(root, 'www', 'dist');
export const resultsDir = join(root, 'test-results');

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Launches headless Chromium; fails with the set-up step to run when it is missing.
 * `{ panel: false }` for tests that serve pages of their own (not www/dist).
 */
export async function launch({ panel = true } = {}) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: run scripts/setup.sh (it installs Debian's chromium)`);
  if (panel && !existsSync(join(distDir, 'index.html'))) throw new Error('www/dist is not built: run `npm run build:www`');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * A page that fails the test on any uncaught page error or console error
 * (collected in `page.problems`, checked by the caller).
 */
export async function openPage(browser, { colorScheme = 'light', width = 1440, height = 900 } = {}) {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme });
  page.problems = [];
  page.on('pageerror', (error) => page.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') page.problems.push(`console error: ${message.text()}`);
  });
  return page;
}

/** Saves a screenshot under test-results/ (not committed) and returns its path. */
export async function screenshot(page, name) {
  mkdirSync(resultsDir, { recursive: true });
  const path = join(resultsDir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}
