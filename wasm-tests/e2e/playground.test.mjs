// End-to-end: the built playground (dist/) in the machine's Chromium. Opens every gallery
// example and asserts the key numbers on screen; checks the error marker for broken YAML,
// the problem list jump, a share link round trip (and the version notice), the rollout
// what-if re-run, compare, dark mode and the 390 px layout; saves screenshots; and prints
// Performance API measurements (first render, keystroke-to-result p95 on 1,000 clusters)
// and the page's gzipped transfer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { gzipSync, deflateRawSync } from 'node:zlib';
import { start, SCREENSHOTS, ROOT } from './browser.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env?.close(); });

const shot = (page, name) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });

/** Opens the playground with a clean local state and waits for the first result. */
async function open(hash = '', { viewport } = {}) {
  const page = await env.context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  await page.goto(env.base + '/');
  await page.evaluate(() => localStorage.clear());
  await page.goto(env.base + '/?' + Math.random() + hash);
  await page.waitForSelector('.app[data-eval-seq] .cm-editor');
  return page;
}

const seq = (page) => page.$eval('.app', (el) => Number(el.dataset.evalSeq));

/** Runs `action` and waits until the app shows a newer evaluation. */
async function afterEval(page, action) {
  const before = await seq(page);
  await action();
  await page.waitForFunction((b) => Number(document.querySelector('.app').dataset.evalSeq) > b, before);
}

async function loadExample(page, id) {
  await afterEval(page, () => page.selectOption('#example-select', id));
}

const texts = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent.trim()));

/** Rows of the first placement table: [rank, cluster, result, affinity, spread]. */
async function placementRows(page) {
  return page.$$eval('table.clusters tbody tr', (trs) => trs.map((tr) =>
    [...tr.children].slice(0, 5).map((c) => (c.firstChild?.textContent ?? '').trim())));
}

const allowedNow = (page) => page.$$eval('table.allowed tbody tr', (trs) => Object.fromEntries(trs.map((tr) =>
  [tr.dataset.reason, tr.querySelector('.allowed-now').textContent.trim()])));

// ---------------------------------------------------------------------------------------------
// The gallery: every example, with the numbers the docs give.

const GALLERY = {
  'pickall-label-property': async (page) => {
    const rows = await placementRows(page);
    assert.deepEqual(rows.map((r) => `${r[1]} ${r[2]}`), [
      'aks-eastus-prod picked', 'aks-westeurope-prod picked',
      'aks-eastus-dev filtered', 'aks-northeurope-prod filtered', 'aks-westus-prod filtered',
    ]);
    assert.match(await page.textContent('.condition'), /found 2 cluster\(s\)/);
    const reasons = await texts(page, 'tr.filtered .mismatches li');
    assert.ok(reasons.some((r) => /observed\s+ring=canary/.test(r)), reasons.join(' | '));
    assert.ok(reasons.some((r) => /node-count Ge 3.*observed\s+2/.test(r)), reasons.join(' | '));
  },
  pickfixed: async (page) => {
    const rows = await placementRows(page);
    assert.deepEqual(rows.filter((r) => r[2] === 'picked').map((r) => r[1]), ['member-c', 'member-a']);
    assert.match(await page.textContent('.placement h2'), /PickFixed/);
    // member-z is not in the fleet: the policy is not fulfilled.
    assert.match(await page.textContent('.condition'), /Scheduled=False.*found 2 cluster\(s\) instead/s);
  },
  'pickn-preferred-labels': async (page) => {
    const rows = await placementRows(page);
    assert.deepEqual(rows.map((r) => `${r[1]} ${r[2]} ${r[3]}`), [
      'prod-eastus picked 60', 'prod-westus picked 40', 'dev-eastus not picked 20', 'dev-westus not picked 0',
    ]);
  },
  'sorter-available-cpu': async (page) => {
    const rows = await placementRows(page);
    assert.deepEqual(rows.map((r) => `${r[1]} ${r[2]} ${r[3]}`), [
      'bravelion picked 20', 'smartfish picked 2', 'jumpingcat not picked 0',
    ]);
    // The docs' percentages: 100 %, 11 %, 0 % of weight 20.
    const bars = await texts(page, 'table.clusters .bar-label');
    assert.deepEqual(bars, ['term 0: 20 of weight 20 (100%)', 'term 0: 2 of weight 20 (11%)', 'term 0: 0 of weight 20 (0%)']);
  },
  'sorter-cpu-cost': async (page) => {
    const rows = await placementRows(page);
    assert.deepEqual(rows.map((r) => `${r[1]} ${r[3]}`), ['jumpingcat 100', 'smartfish 89', 'bravelion 0']);
  },
  'topology-spread': async (page) => {
    const rows = await placementRows(page);
    const picked = rows.filter((r) => r[2] === 'picked').map((r) => r[1]);
    assert.equal(picked.length, 3);
    assert.equal(new Set(picked.map((c) => c.split('-')[0])).size, 3, `one per region: ${picked}`);
    assert.match(await page.textContent('.placement .summary'), /3 scheduling cycles/);
    // The filtered clusters say which constraint, their domain's count and its maxSkew.
    assert.deepEqual(await texts(page, 'tr.filtered .observed.topology'), [
      'constraint 0: region=east has 1 placement(s), domains range 0..1; one more here exceeds maxSkew 1',
      'constraint 0: region=west has 1 placement(s), domains range 0..1; one more here exceeds maxSkew 1',
    ]);
  },
  'taints-tolerations': async (page) => {
    const rows = await placementRows(page);
    assert.deepEqual(rows.map((r) => `${r[1]} ${r[2]}`), ['general-1 picked', 'gpu-1 picked', 'restricted-1 filtered']);
    assert.match(await page.textContent('tr.filtered .observed'), /dedicated=finance:NoSchedule not tolerated/);
  },
  'budget-daily-freeze': async (page) => {
    assert.deepEqual(await allowedNow(page), { Drifted: '4', Empty: '4', Underutilized: '4' });
    // NodeCounts only: one line instead of a header-only table per method.
    assert.equal(await page.locator('table.candidate-table').count(), 0);
    assert.equal(await page.textContent('.no-candidates'), 'No node data (Nodes / NodeClaims) in the input: candidates are not listed.');
    assert.match(await page.textContent('table.allowed tr[data-reason="Empty"] .binding'), /budget 0 \(20%\)/);
    assert.equal(await page.locator('svg.steps .window rect').count(), 7, 'seven daily 10-minute windows in 7 days');
  },
  'budget-business-hours': async (page) => {
    assert.deepEqual(await allowedNow(page), { Drifted: '0', Empty: '0', Underutilized: '0' });
    assert.match(await page.textContent('table.allowed tr[data-reason="Drifted"] .binding'), /budget 0 \(0\)/);
    assert.ok(await page.locator('svg.steps .window rect').count() >= 4);
  },
  'budget-weekend-only': async (page) => {
    assert.deepEqual(await allowedNow(page), { Drifted: '0', Empty: '0', Underutilized: '0' });
    assert.match(await page.textContent('table.allowed tr[data-reason="Empty"] .binding'), /budget 1 \(0\)/);
  },
  'budget-ramp-up': async (page) => {
    assert.deepEqual(await allowedNow(page), { Drifted: '1', Empty: '1', Underutilized: '1' });
    assert.match(await page.textContent('svg.steps'), /∞/);
    // Next to the ∞: why it is unbounded (every budget is scheduled; outside them none limits).
    assert.equal((await page.textContent('.nodepool figcaption .unbounded-note')).trim(),
      '∞: no budget limits Drifted, Empty, Underutilized outside every budget window (every budget is scheduled)');
  },
  'budget-candidates': async (page) => {
    assert.deepEqual(await allowedNow(page), { Drifted: '1', Empty: '1', Underutilized: '1' });
    const drift = page.locator('table.candidate-table', { has: page.locator('caption', { hasText: /^Drift / }) });
    const rows = await drift.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent.trim()).slice(0, 4).join(' | ')));
    assert.deepEqual(rows, [
      '1 | node-b | yes | ',
      '2 | node-a | no | not taken in this pass: drift disrupts one node per pass, an earlier candidate was taken',
      '— | node-c | not a candidate | pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/batch-job)',
    ]);
  },
  'azure-update-run': async (page) => {
    const stages = await texts(page, 'table.levels tr.level-stage th');
    assert.deepEqual(stages, ['dev', 'prod']);
    const groups = await texts(page, 'table.levels tr.level-group th');
    assert.deepEqual(groups, ['dev-a', 'dev-b', 'prod-a', 'prod-b']);
    assert.equal(await page.locator('table.levels tr.level-member').count(), 5);
    assert.match(await page.textContent('.rollout h2'), /Completed/);
    assert.ok(await page.locator('svg.gantt rect.wait').count() >= 1, 'the after-stage wait is drawn');
    // The caption promises no hatching; a legend names every colour; no tick label is cut.
    assert.doesNotMatch(await page.textContent('.rollout figcaption'), /hatched/);
    assert.deepEqual(await texts(page, '.rollout .gantt-legend li'), ['completed', 'running', 'failed / stuck',
      'pending / waiting', 'not started / skipped', 'stage', 'after-stage wait', 'approval gate', 'maintenance window opens']);
    const clipped = await page.$$eval('svg.gantt.chart .xtick text', (ts) => ts.filter((t) => {
      const svg = t.ownerSVGElement.getBoundingClientRect();
      const r = t.getBoundingClientRect();
      return r.left < svg.left || r.right > svg.right;
    }).map((t) => t.textContent));
    assert.deepEqual(clipped, [], 'every tick label inside the chart');
    // prod-westus-1 waits for its maintenance window (10:30 UTC) while prod-a starts at 10:00.
    assert.ok(await page.locator('svg.gantt rect.window').count() >= 1, 'the maintenance window is drawn');
    assert.match(await page.textContent('tr[data-member="prod-westus-1"]'), /03-02 10:30/);
    assert.match(await page.textContent('tr[data-member="prod-eastus-1"]'), /03-02 10:00/);
  },
  'kubefleet-staged-run': async (page) => {
    const stages = await texts(page, 'table.levels tr.level-stage th');
    assert.deepEqual(stages, ['staging', 'canary', 'production', 'kubernetes-fleet.io/deleteStage']);
    assert.match(await page.textContent('.rollout h2'), /Waiting/, 'the run waits for the canary approval');
    const members = await texts(page, 'table.levels tr.level-member th');
    assert.deepEqual(members, ['staging-1', 'canary-1', 'prod-2', 'prod-1']);
    assert.ok(await page.locator('svg.gantt rect.approval').count() >= 1, 'the approval gate is drawn');
  },
};

