//! Property tests of the rollout engine (issue 5 invariants): every selected member appears
//! exactly once; stage k+1 never starts before stage k's groups are terminal and its waits are
//! done; concurrency limits hold in every group and wave; a failure never lets a later Azure
//! member start; results do not depend on document order; no panic on any input.

use chrono::{DateTime, Utc};
use fleet_policy::rollout::plan::{Rollout, State};
use fleet_policy::rollout::RolloutOptions;
use fleet_policy::{RolloutReport, Source};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const AZ: &str = "azure.fleet-policy.dev/v1";
const KF: &str = "placement.kubernetes-fleet.io/v1beta1";
const T0: &str = "2025-06-02T00:00:00Z";

fn opts(extra: Value) -> RolloutOptions {
    let mut o = json!({"at": T0});
    if let (Some(m), Some(e)) = (o.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            m.insert(k.clone(), v.clone());
        }
    }
    serde_json::from_value(o).unwrap_or_else(|e| panic!("{e}"))
}

/// `n` Bound bindings of placement `web`, on clusters `c00`, `c01`, ….
fn bound_bindings(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({"apiVersion": KF, "kind": "ClusterResourceBinding",
                "metadata": {"name": format!("web-c{i:02}"), "labels": {"kubernetes-fleet.io/parent-CRP": "web"}},
                "spec": {"state": "Bound", "targetCluster": format!("c{i:02}")}})
        })
        .collect()
}

fn run(docs: &[Value], o: &RolloutOptions) -> RolloutReport {
    let text = docs
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n---\n");
    fleet_policy::rollout(&[Source::new("p.yaml", text)], o)
}

#[derive(Debug, Clone)]
struct AzMember {
    group: Option<usize>,
    window: Option<(i64, i64)>,
    minor: u8,
    duration_min: i64,
}

#[derive(Debug, Clone)]
struct AzFleet {
    members: Vec<AzMember>,
    /// Stage index of each of the 4 groups.
    stage_of_group: Vec<usize>,
    waits: Vec<i64>,
    concurrency: Vec<u8>,
    fail: Option<usize>,
}

fn az_fleet() -> impl Strategy<Value = AzFleet> {
    let member = (
        prop::option::weighted(0.85, 0usize..4),
        prop::option::of((0i64..48, 1i64..6)),
        prop_oneof![Just(29u8), Just(30u8)],
        10i64..120,
    )
        .prop_map(|(group, window, minor, duration_min)| AzMember {
            group,
            window,
            minor,
            duration_min,
        });
    (
        prop::collection::vec(member, 1..14),
        prop::collection::vec(0usize..3, 4),
        prop::collection::vec(prop_oneof![Just(0i64), Just(600), Just(3600)], 3),
        prop::collection::vec(1u8..3, 4),
        prop::option::of(0usize..14),
    )
        .prop_map(
            |(members, stage_of_group, waits, concurrency, fail)| AzFleet {
                members,
                stage_of_group,
                waits,
                concurrency,
                fail,
            },
        )
}

fn az_docs(f: &AzFleet) -> Vec<Value> {
    let mut docs = Vec::new();
    for (i, m) in f.members.iter().enumerate() {
        let mut cluster = json!({"kubernetesVersion": format!("1.{}.3", m.minor)});
        if let Some((s, len)) = m.window {
            let start = DateTime::parse_from_rfc3339(T0)
                .map(|t| t.to_utc())
                .unwrap_or_default()
                + chrono::Duration::hours(s);
            let end = start + chrono::Duration::hours(len);
            cluster["maintenanceWindows"] =
                json!([{"start": start.to_rfc3339(), "end": end.to_rfc3339()}]);
        }
        let mut props = json!({});
        if let Some(g) = m.group {
            props["group"] = json!(format!("g{g}"));
        }
        docs.push(json!({"apiVersion": AZ, "kind": "FleetMember",
            "metadata": {"name": format!("m{i:02}"), "annotations": {"fleet-policy.dev/update-duration": format!("{}m", m.duration_min)}},
            "properties": props, "cluster": cluster}));
    }
    // Stages that hold at least one group, in order; groups with no member are left out.
    let used: Vec<usize> = (0..4)
        .filter(|g| f.members.iter().any(|m| m.group == Some(*g)))
        .collect();
    let mut stages = Vec::new();
    for s in 0..3 {
        let groups: Vec<Value> = used
            .iter()
            .filter(|g| f.stage_of_group[**g] == s)
            .map(|g| json!({"name": format!("g{g}"), "maxConcurrency": f.concurrency[*g]}))
            .collect();
        if !groups.is_empty() {
            stages.push(json!({"name": format!("s{s}"), "groups": groups, "afterStageWaitInSeconds": f.waits[s]}));
        }
    }
    let mut props = json!({"managedClusterUpdate": {"upgrade": {"type": "Full", "kubernetesVersion": "1.30.5"}}});
    if !stages.is_empty() {
        props["strategy"] = json!({"stages": stages});
    }
    docs.push(json!({"apiVersion": AZ, "kind": "UpdateRun", "metadata": {"name": "run"}, "properties": props}));
    docs
}

