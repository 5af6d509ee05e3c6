//! Differential test of the two YAML decoders: `FromNode` (used) against serde's derived
//! `Deserialize` over the same node tree (the reference, kept while both exist). Every
//! document of the examples, the conformance cases, the bench generators (small sizes) and a
//! set of broken documents is decoded both ways, whole and node by node, into the model
//! types; the `Debug` of the two results (value, or error message + path + line:column) must
//! be identical.

mod common;

use chrono::{DateTime, Utc};
use common::{gen_disruption, gen_placement, gen_rollout, repo, yaml_files};
use fleet_policy::input::de::{deserialize, from_node};
use fleet_policy::input::documents::yaml_to_json;
use fleet_policy::input::{FromNode, Input, Node, Source};
use fleet_policy::model::disruption as d;
use fleet_policy::model::placement as p;
use fleet_policy::model::rollout as r;
use fleet_policy::rollout::intstr::IntOrString;
use fleet_policy::selectors::LabelSelector;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::Path;

/// Counts of compared decodings, to show the test exercised both outcomes.
#[derive(Default)]
struct Tally {
    ok: usize,
    err: usize,
}

impl Tally {
    fn same<T: FromNode + DeserializeOwned + Debug>(&mut self, node: &Node, what: &str) {
        let old = deserialize::<T>(node);
        let new = from_node::<T>(node);
        let (a, b) = (format!("{old:?}"), format!("{new:?}"));
        assert_eq!(
            a,
            b,
            "{what}: {} decodes differently",
            std::any::type_name::<T>()
        );
        if new.is_ok() {
            self.ok += 1;
        } else {
            self.err += 1;
        }
    }

    /// A whole document (or its `spec`/`properties`) as every manifest type.
    fn document(&mut self, root: &Node, what: &str) {
        self.same::<p::MemberCluster>(root, what);
        self.same::<p::ClusterResourcePlacement>(root, what);
        self.same::<p::PlacementBinding>(root, what);
        self.same::<d::NodeClaim>(root, what);
        self.same::<d::K8sNode>(root, what);
        self.same::<d::Pod>(root, what);
        self.same::<d::PodDisruptionBudget>(root, what);
        self.same::<r::ArmResource<r::FleetMemberProperties>>(root, what);
        self.same::<r::ArmResource<r::FleetUpdateStrategyProperties>>(root, what);
        self.same::<r::ArmResource<r::AvailableVersionsProperties>>(root, what);
        self.same::<r::ArmResource<r::UpdateRunProperties>>(root, what);
        self.same::<r::ArmResource<r::AutoUpgradeProfileProperties>>(root, what);
        for key in ["spec", "properties"] {
            let Some(n) = root.get(key) else { continue };
            self.same::<d::NodeCountsSpec>(n, what);
            self.same::<r::PlacementRolloutSpec>(n, what);
            self.same::<r::StagedUpdateStrategySpec>(n, what);
            self.same::<r::BindingSpecView>(n, what);
            self.same::<r::StagedUpdateRunSpec>(n, what);
            self.same::<r::FleetMemberProperties>(n, what);
            self.same::<r::UpdateRunProperties>(n, what);
        }
    }

    /// Every node of a tree as the leaf and small types (wrong types, nulls, lists…).
    fn every_node(&mut self, node: &Node, what: &str) {
        self.same::<String>(node, what);
        self.same::<bool>(node, what);
        self.same::<i32>(node, what);
        self.same::<u32>(node, what);
        self.same::<i64>(node, what);
        self.same::<f64>(node, what);
        self.same::<Option<String>>(node, what);
        self.same::<Option<i64>>(node, what);
        self.same::<Vec<String>>(node, what);
        self.same::<BTreeMap<String, String>>(node, what);
        self.same::<BTreeMap<String, BTreeMap<String, Vec<String>>>>(node, what);
        self.same::<fleet_policy::model::Opaque>(node, what);
        self.same::<Option<fleet_policy::model::Opaque>>(node, what);
        self.same::<Option<DateTime<Utc>>>(node, what);
        self.same::<IntOrString>(node, what);
        self.same::<Option<r::GroupField>>(node, what);
        self.same::<BTreeMap<String, p::QuantityValue>>(node, what);
        self.same::<LabelSelector>(node, what);
        self.same::<p::PlacementPolicy>(node, what);
        self.same::<p::MemberClusterStatus>(node, what);
        self.same::<p::Condition>(node, what);
        self.same::<Vec<p::Toleration>>(node, what);
        self.same::<d::Condition>(node, what);
        self.same::<fleet_policy::model::ObjectMeta>(node, what);
        self.same::<r::MaintenanceWindow>(node, what);
        self.same::<r::ManagedClusterFacts>(node, what);
        self.same::<r::UpdateRunStrategy>(node, what);
        self.same::<r::StageConfig>(node, what);
        self.same::<r::RollingUpdateSpec>(node, what);
        let children: Vec<&Node> = match (node.as_map(), node.as_seq()) {
            (Some(m), _) => m.iter().flat_map(|(k, v)| [k, v]).collect(),
            (_, Some(s)) => s.iter().collect(),
            _ => Vec::new(),
        };
        for c in children {
            self.every_node(c, what);
        }
    }

