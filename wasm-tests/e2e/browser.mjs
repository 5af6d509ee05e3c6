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