fn members(r: &Rollout) -> Vec<(&str, usize, usize, &fleet_policy::rollout::plan::Member)> {
    let mut v = Vec::new();
    for (si, s) in r.stages.iter().enumerate() {
        for (gi, g) in s.groups.iter().enumerate() {
            for m in &g.members {
                v.push((&*m.cluster, si, gi, m));
            }
        }
    }
    v
}

/// Max number of `[start, end)` intervals open at once.
fn max_overlap(intervals: &[(DateTime<Utc>, DateTime<Utc>)]) -> usize {
    let mut ev: Vec<(DateTime<Utc>, i32)> = Vec::new();
    for (s, e) in intervals {
        if e > s {
            ev.push((*s, 1));
            ev.push((*e, -1));
        }
    }
    // Ends before starts at the same instant: a freed slot is reused at once.
    ev.sort();
    let (mut cur, mut best) = (0i32, 0i32);
    for (_, d) in ev {
        cur += d;
        best = best.max(cur);
    }
    best as usize
}

fn check_stage_order(r: &Rollout) -> Result<(), TestCaseError> {
    for w in r.stages.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let Some(b_start) = b.start else { continue };
        for g in &a.groups {
            prop_assert!(
                g.state.is_terminal(),
                "stage {} started while group {} is {:?}",
                b.name,
                g.name,
                g.state
            );
            for m in &g.members {
                if let Some(e) = m.end {
                    prop_assert!(
                        e <= b_start,
                        "member {} of {} ends after {} starts",
                        m.cluster,
                        a.name,
                        b.name
                    );
                }
                prop_assert!(
                    m.state != State::Running,
                    "member {} still running",
                    m.cluster
                );
            }
        }
        for wt in &a.waits {
            prop_assert!(
                wt.state.is_terminal(),
                "wait of {} is {:?} when {} starts",
                a.name,
                wt.state,
                b.name
            );
            if let Some(e) = wt.end {
                prop_assert!(e <= b_start);
            }
        }
        if let Some(ae) = a.end {
            prop_assert!(ae <= b_start);
        }
    }
    Ok(())
}

