// Timed-loop benchmark of the npm package under Node (not run by `make test`):
//   make package && node wasm-tests/npm/consumer.mjs && node wasm-tests/npm/bench.mjs [seconds-per-case]
// Inputs are the benchmark sizes of the engine issues, generated deterministically. Each
// document is written as a JSON object, which is YAML too. Times include everything a JS caller
// pays: YAML parsing, evaluation and conversion of the result to JS objects.
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { installed } from './consumer.mjs';

const fp = await import(pathToFileURL(join(installed(), 'use.mjs')).href);
// `--dump DIR` writes the generated inputs (to compare with the native CLI) and exits.
const DUMP = process.argv[2] === '--dump' ? process.argv[3] : null;
const SECONDS = DUMP ? 0 : Number(process.argv[2] ?? 3);
const AT = '2026-03-04T12:00:00Z';

// A small deterministic PRNG (mulberry32), so every run measures the same input.
function rng(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const yaml = (docs) => docs.map((d) => JSON.stringify(d)).join('\n---\n') + '\n';

// Placement (issue 3): 10,000 clusters, labels over 5 regions × 3 envs, 6 properties, 10% tainted,
// 2% ineligible (left the fleet); 2 required terms, 3 preferred (2 with property sorters), 2 spread
// constraints (DoNotSchedule, ScheduleAnyway).
function fleet(n) {
  const r = rng(7);
  const regions = ['eastus', 'westus', 'northeurope', 'westeurope', 'southeastasia'];
  const envs = ['prod', 'staging', 'dev'];
  const docs = [];
  for (let i = 0; i < n; i++) {
    const c = {
      apiVersion: 'cluster.kubernetes-fleet.io/v1', kind: 'MemberCluster',
      metadata: { name: `cluster-${String(i).padStart(5, '0')}`, labels: { region: regions[i % 5], env: envs[Math.floor(r() * 3)], zone: `z${Math.floor(r() * 3)}` } },
      spec: {},
      status: { properties: {
        'kubernetes-fleet.io/node-count': { value: String(1 + Math.floor(r() * 100)) },
        'kubernetes.azure.com/per-cpu-core-cost': { value: (0.05 + r()).toFixed(3) },
        'example.com/energy': { value: String(Math.floor(r() * 100)) },
        'example.com/latency-ms': { value: String(Math.floor(r() * 300)) },
        'example.com/tier': { value: String(Math.floor(r() * 4)) },
        'example.com/gpu-count': { value: String(Math.floor(r() * 8)) },
      } },
    };
    if (r() < 0.1) c.spec.taints = [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }];
    if (r() < 0.02) c.metadata.deletionTimestamp = '2026-03-04T11:00:00Z';
    docs.push(c);
  }
  return docs;
}
function placement(type) {
  const policy = {
    placementType: type,
    affinity: { clusterAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { clusterSelectorTerms: [
        { labelSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] } },
        { labelSelector: { matchLabels: { region: 'westeurope' } } },
      ] },
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 20, preference: { labelSelector: { matchLabels: { env: 'prod' } } } },
        { weight: 50, preference: { propertySorter: { name: 'kubernetes.azure.com/per-cpu-core-cost', sortOrder: 'Ascending' } } },
        { weight: 30, preference: { labelSelector: { matchLabels: { region: 'eastus' } }, propertySorter: { name: 'kubernetes-fleet.io/node-count', sortOrder: 'Descending' } } },
      ],
    } },
  };
  if (type === 'PickAll') {
    // The webhook rejects preferred terms under PickAll: the same required affinity only.
    delete policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution;
  }
  if (type === 'PickN') {
    policy.numberOfClusters = 50;
    policy.topologySpreadConstraints = [
      { maxSkew: 1, topologyKey: 'region', whenUnsatisfiable: 'DoNotSchedule' },
      { maxSkew: 2, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' },
    ];
  }
  return { apiVersion: 'placement.kubernetes-fleet.io/v1', kind: 'ClusterResourcePlacement', metadata: { name: `crp-${type.toLowerCase()}` }, spec: { resourceSelectors: [{ group: '', kind: 'Namespace', version: 'v1', name: 'app' }], policy } };
}