test('every gallery example opens and shows its key numbers', async () => {
  const page = await open();
  const ids = await page.$$eval('#example-select option', (os) => os.map((o) => o.value).filter(Boolean));
  assert.deepEqual(ids.sort(), Object.keys(GALLERY).sort(), 'every gallery example has assertions');
  const failures = [];
  for (const id of ids) {
    await loadExample(page, id);
    const description = (await page.textContent('#example-description')).trim();
    assert.ok(description.length > 20, `${id} states what it demonstrates`);
    const errors = await texts(page, '#diagnostics li.error .message');
    try {
      assert.deepEqual(errors, [], `${id} has no errors`);
      await GALLERY[id](page);
    } catch (e) {
      failures.push(`${id}: ${e.message}`);
    }
    await shot(page, `example-${id}`);
  }
  await page.close();
  assert.deepEqual(failures, []);
});

// ---------------------------------------------------------------------------------------------
// Editors: markers, problem list, live evaluation.

async function replaceEditor(page, which, text) {
  await page.click(`#${which}-editor .cm-content`);
  await page.keyboard.press('Control+A');
  await afterEval(page, () => page.keyboard.insertText(text));
}

test('broken YAML gets an error marker at its line and a problem that jumps there', async () => {
  const page = await open();
  await replaceEditor(page, 'fleet', 'apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: [oops}\n');
  await page.waitForSelector('#fleet-editor .cm-lint-marker-error');
  await page.waitForSelector('#fleet-editor .cm-lintRange-error');
  const loc = (await page.textContent('#diagnostics li.error .location')).trim();
  assert.equal(loc, 'fleet:3:23');
  assert.match(await page.textContent('#diagnostics li.error .message'), /^invalid YAML: /);
  // The gutter marker sits on line 3.
  const markerLine = await page.$eval('#fleet-editor .cm-lint-marker-error', (m) => {
    const gutter = m.closest('.cm-gutterElement');
    const lines = [...document.querySelectorAll('#fleet-editor .cm-lineNumbers .cm-gutterElement')];
    const top = gutter.getBoundingClientRect().top;
    return lines.find((l) => Math.abs(l.getBoundingClientRect().top - top) < 2)?.textContent;
  });
  assert.equal(markerLine, '3');
  await page.click('#diagnostics li.error button');
  const cursorLine = await page.$eval('#fleet-editor .cm-activeLineGutter', (g) => g.textContent);
  assert.equal(cursorLine, '3');
  await shot(page, 'error-marker');
  await page.close();
});

test('selecting a filtered cluster highlights the fields the engine says decided, in both editors', async () => {
  const page = await open();
  await loadExample(page, 'taints-tolerations');
  await page.click('tr:has-text("restricted-1") button.cluster');
  const decided = (editor) => page.$$eval(`#${editor} .cm-decided`, (ls) => ls.map((l) => l.textContent.trim()));
  // The taint not tolerated (spec.taints[0]) and the cluster's name; the placement's tolerations.
  assert.deepEqual(await decided('fleet-editor'), ['metadata: {name: restricted-1, labels: {pool: restricted}}', '- {key: dedicated, value: finance, effect: NoSchedule}']);
  assert.deepEqual(await decided('policy-editor'), ['tolerations:']);
  await page.close();
});

test('typing re-evaluates; selecting a cluster highlights the deciding term', async () => {
  const page = await open();
  await loadExample(page, 'pickn-preferred-labels');
  await page.click('tr:has-text("dev-eastus") button.cluster');
  const highlighted = await page.$$eval('#policy-editor .cm-decided', (ls) => ls.map((l) => l.textContent.trim()));
  assert.deepEqual(highlighted, ['- weight: 20']);
  // Raise the eastus weight to 50: dev-eastus now outranks prod-westus.
  const line = page.locator('#policy-editor .cm-line', { hasText: '- weight: 20' });
  await line.click();
  await page.keyboard.press('End');
  await afterEval(page, async () => { await page.keyboard.press('Backspace'); await page.keyboard.press('Backspace'); await page.keyboard.type('50'); });
  await page.waitForFunction(() => document.querySelector('table.clusters tbody tr:nth-child(2) button')?.textContent === 'dev-eastus');
  const rows = await placementRows(page);
  assert.deepEqual(rows.slice(0, 2).map((r) => `${r[1]} ${r[3]}`), ['prod-eastus 90', 'dev-eastus 50']);
  await shot(page, 'placement-selected');
  await page.close();
});

