// The npm package in headless Chromium (playwright-core + the machine's Chromium):
//  1. a tiny app importing `fleet-policy`, bundled by esbuild with no plugin and no config;
//  2. static/docs-demo.html with <fleet-policy-example> elements running the packed engine:
//     rendered results, one shared lazily loaded wasm, no foreign requests, dark scheme, and the
//     "Open in playground" link round trip (the playground itself shows the example's YAML and
//     the same results).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { installed, ROOT } from './consumer.mjs';
import { start, watchCsp, SCREENSHOTS } from '../e2e/browser.mjs';
import { CSP } from '../e2e/serve.mjs';

const consumer = installed();
const PKG = join(consumer, 'node_modules', 'fleet-policy');
const AT = '2026-03-04T12:00:00Z';

// The site the docs page is served from: the built playground (dist/: static/ plus the
// playground's own files, so "Open in playground" lands on the real playground) with the
// packed engine under embed/engine/.
const SITE = join(ROOT, 'target', 'npm-site');
rmSync(SITE, { recursive: true, force: true });
if (!existsSync(join(ROOT, 'dist', 'fleet_playground_bg.wasm'))) throw new Error('dist/ has no playground: run make dist (make test-package does)');
cpSync(join(ROOT, 'dist'), SITE, { recursive: true });
mkdirSync(join(SITE, 'embed', 'engine'), { recursive: true });
for (const f of ['index.js', 'fleet_policy.js', 'fleet_policy_bg.wasm']) cpSync(join(PKG, f), join(SITE, 'embed', 'engine', f));
// A page whose only example is far below the fold, to observe the lazy load.
writeFileSync(join(SITE, 'lazy.html'), `<!doctype html><meta charset="utf-8"><script type="module" src="embed/fleet-policy-example.js"></script>
<div style="height:3000px">spacer</div>
<fleet-policy-example id="late" at="${AT}" src="examples/docs-affinity-matchlabels-exists.yaml"></fleet-policy-example>`);

let site;
before(async () => { site = await start(SITE); });
after(async () => { await site?.close(); });

test('an esbuild bundle of an app importing fleet-policy runs in Chromium (no plugin, no config)', async () => {
  const app = join(consumer, 'esbuild-app');
  rmSync(app, { recursive: true, force: true });
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'index.html'), '<!doctype html><meta charset="utf-8"><title>app</title><pre id="out">…</pre><script type="module" src="./main.js"></script>\n');
  writeFileSync(join(app, 'main.js'), `
import init, { place, version } from 'fleet-policy';
const yaml = ${JSON.stringify(readFileSync(join(ROOT, 'static', 'examples', 'docs-affinity-two-terms.yaml'), 'utf8'))};
const t0 = performance.now();
await init();
const t1 = performance.now();
const r = place(yaml, { at: '${AT}' });
const t2 = performance.now();
window.timing = { init: t1 - t0, first: t2 - t1 };
document.getElementById('out').textContent = JSON.stringify({ version: version(), picked: r.placements[0].picked.map((c) => c.cluster) });
`);
  mkdirSync(join(app, 'dist'));
  cpSync(join(app, 'index.html'), join(app, 'dist', 'index.html'));
  // The package is resolved from the consumer's node_modules through its exports map.
  execFileSync(join(ROOT, 'node_modules', '.bin', 'esbuild'), ['main.js', '--bundle', '--format=esm', '--outdir=dist', '--log-level=warning'], { cwd: app, stdio: 'inherit' });
  const server = await start(join(app, 'dist'));
  try {
    const page = await server.context.newPage();
    const foreign = [];
    page.on('request', (req) => { if (!req.url().startsWith(server.base)) foreign.push(req.url()); });
    await page.goto(`${server.base}/index.html`);
    await page.waitForFunction(() => document.getElementById('out').textContent.startsWith('{'), null, { timeout: 30000 });
    const out = JSON.parse(await page.textContent('#out'));
    assert.deepEqual(out.picked, ['east-nosystem', 'west-critical']);
    assert.match(out.version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(foreign, []);
    const t = await page.evaluate(() => window.timing);
    console.log(`# chromium (esbuild app, embedded wasm): init() ${t.init.toFixed(1)} ms, first place() ${t.first.toFixed(1)} ms, total ${(t.init + t.first).toFixed(1)} ms`);
  } finally {
    await server.close();
  }
});

