//! End-to-end behaviour of the rollout engine on YAML input.

use super::plan::{State, Subject};
use super::*;
use crate::input::{Input, Source};

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.to_utc())
        .unwrap_or_default()
}

fn run(yaml: &str, opts: serde_json::Value) -> RolloutReport {
    let opts: RolloutOptions =
        crate::report::options_from_value(&opts).unwrap_or_else(|e| panic!("{e}"));
    crate::rollout_input(&Input::parse(&[Source::new("t.yaml", yaml)]), &opts)
}

const FLEET: &str = r#"
apiVersion: azure.fleet-policy.dev/v1
kind: FleetMember
metadata: {name: soon}
properties: {group: g1}
cluster:
  kubernetesVersion: "1.29.9"
  maintenanceWindows: [{start: "2025-06-02T02:30:00Z", end: "2025-06-02T06:30:00Z"}]
---
apiVersion: azure.fleet-policy.dev/v1
kind: FleetMember
metadata: {name: anytime}
properties: {group: g1}
cluster: {kubernetesVersion: "1.29.9"}
---
apiVersion: azure.fleet-policy.dev/v1
kind: FleetMember
metadata: {name: later}
properties: {group: g2}
cluster: {kubernetesVersion: "1.29.9"}
---
apiVersion: azure.fleet-policy.dev/v1
kind: UpdateRun
metadata: {name: run1}
properties:
  strategy:
    stages:
    - {name: s1, groups: [{name: g1}]}
    - {name: s2, groups: [{name: g2}]}
  managedClusterUpdate:
    upgrade: {type: Full, kubernetesVersion: "1.30.5"}
"#;

#[test]
fn a_closed_window_member_is_pending_and_runs_when_its_window_opens() {
    let r = run(FLEET, serde_json::json!({"at": "2025-06-02T00:00:00Z"}));
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let ro = &r.rollouts[0];
    let g1 = &ro.stages[0].groups[0];
    // Bucket 2 (opens within 4h) outranks no-window, but is tried and left Pending.
    assert_eq!(g1.attempt_order, ["soon".into(), "anytime".into()]);
    let soon = ro
        .timeline
        .iter()
        .filter(|e| &*e.name == "soon")
        .map(|e| (e.at, e.state))
        .collect::<Vec<_>>();
    assert_eq!(
        soon,
        vec![
            (at("2025-06-02T00:00:00Z"), State::Pending),
            (at("2025-06-02T02:30:00Z"), State::Running),
            (at("2025-06-02T03:30:00Z"), State::Completed),
        ]
    );
    let g1_states: Vec<_> = ro
        .timeline
        .iter()
        .filter(|e| e.subject == Subject::Group && &*e.name == "g1")
        .map(|e| (e.at, e.state))
        .collect();
    assert!(
        g1_states.contains(&(at("2025-06-02T01:00:00Z"), State::Pending)),
        "{g1_states:?}"
    );
    assert_eq!(ro.state, State::Completed);
    assert_eq!(ro.end, Some(at("2025-06-02T04:30:00Z")));
}

#[test]
fn a_failure_stops_the_run_and_later_stages_never_start() {
    let r = run(
        FLEET,
        serde_json::json!({"at": "2025-06-02T00:00:00Z", "fail": "anytime"}),
    );
    let ro = &r.rollouts[0];
    assert_eq!(ro.state, State::Failed);
    assert_eq!(ro.stages[0].state, State::Failed);
    assert_eq!(ro.stages[1].state, State::NotStarted);
    assert_eq!(ro.stages[1].groups[0].members[0].state, State::NotStarted);
    // The pending member never started.
    let soon = ro.stages[0].groups[0]
        .members
        .iter()
        .find(|m| &*m.cluster == "soon")
        .map(|m| (m.state, m.start));
    assert_eq!(soon, Some((State::Pending, None)));
}