    /// Parses `text` and compares every document, whole and (when `deep`) node by node.
    fn text(&mut self, name: &str, text: &str, deep: bool) {
        let input = Input::parse(&[Source::new(name, text)]);
        for (i, doc) in input.documents.iter().enumerate() {
            let what = format!("{name} document {i}");
            self.document(&doc.root, &what);
            if deep {
                self.every_node(&doc.root, &what);
            }
        }
    }
}

#[test]
fn examples_decode_the_same() {
    let mut files = Vec::new();
    yaml_files(&repo().join("static"), &mut files);
    assert!(!files.is_empty(), "no examples under static/");
    let mut t = Tally::default();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        t.text(&f.display().to_string(), &text, true);
    }
    assert!(t.ok > 100 && t.err > 100, "ok {} err {}", t.ok, t.err);
}

/// Manifests inside the conformance cases: objects with `apiVersion` and `kind` (written out
/// as JSON, which is YAML), strings holding YAML manifests, and every case input subtree as a
/// plain node.
#[test]
fn conformance_inputs_decode_the_same() {
    let dir = std::env::var("FLEET_POLICY_SPEC_DIR").unwrap_or_else(|_| "/work/shared/spec".into());
    let mut files = Vec::new();
    yaml_files(Path::new(&dir), &mut files);
    files.retain(|f| f.to_string_lossy().ends_with("-cases.yaml"));
    if files.is_empty() {
        eprintln!("no conformance cases in {dir}; skipped");
        return;
    }
    let mut t = Tally::default();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let json = match yaml_to_json(&text) {
            Ok(j) => j,
            Err(e) => panic!("{}: {e}", f.display()),
        };
        let cases = json.get("cases").and_then(|c| c.as_array()).cloned();
        for (i, case) in cases.unwrap_or_default().iter().enumerate() {
            let what = format!("{} case {i}", f.display());
            let mut texts = Vec::new();
            manifests(case, &mut texts);
            for m in &texts {
                t.text(&what, m, true);
            }
            if let Some(input) = case.get("input") {
                // The input as a subtree of a document, walked node by node.
                let wrapped = serde_json::json!({
                    "apiVersion": "cluster.kubernetes-fleet.io/v1",
                    "kind": "MemberCluster",
                    "spec": input,
                });
                t.text(&what, &wrapped.to_string(), true);
            }
        }
    }
    assert!(t.ok > 100 && t.err > 100, "ok {} err {}", t.ok, t.err);
}

fn manifests(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            if m.get("apiVersion").is_some_and(|x| x.is_string())
                && m.get("kind").is_some_and(|x| x.is_string())
            {
                out.push(v.to_string());
            }
            m.values().for_each(|x| manifests(x, out));
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| manifests(x, out)),
        serde_json::Value::String(s) if s.contains("apiVersion:") && s.contains("kind:") => {
            out.push(s.clone());
        }
        _ => {}
    }
}

/// The first `n` documents of a generated multi-document text.
fn first_docs(text: &str, n: usize) -> String {
    text.split("\n---\n")
        .take(n)
        .collect::<Vec<_>>()
        .join("\n---\n")
}

#[test]
fn bench_fleets_decode_the_same() {
    let mut t = Tally::default();
    t.text("azure", &first_docs(&gen_rollout::azure_fleet(), 40), true);
    t.text(
        "staged",
        &first_docs(&gen_rollout::staged_fleet(), 40),
        true,
    );
    t.text("placement", &gen_placement::fleet_yaml(30), true);
    t.text("pick-n", &gen_placement::pick_n_yaml(), true);
    t.text("pick-all", &gen_placement::pick_all_yaml(), true);
    t.text("disruption", &gen_disruption::fleet(6, 3), true);
    assert!(t.ok > 100 && t.err > 100, "ok {} err {}", t.ok, t.err);
}