/** The rendered picks / filtered clusters of one example, read from its shadow root. */
async function rendered(page, id) {
  const el = page.locator(`#${id}`);
  await el.scrollIntoViewIfNeeded();
  await el.locator('.result section').first().waitFor({ timeout: 30000 });
  return {
    picked: await el.locator('.picked-list li').evaluateAll((li) => li.map((x) => [x.dataset.cluster, x.querySelector('.w').textContent])),
    filtered: await el.locator('.filtered-list li').evaluateAll((li) => li.map((x) => x.dataset.cluster)),
    condition: await el.locator('.condition').first().textContent(),
    link: await el.locator('a[part="playground-link"]').getAttribute('href'),
  };
}

test('docs-demo.html renders each embedded example from one shared engine, offline', async () => {
  const page = await site.context.newPage();
  const requests = [];
  page.on('request', (req) => requests.push(req.url()));
  await page.goto(`${site.base}/docs-demo.html`);

  const and = await rendered(page, 'ex-and');
  assert.deepEqual(and.picked, [['east-critical', 'affinity 0 · spread 0']]);
  assert.deepEqual(and.filtered, ['east-nosystem', 'west-critical']);
  assert.equal(and.condition, 'found all cluster needed as specified by the scheduling policy, found 1 cluster(s)');

  const or = await rendered(page, 'ex-or');
  assert.deepEqual(or.picked, [['east-nosystem', 'affinity 0 · spread 0'], ['west-critical', 'affinity 0 · spread 0']]);
  assert.deepEqual(or.filtered, ['east-critical']);

  const sorter = await rendered(page, 'ex-sorter');
  assert.deepEqual(sorter.picked, [['jumpingcat', 'affinity 100 · spread 0'], ['smartfish', 'affinity 89 · spread 0']]);
  assert.deepEqual(await page.locator('#ex-sorter .not-picked-list li').allTextContents(), ['bravelion affinity 0 · spread 0']);
  // Its clusters carry member agent status: no warning, no notice.
  assert.equal(await page.locator('#ex-sorter details.warnings').count(), 0);
  assert.equal(await page.locator('#ex-sorter .notices li').count(), 0);

  await page.locator('#ex-pickall').scrollIntoViewIfNeeded();
  const all = await rendered(page, 'ex-pickall');
  assert.deepEqual(all.picked.map((p) => p[0]), ['aks-eastus-prod', 'aks-westeurope-prod']);
  assert.deepEqual(all.filtered, ['aks-eastus-dev', 'aks-westus-prod']);
  // Hand-written clusters (no status) are said once, in the engine's words.
  assert.deepEqual(await page.locator('#ex-pickall .notices li').allTextContents(),
    ['4 MemberCluster(s) have no status (written by hand): treated as joined and healthy']);

  // Budgets: allowed disruptions per reason now, the binding budget and the next windows.
  const budgets = async (id) => {
    const el = page.locator(`#${id}`);
    await el.scrollIntoViewIfNeeded();
    await el.locator('.result section.nodepool').first().waitFor({ timeout: 30000 });
    return {
      allowed: await el.locator('table.allowed tbody tr').evaluateAll((tr) => tr.map((x) => [x.dataset.reason, x.querySelector('.n').textContent])),
      binding: await el.locator('ul.binding li').allTextContents(),
      next: await el.locator('ul.timeline li').allTextContents(),
    };
  };
  const three = await budgets('ex-budgets');
  assert.deepEqual(three.allowed, [['Drifted', '4'], ['Empty', '4'], ['Underutilized', '5']]);
  assert.deepEqual(three.next, ['2026-03-05 00:00Z: Drifted 4, Empty 4, Underutilized 0', '2026-03-05 00:10Z: Drifted 4, Empty 4, Underutilized 5',
    '2026-03-06 00:00Z: Drifted 4, Empty 4, Underutilized 0']);
  const office = await budgets('ex-business-hours');
  assert.deepEqual(office.allowed, [['Drifted', '0'], ['Empty', '0'], ['Underutilized', '0']]);
  assert.deepEqual(office.binding, ['budget #0 (nodes 0) binds Drifted, Empty, Underutilized until 2026-03-04 17:00Z']);
  assert.equal(office.next[0], '2026-03-04 17:00Z: Drifted 3, Empty 3, Underutilized 3');

  // Rollout: stages in order, members per group in update order, the wait after the canaries.
  const ro = page.locator('#ex-rollout');
  await ro.scrollIntoViewIfNeeded();
  await ro.locator('.result section.rollout').waitFor({ timeout: 30000 });
  assert.deepEqual(await ro.locator('li.group').allTextContents(), [
    'canary-eu: aks-canary-eu 12:00Z', 'canary-us: aks-canary-us 12:00Z',
    'prod-eu: aks-prod-eu-1 14:00Z → aks-prod-eu-2 15:00Z', 'prod-us: aks-prod-us-1 14:00Z → aks-prod-us-2 15:00Z']);
  assert.deepEqual(await ro.locator('li.wait').allTextContents(), ['AfterStageWait 60 min 13:00Z–14:00Z']);
  assert.equal(await ro.locator('.state').textContent(), ' · UpdateRun · Completed');

  // The editable example follows edits: with "zone DoesNotExist" every cluster matches.
  const ta = page.locator('#ex-or textarea');
  await ta.fill((await ta.inputValue()).replace('key: system', 'key: zone'));
  await page.waitForFunction(() => document.querySelector('#ex-or').shadowRoot.querySelectorAll('.picked-list li').length === 3);
  // Broken YAML shows an error with line:column, not an exception.
  await ta.fill('apiVersion: [\n');
  const err = page.locator('#ex-or .diagnostics li.error');
  await err.waitFor();
  assert.match(await err.textContent(), /^error 1:14 — invalid YAML/);

  const wasm = requests.filter((u) => u.endsWith('.wasm'));
  assert.equal(wasm.length, 1, `one wasm download for every example: ${wasm}`);
  assert.ok(!requests.some((u) => u.endsWith('fleet_policy_wasm.js')), 'the embedded copy is not downloaded');
  assert.deepEqual(requests.filter((u) => !u.startsWith(site.base)), [], 'no request outside the site');
  await page.screenshot({ path: join(SCREENSHOTS, 'docs-demo.png'), fullPage: true });
  await page.close();
});