/// A stop while the last member of a stage is updating lets that member finish, but the
/// after-stage wait does not start: the stage is Stopped with the run, and the wait runs when
/// the run is started again (R-AZ-46).
#[test]
fn a_stopped_run_starts_its_after_stage_wait_only_when_started_again() {
    let yaml = FLEET.replace(
        "- {name: s1, groups: [{name: g1}]}",
        "- {name: s1, groups: [{name: g1}], afterStageWaitInSeconds: 1800}",
    );
    let stop = serde_json::json!({"action": "stop", "at": "2025-06-02T00:10:00Z"});
    let timeline = |events: serde_json::Value| {
        let r = run(
            &yaml,
            serde_json::json!({"at": "2025-06-02T00:00:00Z", "skip": "soon", "events": events}),
        );
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        let ro = &r.rollouts[0];
        let stages: Vec<State> = ro.stages.iter().map(|s| s.state).collect();
        let entries: Vec<(String, Subject, String, State)> = ro
            .timeline
            .iter()
            .filter(|e| e.subject != Subject::Group)
            .map(|e| {
                (
                    e.at.format("%d %H:%M").to_string(),
                    e.subject,
                    e.name.to_string(),
                    e.state,
                )
            })
            .collect();
        (ro.state, stages, entries)
    };
    let e = |at: &str, subject: Subject, name: &str, state: State| {
        (at.to_string(), subject, name.to_string(), state)
    };
    let (state, stages, entries) = timeline(serde_json::json!([stop]));
    assert_eq!(state, State::Stopped);
    assert_eq!(stages, [State::Stopped, State::NotStarted]);
    assert!(!entries.iter().any(|x| x.1 == Subject::Wait), "{entries:?}");
    let start = serde_json::json!({"action": "start", "at": "2025-06-03T09:00:00Z"});
    let (state, _, entries) = timeline(serde_json::json!([stop, start]));
    assert_eq!(state, State::Completed);
    let from: Vec<_> = entries
        .into_iter()
        .filter(|x| x.0.as_str() >= "02 01:00")
        .collect();
    assert_eq!(
        from,
        [
            e("02 01:00", Subject::Member, "anytime", State::Completed),
            e("02 01:00", Subject::Stage, "s1", State::Stopped),
            e("02 01:00", Subject::Run, "run1", State::Stopped),
            e("03 09:00", Subject::Wait, "s1", State::Running),
            e("03 09:00", Subject::Stage, "s1", State::Running),
            e("03 09:00", Subject::Run, "run1", State::Running),
            e("03 09:30", Subject::Wait, "s1", State::Completed),
            e("03 09:30", Subject::Stage, "s1", State::Completed),
            e("03 09:30", Subject::Member, "later", State::Running),
            e("03 09:30", Subject::Stage, "s2", State::Running),
            e("03 10:30", Subject::Member, "later", State::Completed),
            e("03 10:30", Subject::Stage, "s2", State::Completed),
            e("03 10:30", Subject::Run, "run1", State::Completed),
        ]
    );
}

