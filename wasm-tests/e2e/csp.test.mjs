// The playground under its Content-Security-Policy: the header (and nosniff) on what
// `make serve` serves, the same policy in the page's <meta> tag, no inline script, and a
// session — first result, an edit, a share link — that the policy never blocks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { start, watchCsp, ROOT } from './browser.mjs';
import { CSP } from './serve.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env?.close(); });

test('every file is served with the Content-Security-Policy and nosniff', async () => {
  assert.doesNotMatch(CSP, /'unsafe-eval'/);
  assert.match(CSP, /default-src 'self'/);
  assert.match(CSP, /connect-src 'self'/);
  for (const path of ['/', '/index.html', '/start.js', '/fleet_playground.js', '/fleet_playground_bg.wasm', '/style.css', '/docs-demo.html']) {
    const res = await fetch(env.base + path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('content-security-policy'), CSP, path);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
  }
  const missing = await fetch(env.base + '/no-such-file');
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('x-content-type-options'), 'nosniff');
});

test('the pages carry the same policy in a meta tag and have no inline script', () => {
  for (const page of ['index.html', 'docs-demo.html']) {
    const html = readFileSync(join(ROOT, 'static', page), 'utf8');
    assert.ok(html.includes(`<meta http-equiv="Content-Security-Policy" content="${CSP}">`), page);
    // Scripts have a src, or hold YAML (data, never run).
    const inline = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1])
      .filter((attrs) => !/\bsrc=/.test(attrs) && !/type="(text|application)\/yaml"/.test(attrs));
    assert.deepEqual(inline, [], page);
  }
});

test('the playground works under the policy: nothing is blocked, and an inline script would be', async () => {
  const page = await env.context.newPage();
  const blocked = await watchCsp(page);
  await page.goto(env.base + '/');
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await page.waitForSelector('.app[data-eval-seq] .cm-editor');
  await page.waitForSelector('table.clusters tbody tr');
  // An edit re-evaluates (the engine runs in wasm under 'wasm-unsafe-eval').
  const seq = () => page.$eval('.app', (el) => Number(el.dataset.evalSeq));
  const before = await seq();
  await page.click('#policy-editor .cm-line:last-child');
  await page.keyboard.press('End');
  await page.keyboard.type('\n# edited');
  await page.waitForFunction((b) => Number(document.querySelector('.app').dataset.evalSeq) > b, before);
  assert.ok((await page.$$('table.clusters tbody tr')).length > 0);
  assert.deepEqual(blocked, []);
  // The watch can see a violation: the policy refuses a script the page did not ship.
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.body.append(s);
  });
  const refused = () => blocked.some((m) => /script-src/.test(m));
  for (let i = 0; i < 50 && !refused(); i++) await page.waitForTimeout(20);
  assert.equal(await page.evaluate(() => window.__inlineRan ?? false), false);
  assert.ok(refused(), blocked.join(' | '));
  await page.close();
});