test('the engine loads only when the first example nears the viewport', async () => {
  const page = await site.context.newPage();
  const wasm = [];
  page.on('request', (req) => { if (req.url().endsWith('.wasm')) wasm.push(req.url()); });
  await page.goto(`${site.base}/lazy.html`);
  await page.waitForTimeout(800);
  assert.equal(wasm.length, 0, 'no wasm before the example is near the viewport');
  await page.locator('#late').scrollIntoViewIfNeeded();
  const r = await rendered(page, 'late');
  assert.deepEqual(r.picked.map((p) => p[0]), ['east-critical']);
  assert.equal(wasm.length, 1);
  await page.close();
});

test('styles are isolated in the shadow root and follow the dark colour scheme', async () => {
  const page = await site.context.newPage();
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${site.base}/docs-demo.html`);
  await rendered(page, 'ex-and');
  const bg = await page.locator('#ex-and .box').evaluate((el) => getComputedStyle(el).backgroundColor);
  assert.equal(bg, 'rgb(13, 17, 23)');
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal(await page.locator('#ex-and .box').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(255, 255, 255)');
  // A page with its own theme switch pins it with the theme attribute.
  await page.locator('#ex-and').evaluate((el) => el.setAttribute('theme', 'dark'));
  assert.equal(await page.locator('#ex-and .box').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(13, 17, 23)');
  // The page's own styles do not reach inside: a global rule on `pre` changes nothing.
  await page.addStyleTag({ content: 'pre { background: rgb(255, 0, 0) !important; }' });
  assert.notEqual(await page.locator('#ex-and pre').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(255, 0, 0)');
  await page.screenshot({ path: join(SCREENSHOTS, 'docs-demo-dark.png') });
  await page.close();
});

test('"Open in playground" carries the YAML, view, time and engine version; the link round-trips', async () => {
  const page = await site.context.newPage();
  await page.goto(`${site.base}/docs-demo.html`);
  for (const id of ['ex-and', 'ex-or', 'ex-pickall', 'ex-budgets']) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    const view = id === 'ex-budgets' ? 'budgets' : 'placement';
    const before = view === 'placement' ? await rendered(page, id)
      : { link: await page.locator(`#${id} a[part="playground-link"]`).getAttribute('href') };
    const yaml = await page.locator(`#${id}`).evaluate((el) => el.yaml);
    const url = new URL(before.link);
    assert.equal(`${url.origin}${url.pathname}`, `${site.base}/`, 'the link points at the playground (site root)');
    // Follow the link: the playground opens with the example's YAML, view, time and results.
    const landed = await site.context.newPage();
    // A tall window, so CodeMirror renders every line of the example (it renders only what is near the view).
    await landed.setViewportSize({ width: 1280, height: 3000 });
    await landed.goto(before.link);
    await landed.waitForSelector('.app[data-eval-seq] #policy-editor .cm-editor');
    const editor = (which) => landed.$$eval(`#${which}-editor .cm-line`, (lines) => lines.map((l) => l.textContent).join('\n'));
    const [fleetText, policyText] = [await editor('fleet'), await editor('policy')];
    // The fleet's objects open in the Fleet editor (facts and click-to-source read them
    // there), the rest in the Policy editor, each as written.
    assert.match(fleetText, /^kind: (MemberCluster|NodeCounts)$/m, `${id}: the Fleet editor holds the fleet`);
    assert.doesNotMatch(policyText, /^kind: (MemberCluster|NodeCounts)$/m, `${id}: no fleet object in the Policy editor`);
    const docs = (text) => text.split(/^---$/m).map((d) => d.trim()).filter(Boolean).sort();
    assert.deepEqual(docs(`${fleetText}\n---\n${policyText}`), docs(yaml), `${id}: together the editors hold every document of the example, as written`);
    const tab = view === 'budgets' ? 'disruption' : 'placement';
    assert.equal(await landed.getAttribute(`#tab-${tab}`, 'aria-selected'), 'true', `${id}: view`);
    assert.match(await landed.inputValue('#eval-time'), /^2026-03-04T12:00(:00)?$/, `${id}: evaluation time`);
    if (id === 'ex-and') {
      assert.equal(await landed.$('#notice'), null, `${id}: same engine version, nothing saved before: no notice`);
    } else {
      // The previous example's session (saved by the last landing) is kept, with a way back;
      // the engine version is the same, so the notice says nothing about versions.
      assert.doesNotMatch(await landed.textContent('#notice'), /engine/, `${id}: same engine version`);
      assert.ok(await landed.$('#restore-previous'), `${id}: the replaced session can be restored`);
    }
    if (view === 'budgets') {
      await landed.waitForSelector('table.allowed tbody tr');
      const shown = await landed.$$eval('table.allowed tbody tr', (trs) => trs.map((tr) =>
        [tr.dataset.reason, tr.querySelector('.allowed-now').textContent.trim()]));
      assert.deepEqual(shown, [['Drifted', '4'], ['Empty', '4'], ['Underutilized', '5']], `${id}: allowed disruptions in the playground`);
    } else {
      await landed.waitForSelector('table.clusters tbody tr');
      const shown = await landed.$$eval('table.clusters tbody tr', (trs) => trs
        .map((tr) => [...tr.children].slice(1, 3).map((c) => (c.firstChild?.textContent ?? '').trim()))
        .filter(([, result]) => result === 'picked').map(([cluster]) => cluster));
      assert.deepEqual(shown, before.picked.map((p) => p[0]), `${id}: picked clusters in the playground`);
    }
    // The fragment itself round-trips through the embed's decoder.
    const state = await landed.evaluate(async () => {
      const { decodeState } = await import('/embed/fleet-policy-example.js');
      return decodeState(location.hash);
    });
    assert.deepEqual(state, { yaml, view, at: AT, version: state.version });
    assert.match(state.version, /^\d+\.\d+\.\d+/);
    // The restored state evaluates to what the example shows.
    if (view === 'budgets') {
      const allowed = await landed.evaluate(async (s) => {
        const m = await import('/embed/engine/index.js');
        await m.init(new URL('/embed/engine/fleet_policy_bg.wasm', location.href));
        return m.budgets(s.yaml, { at: s.at }).nodePools[0].allowedDisruptions;
      }, state);
      assert.deepEqual(allowed, { Drifted: 4, Empty: 4, Underutilized: 5 });
      await landed.close();
      continue;
    }
    const again = await landed.evaluate(async (s) => {
      const m = await import('/embed/engine/index.js');
      const t0 = performance.now();
      await m.init(new URL('/embed/engine/fleet_policy_bg.wasm', location.href));
      const t1 = performance.now();
      const picked = m.place(s.yaml, { at: s.at }).placements.flatMap((p) => p.picked.map((c) => c.cluster));
      return { picked, init: t1 - t0, first: performance.now() - t1 };
    }, state);
    assert.deepEqual(again.picked, before.picked.map((p) => p[0]), id);
    if (id === 'ex-and') console.log(`# chromium (separate .wasm, streamed): init() ${again.init.toFixed(1)} ms, first place() ${again.first.toFixed(1)} ms`);
    await landed.close();
  }
  await page.close();
});