fn check_concurrency(r: &Rollout) -> Result<(), TestCaseError> {
    for s in &r.stages {
        for g in &s.groups {
            let iv: Vec<_> = g
                .members
                .iter()
                .filter_map(|m| Some((m.start?, m.end?)))
                .collect();
            prop_assert!(
                max_overlap(&iv) as u64 <= g.concurrency.max(1),
                "group {} exceeds {}",
                g.name,
                g.concurrency
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn azure_runs_keep_their_invariants(f in az_fleet()) {
        let docs = az_docs(&f);
        let fail = f.fail.filter(|i| *i < f.members.len()).map(|i| format!("m{i:02}"));
        let o = opts(json!({"fail": fail.clone().map(|x| vec![x]).unwrap_or_default()}));
        let report = run(&docs, &o);
        prop_assert!(report.errors.is_empty(), "{:?}", report.errors);
        let r = &report.rollouts[0];
        // Exactly once: every member is either in the plan or excluded, never twice.
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for (name, ..) in members(r) {
            *seen.entry(name).or_default() += 1;
        }
        for e in &r.excluded {
            *seen.entry(e.cluster.as_str()).or_default() += 1;
        }
        prop_assert_eq!(seen.len(), f.members.len());
        prop_assert!(seen.values().all(|c| *c == 1));
        check_stage_order(r)?;
        check_concurrency(r)?;
        // A failure never lets a later member start.
        let first_failure = members(r).iter().filter(|(_, _, _, m)| m.state == State::Failed).filter_map(|(_, _, _, m)| m.end).min();
        if let Some(tf) = first_failure {
            prop_assert_eq!(r.state, State::Failed);
            for (name, _, _, m) in members(r) {
                if let Some(s) = m.start {
                    prop_assert!(s <= tf, "{} started at {} after the failure at {}", name, s, tf);
                }
            }
        }
        // Document order does not matter.
        let mut rev = docs.clone();
        rev.reverse();
        let again = run(&rev, &o);
        prop_assert_eq!(serde_json::to_value(&report.rollouts).ok(), serde_json::to_value(&again.rollouts).ok());
    }

    #[test]
    fn staged_runs_keep_their_invariants(
        clusters in prop::collection::vec((0u8..3, 0u8..5, 1i64..20), 1..16),
        conc in prop::collection::vec(prop_oneof![Just(json!(1)), Just(json!(2)), Just(json!("50%")), Just(json!("100%"))], 3),
        waits in prop::collection::vec(prop::option::of(prop_oneof![Just("10m"), Just("1h")]), 3),
    ) {
        let mut docs = Vec::new();
        for (i, (ring, order, mins)) in clusters.iter().enumerate() {
            let name = format!("c{i:02}");
            docs.push(json!({"apiVersion": "cluster.kubernetes-fleet.io/v1", "kind": "MemberCluster",
                "metadata": {"name": name, "labels": {"ring": ring.to_string(), "order": order.to_string()},
                             "annotations": {"fleet-policy.dev/update-duration": format!("{mins}m")}}}));
            docs.push(json!({"apiVersion": KF, "kind": "ClusterResourceBinding",
                "metadata": {"name": format!("crp-{name}"), "labels": {"kubernetes-fleet.io/parent-CRP": "crp"}},
                "spec": {"state": "Bound", "targetCluster": name}}));
        }
        let stages: Vec<Value> = (0..3).map(|k| {
            let mut s = json!({"name": format!("ring{k}"), "labelSelector": {"matchLabels": {"ring": k.to_string()}},
                               "sortingLabelKey": "order", "maxConcurrency": conc[k], "beforeStageTasks": [{"type": "Approval"}]});
            if let Some(w) = waits[k] {
                s["afterStageTasks"] = json!([{"type": "TimedWait", "waitTime": w}]);
            }
            s
        }).collect();
        docs.push(json!({"apiVersion": KF, "kind": "ClusterStagedUpdateStrategy", "metadata": {"name": "s"}, "spec": {"stages": stages}}));
        docs.push(json!({"apiVersion": KF, "kind": "ClusterResourcePlacement", "metadata": {"name": "crp"}, "spec": {"strategy": {"type": "External"}}}));
        docs.push(json!({"apiVersion": KF, "kind": "ClusterStagedUpdateRun", "metadata": {"name": "run"},
                         "spec": {"placementName": "crp", "stagedRolloutStrategyName": "s", "state": "Run"}}));
        let o = opts(json!({"approveAll": true}));
        let report = run(&docs, &o);
        prop_assert!(report.errors.is_empty(), "{:?}", report.errors);
        let r = &report.rollouts[0];
        prop_assert_eq!(r.state, State::Completed);
        let ms = members(r);
        prop_assert_eq!(ms.len(), clusters.len());
        let mut names: Vec<&str> = ms.iter().map(|m| m.0).collect();
        names.sort_unstable();
        names.dedup();
        prop_assert_eq!(names.len(), clusters.len());
        check_stage_order(r)?;
        check_concurrency(r)?;
        // Static order: clusters start in their sorted order inside a stage.
        for s in &r.stages {
            for g in &s.groups {
                let starts: Vec<_> = g.members.iter().filter_map(|m| m.start).collect();
                prop_assert!(starts.windows(2).all(|w| w[0] <= w[1]));
            }
        }
        let mut rev = docs.clone();
        rev.reverse();
        let again = run(&rev, &o);
        prop_assert_eq!(serde_json::to_value(&report.rollouts).ok(), serde_json::to_value(&again.rollouts).ok());
    }

    #[test]
    fn rolling_waves_respect_max_unavailable(n in 1usize..30, pct in 0u8..=100) {
        let mut docs = bound_bindings(n);
        docs.push(json!({"apiVersion": KF, "kind": "ClusterResourcePlacement", "metadata": {"name": "web"},
            "spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": format!("{pct}%")}}}}));
        let report = run(&docs, &opts(json!({})));
        prop_assert!(report.errors.is_empty(), "{:?}", report.errors);
        let r = &report.rollouts[0];
        let u = (pct as usize * n).div_ceil(100);
        if u == 0 {
            prop_assert_eq!(r.state, State::Blocked);
        } else {
            prop_assert_eq!(r.state, State::Completed);
            check_concurrency(r)?;
            prop_assert_eq!(r.stages[0].groups[0].concurrency as usize, u);
        }
    }

    #[test]
    fn rolling_waves_of_a_pick_n_short_of_its_target(n in 1usize..20, gap in 0usize..5, pct in 0u8..=100) {
        // KubeFleet's `calculateMaxToRemove` with every selected cluster ready: `n - (target -
        // ceil(p × target))`, the target being numberOfClusters even when fewer are selected.
        let target = n + gap;
        let mut docs = bound_bindings(n);
        docs.push(json!({"apiVersion": KF, "kind": "ClusterResourcePlacement", "metadata": {"name": "web"},
            "spec": {"policy": {"placementType": "PickN", "numberOfClusters": target},
                     "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": format!("{pct}%")}}}}));
        let report = run(&docs, &opts(json!({})));
        prop_assert!(report.errors.is_empty(), "{:?}", report.errors);
        let r = &report.rollouts[0];
        let u = (pct as usize * target).div_ceil(100);
        let window = (n + u).saturating_sub(target);
        if window == 0 {
            prop_assert_eq!(r.state, State::Blocked);
            let reason = if u == 0 { "MaxUnavailableIsZero" } else { "TooFewClustersSelected" };
            prop_assert_eq!(r.reason.as_deref(), Some(reason));
        } else {
            prop_assert_eq!(r.state, State::Completed);
            check_concurrency(r)?;
            prop_assert_eq!(r.stages[0].groups[0].concurrency as usize, window);
        }
    }

    #[test]
    fn no_panic_on_arbitrary_text(text in "\\PC{0,400}") {
        let _ = fleet_policy::rollout(&[Source::new("x", text)], &opts(json!({})));
    }

    #[test]
    fn no_panic_on_arbitrary_manifests(
        kind in prop_oneof![Just("UpdateRun"), Just("FleetMember"), Just("FleetUpdateStrategy"), Just("AutoUpgradeProfile"),
                            Just("AvailableVersions"), Just("ClusterStagedUpdateStrategy"), Just("ClusterStagedUpdateRun"),
                            Just("ClusterResourcePlacement"), Just("ClusterResourceBinding")],
        body in "[a-zA-Z:{}\\[\\], \"0-9%.-]{0,120}",
    ) {
        let api = if ["ClusterStagedUpdateStrategy", "ClusterStagedUpdateRun", "ClusterResourcePlacement", "ClusterResourceBinding"].contains(&kind) { KF } else { AZ };
        for field in ["properties", "spec", "cluster"] {
            let text = format!("apiVersion: {api}\nkind: {kind}\nmetadata: {{name: x}}\n{field}: {body}\n");
            let _ = fleet_policy::rollout(&[Source::new("x", text)], &opts(json!({})));
        }
    }
}

