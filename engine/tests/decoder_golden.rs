//! The YAML decoder (`FromNode`) pinned by golden files: every document of the examples and
//! a set of broken documents, decoded into the model types; the `Debug` of each result (the
//! value, or the error's message, field path and line:column) must equal
//! `tests/golden/decoded.txt`. After an intended change, rewrite the file with
//! `FLEET_POLICY_BLESS=1 cargo test -p fleet-policy --test decoder_golden` and review its diff.
//! (It replaced the differential test against serde's derived decoder when that second
//! decoder was removed; the two agreed on these documents but for timestamp errors, which
//! now follow Go's `time.Parse`.)

mod common;

use common::{repo, yaml_files};
use fleet_policy::input::de::from_node;
use fleet_policy::input::{FromNode, Input, Node, Source};
use fleet_policy::model::disruption as d;
use fleet_policy::model::placement as p;
use fleet_policy::model::rollout as r;
use std::fmt::{Debug, Write};

fn decode<T: FromNode + Debug>(out: &mut String, node: &Node, what: &str) {
    let _ = writeln!(
        out,
        "{what} as {}: {:?}",
        short_type_name::<T>(),
        from_node::<T>(node)
    );
}

/// The type's name without module paths (`ArmResource<FleetMemberProperties>`).
fn short_type_name<T>() -> String {
    let full = std::any::type_name::<T>();
    let mut out = String::new();
    for part in full.split_inclusive(['<', '>', ',', ' ']) {
        out.push_str(part.rsplit("::").next().unwrap_or(part));
    }
    out
}

/// A whole document as the type of its kind (all types for the broken ones), and its
/// `spec` / `properties` as the spec types.
fn document(out: &mut String, root: &Node, kind: &str, what: &str, all: bool) {
    let want = |k: &str| all || kind == k;
    if want("MemberCluster") {
        decode::<p::MemberCluster>(out, root, what);
    }
    if want("ClusterResourcePlacement") || want("ResourcePlacement") {
        decode::<p::ClusterResourcePlacement>(out, root, what);
    }
    if want("PlacementBinding") {
        decode::<p::PlacementBinding>(out, root, what);
    }
    if want("NodeClaim") {
        decode::<d::NodeClaim>(out, root, what);
    }
    if want("Node") {
        decode::<d::K8sNode>(out, root, what);
    }
    if want("Pod") {
        decode::<d::Pod>(out, root, what);
    }
    if want("PodDisruptionBudget") {
        decode::<d::PodDisruptionBudget>(out, root, what);
    }
    if want("FleetMember") {
        decode::<r::ArmResource<r::FleetMemberProperties>>(out, root, what);
    }
    if want("FleetUpdateStrategy") {
        decode::<r::ArmResource<r::FleetUpdateStrategyProperties>>(out, root, what);
    }
    if want("AvailableVersions") {
        decode::<r::ArmResource<r::AvailableVersionsProperties>>(out, root, what);
    }
    if want("UpdateRun") {
        decode::<r::ArmResource<r::UpdateRunProperties>>(out, root, what);
    }
    if want("AutoUpgradeProfile") {
        decode::<r::ArmResource<r::AutoUpgradeProfileProperties>>(out, root, what);
    }
    for key in ["spec", "properties"] {
        let Some(n) = root.get(key) else { continue };
        let what = format!("{what} {key}");
        if want("NodeCounts") {
            decode::<d::NodeCountsSpec>(out, n, &what);
        }
        if want("ClusterResourcePlacement") {
            decode::<r::PlacementRolloutSpec>(out, n, &what);
        }
        if want("ClusterStagedUpdateStrategy") {
            decode::<r::StagedUpdateStrategySpec>(out, n, &what);
        }
        if want("ClusterResourceBinding") {
            decode::<r::BindingSpecView>(out, n, &what);
        }
        if want("ClusterStagedUpdateRun") {
            decode::<r::StagedUpdateRunSpec>(out, n, &what);
        }
    }
}

fn text(out: &mut String, name: &str, text: &str, all: bool) {
    let input = Input::parse(&[Source::new(name, text)]);
    for (i, doc) in input.documents.iter().enumerate() {
        document(out, &doc.root, &doc.kind, &format!("{name} #{i}"), all);
    }
}

#[test]
fn decoded_documents_match_the_golden_file() {
    let mut out = String::new();
    let mut files = Vec::new();
    yaml_files(&repo().join("static/examples"), &mut files);
    files.sort();
    assert!(!files.is_empty(), "no examples under static/examples");
    for f in &files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        text(
            &mut out,
            &name,
            &std::fs::read_to_string(f).unwrap_or_default(),
            false,
        );
    }
    for (i, doc) in BROKEN.iter().enumerate() {
        text(&mut out, &format!("broken {i}"), doc, true);
    }
    let golden = repo().join("engine/tests/golden/decoded.txt");
    if std::env::var_os("FLEET_POLICY_BLESS").is_some() {
        let _ = std::fs::create_dir_all(golden.parent().unwrap_or(&golden));
        if let Err(e) = std::fs::write(&golden, &out) {
            panic!("cannot write {}: {e}", golden.display());
        }
    }
    let want = std::fs::read_to_string(&golden).unwrap_or_default();
    if want != out {
        let first = want
            .lines()
            .zip(out.lines())
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("golden:  {a}\ndecoded: {b}"))
            .unwrap_or_else(|| {
                format!("{} lines vs {}", want.lines().count(), out.lines().count())
            });
        panic!(
            "the decoder's results differ from {}:\n{first}",
            golden.display()
        );
    }
    assert!(out.lines().count() > 300, "{} lines", out.lines().count());
}

/// Documents with one thing wrong each.
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