// Disruption (issue 4): a NodePool with 10 budgets (5 with cron windows), 5,000 nodes, 50,000 pods.
function nodePool() {
  const budgets = [
    { nodes: '10%' }, { nodes: '20%', reasons: ['Empty'] }, { nodes: '50', reasons: ['Drifted'] },
    { nodes: '5%', reasons: ['Underutilized'] }, { nodes: '100' },
    { nodes: '0', schedule: '0 9 * * 1-5', duration: '8h' },
    { nodes: '0', schedule: '@daily', duration: '10m', reasons: ['Underutilized'] },
    { nodes: '1', schedule: '30 2 * * *', duration: '2h' },
    { nodes: '25%', schedule: '0 0 * * 0', duration: '24h', reasons: ['Drifted'] },
    { nodes: '3', schedule: '*/15 * * * *', duration: '5m', reasons: ['Empty'] },
  ];
  const docs = [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default' }, spec: {
    template: { spec: { nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' }, expireAfter: '720h' } },
    disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets } } }];
  const r = rng(11);
  for (let i = 0; i < 5000; i++) {
    docs.push({ apiVersion: 'v1', kind: 'Node', metadata: { name: `node-${i}`, labels: { 'karpenter.sh/nodepool': 'default', 'karpenter.sh/initialized': 'true', 'karpenter.sh/registered': 'true' },
      creationTimestamp: `2026-03-0${1 + Math.floor(r() * 3)}T0${Math.floor(r() * 9)}:00:00Z` },
      status: { conditions: [{ type: 'Ready', status: 'True' }], allocatable: { cpu: '8', memory: '32Gi', pods: '110' } } });
  }
  for (let i = 0; i < 50000; i++) {
    docs.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `pod-${i}`, namespace: 'apps', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${i % 500}`, uid: `u${i % 500}`, controller: true }] },
      spec: { nodeName: `node-${Math.floor(r() * 5000)}`, containers: [{ name: 'c', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] }, status: { phase: 'Running' } });
  }
  return docs;
}

// Rollouts (issue 5): an Azure run over 5,000 members in 3 stages × 10 groups with weekly
// maintenance windows; a KubeFleet staged run over 5,000 clusters in 5 stages.
function azureRun() {
  const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
  const docs = [];
  for (let i = 0; i < 5000; i++) {
    docs.push({ apiVersion: 'azure.fleet-policy.dev/v1', kind: 'FleetMember', metadata: { name: `member-${i}` }, properties: { group: `g${i % 30}` },
      cluster: { kubernetesVersion: '1.29.9', maintenanceConfigurations: [{ name: 'aksManagedAutoUpgradeSchedule', properties: { maintenanceWindow: {
        schedule: { weekly: { intervalWeeks: 1, dayOfWeek: days[i % 7] } }, durationHours: 8, startTime: `${String(i % 24).padStart(2, '0')}:00`, utcOffset: '+00:00' } } }] } });
  }
  const stages = [0, 1, 2].map((s) => ({ name: `stage-${s}`, groups: Array.from({ length: 10 }, (_, g) => ({ name: `g${s * 10 + g}` })), afterStageWaitInSeconds: 3600 }));
  docs.push({ apiVersion: 'azure.fleet-policy.dev/v1', kind: 'UpdateRun', metadata: { name: 'run' }, properties: { strategy: { stages },
    managedClusterUpdate: { upgrade: { type: 'Full', kubernetesVersion: '1.30.5' }, nodeImageSelection: { type: 'Latest' } } } });
  return docs;
}
function stagedRun() {
  const KF = 'placement.kubernetes-fleet.io/v1';
  const docs = [];
  for (let i = 0; i < 5000; i++) {
    const name = `c${String(i).padStart(4, '0')}`;
    docs.push({ apiVersion: 'cluster.kubernetes-fleet.io/v1', kind: 'MemberCluster', metadata: { name, labels: { ring: String(i % 5), order: String(i % 97) } } });
    docs.push({ apiVersion: KF, kind: 'ClusterResourceBinding', metadata: { name: `crp-${name}`, labels: { 'kubernetes-fleet.io/parent-CRP': 'crp' } }, spec: { state: 'Bound', targetCluster: name } });
  }
  const stages = [0, 1, 2, 3, 4].map((k) => ({ name: `ring${k}`, labelSelector: { matchLabels: { ring: String(k) } }, sortingLabelKey: 'order', maxConcurrency: '10%',
    afterStageTasks: [{ type: 'TimedWait', waitTime: '10m' }] }));
  docs.push({ apiVersion: KF, kind: 'ClusterStagedUpdateStrategy', metadata: { name: 's' }, spec: { stages } });
  docs.push({ apiVersion: KF, kind: 'ClusterResourcePlacement', metadata: { name: 'crp' }, spec: { strategy: { type: 'External' } } });
  docs.push({ apiVersion: KF, kind: 'ClusterStagedUpdateRun', metadata: { name: 'run' }, spec: { placementName: 'crp', stagedRolloutStrategyName: 's', state: 'Run' } });
  return docs;
}

function bench(name, fn, check) {
  if (DUMP) return;
  fn(); // warm-up (and the first, lazily compiled call)
  const times = [];
  const end = performance.now() + SECONDS * 1000;
  while (times.length < 5 || (performance.now() < end && times.length < 200)) {
    const t0 = performance.now();
    const r = fn();
    times.push(performance.now() - t0);
    if (times.length === 1) check(r);
  }
  times.sort((a, b) => a - b);
  const med = times[Math.floor(times.length / 2)];
  console.log(`${name.padEnd(58)} median ${med.toFixed(1).padStart(8)} ms   min ${times[0].toFixed(1).padStart(8)} ms   (${times.length} runs)`);
}

const dump = (file, text) => { if (DUMP) writeFileSync(join(DUMP, file), text); return text; };
const size = (s) => `${(s.length / 1048576).toFixed(1)} MB YAML`;
const assertNoErrors = (r) => { if (r.errors.length) throw new Error(JSON.stringify(r.errors.slice(0, 3))); };

const clusters = fleet(10000);
const pickN = dump('pickn-10k.yaml', yaml([...clusters, placement('PickN')]));
const pickAll = dump('pickall-10k.yaml', yaml([...clusters, placement('PickAll')]));
// budgets() on a fleet without NodePools: YAML parse and conversion only, no engine work.
bench(`YAML parse of that fleet alone (budgets() with no NodePool)`, () => fp.budgets(pickAll, { at: AT }), () => {});
bench(`place: PickN 50 of 10,000 clusters, 2 TSC (${size(pickN)})`, () => fp.place(pickN, { at: AT }), (r) => {
  assertNoErrors(r);
  console.log(`  picked ${r.placements[0].picked.length}, filtered ${r.placements[0].filtered.length}`);
});
bench(`place: PickAll of 10,000 clusters (${size(pickAll)})`, () => fp.place(pickAll, { at: AT }), (r) => {
  assertNoErrors(r);
  console.log(`  picked ${r.placements[0].picked.length}, filtered ${r.placements[0].filtered.length}`);
});
for (const n of [1000, 50000]) {
  const text = yaml([...fleet(n), placement('PickAll')]);
  bench(`place: PickAll of ${n.toLocaleString('en')} clusters (${size(text)})`, () => fp.place(text, { at: AT }), assertNoErrors);
}

const np = dump('nodepool-5k-50k.yaml', yaml(nodePool()));
bench(`budgets: 10 budgets, 5,000 nodes, 50,000 pods (${size(np)})`, () => fp.budgets(np, { at: AT }), (r) => {
  assertNoErrors(r);
  console.log(`  allowed ${JSON.stringify(r.nodePools[0].allowedDisruptions)}, timeline ${r.nodePools[0].timeline.length} points`);
});
const npOnly = yaml(nodePool().slice(0, 1));
bench(`budgets: the same NodePool alone, 7-day timeline`, () => fp.budgets(npOnly, { at: AT }), assertNoErrors);

const az = dump('azure-5k.yaml', yaml(azureRun()));
bench(`rollout: Azure run, 5,000 members, 3 stages × 10 groups (${size(az)})`, () => fp.rollout(az, { at: AT }), (r) => {
  assertNoErrors(r);
  console.log(`  state ${r.rollouts[0].state}, ends ${r.rollouts[0].end}`);
});
const kf = dump('staged-5k.yaml', yaml(stagedRun()));
bench(`rollout: KubeFleet staged run, 5,000 clusters, 5 stages (${size(kf)})`, () => fp.rollout(kf, { at: AT, approveAll: true }), (r) => {
  assertNoErrors(r);
  console.log(`  state ${r.rollouts[0].state}, ends ${r.rollouts[0].end}`);
});