#[test]
fn observe_shows_states_at_an_instant_and_dotted_switches_apply() {
    let r = run(
        FLEET,
        serde_json::json!({"at": "2025-06-02T00:00:00Z", "observe": "2025-06-02T00:30:00Z"}),
    );
    let ro = &r.rollouts[0];
    assert_eq!(ro.state, State::Running);
    assert_eq!(ro.stages[1].state, State::NotStarted);
    let r = run(
        FLEET,
        serde_json::json!({"at": "2025-06-02T00:00:00Z", "azure.fourHourBoundaryInclusive": false, "azure.tieBreak": "bucket,name"}),
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let a = &r.rollouts[0].assumptions;
    assert!(a
        .iter()
        .any(|x| x.option == "azure.tieBreak" && x.value == "bucket,name"));
    // An unknown switch is a usage error naming the accepted ones, not a silent default.
    let bad = crate::report::options_from_value::<RolloutOptions>(
        &serde_json::json!({"at": "2025-06-02T00:00:00Z", "azure.noSuchSwitch": 1}),
    );
    let Err(e) = bad else {
        panic!("accepted an unknown switch")
    };
    assert!(
        e.starts_with("invalid options: azure: unknown field `noSuchSwitch`, expected one of `fourHourBoundaryInclusive`"),
        "{e}"
    );
}

#[test]
fn manual_runs_fail_members_aks_would_reject() {
    let yaml = FLEET.replace("kubernetesVersion: \"1.29.9\"}\n---\napiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: later}", "kubernetesVersion: \"1.28.3\"}\n---\napiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {name: later}");
    let r = run(&yaml, serde_json::json!({"at": "2025-06-02T00:00:00Z"}));
    let ro = &r.rollouts[0];
    let m = ro.stages[0].groups[0]
        .members
        .iter()
        .find(|m| &*m.cluster == "anytime");
    assert_eq!(m.map(|m| m.state), Some(State::Failed));
    assert_eq!(
        m.and_then(|m| m.reason.clone()),
        Some(plan::MemberReason::MinorVersionSkipRejected {
            current: "1.28.3".into(),
            target: "1.30.5".into()
        })
    );
    assert_eq!(ro.state, State::Failed);
}

/// AKS reads a version without a patch (`1.30`) as the newest patch of that minor, and does
/// not upgrade a cluster already at one of its patches (ManagedClusterProperties
/// .kubernetesVersion): such a member is skipped, not refused as a downgrade.
#[test]
fn a_target_without_a_patch_is_met_by_any_patch_of_its_minor() {
    let yaml = FLEET
        .replace("kubernetesVersion: \"1.30.5\"", "kubernetesVersion: \"1.30\"")
        .replace(
            "metadata: {name: later}\nproperties: {group: g2}\ncluster: {kubernetesVersion: \"1.29.9\"}",
            "metadata: {name: later}\nproperties: {group: g2}\ncluster: {kubernetesVersion: \"1.30.2\"}",
        );
    let r = run(&yaml, serde_json::json!({"at": "2025-06-02T00:00:00Z"}));
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let ro = &r.rollouts[0];
    let states: Vec<(&str, State, Option<plan::MemberReason>)> = ro
        .stages
        .iter()
        .flat_map(|s| &s.groups)
        .flat_map(|g| &g.members)
        .map(|m| (&*m.cluster, m.state, m.reason.clone()))
        .collect();
    assert_eq!(
        states,
        [
            ("anytime", State::Completed, None),
            ("soon", State::Completed, None),
            (
                "later",
                State::Skipped,
                Some(plan::MemberReason::AlreadyAtTarget {
                    target: "1.30".into()
                })
            ),
        ]
    );
    assert_eq!(ro.state, State::Completed);
}

#[test]
fn schedules_expand_into_windows_for_the_buckets() {
    let yaml = r#"
apiVersion: azure.fleet-policy.dev/v1
kind: FleetMember
metadata: {name: weekly}
properties: {group: g1}
cluster:
  maintenanceConfigurations:
  - name: aksManagedAutoUpgradeSchedule
    properties:
      maintenanceWindow:
        schedule: {weekly: {intervalWeeks: 1, dayOfWeek: Monday}}
        durationHours: 4
        startTime: "02:00"
        utcOffset: "+00:00"
---
apiVersion: azure.fleet-policy.dev/v1
kind: UpdateRun
metadata: {name: run1}
properties:
  managedClusterUpdate:
    upgrade: {type: ControlPlaneOnly, kubernetesVersion: "1.30.5"}
"#;
    // 2025-06-01 is a Sunday: the next window opens Monday 02:00, 24h away (bucket 4).
    let r = run(yaml, serde_json::json!({"at": "2025-06-01T02:00:00Z"}));
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let m = &r.rollouts[0].stages[0].groups[0].members[0];
    assert_eq!(m.bucket, Some(4));
    assert_eq!(m.next_window_start, Some(at("2025-06-02T02:00:00Z")));
    assert_eq!(m.start, Some(at("2025-06-02T02:00:00Z")));
    assert_eq!(&*r.rollouts[0].stages[0].name, "default");
}

#[test]
fn bad_input_is_an_error_with_a_position_not_a_panic() {
    let yaml = "apiVersion: azure.fleet-policy.dev/v1\nkind: UpdateRun\nmetadata: {name: r}\nproperties:\n  managedClusterUpdate:\n    upgrade: {type: Full}\n";
    let r = run(yaml, serde_json::json!({"at": "2025-06-01T00:00:00Z"}));
    assert_eq!(r.errors.len(), 1);
    assert_eq!(r.errors[0].path, "properties.managedClusterUpdate.upgrade");
    assert_eq!((r.errors[0].line, r.errors[0].column), (6, 14));
    assert_eq!(
        r.errors[0].message,
        "kubernetesVersion is required when upgrade.type is Full"
    );
}

#[test]
fn clock_gives_what_ts_gives() {
    let clock = super::Clock::default();
    let mut ts = vec![
        0,
        -1,
        86_399,
        86_400,
        1_748_822_400,
        1_748_822_399,
        i64::MIN,
        i64::MAX,
        i64::MIN / 2,
        i64::MAX / 2,
        8_210_298_412_799,
        8_210_298_412_800,
        -8_334_601_228_800,
        -8_334_601_228_801,
    ];
    ts.extend((0..2000).map(|i| 1_748_822_400 + i * 3_611 - 3_000_000));
    for t in ts {
        assert_eq!(clock.at(t), super::ts(t), "{t}");
    }
}

/// The first run-start failure of the stage-by-stage walk: a sorting label of an earlier stage
/// before a cluster met again in a later one, and among clusters met again, the earliest stage,
/// then the first name.
#[test]
fn compute_stages_reports_the_walks_first_failure() {
    use super::staged::{compute_stages, ClusterView, Labels};
    use crate::model::rollout::StagedUpdateStrategySpec;
    let clusters = |labels: &[(&str, &str)]| {
        let text: String = labels
            .iter()
            .map(|(name, l)| {
                format!("apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {{name: {name}, labels: {{{l}}}}}\n---\n")
            })
            .collect();
        Input::parse_str(&text)
    };
    let strategy = |stages: &str| -> StagedUpdateStrategySpec {
        let input = Input::parse_str(&format!("apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterStagedUpdateStrategy\nmetadata: {{name: s}}\nspec:\n  stages:\n{stages}"));
        match input.documents.first().map(|d| d.decode_at(&"spec".into())) {
            Some(Ok(s)) => s,
            other => panic!("{other:?}"),
        }
    };
    let run = |input: &Input, spec: &StagedUpdateStrategySpec| {
        let views: Vec<ClusterView<'_>> = input
            .documents
            .iter()
            .map(|d| ClusterView {
                name: d.name.as_deref().unwrap_or_default(),
                labels: Labels::of(d),
            })
            .collect();
        let mut names: Vec<&str> = views.iter().map(|c| c.name).collect();
        names.sort_unstable();
        compute_stages(&spec.stages, &views, &names, &[]).map(|(s, _)| {
            s.into_iter()
                .map(|s| (s.name, s.clusters.iter().map(|c| c.to_string()).collect()))
                .collect::<Vec<_>>()
        })
    };
    let three = strategy("  - {name: a, labelSelector: {matchLabels: {ring: a}}, sortingLabelKey: order}\n  - {name: b, labelSelector: {matchLabels: {zone: x}}}\n  - {name: c, labelSelector: {matchLabels: {tier: t}}}\n");
    // z is met again at stage b, y only at stage c: z is the error although y sorts first.
    let input = clusters(&[
        ("y", "ring: a, order: '1', tier: t"),
        ("z", "ring: a, order: '2', zone: x"),
    ]);
    assert_eq!(
        run(&input, &three),
        Err("cluster `z` appears in more than one stages".to_string())
    );
    // A bad sorting label in stage a comes before the repeat found in stage b.
    let input = clusters(&[("y", "ring: a, order: q, zone: x")]);
    assert_eq!(
        run(&input, &three),
        Err("the sorting label `order:q` on cluster `y` is not valid: strconv.Atoi: parsing \"q\": invalid syntax".to_string())
    );
    // Without failures: stage a sorted by the label, then name.
    let input = clusters(&[
        ("w", "ring: a, order: '2'"),
        ("v", "ring: a, order: '2'"),
        ("u", "ring: a, order: '10'"),
        ("t", "zone: x"),
    ]);
    assert_eq!(
        run(&input, &three),
        Ok(vec![
            (
                "a".to_string(),
                vec!["v".to_string(), "w".into(), "u".into()]
            ),
            ("b".to_string(), vec!["t".to_string()]),
            ("c".to_string(), vec![]),
        ])
    );
}

/// initialization.go: a staged run with no cluster to update and none to delete fails to
/// initialise (Initialized=False is terminal), whatever the strategy: here a PickAll whose
/// affinity matches no cluster (the policy is fulfilled with 0 clusters).
#[test]
fn a_staged_run_with_nothing_to_update_fails_to_initialise() {
    let yaml = "\
apiVersion: cluster.kubernetes-fleet.io/v1beta1
kind: MemberCluster
metadata: {name: a, labels: {env: prod}}
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {name: web}
spec:
  policy:
    placementType: PickAll
    affinity: {clusterAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {clusterSelectorTerms: [{labelSelector: {matchLabels: {env: staging}}}]}}}
  strategy: {type: External}
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterStagedUpdateStrategy
metadata: {name: s}
spec:
  stages: [{name: prod, labelSelector: {matchLabels: {env: prod}}}]
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterStagedUpdateRun
metadata: {name: r}
spec: {placementName: web, stagedRolloutStrategyName: s, state: Run}
";
    let r = run(yaml, serde_json::json!({"at": "2026-03-02T08:00:00Z"}));
    let run = r
        .rollouts
        .iter()
        .find(|x| x.kind == "ClusterStagedUpdateRun");
    let Some(run) = run else {
        panic!("no staged run: {:?}", r.errors)
    };
    assert_eq!(run.state, State::InitFailed);
    assert_eq!(
        run.message.as_deref(),
        Some("cannot continue the updateRun: failed to validate the updateRun: no scheduled or to-be-deleted bindings found for the latest policy snapshot /web-0")
    );
}

