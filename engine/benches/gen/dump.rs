//! A realistic `kubectl get memberclusters -o yaml` / `-o json` dump of N clusters, as the
//! hub prints it: a `kind: List` whose items carry the last-applied annotation, finalizers,
//! the member agent's status with heartbeats and conditions, properties and resourceUsage
//! (about 2.6 KB per cluster in YAML, 5 KB in JSON), plus one PickN placement. The input
//! benchmarks read it natively and in wasm under Node.

use std::fmt::Write;

const LOCATIONS: [(&str, &str); 5] = [
    ("east", "eastus"),
    ("west", "westeurope"),
    ("central", "centralus"),
    ("north", "northeurope"),
    ("south", "southeastasia"),
];
const ENVS: [&str; 3] = ["prod", "staging", "canary"];

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The instant the dump was taken (its heartbeats are a few seconds before it).
pub const SNAPSHOT: &str = "2026-03-04T12:00:00Z";

/// The dump as YAML, kubectl's layout (two-space indent, items as a block sequence).
pub fn members_yaml(n: usize) -> String {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut y = String::with_capacity(n * 2700 + 2000);
    y.push_str("apiVersion: v1\nitems:\n");
    for i in 0..n {
        let (region, location) = LOCATIONS[rng.below(5) as usize];
        let env = ENVS[rng.below(3) as usize];
        let name = format!("member-{i:06}");
        let rv = 40_000 + rng.below(60_000);
        let beat = format!("2026-03-04T11:5{}:{:02}Z", 5 + rng.below(5), rng.below(60));
        let nodes = 1 + rng.below(40);
        let cpu_cost = 20 + rng.below(80);
        let mem_cost = 5 + rng.below(20);
        let cpu = 4 * nodes * 965;
        let mem = 12_093_772 * nodes;
        let avail_cpu = cpu * rng.below(100) / 100;
        let avail_mem = mem * rng.below(100) / 100;
        let _ = write!(
            y,
            r#"- apiVersion: cluster.kubernetes-fleet.io/v1beta1
  kind: MemberCluster
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {{"apiVersion":"cluster.kubernetes-fleet.io/v1beta1","kind":"MemberCluster","metadata":{{"annotations":{{}},"labels":{{"env":"{env}","fleet.azure.com/location":"{location}","region":"{region}"}},"name":"{name}"}},"spec":{{"heartbeatPeriodSeconds":60,"identity":{{"kind":"ServiceAccount","name":"fleet-member-agent-{name}","namespace":"fleet-system"}}}}}}
    creationTimestamp: "2025-11-10T09:12:44Z"
    finalizers:
    - kubernetes-fleet.io/membercluster-finalizer
    generation: 1
    labels:
      env: {env}
      fleet.azure.com/location: {location}
      region: {region}
    name: {name}
    resourceVersion: "{rv}"
    uid: 3f1c2d9e-5b7a-4c1e-9a0f-{i:012x}
  spec:
    heartbeatPeriodSeconds: 60
    identity:
      kind: ServiceAccount
      name: fleet-member-agent-{name}
      namespace: fleet-system
  status:
    agentStatus:
    - conditions:
      - lastTransitionTime: "2025-11-10T09:13:20Z"
        message: ""
        observedGeneration: 1
        reason: MemberAgentJoined
        status: "True"
        type: Joined
      - lastTransitionTime: "2025-11-10T09:13:20Z"
        message: ""
        observedGeneration: 1
        reason: MemberAgentReportedHealthy
        status: "True"
        type: Healthy
      lastReceivedHeartbeat: "{beat}"
      type: MemberAgent
    - conditions:
      - lastTransitionTime: "2025-11-10T09:13:20Z"
        message: ""
        observedGeneration: 1
        reason: ServiceExportImportJoined
        status: "True"
        type: Joined
      lastReceivedHeartbeat: "{beat}"
      type: ServiceExportImport
    conditions:
    - lastTransitionTime: "2025-11-10T09:13:20Z"
      message: ""
      observedGeneration: 1
      reason: MemberClusterReadyToJoin
      status: "True"
      type: ReadyToJoin
    - lastTransitionTime: "2025-11-10T09:13:20Z"
      message: ""
      observedGeneration: 1
      reason: MemberClusterJoined
      status: "True"
      type: Joined
    properties:
      kubernetes-fleet.io/node-count:
        observationTime: "{beat}"
        value: "{nodes}"
      kubernetes.azure.com/per-cpu-core-cost:
        observationTime: "{beat}"
        value: "0.0{cpu_cost}"
      kubernetes.azure.com/per-gb-memory-cost:
        observationTime: "{beat}"
        value: "0.0{mem_cost}"
    resourceUsage:
      allocatable:
        cpu: {cpu}m
        memory: {mem}Ki
      available:
        cpu: {avail_cpu}m
        memory: {avail_mem}Ki
      capacity:
        cpu: {cpu}m
        memory: {mem}Ki
      observationTime: "{beat}"
"#
        );
    }
    y.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    y
}

/// One PickN placement over the dump (in its own document, as a second file would be).
pub const PLACEMENT_YAML: &str = r#"apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata:
  name: web
spec:
  resourceSelectors:
  - group: ""
    kind: Namespace
    name: web
    version: v1
  policy:
    placementType: PickN
    numberOfClusters: 50
    affinity:
      clusterAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          clusterSelectorTerms:
          - labelSelector:
              matchExpressions:
              - {key: env, operator: In, values: [prod, staging]}
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 40
          preference:
            propertySorter:
              name: kubernetes.azure.com/per-cpu-core-cost
              sortOrder: Ascending
        - weight: 20
          preference:
            labelSelector:
              matchLabels: {region: east}
    topologySpreadConstraints:
    - maxSkew: 2
      topologyKey: region
      whenUnsatisfiable: ScheduleAnyway
"#;

/// The same dump as `kubectl get … -o json` prints it (4-space indent).
pub fn members_json(n: usize) -> String {
    let yaml = members_yaml(n);
    let value = match fleet_policy::input::documents::yaml_to_json(&yaml) {
        Ok(v) => v,
        Err(e) => panic!("the generated dump is not YAML: {e}"),
    };
    let mut out = Vec::with_capacity(yaml.len() * 2);
    let mut ser = serde_json::Serializer::with_formatter(
        &mut out,
        serde_json::ser::PrettyFormatter::with_indent(b"    "),
    );
    if let Err(e) = serde::Serialize::serialize(&value, &mut ser) {
        panic!("the dump does not serialise: {e}");
    }
    String::from_utf8(out).unwrap_or_default()
}