test('compare shows what changed since the pinned result', async () => {
  const page = await open();
  await loadExample(page, 'pickn-preferred-labels');
  await page.click('#pin');
  await page.click('#policy-editor .cm-content');
  const line = page.locator('#policy-editor .cm-line', { hasText: 'numberOfClusters: 2' });
  await line.click();
  await page.keyboard.press('End');
  await afterEval(page, async () => { await page.keyboard.press('Backspace'); await page.keyboard.type('3'); });
  await page.waitForSelector('#compare li');
  const changes = await texts(page, '#compare li');
  assert.ok(changes.some((c) => /placement api picked: \+ dev-eastus/.test(c)), changes.join(' | '));
  assert.ok(changes.some((c) => /picked count: 2 → 3/.test(c)), changes.join(' | '));
  await page.close();
});

test('export: the result as JSON and the inputs as one YAML file with the replay command', async () => {
  const page = await open();
  await loadExample(page, 'sorter-cpu-cost');
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  assert.equal(json.suggestedFilename(), 'fleet-policy-result.json');
  const result = JSON.parse(readFileSync(await json.path(), 'utf8'));
  assert.match(result.engineVersion, /^[0-9]+\.[0-9]+\.[0-9]+/);
  assert.deepEqual(result.report.placements[0].picked.map((p) => [p.cluster, p.affinityScore]), [['jumpingcat', 100], ['smartfish', 89]]);
  const [yaml] = await Promise.all([page.waitForEvent('download'), page.click('#export-yaml')]);
  const text = readFileSync(await yaml.path(), 'utf8');
  assert.match(text, /^# Replay: fleet-policy evaluate --at \S+ THIS_FILE --format json$/m);
  assert.match(text, /kubernetes.azure.com\/per-cpu-core-cost/);
  assert.match(text, /^---\n# == policy ==\napiVersion: placement/m);
  await page.close();
});

// ---------------------------------------------------------------------------------------------
// Share links, persistence, version notice.

test('a share link restores the whole state; another engine version shows a notice', async () => {
  const page = await open();
  await loadExample(page, 'budget-business-hours');
  assert.deepEqual(await allowedNow(page), { Drifted: '0', Empty: '0', Underutilized: '0' });
  // Saturday noon: the weekday block is not active, 10% of 30 nodes applies.
  await afterEval(page, async () => {
    await page.fill('#eval-time', '2024-03-09T12:00:00');
    await page.dispatchEvent('#eval-time', 'change');
  });
  assert.deepEqual(await allowedNow(page), { Drifted: '3', Empty: '3', Underutilized: '3' });
  await page.click('#share');
  const url = await page.inputValue('#share-url');
  assert.match(url, /#v=[0-9.]+&s=[A-Za-z0-9_-]+$/);
  const original = await page.evaluate(() => JSON.parse(localStorage.getItem('fleet-policy-playground/state')));
  assert.match(original.policy, /0 9 \* \* 1-5/);
  await page.close();

  const other = await env.context.newPage();
  await other.goto(env.base + '/?fresh');
  await other.evaluate(() => localStorage.clear());
  await other.goto(url.replace('/#', '/?link#'));
  await other.waitForSelector('table.allowed');
  assert.equal(await other.getAttribute('#tab-disruption', 'aria-selected'), 'true');
  assert.match(await other.inputValue('#eval-time'), /^2024-03-09T12:00(:00)?$/);
  assert.deepEqual(await allowedNow(other), { Drifted: '3', Empty: '3', Underutilized: '3' });
  assert.equal(await other.$('#notice'), null, 'same engine version: no notice');
  const restored = await other.evaluate(() => JSON.parse(localStorage.getItem('fleet-policy-playground/state')));
  assert.deepEqual(restored, original, 'the link restores the state exactly');
  // Reloading without the fragment restores the last state from localStorage.
  await other.goto(env.base + '/?reload');
  await other.waitForSelector('table.allowed');
  assert.match(await other.inputValue('#eval-time'), /^2024-03-09T12:00(:00)?$/);
  // A link from another engine version opens with a notice (pasted into the same tab).
  await other.goto(url.replace('/#', '/?reload#').replace(/#v=[0-9.]+/, '#v=0.0.1'));
  await other.waitForSelector('#notice');
  assert.match(await other.textContent('#notice'), /engine 0\.0\.1/);
  await other.close();
});

// ---------------------------------------------------------------------------------------------
// Rollout what-ifs and the time slider.

test('what-if controls re-run the rollout simulation; the slider shows each level at an instant', async () => {
  const page = await open();
  await loadExample(page, 'azure-update-run');
  assert.match(await page.textContent('.rollout h2'), /Completed/);
  const endBefore = await page.textContent('.rollout .summary');
  await afterEval(page, () => page.selectOption('tr[data-member="dev-eastus"] select.what-if', 'fail'));
  assert.match(await page.textContent('tr[data-member="dev-eastus"] td.state'), /Failed/);
  assert.doesNotMatch(await page.textContent('.rollout h2'), /Completed/);
  assert.notEqual(await page.textContent('.rollout .summary'), endBefore);
  // The what-if travels in a share link.
  await page.click('#share');
  const url = await page.inputValue('#share-url');
  const linked = await env.context.newPage();
  await linked.goto(url.replace('/#', '/?whatif#'));
  await linked.waitForSelector('table.levels');
  assert.equal(await linked.$eval('tr[data-member="dev-eastus"] select.what-if', (s) => s.value), 'fail');
  assert.match(await linked.textContent('tr[data-member="dev-eastus"] td.state'), /Failed/);
  await linked.close();
  await afterEval(page, () => page.selectOption('tr[data-member="dev-eastus"] select.what-if', ''));
  assert.match(await page.textContent('.rollout h2'), /Completed/);
  // Slide to the very start: nothing has finished yet.
  await afterEval(page, async () => {
    await page.$eval('.slider input[type=range]', (r) => { r.value = '1'; r.dispatchEvent(new Event('input', { bubbles: true })); });
  });
  const states = await texts(page, 'table.levels tr.level-member td.state');
  assert.ok(!states.every((s) => s === 'Completed'), `at the start not every member is done: ${states}`);
  assert.ok(await page.locator('svg.gantt line.cursor').count() === 1);
  await shot(page, 'rollout-slider');
  // KubeFleet: approving the gate lets production go on.
  await loadExample(page, 'kubefleet-staged-run');
  const prodBefore = await texts(page, 'table.levels tr.level-member td.state');
  await afterEval(page, () => page.check('table.levels label.approve input'));
  const prodAfter = await texts(page, 'table.levels tr.level-member td.state');
  assert.notDeepEqual(prodAfter, prodBefore, 'approving the gate changes the simulated states');
  await page.close();
});

// ---------------------------------------------------------------------------------------------
// Dark mode, 390 px, screenshots for the README.

test('dark mode follows the system and toggles; the layout works at 390 px', async () => {
  const page = await env.context.newPage();
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(env.base + '/');
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await page.waitForSelector('.cm-editor');
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.equal(await bg(), 'rgb(13, 17, 23)');
  await shot(page, 'dark');
  await page.click('#theme-toggle');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
  assert.equal(await bg(), 'rgb(247, 248, 250)');
  await page.click('#theme-toggle');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');

  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(100);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(overflow <= 390, `no horizontal page scroll at 390 px (scrollWidth ${overflow})`);
  const panes = await page.$$eval('.pane', (ps) => ps.map((p) => Math.round(p.getBoundingClientRect().width)));
  assert.ok(panes.every((w) => w <= 390 && w > 300), `panes stack in one column: ${panes}`);
  await page.screenshot({ path: join(SCREENSHOTS, 'mobile-390.png'), fullPage: true });
  await page.close();
});

test('a misspelt metadata key is an error at its line, not labels lost without a word', async () => {
  const fleet = 'apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata:\n  name: a\n  lables: {env: prod}\n---\napiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: b, labels: {env: prod}}\n';
  const policy = 'apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: web}\nspec:\n  policy:\n    placementType: PickAll\n    affinity: {clusterAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {clusterSelectorTerms: [{labelSelector: {matchLabels: {env: prod}}}]}}}\n';
  const state = { fleet, policy, at: '2026-03-02T08:00:00Z', view: 'placement', whatIf: {}, example: null };
  const page = await open(shareHash(state));
  const rows = await texts(page, '#diagnostics > ul > li.error .message');
  assert.equal(rows.length, 1, rows.join(' | '));
  assert.match(rows[0], /^unknown field `lables`.*did you mean `labels`\?$/);
  assert.deepEqual(await texts(page, '#diagnostics li.error .location'), ['fleet:5:3']);
  // Cluster a is still evaluated, without labels: env=prod does not select it.
  assert.match(await page.textContent('.placement .summary'), /1 picked/);
  await page.close();
});

test('at 390 px the tab bar is one row and chart labels stay readable', async () => {
  const page = await open('', { viewport: { width: 390, height: 844 } });
  const tabTops = await page.$$eval('.tabs .tab', (ts) => ts.map((t) => Math.round(t.getBoundingClientRect().top)));
  assert.equal(new Set(tabTops).size, 1, `tabs on one row: ${tabTops}`);
  for (const [id, sel] of [['budget-daily-freeze', 'svg.steps .xtick text'], ['azure-update-run', 'svg.gantt.chart .xtick text']]) {
    await loadExample(page, id);
    const heights = await page.$$eval(sel, (ts) => ts.map((t) => t.getBoundingClientRect().height));
    assert.ok(heights.length > 0 && heights.every((h) => h >= 9), `${id}: tick labels at least 9 px tall: ${heights.map((h) => h.toFixed(1))}`);
  }
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(overflow <= 390, `charts scroll inside their figure, not the page (scrollWidth ${overflow})`);
  await page.close();
});

test('identical problems are listed once with every place they occur', async () => {
  const fleet = [0, 1, 2].map((i) => `apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: m${i}}\nspec: {colour: blue}\n`).join('---\n');
  const state = { fleet, policy: PICK_ALL, at: '2026-03-02T08:00:00Z', view: 'placement', whatIf: {}, example: null };
  const page = await open(shareHash(state));
  assert.match(await page.textContent('#diagnostics h2'), /3 error\(s\)/);
  const rows = await texts(page, '#diagnostics > ul > li.error .message');
  assert.deepEqual(rows, ['unknown field `colour`, expected one of `heartbeatPeriodSeconds`, `taints`, `identity`, `deleteOptions`']);
  assert.equal((await page.textContent('#diagnostics li.error details.also summary')).trim(), 'and 2 more place(s) with the same message');
  assert.deepEqual(await texts(page, '#diagnostics li.error details.also .location'), ['fleet:9:8', 'fleet:14:8']);
  await page.close();
});

test('a share link made at "now" says the receiver evaluates at their own now; a long link warns', async () => {
  const page = await open();
  await afterEval(page, () => page.click('#time-now'));
  await page.click('#share');
  assert.match(await page.textContent('#share-at-now'), /whoever opens it sees the result at their own now/);
  assert.equal(await page.$('#share-long'), null, 'a short link: no length warning');
  // A 1,000-cluster fleet makes a link far longer than chat tools keep.
  const state = { fleet: bigFleet(1000), policy: PICK_ALL, at: '2026-03-02T08:00:00Z', view: 'placement', whatIf: {}, example: null };
  const big = await open(shareHash(state));
  await big.click('#share');
  const url = await big.inputValue('#share-url');
  assert.ok(url.length > 8000);
  assert.match(await big.textContent('#share-long'), new RegExp(`^This link is ${url.length} characters long`));
  assert.equal(await big.$('#share-at-now'), null, 'an instant is set: no "now" note');
  await big.close();
  await page.close();
});

test('docs "Open in playground" puts the fleet in the Fleet editor and the policy in the Policy editor', async () => {
  const policy = 'apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: web}\nspec:\n  policy:\n    placementType: PickAll\n    affinity: {clusterAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {clusterSelectorTerms: [{labelSelector: {matchLabels: {env: prod}}}]}}}\n';
  const yaml = DUMP + '---\n' + policy;
  const b64 = Buffer.from(yaml).toString('base64url');
  const page = await open(`#yaml=${b64}&view=placement&at=2026-03-04T12%3A00%3A00Z`);
  await page.waitForSelector('table.clusters tbody tr');
  assert.match(await page.textContent('#fleet-editor .cm-content'), /kind: MemberCluster/);
  assert.doesNotMatch(await page.textContent('#fleet-editor .cm-content'), /ClusterResourcePlacement/);
  assert.match(await page.textContent('#policy-editor .cm-content'), /kind: ClusterResourcePlacement/);
  // Facts and click-to-source read the Fleet editor.
  assert.deepEqual(await texts(page, 'tr:has-text("member-0") .facts li'), ['env=prod']);
  await page.click('tr:has-text("member-1") button.cluster');
  assert.deepEqual(await page.$$eval('#fleet-editor .cm-decided', (ls) => ls.map((l) => l.textContent.trim())), ['metadata: {name: member-1, labels: {env: prod}}']);
  await page.close();
});

test('the facts beside each cluster follow edits of one list item, of the policy, and name the first of a duplicated name', async () => {
  const item = (name, zone) => `- apiVersion: cluster.kubernetes-fleet.io/v1\n  kind: MemberCluster\n  metadata:\n    labels:\n      env: prod\n      zone: ${zone}\n    name: ${name}\n`;
  const list = (items) => `apiVersion: v1\nitems:\n${items.join('')}kind: List\n`;
  const fleet = list([item('member-0', 'a'), item('member-1', 'b'), item('member-2', 'c'), item('member-1', 'z')]);
  const policy = 'apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: web}\nspec:\n  policy:\n    placementType: PickAll\n    affinity: {clusterAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {clusterSelectorTerms: [{labelSelector: {matchLabels: {env: prod}}}]}}}\n';
  const state = { fleet, policy, at: '2026-03-04T12:00:00Z', view: 'placement', whatIf: {}, example: null };
  const page = await open(shareHash(state));
  await page.waitForSelector('table.clusters tbody tr');
  const facts = async () => Object.fromEntries(await page.$$eval('table.clusters tbody tr', (trs) => trs.map((tr) =>
    [tr.querySelector('button.cluster')?.textContent.trim(), [...tr.querySelectorAll('.facts li')].map((l) => l.textContent.trim())])));
  // Only the keys the policy mentions are shown; member-1 is the first of its name.
  assert.deepEqual(await facts(page), { 'member-0': ['env=prod'], 'member-1': ['env=prod'], 'member-2': ['env=prod'] });
  // The policy mentions zone: every cluster shows it, member-1 its first document's.
  await replaceEditor(page, 'policy', policy + '# spread by zone\n');
  assert.deepEqual(await facts(page), { 'member-0': ['env=prod', 'zone=a'], 'member-1': ['env=prod', 'zone=b'], 'member-2': ['env=prod', 'zone=c'] });
  // One item edited: its facts change, the others stay.
  await replaceEditor(page, 'fleet', list([item('member-0', 'a'), item('member-1', 'q'), item('member-2', 'c'), item('member-1', 'z')]));
  assert.deepEqual(await facts(page), { 'member-0': ['env=prod', 'zone=a'], 'member-1': ['env=prod', 'zone=q'], 'member-2': ['env=prod', 'zone=c'] });
  // The first member-1 gone: the second one is used, with its own facts.
  await replaceEditor(page, 'fleet', list([item('member-0', 'a'), item('member-2', 'c'), item('member-1', 'z')]));
  assert.deepEqual(await facts(page), { 'member-0': ['env=prod', 'zone=a'], 'member-1': ['env=prod', 'zone=z'], 'member-2': ['env=prod', 'zone=c'] });
  await page.close();
});

test('edits typed, undone, deleted across items and made after a load are read as the whole text', async () => {
  // The page tells the engine where each edit was (it then compares a few bytes, not the
  // texts): after every kind of edit the result is what a fresh page opening the same state
  // (its share link) shows.
  const item = (i, env) => `- apiVersion: cluster.kubernetes-fleet.io/v1\n  kind: MemberCluster\n  metadata:\n    labels:\n      env: ${env}\n    name: member-${i}\n`;
  const fleet = `apiVersion: v1\nitems:\n${['prod', 'prod', 'dev', 'prod'].map((e, i) => item(i, e)).join('')}kind: List\n`;
  const policy = 'apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: web}\nspec:\n  policy:\n    placementType: PickAll\n    affinity: {clusterAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {clusterSelectorTerms: [{labelSelector: {matchLabels: {env: prod}}}]}}}\n';
  const page = await open(shareHash({ fleet, policy, at: '2026-03-04T12:00:00Z', view: 'placement', whatIf: {}, example: null }));
  await page.waitForSelector('table.clusters tbody tr');
  const picked = async (p) => (await placementRows(p)).filter((r) => r[2] === 'picked').map((r) => r[1]);
  const fresh = async () => {
    await page.click('#share');
    const url = await page.inputValue('#share-url');
    const other = await env.context.newPage();
    await other.goto(url.replace('/#', `/?fresh${Math.random()}#`));
    await other.waitForSelector('table.clusters tbody tr');
    const rows = await placementRows(other);
    await other.close();
    return rows;
  };
  const same = async (what) => assert.deepEqual(await placementRows(page), await fresh(), what);
  assert.deepEqual(await picked(page), ['member-0', 'member-1', 'member-3']);
  // Typed in the middle of the list: member-2 becomes prod.
  await page.locator('#fleet-editor .cm-line', { hasText: 'env: dev' }).click();
  await page.keyboard.press('End');
  for (const key of ['Backspace', 'Backspace', 'Backspace']) await afterEval(page, () => page.keyboard.press(key));
  await afterEval(page, () => page.keyboard.type('prod'));
  assert.deepEqual(await picked(page), ['member-0', 'member-1', 'member-2', 'member-3']);
  await same('typed in one item');
  // Undone: member-2 is dev again.
  await afterEval(page, () => page.keyboard.press('Control+z'));
  await page.waitForFunction(() => !/member-2/.test([...document.querySelectorAll('table.clusters tbody tr')].filter((tr) => /picked/.test(tr.textContent)).map((tr) => tr.textContent).join()));
  await same('undone');
  // Two whole items deleted at once (member-1 and member-2): one edit across items.
  await page.locator('#fleet-editor .cm-line', { hasText: 'name: member-0' }).click();
  await page.keyboard.press('End');
  for (let i = 0; i < 12; i++) await page.keyboard.press('Shift+ArrowDown');
  await afterEval(page, () => page.keyboard.press('Delete'));
  assert.deepEqual(await picked(page), ['member-0', 'member-3']);
  await same('two items deleted');
  // After loading an example (its texts replace both editors), an edit in its fleet.
  await loadExample(page, 'pickall-label-property');
  await page.locator('#fleet-editor .cm-line', { hasText: 'ring: canary' }).click();
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await afterEval(page, () => page.keyboard.type('x'));
  assert.deepEqual(await picked(page), ['aks-eastus-prod', 'aks-westeurope-prod', 'aks-westus-prod']);
  await same('typed after a load');
  await page.close();
});

test('the page has a favicon', async () => {
  const page = await open();
  const href = await page.$eval('link[rel=icon]', (l) => l.href);
  const res = await page.request.get(href);
  assert.equal(res.status(), 200);
  assert.match(await res.text(), /^<svg /);
  await page.close();
});

test('a trap (a panic) restarts the module with the texts; a second trap before it evaluated is said in the page', async () => {
  const page = await open();
  await loadExample(page, 'pickfixed');
  const policy = await page.textContent('#policy-editor .cm-content');
  // A panic aborts as a wasm trap; what reaches the page is the RuntimeError it throws.
  const trap = () => page.evaluate(() => window.dispatchEvent(new ErrorEvent('error', {
    error: new WebAssembly.RuntimeError('unreachable'), message: 'unreachable',
  })));
  await trap();
  await page.waitForSelector('#app-host .app[data-eval-seq="0"] #notice');
  assert.equal(await page.$$eval('.app', (a) => a.length), 1, 'the stopped app is gone');
  assert.match(await page.textContent('#notice'), /^The playground stopped on an internal error \(unreachable\) and was started again with your texts; it evaluates again on your next edit/);
  assert.equal(await page.textContent('#policy-editor .cm-content'), policy, 'the texts are kept');
  assert.equal(await page.$('#panic'), null);
  // Trapping again before the restarted module evaluated anything is not retried (the input
  // may be what trips the bug): the page says so, with how to report it.
  await trap();
  const text = await page.$eval('#panic', (d) => d.textContent);
  assert.match(text, /stopped on an internal error: unreachable\. Please report it with your input/);
  // Other script errors are not the engine stopping.
  await page.evaluate(() => { document.getElementById('panic').remove(); window.dispatchEvent(new ErrorEvent('error', { error: new TypeError('x') })); });
  assert.equal(await page.$('#panic'), null);
  await page.close();
});

test('after a real trap in an evaluation, the next edit evaluates (no reload)', async () => {
  const page = await open();
  await loadExample(page, 'pickfixed');
  const rows = await placementRows(page);
  assert.ok(rows.length > 0);
  // The test hook makes the next evaluation trap, as a bug in the engine would.
  await page.evaluate(async () => (await import('/fleet_playground.js')).__test_trap_next_evaluation());
  await page.click('#policy-editor .cm-content');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('#');
  await page.waitForSelector('#app-host .app[data-eval-seq="0"] #notice');
  assert.match(await page.textContent('#notice'), /stopped on an internal error \(unreachable\) and was started again with your texts/);
  assert.match(await page.textContent('#policy-editor .cm-content'), /#$/, 'the keystroke that trapped is kept');
  // The next edit evaluates in the new instance.
  await page.click('#policy-editor .cm-content');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('#');
  await page.waitForSelector('#app-host .app[data-eval-seq="1"]');
  assert.deepEqual(await placementRows(page), rows);
  assert.equal(await page.$('#panic'), null);
  // A second trap after that evaluation restarts again.
  await page.evaluate(async () => (await import('/fleet_playground.js?restart=1')).__test_trap_next_evaluation());
  await page.keyboard.type('#');
  await page.waitForSelector('#app-host .app[data-eval-seq="0"] #notice');
  await page.click('#policy-editor .cm-content');
  await page.keyboard.press('Control+Enter');
  await page.waitForSelector('#app-host .app[data-eval-seq="1"]');
  assert.deepEqual(await placementRows(page), rows);
  await page.close();
});

test('README screenshots: one per view', async () => {
  const page = await env.context.newPage();
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.goto(env.base + '/');
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await page.waitForSelector('.cm-editor');
  for (const [id, view] of [['sorter-available-cpu', 'placement'], ['budget-daily-freeze', 'disruption'], ['azure-update-run', 'rollout']]) {
    await loadExample(page, id);
    await page.screenshot({ path: join(SCREENSHOTS, `view-${view}.png`) });
  }
  await page.close();
});

// ---------------------------------------------------------------------------------------------
// Performance.

function shareHash(state) {
  const version = readFileSync(join(ROOT, 'Cargo.toml'), 'utf8').match(/^version = "([^"]+)"/m)[1];
  const packed = deflateRawSync(Buffer.from(JSON.stringify(state)), { level: 9 });
  return `#v=${version}&s=${packed.toString('base64url')}`;
}

function bigFleet(n) {
  const docs = [];
  const regions = ['eastus', 'westus', 'westeurope', 'northeurope', 'southeastasia'];
  for (let i = 0; i < n; i++) {
    docs.push(`apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata:\n  name: member-${String(i).padStart(4, '0')}\n  labels: {region: ${regions[i % 5]}, environment: ${i % 3 ? 'production' : 'staging'}}\nstatus:\n  agentStatus: [{type: MemberAgent, lastReceivedHeartbeat: "2026-03-02T07:59:00Z", conditions: [{type: Joined, status: "True"}, {type: Healthy, status: "True"}]}]\n  properties:\n    kubernetes-fleet.io/node-count: {value: "${(i * 7) % 50 + 1}"}\n`);
  }
  return docs.join('---\n');
}

const p95 = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)]; };

test('performance: first render, keystroke-to-result on 1,000 clusters, gzipped transfer', async () => {
  // First render of the default example after load.
  const page = await env.context.newPage();
  await page.goto(env.base + '/');
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await page.waitForSelector('table.clusters tbody tr');
  const first = await page.evaluate(() => performance.getEntriesByName('fleet:first-result')[0]?.startTime);
  assert.ok(first > 0);

  // The page's transfer: every file it fetched, gzipped.
  const files = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname));
  let gz = 0;
  for (const f of new Set(['/index.html', ...files])) {
    gz += gzipSync(readFileSync(join(ROOT, 'dist', f === '/' ? 'index.html' : f)), { level: 9 }).length;
  }
  await page.close();

  // Keystroke to updated result, 1,000-cluster fleet, PickN with preferred terms.
  const policy = `apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: big}\nspec:\n  policy:\n    placementType: PickN\n    numberOfClusters: 25\n    affinity:\n      clusterAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          clusterSelectorTerms:\n            - labelSelector: {matchLabels: {environment: production}}\n        preferredDuringSchedulingIgnoredDuringExecution:\n          - weight: 60\n            preference:\n              propertySorter: {name: kubernetes-fleet.io/node-count, sortOrder: Descending}\n          - weight: 40\n            preference:\n              labelSelector: {matchLabels: {region: eastus}}\n# typing here:\n`;
  const state = { fleet: bigFleet(1000), policy, at: '2026-03-02T08:00:00Z', view: 'placement', whatIf: {}, example: null };
  const big = await env.context.newPage();
  await big.goto(env.base + '/');
  await big.evaluate(() => localStorage.clear());
  await big.goto(env.base + '/' + shareHash(state));
  await big.waitForSelector('table.clusters tbody tr');
  assert.match(await big.textContent('.placement .summary'), /25 picked/);
  await big.evaluate(() => {
    window.__keys = [];
    document.addEventListener('keydown', (e) => window.__keys.push(e.timeStamp), true);
  });
  await big.click('#policy-editor .cm-line:last-child');
  await big.keyboard.press('End');
  const samples = [];
  for (let k = 0; k < 30; k++) {
    const before = await seq(big);
    const marks = await big.evaluate(() => performance.getEntriesByName('fleet:result').length);
    await big.keyboard.type(String.fromCharCode(97 + (k % 26)));
    await big.waitForFunction((b) => Number(document.querySelector('.app').dataset.evalSeq) > b, before);
    samples.push(await big.evaluate((m) => {
      const mark = performance.getEntriesByName('fleet:result')[m] ?? performance.getEntriesByName('fleet:result').at(-1);
      return mark.startTime - window.__keys.at(-1);
    }, marks));
  }
  const evalMs = await big.evaluate(() => {
    const s = performance.getEntriesByName('fleet:evaluate-start');
    const e = performance.getEntriesByName('fleet:evaluate-end');
    const d = e.map((m, k) => m.startTime - (s[k]?.startTime ?? m.startTime)).sort((a, b) => a - b);
    return d[Math.floor(d.length / 2)];
  });
  const engineMs = `median engine ${evalMs.toFixed(1)} ms per keystroke`;
  await big.screenshot({ path: join(SCREENSHOTS, 'perf-1000.png') });
  await big.close();
  const med = [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];
  console.log(`[perf] first render of the default example: ${first.toFixed(0)} ms after navigation start`);
  console.log(`[perf] keystroke-to-updated-result, 1,000 clusters: median ${med.toFixed(1)} ms, p95 ${p95(samples).toFixed(1)} ms (${samples.length} keystrokes; ${engineMs})`);
  console.log(`[perf] page transfer (wasm + JS + CSS + HTML, gzipped): ${(gz / 1024).toFixed(1)} KiB`);
  // The playground's transfer budget (SIZE.md).
  assert.ok(gz <= 650 * 1024, 'at most 650 KB gzipped');
});