/// initialization.go `determinePolicySnapshot`: a placement the scheduler could not fulfil
/// (its policy snapshot is not Scheduled=True) fails the run before its bindings are read.
#[test]
fn a_staged_run_over_an_unfulfilled_policy_fails_to_initialise() {
    let yaml = "\
apiVersion: cluster.kubernetes-fleet.io/v1beta1
kind: MemberCluster
metadata: {name: a, labels: {env: prod}}
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {name: web}
spec:
  policy: {placementType: PickFixed, clusterNames: [ghost]}
  strategy: {type: External}
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterStagedUpdateStrategy
metadata: {name: s}
spec:
  stages: [{name: prod, labelSelector: {matchLabels: {env: prod}}}]
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterStagedUpdateRun
metadata: {name: r}
spec: {placementName: web, stagedRolloutStrategyName: s, state: Run}
";
    let r = run(yaml, serde_json::json!({"at": "2026-03-02T08:00:00Z"}));
    let run = r
        .rollouts
        .iter()
        .find(|x| x.kind == "ClusterStagedUpdateRun");
    assert_eq!(run.map(|x| x.state), Some(State::InitFailed));
    assert_eq!(
        run.and_then(|x| x.message.as_deref()),
        Some("cannot continue the updateRun: failed to validate the updateRun: policy snapshot `web-0` not fully scheduled yet")
    );
}