/// The helper's case: three clusters for a PickN of four, 25%: KubeFleet keeps three of four
/// available, so no cluster can be taken down for an in-place update; with 50%, one at a time.
#[test]
fn a_pick_n_short_of_its_target_blocks_or_narrows_the_in_place_rollout() {
    let docs = |max_unavailable: &str| {
        let mut docs: Vec<Value> = ["a", "b", "c"]
            .iter()
            .map(|c| {
                json!({"apiVersion": "cluster.kubernetes-fleet.io/v1beta1", "kind": "MemberCluster",
                    "metadata": {"name": c}, "spec": {}})
            })
            .collect();
        docs.push(json!({"apiVersion": KF, "kind": "ClusterResourcePlacement", "metadata": {"name": "web"},
            "spec": {"resourceSelectors": [{"group": "", "kind": "Namespace", "name": "web", "version": "v1"}],
                     "policy": {"placementType": "PickN", "numberOfClusters": 4},
                     "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": max_unavailable}}}}));
        docs
    };
    let report = run(&docs("25%"), &opts(json!({})));
    let r = &report.rollouts[0];
    assert_eq!(r.state, State::Blocked);
    assert_eq!(r.reason.as_deref(), Some("TooFewClustersSelected"));
    assert_eq!(
        r.message.as_deref(),
        Some("3 of the 4 clusters the policy targets are selected, and maxUnavailable keeps 3 of them available: in-place updates never start; only failed-to-apply clusters are updated")
    );
    let states: Vec<State> = r.stages[0].groups[0]
        .members
        .iter()
        .map(|m| m.state)
        .collect();
    assert_eq!(states, [State::NotStarted; 3]);

    let report = run(&docs("50%"), &opts(json!({})));
    let r = &report.rollouts[0];
    assert_eq!(r.state, State::Completed);
    assert_eq!(r.stages[0].groups[0].concurrency, 1);
    assert_eq!(
        r.message.as_deref(),
        Some("3 of the 4 clusters the policy targets are selected, and maxUnavailable keeps 2 of them available: fewer clusters are updated at a time")
    );
    let starts: Vec<Option<DateTime<Utc>>> = r.stages[0].groups[0]
        .members
        .iter()
        .map(|m| m.start)
        .collect();
    let distinct: std::collections::BTreeSet<_> = starts.iter().collect();
    assert_eq!(distinct.len(), 3, "one at a time: {starts:?}");
}