/** `kubectl get memberclusters -o yaml` as kubectl prints it: block style (kubectl writes no flow
 * collections but `{}` and `[]`), keys sorted, items trimmed to what varies: labels, agent
 * status with its heartbeat and conditions, a property (about 1 KB each). */
function kubectlFleet(n) {
  const regions = ['eastus', 'westus', 'westeurope', 'northeurope', 'southeastasia'];
  const items = [];
  for (let i = 0; i < n; i++) {
    const name = `member-${String(i).padStart(5, '0')}`;
    items.push(`- apiVersion: cluster.kubernetes-fleet.io/v1beta1
  kind: MemberCluster
  metadata:
    labels:
      env: ${i % 3 ? 'prod' : 'staging'}
      fleet.azure.com/location: ${regions[i % 5]}
    name: ${name}
    uid: 3f1c2d9e-5b7a-4c1e-9a0f-${String(i).padStart(12, '0')}
  spec:
    heartbeatPeriodSeconds: 60
  status:
    agentStatus:
    - conditions:
      - lastTransitionTime: "2025-11-10T09:13:20Z"
        reason: MemberAgentJoined
        status: "True"
        type: Joined
      - lastTransitionTime: "2025-11-10T09:13:20Z"
        reason: MemberAgentHealthy
        status: "True"
        type: Healthy
      lastReceivedHeartbeat: "2026-03-04T11:58:${String(i % 60).padStart(2, '0')}Z"
      type: MemberAgent
    properties:
      kubernetes-fleet.io/node-count:
        observationTime: "2026-03-04T11:58:00Z"
        value: "${(i * 7) % 50 + 1}"`);
  }
  return `apiVersion: v1\nitems:\n${items.join('\n')}\nkind: List\nmetadata:\n  resourceVersion: ""\n`;
}

