//! The placement benchmark's input, shared by the native criterion bench and the wasm bench
//! under Node: a fleet of N clusters (random labels over 5 regions × 3 envs, 6 properties, 10%
//! tainted, 2% ineligible) and the PickN / PickAll policies.

use fleet_policy::placement::PlaceOptions;
use std::fmt::Write;

const REGIONS: [&str; 5] = ["east", "west", "central", "north", "south"];
const ENVS: [&str; 3] = ["prod", "staging", "canary"];

/// A small deterministic generator (xorshift), so every run measures the same fleet.
pub struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub fn fleet_yaml(n: usize) -> String {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut y = String::with_capacity(n * 900);
    for i in 0..n {
        let region = REGIONS[rng.below(5) as usize];
        let env = ENVS[rng.below(3) as usize];
        let tainted = rng.below(10) == 0;
        let ineligible = rng.below(50) == 0;
        let heartbeat = if ineligible {
            "2025-12-31T00:00:00Z"
        } else {
            "2026-01-01T11:59:00Z"
        };
        let _ = write!(
            y,
            "apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\nmetadata:\n  name: member-{i:06}\n  labels: {{region: {region}, env: {env}, tier: t{}}}\nspec:\n",
            rng.below(4)
        );
        if tainted {
            let _ = writeln!(
                y,
                "  taints: [{{key: dedicated, value: team-{}, effect: NoSchedule}}]",
                rng.below(2)
            );
        }
        let _ = write!(
            y,
            "status:\n  properties:\n    kubernetes-fleet.io/node-count: {{value: \"{}\"}}\n    kubernetes.azure.com/per-cpu-core-cost: {{value: \"0.{:03}\"}}\n    test.only/energy-efficiency-rating: {{value: \"{}\"}}\n  resourceUsage:\n    allocatable: {{cpu: \"{}\", memory: {}Gi}}\n    available: {{cpu: \"{}\", memory: {}Gi}}\n  agentStatus:\n  - type: MemberAgent\n    lastReceivedHeartbeat: \"{heartbeat}\"\n    conditions:\n    - {{type: Joined, status: \"True\", lastTransitionTime: \"2025-12-01T00:00:00Z\", reason: Joined}}\n    - {{type: Healthy, status: \"True\", lastTransitionTime: \"2025-12-01T00:00:00Z\", reason: Healthy}}\n---\n",
            1 + rng.below(20),
            20 + rng.below(200),
            rng.below(101),
            8 + rng.below(120),
            16 + rng.below(480),
            rng.below(64),
            rng.below(256),
        );
    }
    y
}

const REQUIRED: &str = "
        requiredDuringSchedulingIgnoredDuringExecution:
          clusterSelectorTerms:
          - labelSelector:
              matchExpressions: [{key: env, operator: In, values: [prod, staging]}]
            propertySelector:
              matchExpressions: [{name: kubernetes-fleet.io/node-count, operator: Ge, values: [\"3\"]}]
          - labelSelector: {matchLabels: {env: canary}}
            propertySelector:
              matchExpressions: [{name: resources.kubernetes-fleet.io/available-cpu, operator: Gt, values: [\"4\"]}]";

pub fn pick_n_yaml() -> String {
    format!(
        "apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {{name: pick-n}}
spec:
  policy:
    placementType: PickN
    numberOfClusters: 50
    affinity:
      clusterAffinity:{REQUIRED}
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 30
          preference: {{labelSelector: {{matchLabels: {{region: east}}}}}}
        - weight: 50
          preference:
            propertySorter: {{name: kubernetes.azure.com/per-cpu-core-cost, sortOrder: Ascending}}
        - weight: 20
          preference:
            labelSelector: {{matchLabels: {{env: prod}}}}
            propertySorter: {{name: resources.kubernetes-fleet.io/available-memory, sortOrder: Descending}}
    topologySpreadConstraints:
    - {{maxSkew: 2, topologyKey: region, whenUnsatisfiable: DoNotSchedule}}
    - {{maxSkew: 1, topologyKey: env, whenUnsatisfiable: ScheduleAnyway}}
    tolerations:
    - {{key: dedicated, operator: Equal, value: team-0, effect: NoSchedule}}
"
    )
}

pub fn pick_all_yaml() -> String {
    format!(
        "apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {{name: pick-all}}
spec:
  policy:
    placementType: PickAll
    affinity:
      clusterAffinity:{REQUIRED}
    tolerations:
    - {{key: dedicated, operator: Equal, value: team-0, effect: NoSchedule}}
"
    )
}

pub fn options() -> PlaceOptions {
    let at = chrono::DateTime::parse_from_rfc3339("2026-01-01T12:00:00Z")
        .map(|t| t.to_utc())
        .unwrap_or_default();
    PlaceOptions::at(at)
}