test('docs-demo.html runs under its Content-Security-Policy: header, meta tag, nothing blocked', async () => {
  const res = await fetch(`${site.base}/docs-demo.html`);
  assert.equal(res.headers.get('content-security-policy'), CSP);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.ok((await res.text()).includes(`<meta http-equiv="Content-Security-Policy" content="${CSP}">`));
  const page = await site.context.newPage();
  const blocked = await watchCsp(page);
  await page.goto(`${site.base}/docs-demo.html`);
  // The engine (wasm, one shared instance), the shadow-root styles and an src= fetch all run.
  assert.deepEqual((await rendered(page, 'ex-and')).picked, [['east-critical', 'affinity 0 · spread 0']]);
  assert.deepEqual((await rendered(page, 'ex-or')).filtered, ['east-critical']);
  assert.deepEqual(blocked, []);
  await page.close();
});

test('the playground attribute is followed only when it is an http(s) or relative URL', async () => {
  const page = await site.context.newPage();
  await page.goto(`${site.base}/docs-demo.html`);
  const hrefs = await page.evaluate(async () => {
    const { playgroundUrl } = await import('/embed/fleet-policy-example.js');
    return ['javascript:alert(1)', ' JaVaScRiPt:alert(1)', '\tjava\nscript:alert(1)', 'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)', 'blob:https://example.org/x', 'file:///etc/passwd', 'http://[bad', '', null,
      'https://example.org/pg/', 'http://example.org/', '//example.org/x', '/other/', 'pg/?a=1#b']
      .map((a) => playgroundUrl(a).href);
  });
  const home = `${site.base}/`;
  assert.deepEqual(hrefs, [home, home, home, home, home, home, home, home, home, home,
    'https://example.org/pg/', 'http://example.org/', 'http://example.org/x', `${site.base}/other/`, `${site.base}/pg/?a=1#b`]);
  // On the element: its "Open in playground" link never becomes a javascript: URL.
  await page.evaluate(() => {
    const el = document.createElement('fleet-policy-example');
    el.id = 'hostile-link';
    el.setAttribute('playground', 'javascript:alert(document.domain)');
    el.setAttribute('at', '2026-03-04T12:00:00Z');
    el.textContent = 'apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\n';
    document.body.prepend(el);
  });
  await page.locator('#hostile-link').scrollIntoViewIfNeeded();
  const link = await (await page.waitForFunction(() => document.querySelector('#hostile-link')
    .shadowRoot?.querySelector('a[part="playground-link"]')?.getAttribute('href'), null, { timeout: 30000 })).jsonValue();
  assert.ok(link.startsWith(`${home}#yaml=`), link);
  await page.close();
});