/// A run as `az fleet updaterun show` prints it while it is under way or after it ended: its
/// recorded status is not read (the run is simulated from its start), and a warning at
/// `status` says so; a run that has not started says nothing.
#[test]
fn a_run_recorded_under_way_is_simulated_from_its_start_with_a_warning() {
    let recorded = |state: &str| {
        FLEET.replace(
            "  managedClusterUpdate:\n",
            &format!("  status: {{status: {{state: {state}, startTime: \"2025-06-01T23:00:00Z\"}}}}\n  managedClusterUpdate:\n"),
        )
    };
    let opts = serde_json::json!({"at": "2025-06-02T00:00:00Z"});
    let warned = |r: &RolloutReport| -> Vec<(String, String)> {
        r.warnings
            .iter()
            .filter(|w| w.path == "properties.status")
            .map(|w| (w.path.clone(), w.message.clone()))
            .collect()
    };
    for state in ["Running", "Failed", "Stopped"] {
        let r = run(&recorded(state), opts.clone());
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert_eq!(
            warned(&r),
            [(
                "properties.status".to_string(),
                "the run's recorded status is not read: the run is simulated from its start"
                    .to_string()
            )],
            "{state}"
        );
        assert_eq!(r.rollouts[0].start, Some(at("2025-06-02T00:00:00Z")));
    }
    assert_eq!(warned(&run(&recorded("NotStarted"), opts.clone())), []);
    assert_eq!(warned(&run(FLEET, opts)), []);
}