/// Documents with one thing wrong each; both decoders must report it identically.
const BROKEN: &[&str] = &[
    // Wrong scalar types.
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: 5}\nspec:\n  heartbeatPeriodSeconds: \"60\"\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec:\n  heartbeatPeriodSeconds: 99999999999\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec:\n  heartbeatPeriodSeconds: 1.5\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a, labels: {a: 1}}\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a, labels: [a]}\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec: 5\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec: [a]\n",
    // Unknown fields, nested and in lists.
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec:\n  colour: red\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec:\n  taints:\n  - {key: k, effect: NoSchedule}\n  - {key: k, effect: NoSchedule, colour: red}\n",
    // Missing required fields (at the mapping), in a list item.
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec:\n  taints:\n  - {key: k}\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec:\n  taints:\n  - ~\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec:\n  taints: ~\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec:\n  taints: {key: k}\n",
    // Status: quantities, properties, dates.
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nstatus:\n  resourceUsage:\n    capacity: {cpu: 4x, memory: 1.5, pods: 10, gpu: ~, x: true, y: [1], z: {a: b}}\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nstatus:\n  resourceUsage:\n    capacity: {cpu: \"4x\"}\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nstatus:\n  properties: {p: {value: 4}}\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nstatus:\n  agentStatus:\n  - type: MemberAgent\n    lastReceivedHeartbeat: yesterday\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nstatus:\n  agentStatus:\n  - type: MemberAgent\n    lastReceivedHeartbeat: 2024-01-01T00:00:00+02:00\n    conditions: [{type: Joined, status: \"True\", lastTransitionTime: 5}]\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nstatus:\n  agentStatus: ~\n",
    // Placement policy.
    "apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: p}\nspec:\n  policy:\n    placementType: PickN\n    numberOfClusters: three\n",
    "apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: p}\nspec:\n  policy:\n    affinity:\n      clusterAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          clusterSelectorTerms:\n          - labelSelector: {matchLabels: {a: b}, matchExpressions: [{key: k, operator: In, values: [1]}]}\n          - labelSelector: {matchLabelz: {}}\n",
    "apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: p}\nspec:\n  policy:\n    affinity:\n      clusterAffinity:\n        preferredDuringSchedulingIgnoredDuringExecution:\n        - weight: 20\n        - preference: {}\n",
    "apiVersion: fleet-policy.dev/v1alpha1\nkind: PlacementBinding\nmetadata: {name: b}\n",
    "apiVersion: fleet-policy.dev/v1alpha1\nkind: PlacementBinding\nmetadata: {name: b}\nspec: {cluster: c, state: Bound, clusterScore: {affinityScore: 2147483648}}\n",
    // Azure members: groups, aliases, windows.
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {group: [a, b]}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {group: [a, 5]}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {group: 5}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {group: {? [x] : y}}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {group: ~}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {}\ncluster: {kubernetesVersion: \"1.29.0\", currentKubernetesVersion: \"1.29.1\"}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {}\ncluster: {region: eastus, nodePools: [{name: p, currentOrchestratorVersion: 1.29}]}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {}\ncluster: {kubernetesVersion: 1.29, colour: red}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {}\ncluster:\n  maintenanceConfigurations:\n  - name: aksManagedAutoUpgradeSchedule\n    properties:\n      maintenanceWindow:\n        schedule: {weekly: {intervalWeeks: 1, dayOfWeek: 5}}\n        durationHours: 8\n        startTime: \"00:00\"\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {}\ncluster:\n  maintenanceConfigurations:\n  - name: aksManagedAutoUpgradeSchedule\n    properties:\n      maintenanceWindow:\n        schedule: {weekly: {intervalWeeks: 1}}\n        durationHours: eight\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {}\ncluster:\n  maintenanceWindows: [{start: a, end: b, schedule: 3}]\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: UpdateRun\nmetadata: {name: r}\nproperties:\n  strategy:\n    stages:\n    - name: s\n      groups: [{name: g, maxConcurrency: true}]\n      afterStageWaitInSeconds: \"60\"\n      beforeGates: [{a: .nan, b: .inf, c: 1.5, d: ~, e: [yes]}]\n  managedClusterUpdate: {upgrade: {type: Full, kubernetesVersion: 1.30}}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: UpdateRun\nmetadata: {name: r}\nproperties:\n  managedClusterUpdate: {nodeImageSelection: {type: Custom}}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: UpdateRun\nmetadata: {name: r}\nproperties:\n  strategy:\n    stages:\n    - name: s\n      groups: [{name: g, maxConcurrency: 1.5}]\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: AutoUpgradeProfile\nmetadata: {name: a}\nproperties: {channel: Stable, disabled: \"no\"}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: AvailableVersions\nmetadata: {name: v}\nproperties: {nodeImages: {eastus: {ubuntu: [a, 1]}}}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: AvailableVersions\nmetadata: {name: v}\nproperties: {nodeImages: {eastus: [a]}}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: AvailableVersions\nproperties: ~\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: AvailableVersions\nmetadata: ~\nname: 5\nproperties: {}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetUpdateStrategy\nmetadata: {name: s}\nproperties: {strategy: {stages: [{name: a, groups: {name: g}}]}}\n",
    // KubeFleet staged runs and rolling updates.
    "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterStagedUpdateStrategy\nmetadata: {name: s}\nspec:\n  stages:\n  - name: a\n    labelSelector: {matchLabels: {env: 1}}\n    maxConcurrency: \"25%\"\n    afterStageTasks: [{type: TimedWait, waitTime: 1h}, {waitTime: 1h}]\n",
    "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterStagedUpdateStrategy\nmetadata: {name: s}\nspec:\n  stages:\n  - name: a\n    maxConcurrency: [1]\n",
    "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterStagedUpdateRun\nmetadata: {name: r}\nspec: {placementName: p, stagedRolloutStrategyName: 5, state: Run}\n",
    "apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: p}\nspec:\n  strategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 25%, maxSurge: -1, unavailablePeriodSeconds: x}}\n",
    "apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: p}\nspec:\n  strategy: {rollingUpdate: {maxUnavailable: {a: 1}}}\n",
    "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourceBinding\nmetadata: {name: b}\nspec: {state: Bound, targetCluster: [c]}\n",
    // Karpenter kinds.
    "apiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata: {name: c, ownerReferences: [{kind: NodePool, name: 5}]}\nstatus: {conditions: [{type: Ready, status: true}]}\n",
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: n, priority: high, tolerations: [{key: k, effect: 1}]}\n",
    "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec: {selector: {matchExpressions: [{key: a}]}}\nstatus: {disruptionsAllowed: -1}\n",
    "apiVersion: fleet-policy.dev/v1alpha1\nkind: NodeCounts\nmetadata: {name: default}\nspec: {ready: -1, deleting: 1}\n",
    "apiVersion: fleet-policy.dev/v1alpha1\nkind: NodeCounts\nmetadata: {name: default}\nspec: {ready: 1, colour: 1}\n",
    // Keys that are not strings, empty keys, null documents.
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a, labels: {? [a] : b}}\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a, labels: {1: b, ~: c, true: d}}\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec: {~: 1}\n",
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\nspec: {? {a: b} : 1}\n",    // Opaque fields (accepted, ignored but for their presence): any value, but a collection
    // as a key at any depth is an error at its path.
    "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: m}\nproperties: {}\nsystemData: {a: [1, {b: {? [x] : y}}]}\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: UpdateRun\nmetadata: {name: r}\nproperties:\n  status: [{? {a: 1} : 2}]\n  strategy:\n    stages:\n    - name: s\n      beforeGates: {x: [{a: 1}, [{? [k] : v}]]}\n      afterGates: ~\n",
    "apiVersion: azure.fleet-policy.dev/v1\nkind: UpdateRun\nmetadata: {name: r}\nproperties:\n  strategy:\n    stages:\n    - name: s\n      groups: [{name: g, afterGates: [.nan, {1: 2, ~: 3}], beforeGates: Null}]\n",
    "apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: p}\nspec:\n  policy:\n    affinity:\n      clusterAffinity:\n        preferredDuringSchedulingIgnoredDuringExecution:\n        - weight: 20\n          preference: {propertySorter: {name: n, sortOrder: Ascending}, metricSorter: {? [a] : 1}}\n",
];

#[test]
fn broken_documents_fail_the_same() {
    let mut t = Tally::default();
    for (i, doc) in BROKEN.iter().enumerate() {
        t.text(&format!("broken {i}"), doc, true);
    }
    assert!(t.err > 100, "ok {} err {}", t.ok, t.err);
}
