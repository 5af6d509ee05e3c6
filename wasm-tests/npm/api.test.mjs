// The npm package under Node, imported from the packed tarball installed into a temporary
// project: every API function on the product docs' examples (exact picks, scores, orders),
// results identical to the CLI's JSON, input errors inside results, API misuse thrown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installed, EXAMPLES, ROOT } from './consumer.mjs';

const fp = await import(pathToFileURL(join(installed(), 'use.mjs')).href);
const AT = '2026-03-04T12:00:00Z';
const example = (name) => readFileSync(join(EXAMPLES, name), 'utf8');
const CLI = join(ROOT, 'target', 'debug', 'fleet-policy');

/** What the CLI prints for the same file and instant. */
function cli(command, file, at = AT) {
  try {
    return JSON.parse(execFileSync(CLI, [command, file, '--at', at, '--format', 'json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch (e) {
    // Exit code 1 = input errors; the JSON is still on stdout.
    if (e.status === 1 && e.stdout) return JSON.parse(e.stdout);
    throw e;
  }
}

const picks = (p) => p.picked.map((c) => [c.cluster, c.affinityScore, c.topologySpreadScore]);
const filtered = (p) => p.filtered.map((c) => [c.cluster, c.plugin]);
const AFFINITY_REASON = 'ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms';

test('the Node entry is loaded at import; init() and initSync() are harmless there', async () => {
  assert.equal(fp.isInitialized(), true);
  await fp.init();
  fp.initSync(new Uint8Array());
  assert.equal(typeof fp.default, 'function');
});

test('version() is the workspace version, and the package.json version', () => {
  const cargo = readFileSync(join(ROOT, 'Cargo.toml'), 'utf8');
  const want = /\[workspace\.package\][^[]*?\nversion\s*=\s*"([^"]+)"/.exec(cargo)[1];
  assert.equal(fp.version(), want);
  const pkg = JSON.parse(readFileSync(join(installed(), 'node_modules', 'fleet-policy', 'package.json'), 'utf8'));
  assert.equal(pkg.version, want);
});

test('place: docs example "matchLabels and Exists in one term" picks east-critical only', () => {
  const r = fp.place(example('docs-affinity-matchlabels-exists.yaml'), { at: AT });
  assert.deepEqual(r.errors, []);
  assert.equal(r.placements.length, 1);
  const p = r.placements[0];
  assert.equal(p.name, 'crp-east-system');
  assert.deepEqual(picks(p), [['east-critical', 0, 0]]);
  assert.deepEqual(filtered(p), [['east-nosystem', 'ClusterAffinity'], ['west-critical', 'ClusterAffinity']]);
  assert.deepEqual(p.filtered.map((f) => f.reason), [AFFINITY_REASON, AFFINITY_REASON]);
});

test('place: docs example "two terms ORed" picks east-nosystem and west-critical, in name order', () => {
  const p = fp.place(example('docs-affinity-two-terms.yaml'), { at: new Date(AT) }).placements[0];
  assert.deepEqual(picks(p), [['east-nosystem', 0, 0], ['west-critical', 0, 0]]);
  assert.deepEqual(filtered(p), [['east-critical', 'ClusterAffinity']]);
  // The explanation is data: term 0 failed on region (observed east), term 1 on system.
  const terms = p.filtered[0].explanation.terms;
  assert.deepEqual(terms.map((t) => [t.term, t.mismatch.requirement.key, t.mismatch.requirement.operator, t.mismatch.observed]),
    [[0, 'region', 'In', 'east'], [1, 'system', 'DoesNotExist', 'critical']]);
  assert.equal(p.condition.status, 'True');
  assert.equal(p.condition.message, 'found all cluster needed as specified by the scheduling policy, found 2 cluster(s)');
});

test('place: docs example "per-CPU-core cost, Ascending" ranks 0.1 / 0.2 / 1 as 100 / 89 / 0 of weight 100', () => {
  const r = fp.place(example('docs-sorter-per-cpu-core-cost.yaml'), { at: AT });
  assert.deepEqual(r.errors, []);
  const p = r.placements[0];
  assert.deepEqual(picks(p), [['jumpingcat', 100, 0], ['smartfish', 89, 0]]);
  assert.deepEqual(p.notPicked.map((c) => [c.cluster, c.affinityScore, c.topologySpreadScore]), [['bravelion', 0, 0]]);
  assert.deepEqual(p.filtered, []);
  assert.deepEqual([p.condition.status, p.condition.reason], ['True', 'SchedulingPolicyFulfilled']);
  // The clusters carry member agent status (heartbeats at 11:59): nothing to warn about.
  assert.deepEqual(r.warnings, []);
  assert.equal(r.notices, undefined);
  // "snapshot" evaluates at the input's own instant, its newest heartbeat: the same picks.
  const snap = fp.place(example('docs-sorter-per-cpu-core-cost.yaml'), { at: 'snapshot' });
  assert.deepEqual(picks(snap.placements[0]), [['jumpingcat', 100, 0], ['smartfish', 89, 0]]);
  // A day later every heartbeat is stale: all filtered, and a notice names the snapshot.
  const late = fp.place(example('docs-sorter-per-cpu-core-cost.yaml'), { at: '2026-03-05T12:00:00Z' });
  assert.deepEqual(picks(late.placements[0]), []);
  assert.deepEqual(late.notices.map((n) => [n.kind, n.count, n.snapshot]), [['staleHeartbeats', 3, '2026-03-04T11:59:00Z']]);
});

test('results are identical to the CLI JSON for every example', () => {
  const runs = [
    ['place', 'docs-affinity-matchlabels-exists.yaml'], ['place', 'docs-affinity-two-terms.yaml'],
    ['place', 'docs-sorter-per-cpu-core-cost.yaml'], ['place', 'pick-all-by-label.yaml'],
    ['budgets', 'docs-budgets-three-budgets.yaml'], ['budgets', 'docs-budgets-business-hours.yaml'],
    ['rollout', 'docs-rollout-azure-two-stages.yaml'],
  ];
  for (const [fn, name] of runs) {
    const file = join(EXAMPLES, name);
    assert.deepEqual(fp[fn](readFileSync(file, 'utf8'), { at: AT, source: file }), cli(fn, file), `${fn} ${name}`);
  }
});

test('text beyond ASCII reads as the CLI reads the same UTF-8 file: names, values and columns counted in characters', () => {
  // The wrapper passes the text as UTF-8 bytes; a lone surrogate becomes U+FFFD, as it does
  // when Node writes the string to the file the CLI reads.
  const yaml = [
    '# Flotte de démonstration ☕ — 😀 and a lone surrogate: \uD800',
    'apiVersion: cluster.kubernetes-fleet.io/v1',
    'kind: MemberCluster',
    'metadata: {name: café, labels: {région: "Zürich 😀", env: prod}}',
    '---',
    'apiVersion: placement.kubernetes-fleet.io/v1',
    'kind: ClusterResourcePlacement',
    'metadata: {name: wéb}',
    'spec:',
    '  policy: {placementType: PickAll, affinity: {clusterAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {clusterSelectorTerms: [{labelSelector: {matchLabels: {env: "prod ☕"}}}]}}}}',
    '---',
    'apiVersion: placement.kubernetes-fleet.io/v1',
    'kind: ClusterResourcePlacement',
    'metadata: {name: 日本}',
    'spec: {policy: {placementType: "😀😀", numberOfClusters: 1}}',
  ].join('\n');
  const file = join(mkdtempSync(join(tmpdir(), 'fleet-policy-')), 'unicode.yaml');
  writeFileSync(file, yaml);
  const r = fp.evaluate(yaml, { at: AT, source: file });
  assert.deepEqual(r, cli('evaluate', file));
  // The API server takes none of the names nor the label key (RFC 1123 subdomains, a
  // qualified name): errors, counted in characters too; everything is still evaluated.
  assert.deepEqual(r.errors.map((e) => [e.document, e.name, e.line, e.column, e.path.split('.').at(-1)]),
    [[1, 'café', 4, 18, 'name'], [1, 'café', 4, 41, 'labels["région"]'],
      [2, 'wéb', 8, 18, 'name'], [2, 'wéb', 10, 173, 'env'],
      [3, '日本', 14, 18, 'name'], [3, '日本', 15, 32, 'placementType']]);
  assert.match(r.errors[5].message, /^Unsupported value: "😀😀"/);
});

const allowed = (np) => np.allowedDisruptions;

test('budgets: docs example with three budgets over 19 nodes, at midday and just after midnight', () => {
  const yaml = example('docs-budgets-three-budgets.yaml');
  const noon = fp.budgets(yaml, { at: '2026-03-04T12:00:00Z' });
  assert.deepEqual(noon.errors, []);
  const np = noon.nodePools[0];
  assert.equal(np.name, 'default');
  assert.equal(np.nodes.total, 19);
  assert.deepEqual(allowed(np), { Drifted: 4, Empty: 4, Underutilized: 5 });
  assert.deepEqual(np.activeBudgets.map((b) => b.index), [0, 1]);
  assert.equal(np.nextChange, '2026-03-05T00:00:00Z');
  assert.deepEqual(np.timeline.slice(0, 3).map((t) => [t.at, t.allowedDisruptions.Underutilized]),
    [['2026-03-04T12:00:00Z', 5], ['2026-03-05T00:00:00Z', 0], ['2026-03-05T00:10:00Z', 5]]);
  const midnight = fp.budgets(yaml, { at: '2026-03-04T00:05:00Z' }).nodePools[0];
  assert.deepEqual(allowed(midnight), { Drifted: 4, Empty: 4, Underutilized: 0 });
  assert.equal(midnight.nextChange, '2026-03-04T00:10:00Z');
});

test('without options.at the evaluation instant is now (read by the wrapper, to the millisecond)', () => {
  const yaml = example('docs-budgets-three-budgets.yaml');
  for (const options of [undefined, {}, { at: null }]) {
    const before = Date.now();
    const r = fp.budgets(yaml, options);
    const after = Date.now();
    const at = Date.parse(r.at);
    assert.ok(at >= before - 1 && at <= after + 1, `${r.at} not in [${before}, ${after}]`);
  }
});

test('budgets: docs example blocking business hours — 0 until 17:00, then 10% of 30 = 3', () => {
  const np = fp.budgets(example('docs-budgets-business-hours.yaml'), { at: '2026-03-04T12:00:00Z' }).nodePools[0];
  assert.deepEqual(allowed(np), { Drifted: 0, Empty: 0, Underutilized: 0 });
  assert.deepEqual(np.activeBudgets.map((b) => [b.index, b.binding, b.activeUntil]),
    [[0, ['Drifted', 'Empty', 'Underutilized'], '2026-03-04T17:00:00Z'], [1, [], undefined]]);
  assert.equal(np.nextChange, '2026-03-04T17:00:00Z');
  const evening = fp.budgets(example('docs-budgets-business-hours.yaml'), { at: '2026-03-04T18:00:00Z', horizon: '24h' });
  assert.deepEqual(allowed(evening.nodePools[0]), { Drifted: 3, Empty: 3, Underutilized: 3 });
  assert.equal(evening.horizonEnd, '2026-03-05T18:00:00Z');
});

test('budgets: the pass over all NodePools — Drift acts, with the oldest drifted node, within the pool budget of 1', () => {
  const r = fp.budgets(example('budget-candidates.yaml'), { at: '2024-03-05T12:00:00Z' });
  assert.equal(r.pass.acting, 'Drift');
  const drift = r.pass.methods.find((m) => m.method === 'Drift');
  assert.deepEqual(drift.commands, [['node-b']]);
  assert.deepEqual(drift.budgets, [{ nodePool: 'general', allowed: 1, used: 1 }]);
  assert.deepEqual(drift.candidates.map((c) => [c.node, c.nodePool, c.selected, c.notSelected?.kind]),
    [['node-b', 'general', true, undefined], ['node-a', 'general', false, undefined]]);
  assert.deepEqual(fp.evaluate(example('budget-candidates.yaml'), { at: '2024-03-05T12:00:00Z' }).disruptionPass, r.pass);
});

test('evaluate: the placement, and its rollout to exactly the clusters it picked', () => {
  const yaml = example('docs-affinity-two-terms.yaml');
  const r = fp.evaluate(yaml, { at: AT });
  assert.deepEqual(r.placements, fp.place(yaml, { at: AT }).placements);
  assert.deepEqual(r.nodePools, []);
  // Every CRP rolls out (RollingUpdate by default), to the placement's picks, never others.
  assert.deepEqual(r.rollouts.map((ro) => [ro.kind, ro.name, ro.targets.source, ro.targets.clusters]),
    [['ClusterResourcePlacement', 'crp-west-or-unlabelled', 'placement', ['east-nosystem', 'west-critical']]]);
  assert.deepEqual(r.rollouts[0].stages[0].groups[0].members.map((m) => m.cluster), ['east-nosystem', 'west-critical']);
  assert.deepEqual(r.rollouts, fp.rollout(yaml, { at: AT }).rollouts);
  assert.deepEqual(r.errors, []);
});

test('validate: a valid example is valid; broken YAML gives errors with line:column', () => {
  const ok = fp.validate(example('docs-affinity-two-terms.yaml'));
  assert.deepEqual([ok.valid, ok.errors, ok.warnings], [true, [], []]);
  // Its three clusters are hand-written (no status): one notice, not a warning each.
  assert.deepEqual(ok.notices.map((n) => [n.kind, n.count, n.clusters]), [['handWrittenClusters', 3, ['east-critical', 'east-nosystem', 'west-critical']]]);
  const bad = 'apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: [oops\n';
  const r = fp.validate(bad, { source: 'fleet.yaml' });
  assert.equal(r.valid, false);
  assert.equal(r.errors.length, 1);
  const e = r.errors[0];
  assert.equal(e.source, 'fleet.yaml');
  assert.equal(e.document, 1);
  // Where the text ends (after `[oops`), on the line go-yaml names (3), not the empty line 4.
  assert.deepEqual([e.line, e.column], [3, 23]);
  assert.equal(e.severity, 'error');
  assert.match(e.message, /YAML/);
});

test('bad input is reported inside the result with document, path and line:column, never thrown', () => {
  const yaml = [
    'apiVersion: cluster.kubernetes-fleet.io/v1',
    'kind: MemberCluster',
    'metadata: {name: a}',
    '---',
    'apiVersion: placement.kubernetes-fleet.io/v1',
    'kind: ClusterResourcePlacement',
    'metadata: {name: web}',
    'spec:',
    '  policy:',
    '    placementType: 7',
  ].join('\n');
  for (const fn of [fp.place, fp.evaluate, fp.validate]) {
    const r = fn(yaml, { at: AT });
    assert.ok(r.errors.length >= 1, fn.name);
    const e = r.errors.find((d) => d.path === 'spec.policy.placementType');
    assert.ok(e, `${fn.name}: an error on spec.policy.placementType in ${JSON.stringify(r.errors)}`);
    assert.deepEqual([e.document, e.line, e.column, e.kind, e.name], [2, 10, 20, 'ClusterResourcePlacement', 'web']);
  }
  const unknown = fp.place('apiVersion: v1\nkind: Frobnicator\nmetadata: {name: x}\n', { at: AT });
  assert.equal(unknown.placements.length, 0);
});

const order = (ro) => ro.stages.map((s) => [s.name, s.groups.map((g) => [g.name, g.members.map((m) => [m.cluster, m.start, m.state])])]);

test('rollout: docs example — two stages of two groups, members one at a time, a one-hour wait', () => {
  const r = fp.rollout(example('docs-rollout-azure-two-stages.yaml'), { at: AT });
  assert.deepEqual(r.errors, []);
  const ro = r.rollouts[0];
  assert.deepEqual([ro.name, ro.kind, ro.state, ro.start, ro.end], ['upgrade-1-30', 'UpdateRun', 'Completed', '2026-03-04T12:00:00Z', '2026-03-04T16:00:00Z']);
  assert.deepEqual(order(ro), [
    ['canary', [['canary-eu', [['aks-canary-eu', '2026-03-04T12:00:00Z', 'Completed']]], ['canary-us', [['aks-canary-us', '2026-03-04T12:00:00Z', 'Completed']]]]],
    ['production', [
      ['prod-eu', [['aks-prod-eu-1', '2026-03-04T14:00:00Z', 'Completed'], ['aks-prod-eu-2', '2026-03-04T15:00:00Z', 'Completed']]],
      ['prod-us', [['aks-prod-us-1', '2026-03-04T14:00:00Z', 'Completed'], ['aks-prod-us-2', '2026-03-04T15:00:00Z', 'Completed']]]]],
  ]);
  assert.deepEqual(ro.stages[0].waits.map((w) => [w.kind, w.seconds, w.start, w.end]), [['AfterStageWait', 3600, '2026-03-04T13:00:00Z', '2026-03-04T14:00:00Z']]);
});

test('rollout: a what-if failure (option fail) stops the Azure run: no later member starts', () => {
  const ro = fp.rollout(example('docs-rollout-azure-two-stages.yaml'), { at: AT, fail: ['aks-prod-eu-1'] }).rollouts[0];
  assert.equal(ro.state, 'Failed');
  assert.deepEqual(order(ro)[1], ['production', [
    ['prod-eu', [['aks-prod-eu-1', '2026-03-04T14:00:00Z', 'Failed'], ['aks-prod-eu-2', null, 'NotStarted']]],
    ['prod-us', [['aks-prod-us-1', '2026-03-04T14:00:00Z', 'Completed'], ['aks-prod-us-2', null, 'NotStarted']]]]]);
  assert.deepEqual(ro.stages[1].groups.map((g) => g.state), ['Failed', 'Stopped']);
  // The comma-separated form the CLI's --set uses is accepted too.
  assert.deepEqual(fp.rollout(example('docs-rollout-azure-two-stages.yaml'), { at: AT, fail: 'aks-prod-eu-1' }), fp.rollout(example('docs-rollout-azure-two-stages.yaml'), { at: AT, fail: ['aks-prod-eu-1'] }));
});

test('evaluate runs the budgets engine on a NodePool; budgets and rollout ignore kinds they do not read', () => {
  const budgetsYaml = example('docs-budgets-three-budgets.yaml');
  const e = fp.evaluate(budgetsYaml, { at: AT });
  assert.deepEqual(e.nodePools, fp.budgets(budgetsYaml, { at: AT }).nodePools);
  assert.deepEqual(e.placements, []);
  const yaml = example('docs-affinity-two-terms.yaml');
  const b = fp.budgets(yaml, { at: AT, horizon: '24h' });
  assert.deepEqual(b.nodePools, []);
  assert.deepEqual(b.errors, []);
  const r = fp.rollout(budgetsYaml, { at: AT });
  assert.deepEqual(r.rollouts, []);
  assert.deepEqual(r.errors, []);
  const rolloutYaml = example('docs-rollout-azure-two-stages.yaml');
  assert.deepEqual(fp.evaluate(rolloutYaml, { at: AT }).rollouts, fp.rollout(rolloutYaml, { at: AT }).rollouts);
});

test('misuse of the API throws a TypeError that says what was wrong', () => {
  const cases = [
    [() => fp.place(42), /place\(yaml, options\?\): yaml must be a string of YAML, got number 42/],
    [() => fp.place(undefined), /yaml must be a string of YAML, got undefined/],
    [() => fp.budgets(Buffer.from('x')), /budgets\(yaml, options\?\): yaml must be a string/],
    [() => fp.rollout('', 'soon'), /rollout\(yaml, options\?\): options must be an object, got string soon/],
    [() => fp.evaluate('', []), /options must be an object, got an array/],
    [() => fp.place('', { at: 5 }), /options\.at must be a Date or an RFC 3339 string, got number 5/],
    [() => fp.place('', { at: 'yesterday' }), /options\.at must be an RFC 3339 time such as 2026-01-01T09:00:00Z or "snapshot", got "yesterday"/],
    [() => fp.place('', { at: new Date('nope') }), /options\.at is an invalid Date/],
    [() => fp.budgets('', { horizon: 24 }), /budgets\(\): invalid options: horizon: invalid type: integer `24`, expected a string/],
    // A wrong type names its option; a list where the options of a group go is refused.
    [() => fp.rollout('', { at: AT, fail: 3 }), /rollout\(\): invalid options: fail: invalid type: integer `3`, expected a list of names or a comma-separated string/],
    [() => fp.evaluate('', { at: AT, horizonDays: '3' }), /evaluate\(\): invalid options: horizonDays: invalid type: string "3", expected u32/],
    [() => fp.rollout('', { at: AT, kubefleet: [false, '0s'] }), /rollout\(\): invalid options: kubefleet must be an object of its options/],
    [() => fp.validate({}), /validate\(yaml, options\?\): yaml must be a string/],
    // Unknown option keys are refused, with the accepted ones (no silent default).
    [() => fp.place('', { at: AT, horizn: '1h' }), /place\(\): invalid options: unknown field `horizn`, expected one of `at`, `clusterHeartbeatCheckTimeout`, `clusterHealthCheckTimeout`/],
    [() => fp.evaluate('', { at: AT, horizn: '1h' }), /evaluate\(\): invalid options: unknown option "horizn"; accepted: approveAll, at, azure, /],
    [() => fp.place('', { source: 1 }), /options\.source .* must be a string/],
    // Options cross as JSON text: a value JSON cannot hold is named.
    [() => fp.budgets('', { at: AT, horizon: 10n }), /budgets\(\): .*BigInt/],
  ];
  for (const [fn, message] of cases) {
    assert.throws(fn, (e) => e instanceof TypeError && message.test(e.message), String(message));
  }
});

test('a call before the engine is loaded (the browser entry, before init()) throws a TypeError', async () => {
  const pkg = realpathSync(join(installed(), 'node_modules', 'fleet-policy'));
  // A second instance of the browser entry, not yet initialised.
  const browser = await import(`${pathToFileURL(join(pkg, 'index.js')).href}?before-init`);
  assert.equal(browser.isInitialized(), false);
  assert.throws(() => browser.place('', { at: AT }),
    (e) => e instanceof TypeError && /place\(\) was called before the engine was loaded; await init\(\)/.test(e.message));
});

test('refused option values are errors in the result whichever engines apply, and the value used is the default', () => {
  // No NodePool and no rollout in the input: evaluate still reports each refused value.
  const yaml = example('docs-affinity-two-terms.yaml');
  const r = fp.evaluate(yaml, { at: AT, horizon: '7d', karpenterVersion: 'v9', defaultDuration: 'abc' });
  assert.deepEqual(r.errors.map((e) => [e.source, e.line, e.message]), [
    ['options', 0, 'defaultDuration: time: invalid duration "abc"; the default is used'],
    ['options', 0, 'karpenterVersion "v9": expected head or v1.0 … v1.14'],
    ['options', 0, 'horizon: time: unknown unit "d" in duration "7d"'],
  ]);
  assert.deepEqual(r.nodePools, []);
  // A KubeFleet stuck threshold that is no duration: an error, and the assumptions say what
  // the simulation used.
  const staged = fp.rollout(example('kubefleet-staged-run.yaml'), { at: AT, kubefleet: { stuckThreshold: '-1h' } });
  assert.deepEqual(staged.errors.map((e) => e.message), ['kubefleet.stuckThreshold: "-1h" is negative; the default is used']);
  assert.deepEqual(staged.rollouts[0].assumptions.filter((a) => a.option === 'kubefleet.stuckThreshold').map((a) => a.value), ['5m']);
});

test('time from import to the first result in a fresh Node process', () => {
  const script = `
    const t0 = performance.now();
    const fp = await import(${JSON.stringify(pathToFileURL(join(installed(), 'use.mjs')).href)});
    const t1 = performance.now();
    const r = fp.place(${JSON.stringify(example('docs-affinity-two-terms.yaml'))}, { at: '${AT}' });
    const t2 = performance.now();
    console.log(JSON.stringify({ init: t1 - t0, first: t2 - t1, picked: r.placements[0].picked.length }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  assert.equal(out.picked, 2);
  console.log(`# node: import + initSync ${out.init.toFixed(1)} ms, first place() ${out.first.toFixed(1)} ms, total ${(out.init + out.first).toFixed(1)} ms`);
});

test('deep nesting is answered with an error at its line:column, and the engine answers the next call', () => {
  const deep = '- '.repeat(20000) + 'x\n';
  const r = fp.place(deep, { at: AT });
  assert.deepEqual(r.errors.map((e) => [e.document, e.line, e.column, e.message]),
    [[1, 1, 2001, 'invalid YAML: collections nest deeper than 1000 levels']]);
  const next = fp.place(example('docs-affinity-two-terms.yaml'), { at: AT });
  assert.deepEqual(picks(next.placements[0]), [['east-nosystem', 0, 0], ['west-critical', 0, 0]]);
});

test('calls back to back and calls after an idle turn run in the memory of one call: the engine frees what a call kept, when idle or at the next call', async () => {
  // Each call keeps its input until the event loop is idle (the caller does not wait for the
  // freeing) or the next call starts: neither way may memory grow call after call.
  const pkg = realpathSync(join(installed(), 'node_modules', 'fleet-policy'));
  const glue = await import(pathToFileURL(join(pkg, 'fleet_policy.js')).href);
  const memory = () => glue.initSync({ module: new Uint8Array() }).memory.buffer.byteLength;
  const clusters = Array.from({ length: 4000 }, (_, i) =>
    `apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\nmetadata:\n  name: c${i}\n  labels: {env: ${i % 4 ? 'dev' : 'prod'}, zone: z${i % 7}}\n`);
  const text = `${clusters.join('---\n')}---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {name: prod}
spec:
  resourceSelectors: [{group: "", version: v1, kind: Namespace, name: web}]
  policy:
    placementType: PickAll
    affinity:
      clusterAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          clusterSelectorTerms: [{labelSelector: {matchLabels: {env: prod}}}]
`;
  const idle = () => new Promise((resolve) => setTimeout(resolve, 20));
  const sizes = [];
  const call = () => {
    const r = fp.place(text, { at: AT });
    assert.deepEqual(r.errors, []);
    assert.equal(r.placements[0].picked.length, 1000);
    assert.equal(r.placements[0].picked[1].cluster, 'c100');
    sizes.push(memory());
  };
  for (let i = 0; i < 6; i++) call();
  for (let i = 0; i < 6; i++) {
    await idle();
    call();
  }
  assert.deepEqual(sizes.slice(2), Array(sizes.length - 2).fill(sizes[1]), `linear memory after each call: ${sizes}`);
});

test('after a WebAssembly trap (the engine out of memory) the instance is replaced: the next call works', async () => {
  // A real trap inside place(): the live instance's memory is grown to the wasm32 maximum
  // (4 GiB of address space, not touched), so the engine's next allocation fails and the
  // module aborts with a trap, as it would on an input too large for its memory.
  const pkg = realpathSync(join(installed(), 'node_modules', 'fleet-policy'));
  const glue = await import(pathToFileURL(join(pkg, 'fleet_policy.js')).href);
  const live = glue.initSync({ module: new Uint8Array() }); // already initialised: the live exports
  const memory = live.memory;
  memory.grow(65536 - memory.buffer.byteLength / 65536);
  assert.equal(memory.buffer.byteLength, 2 ** 32);
  const big = example('docs-affinity-two-terms.yaml') + '\n# ' + 'x'.repeat(64 << 20) + '\n';
  assert.throws(() => fp.place(big, { at: AT }), (e) => {
    assert.match(e.message, /^fleet-policy internal error: place\(\) stopped on a WebAssembly trap \(unreachable/);
    assert.ok(e.cause instanceof WebAssembly.RuntimeError);
    return true;
  });
  // A fresh instance, with memory of its own, answers the next calls.
  const fresh = glue.initSync({ module: new Uint8Array() });
  assert.notEqual(fresh.memory, memory);
  const r = fp.place(example('docs-affinity-two-terms.yaml'), { at: AT });
  assert.deepEqual(picks(r.placements[0]), [['east-nosystem', 0, 0], ['west-critical', 0, 0]]);
  assert.equal(fp.version().length > 0, true);
});

test('over random fleets and placements, every rollout reaches exactly its placement picks', () => {
  // A seeded generator (mulberry32), so a failure names a reproducible case.
  let seed = 20261124;
  const rnd = () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  for (let n = 0; n < 60; n++) {
    const docs = [];
    const clusters = Math.floor(rnd() * 12);
    for (let i = 0; i < clusters; i++) {
      const c = { apiVersion: 'cluster.kubernetes-fleet.io/v1', kind: 'MemberCluster',
        metadata: { name: `c${i}`, labels: { region: pick(['east', 'west']), env: pick(['prod', 'dev']) } } };
      if (rnd() < 0.2) c.spec = { taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }] };
      if (rnd() < 0.2) c.metadata.deletionTimestamp = '2026-03-04T11:00:00Z';
      if (rnd() < 0.2) c.status = { conditions: [] }; // an agent that never connected
      docs.push(c);
    }
    const policy = pick([{ placementType: 'PickAll' }, { placementType: 'PickN', numberOfClusters: Math.floor(rnd() * 5) },
      { placementType: 'PickFixed', clusterNames: ['c0', 'c3', 'ghost'] }]);
    if (rnd() < 0.5) policy.affinity = { clusterAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { clusterSelectorTerms: [{ labelSelector: { matchLabels: { env: 'prod' } } }] } } };
    docs.push({ apiVersion: 'placement.kubernetes-fleet.io/v1', kind: 'ClusterResourcePlacement', metadata: { name: 'crp' }, spec: { policy } });
    const yaml = docs.map((d) => JSON.stringify(d)).join('\n---\n');
    const e = fp.evaluate(yaml, { at: AT });
    const r = fp.rollout(yaml, { at: AT });
    const picked = e.placements[0].picked.map((p) => p.cluster).sort();
    for (const ro of [e.rollouts, r.rollouts]) {
      assert.equal(ro.length, 1, yaml);
      const members = ro[0].stages.flatMap((s) => s.groups.flatMap((g) => g.members.map((m) => m.cluster)));
      assert.deepEqual(members, picked, yaml);
    }
  }
});