test('performance: 10,000 kubectl clusters: first result after pasting, keystroke-to-result in both editors, longest main-thread task', { timeout: 300000 }, async () => {
  const policy = `apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: big}\nspec:\n  policy:\n    placementType: PickN\n    numberOfClusters: 25\n    affinity:\n      clusterAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          clusterSelectorTerms:\n            - labelSelector: {matchLabels: {env: prod}}\n        preferredDuringSchedulingIgnoredDuringExecution:\n          - weight: 60\n            preference:\n              propertySorter: {name: kubernetes-fleet.io/node-count, sortOrder: Descending}\n          - weight: 40\n            preference:\n              labelSelector: {matchLabels: {fleet.azure.com/location: eastus}}\n# typing here:\n`;
  const fleet = kubectlFleet(10000);
  const state = { fleet: '', policy, at: '2026-03-04T12:00:00Z', view: 'placement', whatIf: {}, example: null };
  const page = await open(shareHash(state));
  await page.evaluate(() => {
    // Long tasks as [start, duration]: the observer reports them late, so a phase's own are
    // told apart by time, not by when they arrive.
    window.__long = [];
    new PerformanceObserver((l) => window.__long.push(...l.getEntries().map((e) => [e.startTime, e.duration]))).observe({ type: 'longtask' });
    window.__keys = [];
    document.addEventListener('keydown', (e) => window.__keys.push(e.timeStamp), true);
  });
  // Paste the fleet (a paste event, as the clipboard delivers it: typing 4 MB through the
  // keyboard would take minutes).
  await page.click('#fleet-editor .cm-content');
  const pasteStart = await page.evaluate((t) => {
    const start = performance.now();
    const data = new DataTransfer();
    data.setData('text/plain', t);
    document.querySelector('#fleet-editor .cm-content').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    return start;
  }, fleet);
  await page.waitForFunction(() => /25 picked/.test(document.querySelector('.placement .summary')?.textContent ?? ''), null, { timeout: 60000 });
  const firstMs = await page.evaluate((t) => performance.getEntriesByName('fleet:result').at(-1).startTime - t, pasteStart);
  // `keys(k)` is the k-th keystroke; `at` puts the cursor where typing happens.
  const measure = async (which, at, keys) => {
    await page.click(`#${which}-editor .cm-content`);
    await at();
    await page.waitForTimeout(100);
    const samples = [];
    const first = await page.evaluate(() => window.__keys.length);
    for (let k = 0; k < 20; k++) {
      const before = await seq(page);
      const marks = await page.evaluate(() => performance.getEntriesByName('fleet:result').length);
      await page.keyboard.press(keys(k));
      await page.waitForFunction((b) => Number(document.querySelector('.app').dataset.evalSeq) > b, before, { timeout: 30000 });
      samples.push(await page.evaluate((m) => {
        const mark = performance.getEntriesByName('fleet:result')[m] ?? performance.getEntriesByName('fleet:result').at(-1);
        return mark.startTime - window.__keys.at(-1);
      }, marks));
    }
    // Tasks that ran while typing: they end after the first keystroke of this phase (a
    // moment for the last ones to be reported).
    await page.waitForTimeout(50);
    const longest = await page.evaluate((f) => {
      const typing = window.__keys[f];
      return Math.max(0, ...window.__long.filter(([s, d]) => s + d > typing).map(([, d]) => d));
    }, first);
    return { samples, longest };
  };
  const end = async () => page.keyboard.press('Control+End');
  // In a comment of the policy and in blank space after the fleet: nothing read changes.
  const pol = await measure('policy', end, () => '#');
  const flt = await measure('fleet', async () => { await end(); await page.keyboard.press('Enter'); }, () => 'Space');
  // Edits that change the decision: numberOfClusters 25 → 251 → 25 → 252 … (the placement is
  // scheduled again over the 10,000 clusters on every keystroke).
  const numberLine = async () => { await page.keyboard.press('Control+Home'); for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowDown'); await page.keyboard.press('End'); };
  const value = await measure('policy', numberLine, (k) => (k % 2 ? 'Backspace' : `Digit${1 + (k % 9)}`));
  // An edit inside an item of the list: a cluster's label value, `env: staging` (only that
  // item is read again).
  const lineEnd = (line) => async () => {
    await page.keyboard.press('Control+Home');
    for (let i = 1; i < line; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
  };
  const item = await measure('fleet', lineEnd(7), (k) => (k % 2 ? 'Backspace' : 'KeyX'));
  // A typo in that item's key, `labels:` → `labelsx:`: an unknown field, an error each time.
  const typo = await measure('fleet', async () => { await lineEnd(6)(); await page.keyboard.press('ArrowLeft'); }, (k) => (k % 2 ? 'Backspace' : 'KeyX'));
  await page.close();
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`[perf] 10,000 kubectl clusters (${(fleet.length / 1e6).toFixed(1)} MB): first result after pasting the fleet ${firstMs.toFixed(0)} ms (target ≤ 1000)`);
  const rows = [['policy editor (a comment)', pol], ['fleet editor (blank space)', flt],
    ['policy editor (numberOfClusters)', value], ['fleet editor (a label in one item)', item],
    ['fleet editor (a typo in one item\'s key, an error)', typo]];
  for (const [name, r] of rows) {
    console.log(`[perf] 10,000 clusters, ${name}: keystroke-to-result median ${med(r.samples).toFixed(0)} ms, p95 ${p95(r.samples).toFixed(0)} ms (target ≤ 50); longest main-thread task while typing ${r.longest.toFixed(0)} ms (target ≤ 50)`);
  }
  assert.ok(firstMs > 0);
});

test('performance: the same 10,000 clusters as kubectl -o json: a label typed in one item reads that item only', { timeout: 300000 }, async () => {
  const regions = ['eastus', 'westus', 'westeurope', 'northeurope', 'southeastasia'];
  const items = Array.from({ length: 10000 }, (_, i) => ({
    apiVersion: 'cluster.kubernetes-fleet.io/v1beta1', kind: 'MemberCluster',
    metadata: { labels: { env: i % 3 ? 'prod' : 'staging', 'fleet.azure.com/location': regions[i % 5] }, name: `member-${String(i).padStart(5, '0')}` },
    spec: { heartbeatPeriodSeconds: 60 },
    status: {
      agentStatus: [{ conditions: [{ lastTransitionTime: '2025-11-10T09:13:20Z', reason: 'MemberAgentJoined', status: 'True', type: 'Joined' }, { lastTransitionTime: '2025-11-10T09:13:20Z', reason: 'MemberAgentHealthy', status: 'True', type: 'Healthy' }], lastReceivedHeartbeat: `2026-03-04T11:58:${String(i % 60).padStart(2, '0')}Z`, type: 'MemberAgent' }],
      properties: { 'kubernetes-fleet.io/node-count': { observationTime: '2026-03-04T11:58:00Z', value: String((i * 7) % 50 + 1) } },
    },
  }));
  // As kubectl prints it: four spaces, each item on lines of its own.
  const fleet = `${JSON.stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, null, 4)}\n`;
  const policy = 'apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: big}\nspec:\n  policy:\n    placementType: PickN\n    numberOfClusters: 25\n    affinity:\n      clusterAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          clusterSelectorTerms:\n            - labelSelector: {matchLabels: {env: prod}}\n        preferredDuringSchedulingIgnoredDuringExecution:\n          - weight: 60\n            preference:\n              propertySorter: {name: kubernetes-fleet.io/node-count, sortOrder: Descending}\n';
  const page = await open(shareHash({ fleet: '', policy, at: '2026-03-04T12:00:00Z', view: 'placement', whatIf: {}, example: null }));
  await page.click('#fleet-editor .cm-content');
  await page.evaluate((t) => {
    const data = new DataTransfer();
    data.setData('text/plain', t);
    document.querySelector('#fleet-editor .cm-content').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, fleet);
  await page.waitForFunction(() => /25 picked/.test(document.querySelector('.placement .summary')?.textContent ?? ''), null, { timeout: 60000 });
  // The second item's env label ("prod"): typing x after it filters member-00001 out.
  const lines = fleet.split('\n');
  const name = lines.findIndex((l) => l.includes('"name": "member-00001"'));
  const env = lines.slice(0, name).findLastIndex((l) => l.includes('"env"'));
  await page.keyboard.press('Control+Home');
  for (let i = 0; i < env; i++) await page.keyboard.press('ArrowDown');
  const line = await page.$eval('#fleet-editor .cm-activeLine', (l) => l.textContent);
  assert.equal(line.trim(), '"env": "prod",', 'the cursor is on the second item\'s label');
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  const samples = [];
  for (let k = 0; k < 10; k++) {
    await page.evaluate(() => performance.clearMarks());
    await afterEval(page, () => page.keyboard.press(k % 2 ? 'Backspace' : 'KeyX'));
    samples.push(await page.evaluate(() => {
      const [s] = performance.getEntriesByName('fleet:evaluate-start');
      const [e] = performance.getEntriesByName('fleet:evaluate-end');
      return e.startTime - s.startTime;
    }));
  }
  const filtered = async () => Number((await page.textContent('.placement .summary')).match(/(\d+) filtered/)?.[1]);
  const before = await filtered();
  await afterEval(page, () => page.keyboard.press('KeyX'));
  assert.equal(await filtered(), before + 1, 'member-00001 (env: prodx) is filtered out');
  const med = [...samples].sort((a, b) => a - b)[5];
  console.log(`[perf] 10,000 clusters as kubectl -o json (${(fleet.length / 1e6).toFixed(1)} MB), a label typed in one item: engine run median ${med.toFixed(0)} ms, p95 ${p95(samples).toFixed(0)} ms`);
  await page.close();
});

// ---------------------------------------------------------------------------------------------
// Real dumps: the snapshot instant, notices, the last good result, and share links over a
// saved session.

const DUMP = [0, 1, 2].map((i) => `apiVersion: cluster.kubernetes-fleet.io/v1beta1
kind: MemberCluster
metadata: {name: member-${i}, labels: {env: prod}}
status:
  agentStatus:
  - type: MemberAgent
    lastReceivedHeartbeat: "2026-03-04T11:58:4${i}Z"
    conditions:
    - {type: Joined, status: "True", lastTransitionTime: "2025-11-10T09:13:20Z"}
    - {type: Healthy, status: "True", lastTransitionTime: "2025-11-10T09:13:20Z"}
`).join('---\n');
const PICK_ALL = 'apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: web}\nspec:\n  policy: {placementType: PickAll}\n';

test('a pasted dump is evaluated when it was taken; at now a notice says why all are filtered', async () => {
  const state = { fleet: DUMP, policy: PICK_ALL, at: null, view: 'placement', whatIf: {}, example: null };
  const page = await open(shareHash(state));
  await page.waitForSelector('table.clusters tbody tr');
  assert.match(await page.textContent('.evaluated'), /^Evaluated at 2026-03-04T11:58:42Z \(the input's snapshot/);
  assert.equal(await page.getAttribute('#time-snapshot', 'aria-pressed'), 'true');
  assert.deepEqual((await placementRows(page)).map((r) => [r[1], r[2]]),
    [['member-0', 'picked'], ['member-1', 'picked'], ['member-2', 'picked']]);
  assert.equal(await page.$('#notices'), null);
  // Now (months later): every heartbeat is stale; the notice names the snapshot and offers it.
  await afterEval(page, () => page.click('#time-now'));
  const notice = await page.textContent('#notices li[data-kind="staleHeartbeats"]');
  assert.match(notice, /^3 of 3 member agents sent no heartbeat in the 5 minutes before .*; the input was captured at 2026-03-04T11:58:42Z/);
  assert.match(await page.textContent('.placement .summary'), /0 picked/);
  await afterEval(page, () => page.click('#notices .to-snapshot'));
  assert.match(await page.textContent('.evaluated'), /the input's snapshot/);
  assert.equal(await page.$('#notices'), null);
  await shot(page, 'snapshot-instant');
  await page.close();
});

test('while the input has errors, the last result that evaluated stays, dimmed and labelled', async () => {
  const page = await open();
  await loadExample(page, 'pickfixed');
  const before = await placementRows(page);
  assert.ok(before.length > 0);
  await replaceEditor(page, 'policy', 'apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: [oops}\n');
  await page.waitForSelector('#stale-label');
  assert.equal(await page.textContent('#stale-label'), 'Showing the last result that evaluated; fix the errors to update it.');
  assert.match(await page.getAttribute('#result-panel', 'class'), /\bstale\b/);
  assert.deepEqual(await placementRows(page), before);
  assert.match(await page.textContent('#diagnostics li.error .message'), /^invalid YAML: /);
  await page.close();
});

test('opening a share link keeps the saved session, with a way back', async () => {
  const page = await open();
  await loadExample(page, 'budget-business-hours');
  const saved = await page.evaluate(() => localStorage.getItem('fleet-policy-playground/state'));
  const state = { fleet: DUMP, policy: PICK_ALL, at: null, view: 'placement', whatIf: {}, example: null };
  await page.goto(env.base + '/?link' + shareHash(state));
  await page.waitForSelector('table.clusters tbody tr');
  await page.waitForSelector('#restore-previous');
  await afterEval(page, () => page.click('#restore-previous'));
  await page.waitForSelector('table.allowed');
  assert.equal(await page.evaluate(() => localStorage.getItem('fleet-policy-playground/state')), saved);
  assert.equal(await page.$('#restore-previous'), null);
  await page.close();
});
