// Shared set-up for the end-to-end tests: the machine's Chromium driven by playwright-core
// (no browser download), and dist/ served on a free loopback port.
import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(here, '..', '..');
export const SCREENSHOTS = join(ROOT, 'wasm-tests', 'screenshots');

const ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic'];

/** Serves `dir` (default dist/) and launches Chromium; returns {server, base, browser, close}. */
export async function start(dir = join(ROOT, 'dist')) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const server = await serve(dir, 0);
  const base = `http://127.0.0.1:${server.address().port}`;
  const userDataDir = mkdtempSync(join(tmpdir(), 'fleet-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROME || '/usr/bin/chromium',
    args: ARGS, headless: true, viewport: { width: 1280, height: 900 },
  });
  return {
    server, base, context,
    async close() { await context.close(); server.close(); },
  };
}

/**
 * Collects what the page's Content-Security-Policy blocks: Chromium's console reports ("Refused
 * to …", in every frame, worker and shadow root) and the document's securitypolicyviolation
 * events. Call before the page loads; the returned array fills as the page runs.
 */
export async function watchCsp(page) {
  const seen = [];
  page.on('console', (m) => { if (/Content[ -]Security[ -]Policy/i.test(m.text())) seen.push(m.text()); });
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation',
    (e) => console.warn(`Content-Security-Policy violation: ${e.violatedDirective} ${e.blockedURI}`)));
  return seen;
}
