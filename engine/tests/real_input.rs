//! Real-format input, as users paste it: `kubectl get … -o yaml` / `-o json` Lists with
//! member-agent status, bindings as the hub holds them, and example files with their
//! neighbouring kinds. Each test pins the decisions a user reads off the result.
//!
//! The corpus (`tests/corpus/`):
//! - `kubectl/memberclusters.{yaml,json}`: seven clusters as `kubectl get memberclusters`
//!   prints them (last-applied annotation, finalizers, agent status with heartbeats at
//!   2026-03-04T11:58:42Z, conditions, properties, resourceUsage): bravelion, smartfish,
//!   quietowl (healthy), oldbadger (being deleted), sickhawk (unhealthy since 10:02),
//!   newcat (status, but its agent never connected), gpuyak (tainted gpu=true:NoSchedule).
//! - `kubectl/placements.yaml`: `web` (PickN 1 by available CPU, RollingUpdate), `everywhere`
//!   (PickAll, no strategy), `prod-east` (PickAll by labels).
//! - `kubectl/bindings.yaml`: `kubectl get clusterresourcebindings`: web on bravelion (Bound),
//!   everywhere on oldbadger and bravelion.
//! - `neighbours/`: Karpenter's general-purpose NodePool beside its EC2NodeClass; a KubeFleet
//!   staged run beside a Namespace, a Deployment, an override, a placement disruption budget
//!   and an approved ClusterApprovalRequest.

use fleet_policy::{EvaluateOptions, PlaceOptions, RolloutOptions, Source};
use serde_json::Value;
use std::path::PathBuf;

fn corpus(name: &str) -> Source {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Source::new(name, text),
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    }
}

fn at(s: &str) -> chrono::DateTime<chrono::Utc> {
    match chrono::DateTime::parse_from_rfc3339(s) {
        Ok(t) => t.to_utc(),
        Err(e) => panic!("{s}: {e}"),
    }
}

fn json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or_else(|e| panic!("{e}"))
}

/// A NodePool result's candidates of disruption method `name` (`Drift`, `Emptiness`, …).
fn method(pool: &Value, name: &str) -> Value {
    pool["candidates"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["method"] == name)
        .cloned()
        .unwrap_or_default()
}

/// `(cluster, plugin or "picked", reason)` of one placement, in the result's order.
fn outcome(p: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for c in p["picked"].as_array().into_iter().flatten() {
        out.push((c["cluster"].as_str().unwrap_or("").into(), "picked".into()));
    }
    for c in p["notPicked"].as_array().into_iter().flatten() {
        out.push((
            c["cluster"].as_str().unwrap_or("").into(),
            "notPicked".into(),
        ));
    }
    for c in p["filtered"].as_array().into_iter().flatten() {
        out.push((
            c["cluster"].as_str().unwrap_or("").into(),
            c["reason"].as_str().unwrap_or("").into(),
        ));
    }
    out
}

/// A placement of every cluster, as the tests about reading the fleet add it.
const PICK_ALL_CRP: &str = "apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {name: p}
spec:
  resourceSelectors: [{group: \"\", version: v1, kind: Namespace, name: web}]
  policy: {placementType: PickAll}
";

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

const NOT_ONLINE: &str =
    "ClusterUnschedulable, cluster is not connected to the fleet: member agent not online yet";
const LEFT: &str = "ClusterUnschedulable, cluster has left the fleet";
const UNHEALTHY: &str = "ClusterUnschedulable, cluster is not connected to the fleet: unhealthy for a prolonged period of time (last transitioned 117.82 minutes ago)";
const TAINT: &str =
    "ClusterUnschedulable, taint &{Key:gpu Value:true Effect:NoSchedule} cannot be tolerated";

#[test]
fn a_kubectl_dump_is_read_as_kubefleet_reads_member_agent_status() {
    let sources = [
        corpus("kubectl/memberclusters.yaml"),
        corpus("kubectl/placements.yaml"),
    ];
    let r = json(&fleet_policy::place(
        &sources,
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    ));
    assert_eq!(r["errors"], Value::Array(Vec::new()));
    assert_eq!(r["warnings"], Value::Array(Vec::new()));
    // Nothing hand-written, nothing stale at 12:00: no notice.
    assert_eq!(r.get("notices"), None);
    let p = &r["placements"];
    assert_eq!(p[0]["name"], "web");
    assert_eq!(
        outcome(&p[0]),
        pairs(&[
            ("smartfish", "picked"),
            ("quietowl", "notPicked"),
            ("bravelion", "notPicked"),
            ("gpuyak", TAINT),
            ("newcat", NOT_ONLINE),
            ("oldbadger", LEFT),
            ("sickhawk", UNHEALTHY),
        ])
    );
    // Available CPU 5.102 of [0.93, 30] (gpuyak's 30 counts, as in KubeFleet's min/max).
    assert_eq!(p[0]["picked"][0]["affinityScore"], 3);
    assert_eq!(p[1]["name"], "everywhere");
    assert_eq!(
        outcome(&p[1]),
        pairs(&[
            ("bravelion", "picked"),
            ("quietowl", "picked"),
            ("smartfish", "picked"),
            ("gpuyak", TAINT),
            ("newcat", NOT_ONLINE),
            ("oldbadger", LEFT),
            ("sickhawk", UNHEALTHY),
        ])
    );
    assert_eq!(p[2]["name"], "prod-east");
    assert_eq!(outcome(&p[2])[0], ("bravelion".into(), "picked".into()));
}

#[test]
fn the_json_dump_gives_the_same_decisions_as_the_yaml_dump() {
    let opts = EvaluateOptions::at(at("2026-03-04T12:00:00Z"));
    let yaml = fleet_policy::evaluate(
        &[
            corpus("kubectl/memberclusters.yaml"),
            corpus("kubectl/placements.yaml"),
        ],
        &opts,
    );
    let json_dump = fleet_policy::evaluate(
        &[
            corpus("kubectl/memberclusters.json"),
            corpus("kubectl/placements.yaml"),
        ],
        &opts,
    );
    assert!(yaml.errors.is_empty(), "{:?}", yaml.errors.first());
    assert_eq!(json(&yaml.placements), json(&json_dump.placements));
    assert_eq!(json(&yaml.rollouts), json(&json_dump.rollouts));
}

#[test]
fn rollouts_reach_exactly_what_the_placement_picked_in_every_entry_point() {
    let sources = [
        corpus("kubectl/memberclusters.yaml"),
        corpus("kubectl/placements.yaml"),
    ];
    let t = at("2026-03-04T12:00:00Z");
    let evaluated = fleet_policy::evaluate(&sources, &EvaluateOptions::at(t));
    let rolled = fleet_policy::rollout(&sources, &RolloutOptions::at(t));
    // Every CRP has a rollout (RollingUpdate is the default), in both entry points.
    let names = |rs: &[fleet_policy::rollout::plan::Rollout]| {
        rs.iter().map(|r| r.name.clone()).collect::<Vec<_>>()
    };
    assert_eq!(
        names(&evaluated.rollouts),
        ["everywhere", "prod-east", "web"]
    );
    assert_eq!(json(&evaluated.rollouts), json(&rolled.rollouts));
    for r in &evaluated.rollouts {
        let Some(p) = evaluated.placements.iter().find(|p| p.name == r.name) else {
            panic!("no placement for {}", r.name);
        };
        let mut picked: Vec<String> = p.picked.iter().map(|c| c.cluster.to_string()).collect();
        picked.sort();
        let members: Vec<String> = r.stages[0].groups[0]
            .members
            .iter()
            .map(|m| m.cluster.to_string())
            .collect();
        assert_eq!(members, picked, "{}", r.name);
        let targets = r.targets.as_ref().map(json);
        assert_eq!(
            targets,
            Some(serde_json::json!({"source": "placement", "clusters": picked})),
            "{}",
            r.name
        );
    }
}

#[test]
fn bindings_given_are_the_truth_and_differences_from_the_scheduler_are_data() {
    let sources = [
        corpus("kubectl/memberclusters.yaml"),
        corpus("kubectl/placements.yaml"),
        corpus("kubectl/bindings.yaml"),
    ];
    let t = at("2026-03-04T12:00:00Z");
    let r = fleet_policy::evaluate(&sources, &EvaluateOptions::at(t));
    assert!(r.errors.is_empty(), "{:?}", r.errors.first());
    let targets = |name: &str| {
        r.rollouts
            .iter()
            .find(|x| x.name == name)
            .and_then(|x| x.targets.as_ref())
            .map(json)
    };
    // web is bound to bravelion: the scheduler keeps a current binding (no new pick), so
    // bindings and decision agree.
    let web = r.placements.iter().find(|p| p.name == "web");
    assert_eq!(
        web.map(|p| p.kept.clone()),
        Some(vec!["bravelion".to_string()])
    );
    assert_eq!(
        targets("web"),
        Some(serde_json::json!({"source": "bindings", "clusters": ["bravelion"]}))
    );
    // everywhere is bound to a cluster that left: the rollout follows the bindings and says
    // where the scheduler disagrees.
    assert_eq!(
        targets("everywhere"),
        Some(serde_json::json!({
            "source": "bindings",
            "clusters": ["bravelion", "oldbadger"],
            "onlyInBindings": ["oldbadger"],
            "onlyInPlacement": ["quietowl", "smartfish"],
        }))
    );
}

#[test]
fn a_dump_evaluated_long_after_it_was_taken_says_so_and_snapshot_is_its_instant() {
    let sources = [
        corpus("kubectl/memberclusters.yaml"),
        corpus("kubectl/placements.yaml"),
    ];
    let input = fleet_policy::Input::parse(&sources);
    assert_eq!(input.snapshot(), Some(at("2026-03-04T11:58:42Z")));
    let late = json(&fleet_policy::place(
        &sources,
        &PlaceOptions::at(at("2026-11-24T12:00:00Z")),
    ));
    assert_eq!(late["placements"][1]["picked"], Value::Array(Vec::new()));
    let notice = &late["notices"][0];
    assert_eq!(notice["kind"], "staleHeartbeats");
    assert_eq!(notice["count"], 5);
    assert_eq!(notice["snapshot"], "2026-03-04T11:58:42Z");
    assert_eq!(
        notice["message"],
        "5 of 6 member agents sent no heartbeat in the 5 minutes before 2026-11-24T12:00:00Z, so the scheduler filters them; the input was captured at 2026-03-04T11:58:42Z — evaluate there with --at snapshot (npm: at: \"snapshot\")"
    );
    let at_snapshot = json(&fleet_policy::place_input(
        &input,
        &PlaceOptions::at(at("2026-03-04T11:58:42Z")),
    ));
    assert_eq!(at_snapshot.get("notices"), None);
    assert_eq!(
        outcome(&at_snapshot["placements"][1])[..3],
        pairs(&[
            ("bravelion", "picked"),
            ("quietowl", "picked"),
            ("smartfish", "picked")
        ])[..]
    );
}

#[test]
fn neighbouring_kinds_are_listed_once_and_an_approval_given_feeds_the_staged_run() {
    let sources = [
        corpus("neighbours/karpenter-general-purpose.yaml"),
        corpus("neighbours/kubefleet-staged-with-approval.yaml"),
    ];
    let r = json(&fleet_policy::evaluate(
        &sources,
        &EvaluateOptions::at(at("2026-03-02T08:00:00Z")),
    ));
    assert_eq!(r["errors"], Value::Array(Vec::new()));
    let notices: Vec<(&str, &str)> = r["notices"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| {
            (
                n["kind"].as_str().unwrap_or(""),
                n["message"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        notices,
        [
            ("notModelled", "not modelled (read, but their effect is not simulated): 1 × ClusterResourceOverride, 1 × ClusterResourcePlacementDisruptionBudget"),
            ("ignoredKinds", "ignored (no engine reads these kinds): 1 × Deployment, 1 × EC2NodeClass, 1 × Namespace"),
            ("handWrittenClusters", "4 MemberCluster(s) have no status (written by hand): treated as joined and healthy"),
        ]
    );
    // The NodePool beside its EC2NodeClass is evaluated: 10% of 30, and the weekday block.
    assert_eq!(r["nodePools"][0]["name"], "general-purpose");
    assert_eq!(r["nodePools"][0]["allowedDisruptions"]["Drifted"], 3);
    // The approval given at 10:30 releases production then (without it, the run waits).
    let run = &r["rollouts"][0];
    assert_eq!(run["name"], "web-app-run");
    assert_eq!(run["state"], "Completed");
    assert_eq!(
        run["stages"][2]["groups"][0]["members"][0]["start"],
        "2026-03-02T10:30:00Z"
    );
    assert_eq!(run["end"], "2026-03-02T10:34:00Z");
}

#[test]
fn a_typo_keeps_the_placement_with_an_error_on_the_field() {
    let text = "\
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: a}
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: web}
spec:
  policy:
    placementType: PickAll
    tolerations: [{key: gpu, operator: Exists, efect: NoSchedule}]
";
    let r = fleet_policy::place(
        &[Source::new("t.yaml", text)],
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    );
    assert_eq!(r.placements.len(), 1);
    assert_eq!(r.placements[0].validation, "rejected");
    assert_eq!(r.placements[0].picked.len(), 1);
    let e = &r.errors[0];
    assert_eq!(
        (e.path.as_str(), e.line, e.column),
        ("spec.policy.tolerations[0].efect", 11, 48)
    );
    assert!(
        e.message.ends_with("; did you mean `effect`?"),
        "{}",
        e.message
    );
}

/// A misspelt field at the top of a manifest, in its `metadata` or in a placement's `spec` is
/// an unknown field, as the API server's strict field validation (kubectl's default) refuses
/// it, instead of being lost without a word: a cluster's misspelt labels, a placement's
/// misspelt policy (which scheduled as PickAll, accepted). A NodePool's misspelt disruption
/// (which left the default budget in place) is a warning, as its other unknown fields are.
/// The object is still evaluated without the field.
#[test]
fn a_misspelt_field_anywhere_in_a_manifest_is_reported() {
    let text = "\
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: a, lables: {env: prod}}
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: b, labels: {env: prod}, uid: 6f1c, resourceVersion: \"12\", generation: 3, finalizers: [x]}
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: web}
spec:
  polcy: {placementType: PickN, numberOfClusters: 1}
  resourceSelectors: [{group: \"\", version: v1, kind: Namespace, name: web}]
  strategy: {type: RollingUpdate}
  revisionHistoryLimit: 10
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: api}
sepc: {policy: {placementType: PickAll}}
";
    let r = fleet_policy::place(
        &[Source::new("t.yaml", text)],
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    );
    let found: Vec<_> = r
        .errors
        .iter()
        .map(|e| (e.document, e.path.as_str(), e.line, e.column))
        .collect();
    assert_eq!(
        found,
        [
            (1, "metadata.lables", 3, 21),
            (3, "spec.polcy", 13, 3),
            (4, "sepc", 21, 1)
        ]
    );
    assert!(
        r.errors[0].message.ends_with("did you mean `labels`?"),
        "{}",
        r.errors[0].message
    );
    assert!(
        r.errors[1].message.ends_with("did you mean `policy`?"),
        "{}",
        r.errors[1].message
    );
    // Still evaluated without the field, and the placements marked rejected.
    let p: Vec<_> = r
        .placements
        .iter()
        .map(|p| (p.name.as_str(), p.validation.as_str(), p.picked.len()))
        .collect();
    assert_eq!(p, [("web", "rejected", 2), ("api", "rejected", 2)]);

    let pool = "\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}
  disruptoin:
    budgets: [{nodes: \"0\"}]
";
    let b = fleet_policy::budgets(
        &[Source::new("p.yaml", pool)],
        &fleet_policy::BudgetOptions::at(at("2026-03-04T12:00:00Z")),
    );
    let warned: Vec<_> = b
        .warnings
        .iter()
        .map(|w| (w.path.as_str(), w.line, w.column, w.message.as_str()))
        .collect();
    assert_eq!(
        warned[0],
        (
            "spec.disruptoin",
            7,
            5,
            "unknown field \"disruptoin\"; known fields: template, disruption, limits, weight, replicas"
        )
    );
}

/// Explicit tags are read as kubectl reads them (sigs.k8s.io/yaml, go-yaml v2): `!!binary` is
/// decoded, and a value its tag refuses fails that document with go-yaml's message at its
/// line:column while the rest is evaluated.
#[test]
fn tagged_values_are_read_as_go_yaml_reads_them() {
    let text = "\
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata:
  name: a
  labels: {env: !!binary cHJvZA==}
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata:
  name: b
  labels:
    env: prod
    tier: !!int abc
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: web}
spec:
  policy:
    placementType: PickAll
    affinity:
      clusterAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          clusterSelectorTerms: [{labelSelector: {matchLabels: {env: prod}}}]
";
    let r = fleet_policy::place(
        &[Source::new("t.yaml", text)],
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    );
    let picked: Vec<&str> = r.placements[0].picked.iter().map(|p| &*p.cluster).collect();
    assert_eq!(picked, ["a"]);
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    let e = &r.errors[0];
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (13, 17, "invalid YAML: cannot decode !!str `abc` as a !!int")
    );
}

/// Each explanation names the placement's field that decided and the MemberCluster's field it
/// read; both resolve to what the user wrote (the playground highlights those lines).
#[test]
fn explanations_name_the_fields_that_decided() {
    let fleet = "\
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata:
  name: small
  labels: {env: prod}
status:
  agentStatus: [{type: MemberAgent, lastReceivedHeartbeat: '2026-03-04T11:59:00Z', conditions: [{type: Joined, status: 'True', lastTransitionTime: '2026-03-04T10:00:00Z'}, {type: Healthy, status: 'True', lastTransitionTime: '2026-03-04T10:00:00Z'}]}]
  resourceUsage:
    available: {cpu: '2'}
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata:
  name: staging
  labels: {env: staging}
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata:
  name: gpu
  labels: {env: prod}
spec:
  taints:
  - {key: team, value: a, effect: NoSchedule}
  - {key: gpu, value: 'true', effect: NoSchedule}
";
    let policy = "\
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: web}
spec:
  policy:
    placementType: PickAll
    tolerations: [{key: team, operator: Exists}]
    affinity:
      clusterAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          clusterSelectorTerms:
          - labelSelector:
              matchLabels: {env: prod}
          - propertySelector:
              matchExpressions:
              - {name: resources.kubernetes-fleet.io/available-cpu, operator: Gt, values: ['4']}
";
    let sources = [
        Source::new("fleet.yaml", fleet),
        Source::new("policy.yaml", policy),
    ];
    let input = fleet_policy::Input::parse(&sources);
    let r = fleet_policy::place(&sources, &PlaceOptions::at(at("2026-03-04T12:00:00Z")));
    let p = &r.placements[0];
    let explained = |cluster: &str| {
        let f = p
            .filtered
            .iter()
            .find(|f| &*f.cluster == cluster)
            .unwrap_or_else(|| panic!("{cluster} is not filtered: {p:?}"));
        let show = |paths: Vec<fleet_policy::input::node::FieldPath>| -> Vec<String> {
            paths.iter().map(ToString::to_string).collect()
        };
        (
            show(f.explanation.policy_paths()),
            show(f.explanation.cluster_paths()),
        )
    };
    let required = "spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms";
    // `staging` fails the label term (its label is there) and the property term (it publishes
    // no resource usage: the path names where it would be).
    assert_eq!(
        explained("staging"),
        (
            vec![
                format!("{required}[0].labelSelector.matchLabels.env"),
                format!("{required}[1].propertySelector.matchExpressions[0]"),
            ],
            vec![
                "metadata.labels.env".to_string(),
                "status.resourceUsage.available.cpu".to_string(),
            ]
        )
    );
    // `gpu` passes the label term; its second taint is the one not tolerated.
    assert_eq!(
        explained("gpu"),
        (
            vec!["spec.policy.tolerations".to_string()],
            vec!["spec.taints[1]".to_string()]
        )
    );
    // Every path resolves to the line the user wrote.
    let doc = |name: &str| {
        input
            .documents
            .iter()
            .find(|d| d.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no document {name}"))
    };
    let line = |name: &str, path: &str| {
        doc(name)
            .root
            .locate(&fleet_policy::input::node::FieldPath::parse(path))
            .span()
            .line
    };
    assert_eq!(
        line(
            "web",
            &format!("{required}[0].labelSelector.matchLabels.env")
        ),
        13
    );
    assert_eq!(
        line(
            "web",
            &format!("{required}[1].propertySelector.matchExpressions[0]")
        ),
        16
    );
    assert_eq!(line("staging", "metadata.labels.env"), 15);
    assert_eq!(line("gpu", "spec.taints[1]"), 25);
}

/// Every key of every result is camelCase: the JSON/YAML and the TypeScript types users
/// program against have one naming rule.
#[test]
fn every_key_of_every_result_is_camel_case() {
    fn walk(v: &Value, path: &str, bad: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    let camel = k.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                        && k.chars().all(|c| c.is_ascii_alphanumeric());
                    // Map keys that are data (cluster, reason and property names) are not
                    // field names: those maps are the reasons, quantities and label maps.
                    let data_map = path.ends_with(".allowedDisruptions")
                        || path.ends_with(".rawAllowedDisruptions")
                        || path.ends_with(".raw")
                        || path.ends_with(".labels")
                        || path.ends_with(".properties");
                    if !camel && !data_map {
                        bad.push(format!("{path}.{k}"));
                    }
                    walk(v, &format!("{path}.{k}"), bad);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, path, bad)),
            _ => {}
        }
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../static/examples");
    let mut inputs: Vec<Vec<Source>> = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        inputs.push(vec![Source::new(path.display().to_string(), text)]);
    }
    inputs.push(vec![
        corpus("kubectl/memberclusters.yaml"),
        corpus("kubectl/placements.yaml"),
        corpus("kubectl/bindings.yaml"),
    ]);
    inputs.push(vec![
        corpus("neighbours/karpenter-general-purpose.yaml"),
        corpus("neighbours/kubefleet-staged-with-approval.yaml"),
    ]);
    // Topology spread explanations (maxSkew, domainCount) and cycle errors carry fields.
    inputs.push(vec![Source::new(
        "spread.yaml",
        "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a, labels: {zone: z1}}\n---\napiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: b}\n---\napiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: s}\nspec:\n  policy:\n    placementType: PickN\n    numberOfClusters: 2\n    topologySpreadConstraints: [{topologyKey: zone, maxSkew: 1}]\n---\napiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: e}\nspec:\n  policy:\n    placementType: PickN\n    numberOfClusters: 1\n    affinity: {clusterAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {propertySorter: {name: resources.kubernetes-fleet.io/bogus-cpu, sortOrder: Ascending}}}]}}\n",
    )]);
    let t = at("2026-03-04T12:00:00Z");
    let mut bad = Vec::new();
    for sources in &inputs {
        walk(
            &json(&fleet_policy::place(sources, &PlaceOptions::at(t))),
            "place",
            &mut bad,
        );
        walk(
            &json(&fleet_policy::budgets(
                sources,
                &fleet_policy::BudgetOptions::at(t),
            )),
            "budgets",
            &mut bad,
        );
        walk(
            &json(&fleet_policy::rollout(sources, &RolloutOptions::at(t))),
            "rollout",
            &mut bad,
        );
        walk(
            &json(&fleet_policy::evaluate(sources, &EvaluateOptions::at(t))),
            "evaluate",
            &mut bad,
        );
    }
    bad.sort();
    bad.dedup();
    assert_eq!(bad, Vec::<String>::new());
}

/// `validate` in a CI gate: every document is decoded and its errors reported, whichever
/// engine applies (a fleet file with no placement, a Pod with no NodePool).
#[test]
fn validate_reports_errors_of_documents_no_engine_evaluates() {
    let text = "\
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: a}
spec: {unknownField: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {nodeName: 5}
";
    let r = fleet_policy::validate(
        &[Source::new("v.yaml", text)],
        &EvaluateOptions::at(at("2026-03-04T12:00:00Z")),
    );
    assert!(!r.valid);
    let found: Vec<(&str, u32, u32)> = r
        .errors
        .iter()
        .map(|e| (e.path.as_str(), e.line, e.column))
        .collect();
    assert_eq!(
        found,
        [("spec.unknownField", 4, 8), ("spec.nodeName", 9, 18)]
    );
}

/// What `az` prints (flattened `list`/`show` output and the REST shape, arrays and single
/// objects, ids in mixed case) gives the rollout the same fleet written in our own kinds
/// gives: members from `az fleet member list`, their versions and node pools from
/// `az aks list`, the maintenance window from `az aks maintenanceconfiguration show`.
#[test]
fn az_output_is_read_as_it_is_printed() {
    let az = [
        "az/fleet-member-list.json",
        "az/fleet-updatestrategy-show.json",
        "az/updaterun-rest.json",
        "az/aks-list.json",
        "az/aks-maintenanceconfiguration-show.json",
        "az/fleet-show.json",
    ]
    .map(corpus);
    let t = at("2026-03-02T08:00:00Z");
    let r = fleet_policy::rollout(&az, &RolloutOptions::at(t));
    assert!(r.errors.is_empty(), "{:?}", r.errors.first());
    assert_eq!(
        r.notices
            .iter()
            .map(|n| n.message.as_str())
            .collect::<Vec<_>>(),
        ["ignored (no engine reads these kinds): 1 × Microsoft.ContainerService/fleets"]
    );
    let run = &r.rollouts[0];
    let rows: Vec<(String, String, String, Option<String>)> = run
        .stages
        .iter()
        .flat_map(|s| {
            s.groups
                .iter()
                .flat_map(move |g| g.members.iter().map(move |m| (s, g, m)))
        })
        .map(|(s, g, m)| {
            (
                format!("{}/{}", s.name, g.name),
                m.cluster.to_string(),
                format!("{:?}", m.state),
                m.start.map(|t| t.to_rfc3339()),
            )
        })
        .collect();
    let row = |sg: &str, c: &str, st: &str, start: Option<&str>| {
        (
            sg.to_string(),
            c.to_string(),
            st.to_string(),
            start.map(str::to_string),
        )
    };
    assert_eq!(
        rows,
        [
            row(
                "canary/canary",
                "aks-canary",
                "Completed",
                Some("2026-03-02T08:00:00+00:00")
            ),
            // Its cluster id is written `resourcegroups/…/ManagedClusters/…`: joined anyway.
            row(
                "prod/prod-eu",
                "aks-eu-1",
                "Completed",
                Some("2026-03-02T10:00:00+00:00")
            ),
            // `az aks list` says it already runs 1.30.5.
            row("prod/prod-eu", "aks-eu-2", "Skipped", None),
            // Its planned maintenance opens on Saturday at 22:00 UTC.
            row(
                "prod/prod-us",
                "aks-us-1",
                "Completed",
                Some("2026-03-07T22:00:00+00:00")
            ),
        ]
    );
    let hand = fleet_policy::rollout(&[corpus("az/handwritten.yaml")], &RolloutOptions::at(t));
    assert!(hand.errors.is_empty(), "{:?}", hand.errors.first());
    assert_eq!(json(&run), json(&hand.rollouts[0]));
}

/// A newer `az` prints the properties of its newer API version, unset ones as null, in the
/// REST shape and the flattened one, at any depth: they are unset fields, and the run is the
/// one the corpus gives. A property this engine does not know that carries a value is still
/// an error at its path and line:column.
#[test]
fn null_properties_of_a_newer_az_are_unset_fields() {
    fn with_nulls(name: &str, at: &[&str]) -> Source {
        let text = corpus(name).text;
        let mut doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        for path in at {
            let mut v = &mut doc;
            for key in path.split('.').filter(|k| !k.is_empty()) {
                v = match key.parse::<usize>() {
                    Ok(i) => &mut v[i],
                    Err(_) => &mut v[key],
                };
            }
            v["newInAFutureApiVersion"] = Value::Null;
        }
        let text = serde_json::to_string_pretty(&doc).unwrap_or_else(|e| panic!("{e}"));
        Source::new(name, text)
    }
    let t = at("2026-03-02T08:00:00Z");
    let rest = [
        "az/fleet-member-list.json",
        "az/aks-list.json",
        "az/aks-maintenanceconfiguration-show.json",
    ]
    .map(corpus);
    let run = |strategy: Source, run: Source| {
        let mut sources = rest.to_vec();
        sources.extend([strategy, run]);
        fleet_policy::rollout(&sources, &RolloutOptions::at(t))
    };
    let as_printed = run(
        corpus("az/fleet-updatestrategy-show.json"),
        corpus("az/updaterun-rest.json"),
    );
    assert!(as_printed.errors.is_empty(), "{:?}", as_printed.errors);
    let newer = run(
        with_nulls(
            "az/fleet-updatestrategy-show.json",
            &[
                "",
                "strategy",
                "strategy.stages.0",
                "strategy.stages.1.groups.0",
            ],
        ),
        with_nulls(
            "az/updaterun-rest.json",
            &[
                "properties",
                "properties.strategy.stages.0.groups.0",
                "properties.managedClusterUpdate",
            ],
        ),
    );
    assert!(newer.errors.is_empty(), "{:?}", newer.errors);
    assert_eq!(newer.rollouts.len(), 1);
    assert_eq!(json(&newer.rollouts), json(&as_printed.rollouts));

    // The same property with a value: refused, at its line:column.
    let mut valued = with_nulls(
        "az/updaterun-rest.json",
        &["properties.strategy.stages.0.groups.0"],
    );
    valued.text = valued.text.replace(
        "\"newInAFutureApiVersion\": null",
        "\"newInAFutureApiVersion\": 2",
    );
    let line = 1 + valued.text[..valued.text.find("newInAFutureApiVersion").unwrap_or(0)]
        .matches('\n')
        .count();
    let refused = run(corpus("az/fleet-updatestrategy-show.json"), valued);
    let errors: Vec<_> = refused
        .errors
        .iter()
        .map(|e| {
            (
                e.source.as_str(),
                e.line,
                e.path.as_str(),
                e.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        errors,
        [(
            "az/updaterun-rest.json",
            line as u32,
            "properties.strategy.stages[0].groups[0].newInAFutureApiVersion",
            "unknown field `newInAFutureApiVersion`, expected one of `name`, `maxConcurrency`, `beforeGates`, `afterGates`"
        )]
    );
}

/// A JSON paste that does not read is told in JSON's words at its line:column, and one cut
/// short (the usual way a paste of `kubectl … -o json` or `az … -o json` goes wrong) says so;
/// the other sources are still evaluated. YAML written in flow style keeps YAML's words.
#[test]
fn broken_json_is_told_in_json_words_and_a_cut_paste_says_so() {
    let members = corpus("kubectl/memberclusters.json").text;
    let placements = corpus("kubectl/placements.yaml");
    // Cut inside the string after `"name": "` of the second cluster, and right after a value.
    let second = members
        .match_indices("\"name\": \"")
        .nth(1)
        .map_or(0, |(i, _)| i);
    let in_string = &members[..second + 12];
    let after_value = &members[..members.find("\"kind\": \"MemberCluster\"").unwrap_or(0) + 23];
    let line_col = |text: &str| {
        let line = 1 + text.matches('\n').count() as u32;
        let column = text.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32;
        (line, column)
    };
    let place = |name: &str, text: &str| {
        fleet_policy::place(
            &[Source::new(name, text), placements.clone()],
            &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
        )
    };
    let error = |r: &fleet_policy::PlacementReport| {
        assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
        let e = &r.errors[0];
        (
            e.source.clone(),
            e.document,
            e.line,
            e.column,
            e.message.clone(),
        )
    };

    let r = place("members.json", in_string);
    // At the string's opening quote, where the reader began the string it could not end.
    let (line, column) = line_col(&members[..second + 9]);
    assert_eq!(
        error(&r),
        (
            "members.json".to_string(),
            1,
            line,
            column,
            "invalid JSON: while scanning a string, found unexpected end of the text \
             (the text ends inside the JSON: is it cut short?)"
                .to_string()
        )
    );
    // The placements still evaluate, over no clusters.
    assert_eq!(r.placements.len(), 3);
    assert!(r.placements.iter().all(|p| p.picked.is_empty()));

    let r = place("members.json", after_value);
    let (line, column) = line_col(after_value);
    assert_eq!(
        error(&r),
        (
            "members.json".to_string(),
            1,
            line,
            column + 1,
            "invalid JSON: while parsing an object, did not find expected ',' or '}' \
             (the text ends inside the JSON: is it cut short?)"
                .to_string()
        )
    );

    // A missing comma inside the text: no word of cutting.
    let broken = members.replacen("\"kind\": \"List\",", "\"kind\": \"List\"", 1);
    let r = place("members.json", &broken);
    let e = &r.errors[0];
    assert_eq!(
        e.message,
        "invalid JSON: while parsing an object, did not find expected ',' or '}'"
    );

    // YAML in flow style is YAML.
    let r = place("members.yaml", "{apiVersion: v1, kind: [List}\n");
    assert_eq!(
        error(&r).4,
        "invalid YAML: while parsing a flow sequence, expected ',' or ']'"
    );
}

/// `az fleet member list` of two fleets beside one fleet's update run: the run updates its own
/// fleet's members only (the ARM ids say which fleet each belongs to); the other fleet's are
/// listed as excluded, with both fleets named.
#[test]
fn an_update_run_reaches_only_the_members_of_its_own_fleet() {
    let t = at("2026-03-02T08:00:00Z");
    let own = [
        "az/fleet-member-list.json",
        "az/fleet-updatestrategy-show.json",
        "az/updaterun-rest.json",
        "az/aks-list.json",
        "az/aks-maintenanceconfiguration-show.json",
    ]
    .map(corpus);
    let other = corpus("az/fleet-member-list.json")
        .text
        .replace("/fleets/fleet-1/", "/fleets/fleet-2/")
        .replace("\"name\": \"aks-", "\"name\": \"other-aks-");
    let mut both = own.to_vec();
    both.push(Source::new("other-fleet-members.json", other));
    let alone = fleet_policy::rollout(&own, &RolloutOptions::at(t));
    let r = fleet_policy::rollout(&both, &RolloutOptions::at(t));
    assert!(r.errors.is_empty(), "{:?}", r.errors.first());
    assert_eq!(json(&r.rollouts[0].stages), json(&alone.rollouts[0].stages));
    let excluded: Vec<(String, String)> = r.rollouts[0]
        .excluded
        .iter()
        .map(|e| (e.cluster.clone(), e.message.clone()))
        .collect();
    let other = |name: &str| {
        (
            format!("other-{name}"),
            "it is a member of fleet \"fleet-2\", not of the run's fleet \"fleet-1\"".to_string(),
        )
    };
    assert_eq!(
        excluded,
        [
            other("aks-canary"),
            other("aks-eu-1"),
            other("aks-eu-2"),
            other("aks-us-1")
        ]
    );
}

/// An annotation of our own group that no engine reads is most often a misspelt one: a
/// warning at it names the ones read and the nearest. Other annotations are the user's own.
#[test]
fn a_misspelt_fleet_policy_annotation_is_a_warning() {
    let text = "\
apiVersion: cluster.kubernetes-fleet.io/v1beta1
kind: MemberCluster
metadata:
  name: a
  annotations:
    team.example.com/owner: platform
    fleet-policy.dev/update-durration: 45m
    fleet-policy.dev/colour: blue
";
    let r = fleet_policy::validate(
        &[Source::new("m.yaml", text)],
        &EvaluateOptions::at(at("2026-03-04T12:00:00Z")),
    );
    assert!(r.valid);
    let warnings: Vec<(&str, u32, u32, &str)> = r
        .warnings
        .iter()
        .map(|w| (w.path.as_str(), w.line, w.column, w.message.as_str()))
        .collect();
    let read = "fleet-policy.dev/update-duration, fleet-policy.dev/price, fleet-policy.dev/nominated-until";
    assert_eq!(
        warnings,
        [
            (
                "metadata.annotations[\"fleet-policy.dev/update-durration\"]",
                7,
                40,
                &*format!("unknown annotation \"fleet-policy.dev/update-durration\": the engines read {read}; did you mean \"fleet-policy.dev/update-duration\"?")
            ),
            (
                "metadata.annotations[\"fleet-policy.dev/colour\"]",
                8,
                30,
                &*format!("unknown annotation \"fleet-policy.dev/colour\": the engines read {read}")
            ),
        ]
    );
}

/// A million broken documents must not make a million messages: a result lists the first
/// 1,000 errors and counts the rest.
#[test]
fn diagnostics_are_capped_with_a_count_of_the_rest() {
    let text = "a: 1\n---\n".repeat(1500);
    let r = fleet_policy::validate(
        &[Source::new("many.yaml", text)],
        &EvaluateOptions::at(at("2026-03-04T12:00:00Z")),
    );
    assert_eq!(r.errors.len(), 1001);
    assert_eq!(r.errors[999].document, 1000);
    assert_eq!(
        r.errors[1000].message,
        "… and 500 more errors (only the first 1000 are listed)"
    );
}

/// Several pods with a duration-based `karpenter.sh/do-not-disrupt`: the node stays blocked
/// while any of them is protected, so the blocker reported is the longest protection.
#[test]
fn the_longest_do_not_disrupt_grace_blocks_the_node() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../static/examples/budget-candidates.yaml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let pods = "\
apiVersion: v1
kind: Pod
metadata: {name: short, annotations: {karpenter.sh/do-not-disrupt: 1h}}
spec: {nodeName: node-c}
status: {phase: Running, startTime: \"2024-03-05T11:30:00Z\"}
---
apiVersion: v1
kind: Pod
metadata: {name: long, annotations: {karpenter.sh/do-not-disrupt: 2h}}
spec: {nodeName: node-c}
status: {phase: Running, startTime: \"2024-03-05T11:00:00Z\"}
";
    let text = text.replace(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: batch-job\n  annotations: {karpenter.sh/do-not-disrupt: \"true\"}\nspec: {nodeName: node-c}\nstatus: {phase: Running}\n",
        pods,
    );
    assert!(text.contains("name: long"), "the example changed");
    let r = json(&fleet_policy::budgets(
        &[Source::new("b.yaml", text)],
        &fleet_policy::BudgetOptions::at(at("2024-03-05T12:00:00Z")),
    ));
    let drift = method(&r["nodePools"][0], "Drift");
    assert_eq!(
        drift["excluded"][0]["blocked"],
        serde_json::json!({"kind": "podDoNotDisrupt", "pod": "default/long", "until": "2024-03-05T13:00:00Z"})
    );
}

/// PickFixed (`crossReferenceValidTargetsWithBindings`): a binding of the current policy
/// stays on a cluster that became ineligible (here its agent went offline: it has a status
/// but no agent status; a cluster that left is another matter, its bindings dangle); only a binding of an older policy snapshot
/// whose target is no longer valid is unscheduled. The condition counts valid names only.
#[test]
fn pick_fixed_keeps_a_current_binding_on_a_cluster_that_became_ineligible() {
    let text = "\
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: a}
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: b}
status: {conditions: []}
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: c}
status: {conditions: []}
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: fixed}
spec:
  policy: {placementType: PickFixed, clusterNames: [a, b, c]}
---
apiVersion: fleet-policy.dev/v1alpha1
kind: PlacementBinding
metadata: {name: fixed-b}
spec: {placement: fixed, cluster: b, state: Bound}
---
apiVersion: fleet-policy.dev/v1alpha1
kind: PlacementBinding
metadata: {name: fixed-c}
spec: {placement: fixed, cluster: c, state: Bound, policySnapshot: Obsolete}
";
    let r = fleet_policy::place(
        &[Source::new("f.yaml", text)],
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors.first());
    let p = &r.placements[0];
    let picked: Vec<String> = p.picked.iter().map(|c| c.cluster.to_string()).collect();
    assert_eq!(picked, ["a"]);
    assert_eq!(p.kept, ["b"]);
    assert_eq!(p.unscheduled, ["c"]);
    assert_eq!(
        p.condition.message,
        "could not find all clusters needed as specified by the scheduling policy, found 1 cluster(s) instead"
    );
}

/// `kubectl get clusterresourceplacements -o yaml` as the hub prints it (status, finalizers,
/// applyStrategy, revisionHistoryLimit, the last-applied annotation) is read without an error,
/// and its rollout follows its strategy over the clusters it picks.
#[test]
fn a_crp_dump_with_status_is_read_as_printed() {
    let sources = [
        corpus("kubectl/memberclusters.yaml"),
        corpus("kubectl/crp-list.yaml"),
    ];
    let input = fleet_policy::Input::parse(&sources);
    let t = input
        .snapshot()
        .unwrap_or_else(|| panic!("the dump carries times"));
    let r = fleet_policy::evaluate_input(&input, &EvaluateOptions::at(t));
    assert!(r.errors.is_empty(), "{:?}", r.errors.first());
    assert!(r.warnings.is_empty(), "{:?}", r.warnings.first());
    let picked: Vec<String> = r.placements[0]
        .picked
        .iter()
        .map(|c| c.cluster.to_string())
        .collect();
    assert_eq!(picked, ["bravelion", "quietowl", "smartfish"]);
    // maxUnavailable 25% of 3 rounds up to 1: one cluster at a time.
    let starts: Vec<Option<String>> = r.rollouts[0].stages[0].groups[0]
        .members
        .iter()
        .map(|m| m.start.map(|s| s.to_rfc3339()))
        .collect();
    assert_eq!(
        starts,
        [
            Some("2026-03-04T11:58:42+00:00".to_string()),
            Some("2026-03-04T12:00:42+00:00".to_string()),
            Some("2026-03-04T12:02:42+00:00".to_string()),
        ]
    );
}

/// Hand-written manifests as go-yaml reads them (sigs.k8s.io/yaml, what kubectl uses): a tab
/// after a key's colon separates like a space, and a whole float in an integer field
/// (`numberOfClusters: 2.0`) is that integer, since the YAML is turned into JSON first and Go
/// writes a whole float as an integer. A fraction or a number past the field's range is still
/// an error on the field, and an unclosed flow mapping is marked where the text ends.
#[test]
fn tabs_after_colons_and_whole_floats_are_read_as_go_yaml_reads_them() {
    let fleet = "\
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata:
  name: a
  labels:
    env:\tprod
    tier: \t web
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata:
  name: b
  labels:
    env:\t\tstaging
";
    let placement = |n: &str| {
        format!(
            "\
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata:
  name: web
spec:
  policy:
    placementType: PickN
    numberOfClusters: {n}
    affinity:
      clusterAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          clusterSelectorTerms:
          - labelSelector:
              matchLabels:
                env:\tprod
"
        )
    };
    let run = |n: &str| {
        fleet_policy::place(
            &[
                Source::new("fleet.yaml", fleet),
                Source::new("crp.yaml", placement(n)),
            ],
            &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
        )
    };
    // Two clusters asked for, one matches: the count was read as 2, whichever way written.
    for n in ["2", "2.0", "2e0", "0.2e1"] {
        let r = run(n);
        assert_eq!(json(&r.errors), Value::Array(Vec::new()), "{n}");
        let p = &r.placements[0];
        assert_eq!(p.validation, "accepted", "{n}");
        let picked: Vec<&str> = p.picked.iter().map(|c| &*c.cluster).collect();
        assert_eq!(picked, ["a"], "{n}");
        assert_eq!(p.condition.reason, "SchedulingPolicyUnfulfilled", "{n}");
        assert!(
            p.condition.message.ends_with("found 1 cluster(s) instead"),
            "{n}"
        );
    }
    assert_eq!(
        run("1.0").placements[0].condition.reason,
        "SchedulingPolicyFulfilled"
    );
    for (n, message) in [
        ("1.5", "expected a 32-bit integer"),
        ("3e9", "3000000000 is out of range for a 32-bit integer"),
    ] {
        let r = run(n);
        assert_eq!(r.placements[0].validation, "rejected", "{n}");
        let e = &r.errors[0];
        assert_eq!(
            (e.source.as_str(), e.path.as_str(), e.line, e.column),
            ("crp.yaml", "spec.policy.numberOfClusters", 8, 23),
            "{n}"
        );
        assert!(e.message.contains(message), "{n}: {}", e.message);
    }
    // An unclosed flow mapping at the end of a text with or without a final line break.
    for tail in ["", "\n", "\n\n  \n"] {
        let text = format!("apiVersion: v1\nkind: MemberCluster\nmetadata: {{name: a{tail}");
        let r = fleet_policy::validate(
            &[Source::new("open.yaml", text)],
            &EvaluateOptions::at(at("2026-03-04T12:00:00Z")),
        );
        let e = &r.errors[0];
        assert_eq!((e.line, e.column), (3, 19), "{tail:?}: {}", e.message);
    }
    // An error before the end stays where the parser found it.
    let text = "apiVersion: v1\nkind: MemberCluster\nmetadata: {name: a]}\nspec: {}\n\n";
    let r = fleet_policy::validate(
        &[Source::new("mid.yaml", text)],
        &EvaluateOptions::at(at("2026-03-04T12:00:00Z")),
    );
    assert_eq!((r.errors[0].line, r.errors[0].column), (3, 19));
}

/// Merge keys (`<<`) are read as go-yaml v2 reads them for kubectl: a mapping's keys set in
/// order, an explicit key after the merge overriding it, and in a list of mappings the
/// earlier one winning; a merge of anything else fails its document with go-yaml's message.
#[test]
fn merge_keys_are_read_as_kubectl_reads_them() {
    // Anchors are a document's own: each cluster anchors its annotations.
    let mc = |name: &str, labels: &str| {
        format!(
            "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata:\n  name: {name}\n  annotations: &prod {{env: prod, region: west}}\n  labels: {labels}\n---\n"
        )
    };
    let crp = |name: &str, key: &str, value: &str| {
        format!(
            "apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {{name: {name}}}\nspec:\n  policy:\n    placementType: PickAll\n    affinity: {{clusterAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: {{clusterSelectorTerms: [{{labelSelector: {{matchLabels: {{{key}: {value}}}}}}}]}}}}}}\n---\n"
        )
    };
    let text = [
        mc("c1", "*prod"),
        mc("c2", "\n    <<: *prod\n    region: north"),
        mc("c3", "{<<: [{env: dev}, *prod]}"),
        mc("c4", "{<<: 5}"),
        crp("prod", "env", "prod"),
        crp("north", "region", "north"),
        crp("west", "region", "west"),
    ]
    .concat();
    let r = fleet_policy::place(
        &[Source::new("m.yaml", text.as_str())],
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    );
    let picked: Vec<(&str, Vec<&str>)> = r
        .placements
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.picked.iter().map(|c| &*c.cluster).collect(),
            )
        })
        .collect();
    assert_eq!(
        picked,
        [
            ("prod", vec!["c1", "c2"]),
            ("north", vec!["c2"]),
            ("west", vec!["c1", "c3"])
        ]
    );
    let e: Vec<_> = r
        .errors
        .iter()
        .map(|e| (e.document, e.line, e.column, e.message.as_str()))
        .collect();
    assert_eq!(
        e,
        [(
            4,
            29,
            16,
            "invalid YAML: map merge requires map or sequence of maps as the value"
        )]
    );
}

/// Fields accepted and not read (`uid`, `managedFields`, a placement's `strategy`…) must
/// still be JSON values, as for the API server: a collection as a mapping key is an error at
/// its path.
#[test]
fn fields_not_read_are_still_checked_as_json_values() {
    let text = "\
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata:
  name: a
  uid: 6f1c
  managedFields:
  - manager: kubectl
    fieldsV1:
      ? [x]
      : y
";
    let r = fleet_policy::place(
        &[Source::new("t.yaml", text)],
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    );
    let found: Vec<_> = r
        .errors
        .iter()
        .map(|e| (e.path.as_str(), e.line, e.column, e.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [(
            "metadata.managedFields[0].fieldsV1[\"\"]",
            9,
            9,
            "expected a string key, found a list"
        )]
    );
}

/// The fields behind each cluster's outcome come from the engine (the playground only maps
/// them to lines): a PickFixed pick's `clusterNames` entry, the required terms of a PickAll
/// pick, the preferred term that scored a PickN pick, a filter's failed requirement with the
/// label it read; and a cluster document's facts by the names selectors use.
#[test]
fn decision_paths_and_facts_come_from_the_engine() {
    let fleet = "\
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: a, labels: {env: prod}}
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: b, labels: {env: dev}}
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: c, labels: {env: prod}}
status:
  properties: {kubernetes-fleet.io/node-count: {value: '3'}}
  resourceUsage: {available: {cpu: '2'}}
";
    let policy = "\
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: fixed}
spec:
  policy: {placementType: PickFixed, clusterNames: [b, a]}
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: all}
spec:
  policy:
    placementType: PickAll
    affinity:
      clusterAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          clusterSelectorTerms: [{labelSelector: {matchLabels: {env: prod}}}]
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: pickn}
spec:
  policy:
    placementType: PickN
    numberOfClusters: 1
    affinity:
      clusterAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
        - {weight: 5, preference: {labelSelector: {matchLabels: {env: dev}}}}
        - {weight: 9, preference: {labelSelector: {matchLabels: {env: prod}}}}
";
    let sources = [
        Source::new("fleet.yaml", fleet),
        Source::new("policy.yaml", policy),
    ];
    let r = fleet_policy::place(&sources, &PlaceOptions::at(at("2026-03-04T12:00:00Z")));
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let input = fleet_policy::Input::parse(&sources);
    let paths = |placement: &str, cluster: &str| {
        let p = r
            .placements
            .iter()
            .find(|p| p.name == placement)
            .expect("placement");
        let doc = input
            .documents
            .iter()
            .find(|d| d.name.as_deref() == Some(placement))
            .map(|d| &d.root);
        let (policy, fleet) = p.decision_paths(doc, cluster);
        let text = |v: Vec<fleet_policy::input::node::FieldPath>| -> Vec<String> {
            v.iter().map(ToString::to_string).collect()
        };
        (text(policy), text(fleet))
    };
    let name = || vec!["metadata.name".to_string()];
    assert_eq!(
        paths("fixed", "a"),
        (vec!["spec.policy.clusterNames[1]".to_string()], name())
    );
    // Ineligible (a status without the member agent's): what the eligibility check read.
    assert_eq!(
        paths("all", "c"),
        (
            vec![],
            vec![
                "metadata.name".to_string(),
                "status.agentStatus".to_string()
            ]
        )
    );
    assert_eq!(
        paths("all", "a"),
        (
            vec![
                "spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms".to_string(),
                "spec.policy.placementType".to_string(),
            ],
            name()
        )
    );
    assert_eq!(
        paths("all", "b"),
        (
            vec!["spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].labelSelector.matchLabels.env".to_string()],
            vec!["metadata.name".to_string(), "metadata.labels.env".to_string()]
        )
    );
    assert_eq!(
        paths("pickn", "a"),
        (
            vec!["spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[1]".to_string()],
            name()
        )
    );
    let facts: Vec<_> = input
        .of_kind("MemberCluster")
        .filter_map(fleet_policy::placement::properties::document_facts)
        .collect();
    assert_eq!(
        facts,
        [
            ("a".to_string(), pairs(&[("env", "prod")])),
            ("b".to_string(), pairs(&[("env", "dev")])),
            (
                "c".to_string(),
                pairs(&[
                    ("env", "prod"),
                    ("kubernetes-fleet.io/node-count", "3"),
                    ("resources.kubernetes-fleet.io/available-cpu", "2")
                ])
            ),
        ]
    );
}

/// An initialized, Ready Node of NodePool `general` as `kubectl get nodes -o yaml` prints it,
/// being deleted when `deleting`.
fn karpenter_node(name: &str, deleting: bool) -> String {
    let deletion = if deleting {
        "\n    deletionTimestamp: \"2024-03-05T11:59:00Z\"\n    finalizers: [karpenter.sh/termination]"
    } else {
        ""
    };
    format!(
        "- apiVersion: v1
  kind: Node
  metadata:
    name: {name}{deletion}
    labels:
      karpenter.sh/nodepool: general
      karpenter.sh/initialized: \"true\"
      karpenter.sh/capacity-type: on-demand
      node.kubernetes.io/instance-type: m5.large
      topology.kubernetes.io/zone: us-east-1a
  spec: {{providerID: \"aws:///us-east-1a/i-{name}\"}}
  status:
    conditions:
    - {{type: Ready, status: \"True\", lastTransitionTime: \"2024-03-01T10:00:00Z\"}}
"
    )
}

/// `kubectl get nodepools,nodes -o yaml`: NodePool `general` with `disruption` (its lines as
/// written under `spec`), and its Nodes (name, being deleted), without NodeClaims.
fn nodes_dump(disruption: &str, nodes: &[(&str, bool)]) -> String {
    let mut text = format!(
        "apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {{name: general}}
  spec:
{disruption}    template:
      spec:
        nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
        requirements: []
"
    );
    for (name, deleting) in nodes {
        text.push_str(&karpenter_node(name, *deleting));
    }
    text
}

/// `kubectl get nodepools,nodes -o yaml` without NodeClaims: a Node being deleted counts as
/// disrupting (its NodeClaim, which the dump leaves out, is deleted with it: the termination
/// controller), so it is taken from every reason's allowance and is no candidate.
#[test]
fn a_deleting_node_of_a_dump_without_nodeclaims_counts_as_disrupting() {
    let text = nodes_dump(
        "    disruption:
      consolidationPolicy: WhenEmptyOrUnderutilized
      consolidateAfter: 0s
      budgets: [{nodes: 100%}]
",
        &[("a", false), ("b", true), ("c", false), ("d", false)],
    );
    let r = json(&fleet_policy::budgets(
        &[Source::new("nodes.yaml", text)],
        &fleet_policy::BudgetOptions::at(at("2024-03-05T12:00:00Z")),
    ));
    assert_eq!(r["errors"], serde_json::json!([]));
    let pool = &r["nodePools"][0];
    assert_eq!(pool["nodes"]["total"], 4);
    assert_eq!(pool["nodes"]["disrupting"], 1);
    assert_eq!(pool["nodes"]["counts"]["deleting"], 1);
    assert_eq!(
        pool["allowedDisruptions"],
        serde_json::json!({"Drifted": 3, "Empty": 3, "Underutilized": 3})
    );
    let emptiness = method(pool, "Emptiness");
    let excluded: Vec<_> = emptiness["excluded"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["blocked"]["kind"] == "deleting")
        .map(|e| e["node"].clone())
        .collect();
    assert_eq!(excluded, vec![serde_json::json!("b")]);
}

/// The same `kubectl get nodepools,nodes -o yaml` pasted twice (the second taken later, when
/// node b was no longer being deleted): the API server holds one object of a name, so each
/// NodePool and Node is counted once, the first copy, and each later copy is an error on its
/// name. Before, the pool was evaluated twice and every Node counted twice.
#[test]
fn a_dump_pasted_twice_counts_each_nodepool_and_node_once() {
    let disruption = "    disruption:
      consolidationPolicy: WhenEmptyOrUnderutilized
      consolidateAfter: 0s
      budgets: [{nodes: 100%}]
";
    let first = nodes_dump(disruption, &[("a", false), ("b", true), ("c", false)]);
    let later = nodes_dump(disruption, &[("a", false), ("b", false), ("c", false)]);
    let r = json(&fleet_policy::budgets(
        &[
            Source::new("first.yaml", first),
            Source::new("later.yaml", later.clone()),
        ],
        &fleet_policy::BudgetOptions::at(at("2024-03-05T12:00:00Z")),
    ));
    assert_eq!(r["nodePools"].as_array().map(Vec::len), Some(1));
    let pool = &r["nodePools"][0];
    assert_eq!(pool["nodes"]["total"], 3);
    assert_eq!(pool["nodes"]["disrupting"], 1);
    let line_of = |name: &str| {
        1 + later[..later.find(&format!("name: {name}")).unwrap_or(0)]
            .matches('\n')
            .count() as u64
    };
    let errors: Vec<(String, u64, String)> = r["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["source"].as_str().unwrap_or_default().to_string(),
                e["line"].as_u64().unwrap_or_default(),
                e["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let duplicate = |kind: &str, name: &str, line: u64| {
        (
            "later.yaml".to_string(),
            line,
            format!("duplicate {kind} \"{name}\": only the first one is used"),
        )
    };
    assert_eq!(
        errors,
        [
            duplicate("NodePool", "general", line_of("general")),
            duplicate("Node", "a", line_of("a")),
            duplicate("Node", "b", line_of("b")),
            duplicate("Node", "c", line_of("c")),
        ]
    );
}

/// The zone label of a managed node ([`managed_node`]).
const ZONE: &str = ", topology.kubernetes.io/zone: us-east-1a";

/// A Karpenter-managed node as a dump has it, as YAML documents each opened by `---`: the
/// Node (Ready, initialized, with the instance-type and capacity-type labels, and `zone`:
/// [`ZONE`] or nothing) and its NodeClaim (Initialized; Consolidatable since
/// 2024-03-05T10:00:00Z).
fn managed_node(name: &str, pool: &str, zone: &str) -> String {
    format!(
        "---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{karpenter.sh/nodepool: {pool}, karpenter.sh/initialized: \"true\", node.kubernetes.io/instance-type: m5.large, karpenter.sh/capacity-type: on-demand{zone}}}
status: {{conditions: [{{type: Ready, status: \"True\"}}]}}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {{name: claim-{name}, labels: {{karpenter.sh/nodepool: {pool}}}, creationTimestamp: \"2024-03-01T00:00:00Z\"}}
status:
  nodeName: {name}
  conditions:
  - {{type: Initialized, status: \"True\"}}
  - {{type: Consolidatable, status: \"True\", lastTransitionTime: \"2024-03-05T10:00:00Z\"}}
"
    )
}

/// `firstNConsolidationOption` returns no command for fewer than two candidates (every
/// version, `multinodeconsolidation.go`): with a budget of one node, multi-node consolidation
/// takes nothing, in the NodePool's view as in the pass, and single-node consolidation acts.
/// With a budget of two it takes both.
#[test]
fn multi_node_consolidation_needs_two_candidates_within_budget() {
    let node = |n: &str| {
        format!(
            "{}---
apiVersion: v1
kind: Pod
metadata: {{name: web-{n}}}
spec: {{nodeName: node-{n}}}
status: {{phase: Running}}
",
            managed_node(&format!("node-{n}"), "general", ZONE)
        )
    };
    let with_budget = |nodes: &str| {
        let mut text = format!(
            "apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: general}}
spec:
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s
    budgets: [{{nodes: \"{nodes}\"}}]
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements: []
"
        );
        for n in ["a", "b", "c"] {
            text.push_str(&node(n));
        }
        json(&fleet_policy::budgets(
            &[Source::new("pool.yaml", text)],
            &fleet_policy::BudgetOptions::at(at("2024-03-05T12:00:00Z")),
        ))
    };
    let outcome = |candidates: &Value| -> Vec<(String, String)> {
        candidates
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                let how = if c["selected"] == true {
                    "selected".to_string()
                } else {
                    c["notSelected"]["kind"].as_str().unwrap_or("-").to_string()
                };
                (c["node"].as_str().unwrap_or_default().to_string(), how)
            })
            .collect()
    };
    let multi_in_pass = |r: &Value| {
        r["pass"]["methods"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|m| m["method"] == "MultiNodeConsolidation")
            .cloned()
            .unwrap_or_default()
    };

    let one = with_budget("1");
    assert_eq!(one["errors"], serde_json::json!([]));
    let expected = [
        ("node-a", "batchOfOne"),
        ("node-b", "budgetExhausted"),
        ("node-c", "budgetExhausted"),
    ];
    let pool = &one["nodePools"][0];
    assert_eq!(
        outcome(&method(pool, "MultiNodeConsolidation")["candidates"]),
        pairs(&expected)
    );
    assert_eq!(
        outcome(&multi_in_pass(&one)["candidates"]),
        pairs(&expected)
    );
    assert_eq!(multi_in_pass(&one)["commands"], serde_json::json!([]));
    assert_eq!(one["pass"]["acting"], "SingleNodeConsolidation");
    assert_eq!(
        outcome(&method(pool, "SingleNodeConsolidation")["candidates"]),
        pairs(&[("node-a", "selected"), ("node-b", "-"), ("node-c", "-")])
    );

    let two = with_budget("2");
    let expected = [
        ("node-a", "selected"),
        ("node-b", "selected"),
        ("node-c", "budgetExhausted"),
    ];
    assert_eq!(
        outcome(&method(&two["nodePools"][0], "MultiNodeConsolidation")["candidates"]),
        pairs(&expected)
    );
    assert_eq!(
        outcome(&multi_in_pass(&two)["candidates"]),
        pairs(&expected)
    );
    assert_eq!(two["pass"]["acting"], "MultiNodeConsolidation");
}

/// A MemberCluster the API server would refuse is reported as it would be: the CRD's bounds
/// (`heartbeatPeriodSeconds` 1-600, a taint's effect `NoSchedule` only, a name under 64
/// characters) and the webhook's taint checks (a qualified key, a label value, no repeats).
/// The placement is still evaluated, over the cluster as written.
#[test]
fn a_member_cluster_the_api_server_would_refuse_is_reported() {
    let long = "c".repeat(64);
    let text = format!(
        "apiVersion: cluster.kubernetes-fleet.io/v1beta1
kind: MemberCluster
metadata: {{name: a}}
spec:
  identity: {{kind: ServiceAccount, name: agent, namespace: fleet-system}}
  heartbeatPeriodSeconds: 700
  taints:
  - {{key: gpu, value: Team A, effect: NoExecute}}
  - {{key: gpu, value: Team A, effect: NoExecute}}
  - {{key: -bad, effect: NoSchedule}}
---
apiVersion: cluster.kubernetes-fleet.io/v1beta1
kind: MemberCluster
metadata: {{name: {long}}}
spec:
  identity: {{kind: ServiceAccount, name: agent, namespace: fleet-system}}
  heartbeatPeriodSeconds: 0
  taints: [{{key: ok, effect: NoSchedule}}]
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {{name: p}}
spec:
  resourceSelectors: [{{group: \"\", version: v1, kind: Namespace, name: web}}]
  policy: {{placementType: PickAll, tolerations: [{{key: ok, operator: Exists}}]}}
"
    );
    let r = fleet_policy::place(
        &[Source::new("members.yaml", text)],
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    );
    let errors: Vec<(&str, u32, u32, &str)> = r
        .errors
        .iter()
        .map(|e| (e.path.as_str(), e.line, e.column, e.message.as_str()))
        .collect();
    let value = "invalid taint value: value \"Team A\" must consist of alphanumeric characters, \
                 '-', '_' or '.', and must start and end with an alphanumeric character";
    let effect = "Unsupported value: \"NoExecute\": supported values: \"NoSchedule\"";
    assert_eq!(
        errors,
        [
            (
                "spec.heartbeatPeriodSeconds",
                6,
                27,
                "Invalid value: 700: spec.heartbeatPeriodSeconds in body should be less than or equal to 600"
            ),
            ("spec.taints[0].value", 8, 23, value),
            ("spec.taints[0].effect", 8, 39, effect),
            ("spec.taints[1].value", 9, 23, value),
            ("spec.taints[1].effect", 9, 39, effect),
            (
                "spec.taints[1]",
                9,
                5,
                "taint \"gpu\" already exists, taints must be unique"
            ),
            (
                "spec.taints[2].key",
                10,
                11,
                "invalid taint key: key \"-bad\" must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
            ),
            ("metadata.name", 14, 18, "metadata.name max length is 63"),
            (
                "spec.heartbeatPeriodSeconds",
                17,
                27,
                "Invalid value: 0: spec.heartbeatPeriodSeconds in body should be greater than or equal to 1"
            ),
        ]
    );
    // Evaluated as written: the NoExecute taint is not tolerated, the long name's cluster is.
    let p = &r.placements[0];
    assert_eq!(
        p.picked.iter().map(|c| &*c.cluster).collect::<Vec<_>>(),
        [long.as_str()]
    );
}

/// A simulated duration that is no Go duration of zero or more, in the options or in a
/// member's `fleet-policy.dev/update-duration` annotation, is reported (the options' as
/// errors of `options`, the annotation's as a warning at the annotation) and the default is
/// used; a member the options name that no rollout reaches is a warning. Before, all of these
/// changed nothing without a word.
#[test]
fn bad_durations_and_unknown_members_in_the_options_are_reported() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../static/examples/kubefleet-staged-run.yaml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let annotated = "metadata: {name: canary-1, labels: {environment: canary}, annotations: {fleet-policy.dev/update-duration: 1day}}";
    let text = text.replace(
        "metadata: {name: canary-1, labels: {environment: canary}}",
        annotated,
    );
    assert!(text.contains(annotated), "the example changed");
    let mut options = RolloutOptions::at(at("2026-03-04T12:00:00Z"));
    options.default_duration = Some("-1m".to_string());
    options.durations = [("staging-1", "abc"), ("stagng-1", "5m")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    options.skip = vec!["prod-3".to_string()];
    let r = fleet_policy::rollout(&[Source::new("run.yaml", text.clone())], &options);
    let said = |list: &[fleet_policy::Diagnostic]| -> Vec<(String, u32, u32, String)> {
        list.iter()
            .map(|d| (d.source.clone(), d.line, d.column, d.message.clone()))
            .collect()
    };
    let options_say = |m: &str| ("options".to_string(), 0, 0, m.to_string());
    assert_eq!(
        said(&r.errors),
        [
            options_say("defaultDuration: \"-1m\" is negative; the default is used"),
            options_say(
                "durations[\"staging-1\"]: time: invalid duration \"abc\"; the default is used"
            ),
        ]
    );
    let line = 1 + text[..text.find(annotated).unwrap_or(0)]
        .matches('\n')
        .count() as u32;
    assert_eq!(
        said(&r.warnings),
        [
            (
                "run.yaml".to_string(),
                line,
                annotated.find("1day").unwrap_or(0) as u32 + 1,
                "invalid update duration: time: unknown unit \"day\" in duration \"1day\"; the default is used".to_string()
            ),
            options_say("durations names \"stagng-1\", which no rollout reaches"),
            options_say("skip names \"prod-3\", which no rollout reaches"),
        ]
    );
    assert_eq!(
        r.warnings[0].path,
        "metadata.annotations[\"fleet-policy.dev/update-duration\"]"
    );
    // Both clusters take the default of 2 minutes.
    let ends: Vec<(String, Option<String>)> = r.rollouts[0]
        .stages
        .iter()
        .flat_map(|s| &s.groups)
        .flat_map(|g| &g.members)
        .filter(|m| m.cluster.ends_with("-1") && !m.cluster.starts_with("prod"))
        .map(|m| (m.cluster.to_string(), m.end.map(|t| t.to_rfc3339())))
        .collect();
    assert_eq!(
        ends,
        [
            (
                "staging-1".to_string(),
                Some("2026-03-04T12:02:00+00:00".to_string())
            ),
            (
                "canary-1".to_string(),
                Some("2026-03-04T13:04:00+00:00".to_string())
            ),
        ]
    );
}

/// A staged run left in `Initialize` (the default) computes its stages and rolls nothing out:
/// every member NotStarted, no timeline, and the warning says so.
#[test]
fn a_staged_run_in_initialize_rolls_nothing_out_and_says_so() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../static/examples/kubefleet-staged-run.yaml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(text.contains("  state: Run\n"), "the example changed");
    let text = text.replace("  state: Run\n", "");
    let r = fleet_policy::rollout(
        &[Source::new("run.yaml", text)],
        &RolloutOptions::at(at("2026-03-04T12:00:00Z")),
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let run = &r.rollouts[0];
    assert!(run.timeline.is_empty());
    let states: Vec<String> = run
        .stages
        .iter()
        .flat_map(|s| &s.groups)
        .flat_map(|g| &g.members)
        .map(|m| format!("{:?}", m.state))
        .collect();
    assert_eq!(states.len(), 4);
    assert!(states.iter().all(|s| s == "NotStarted"), "{states:?}");
    let warnings: Vec<(&str, &str)> = r
        .warnings
        .iter()
        .map(|w| (w.path.as_str(), w.message.as_str()))
        .collect();
    assert_eq!(
        warnings,
        [(
            "spec.state",
            "spec.state is Initialize: stages are computed but nothing rolls out until it is Run \
             (every member stays NotStarted; with state Run the timeline shows the rollout)"
        )]
    );
}

/// `classifyBindings`: a ClusterResourceBinding made for an older policy snapshot than the
/// latest its placement's bindings name (`web-0` beside `web-1`) is obsolete: it does not
/// count towards `numberOfClusters` and is unscheduled when not picked again.
#[test]
fn a_binding_of_an_older_policy_snapshot_is_obsolete() {
    let newer = "
- apiVersion: placement.kubernetes-fleet.io/v1beta1
  kind: ClusterResourceBinding
  metadata:
    labels:
      kubernetes-fleet.io/parent-CRP: web
    name: web-smartfish-4d5e6
  spec:
    clusterDecision:
      clusterName: smartfish
      reason: 'picked by scheduling policy'
      selected: true
    resourceSnapshotName: web-0-snapshot
    schedulingPolicySnapshotName: web-1
    state: Scheduled
    targetCluster: smartfish
";
    let bindings = corpus("kubectl/bindings.yaml");
    let text = bindings
        .text
        .replacen("items:\n", &format!("items:{newer}"), 1);
    assert!(text.contains("web-smartfish-4d5e6"), "the corpus changed");
    let sources = [
        corpus("kubectl/memberclusters.yaml"),
        corpus("kubectl/placements.yaml"),
        Source::new("bindings.yaml", text),
    ];
    let r = fleet_policy::place(&sources, &PlaceOptions::at(at("2026-03-04T12:00:00Z")));
    assert!(r.errors.is_empty(), "{:?}", r.errors.first());
    let web = r.placements.iter().find(|p| p.name == "web");
    assert_eq!(
        web.map(|p| (p.kept.clone(), p.unscheduled.clone())),
        Some((vec!["smartfish".to_string()], vec!["bravelion".to_string()]))
    );
}

/// A ClusterStagedUpdateRun as `kubectl get` prints it while under way: its recorded status
/// is not read, and a warning at `status` says the run is simulated from its start (as for
/// an Azure update run); a run that has not started gets no such warning.
#[test]
fn a_staged_run_recorded_under_way_says_its_status_is_not_read() {
    let base = corpus("neighbours/kubefleet-staged-with-approval.yaml");
    let run = "  stagedRolloutStrategyName: three-stage\n  state: Run\n";
    let started = format!(
        "{run}status:\n  conditions:\n  - {{type: Initialized, status: \"True\", reason: UpdateRunInitializedSuccessfully}}\n  - {{type: Progressing, status: \"True\", reason: UpdateRunStarted}}\n"
    );
    let warnings = |text: String| {
        let r = fleet_policy::rollout(
            &[Source::new("run.yaml", text)],
            &RolloutOptions::at(at("2026-03-02T08:00:00Z")),
        );
        r.warnings
            .iter()
            .filter(|w| w.message.contains("recorded status"))
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    assert!(base.text.contains(run), "the corpus changed");
    assert_eq!(warnings(base.text.clone()), Vec::<String>::new());
    assert_eq!(
        warnings(base.text.replacen(run, &started, 1)),
        ["warning: run.yaml:97:3: document 11 (ClusterStagedUpdateRun web-app-run), status: the run's recorded status is not read: the run is simulated from its start"]
    );
}

/// Karpenter v1.0's CRD has no default for `spec.disruption` (v1.1 added
/// `{consolidateAfter: 0s}`): a NodePool written without it has no budget (every reason
/// unbounded) and no consolidateAfter (no emptiness or consolidation candidates); from v1.1
/// the default 10% budget applies.
#[test]
fn a_nodepool_without_disruption_is_unbounded_under_karpenter_v1_0() {
    let text = nodes_dump("", &[("a", false), ("b", false), ("c", false)]);
    let run = |version: &str| {
        let mut opts = fleet_policy::BudgetOptions::at(at("2024-03-05T12:00:00Z"));
        opts.karpenter_version = Some(version.into());
        json(&fleet_policy::budgets(
            &[Source::new("pool.yaml", text.clone())],
            &opts,
        ))
    };
    let v1_0 = run("v1.0");
    assert_eq!(v1_0["errors"], serde_json::json!([]));
    let pool = &v1_0["nodePools"][0];
    assert_eq!(
        pool["allowedDisruptions"],
        serde_json::json!({"Drifted": 2147483647, "Empty": 2147483647, "Underutilized": 2147483647})
    );
    let emptiness = method(pool, "Emptiness");
    assert_eq!(emptiness["candidates"], serde_json::json!([]));
    let v1_1 = run("v1.1");
    assert_eq!(
        v1_1["nodePools"][0]["allowedDisruptions"],
        serde_json::json!({"Drifted": 1, "Empty": 1, "Underutilized": 1})
    );
}

/// A MemberCluster's name and labels are checked as the API server checks every custom
/// resource's: the name a lowercase RFC 1123 subdomain, each label a qualified key and a
/// label value. The cluster is still scheduled as written.
#[test]
fn member_cluster_names_and_labels_are_checked_as_the_api_server_does() {
    let text = "apiVersion: cluster.kubernetes-fleet.io/v1beta1
kind: MemberCluster
metadata:
  name: Cluster_München
  labels: {region: europe-ö, \"bad key\": x, fleet.example.com/tier: gold}
---
apiVersion: cluster.kubernetes-fleet.io/v1beta1
kind: MemberCluster
metadata: {name: eu-1.prod, labels: {region: eu}}
---
";
    let text = format!("{text}{PICK_ALL_CRP}");
    let r = fleet_policy::place(
        &[Source::new("members.yaml", text)],
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    );
    let errors: Vec<(&str, &str, u32, u32, &str)> = r
        .errors
        .iter()
        .map(|e| {
            let name = e.name.as_deref().unwrap_or_default();
            (name, e.path.as_str(), e.line, e.column, e.message.as_str())
        })
        .collect();
    let chars = "must consist of alphanumeric characters, '-', '_' or '.', and must start and \
                 end with an alphanumeric character";
    assert_eq!(
        errors,
        [
            (
                "Cluster_München",
                "metadata.name",
                4,
                9,
                "Invalid value: \"Cluster_München\": a lowercase RFC 1123 subdomain must consist \
                 of lower case alphanumeric characters, '-' or '.', and must start and end with \
                 an alphanumeric character"
            ),
            (
                "Cluster_München",
                "metadata.labels[\"bad key\"]",
                5,
                41,
                &*format!("key \"bad key\" {chars}")
            ),
            (
                "Cluster_München",
                "metadata.labels.region",
                5,
                20,
                &*format!("value \"europe-ö\" {chars}")
            ),
        ]
    );
    let p = &r.placements[0];
    assert_eq!(
        p.picked.iter().map(|c| &*c.cluster).collect::<Vec<_>>(),
        ["Cluster_München", "eu-1.prod"]
    );
}

/// Property names are checked as KubeFleet's webhook checks them (`validateName`): a resource
/// property's capacity type is named when unknown, and any other name is segments separated
/// by `/`, each a qualified name (the first may be a DNS subdomain). A name the webhook
/// refuses is an error on it, and the placement is `rejected`.
#[test]
fn property_names_are_checked_as_the_webhook_does() {
    let crp = |name: &str| {
        format!(
            "apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {{name: p}}
spec:
  resourceSelectors: [{{group: \"\", version: v1, kind: Namespace, name: web}}]
  policy:
    placementType: PickN
    numberOfClusters: 1
    affinity:
      clusterAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 10
          preference:
            propertySorter: {{name: \"{name}\", sortOrder: Descending}}
"
        )
    };
    let errors = |name: &str| {
        let r = fleet_policy::place(
            &[Source::new("p.yaml", crp(name))],
            &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
        );
        r.errors
            .iter()
            .map(|e| e.message.clone())
            .collect::<Vec<_>>()
    };
    let chars = "must consist of alphanumeric characters, '-', '_' or '.', and must start and \
                 end with an alphanumeric character";
    for ok in [
        "kubernetes-fleet.io/node-count",
        "kubernetes.azure.com/per-cpu-core-cost",
        "resources.kubernetes-fleet.io/available-cpu",
        "example.com/a/b",
        "Cost_Score",
    ] {
        assert_eq!(errors(ok), Vec::<String>::new(), "{ok}");
    }
    assert_eq!(
        errors("kubernetes-fleet.io/node count"),
        [format!(
            "property name segment node count is not valid: name part \"node count\" {chars}"
        )]
    );
    assert_eq!(
        errors("per cpu cost"),
        [format!(
            "property name per cpu cost is not valid: key \"per cpu cost\" {chars}"
        )]
    );
    assert_eq!(
        errors("-bad-/cost"),
        [
            "property name first segment -bad- is not valid: it is neither a valid DNS subdomain \
          nor a valid qualified name"
        ]
    );
    assert_eq!(
        errors("resources.kubernetes-fleet.io/free-cpu"),
        ["invalid capacity type in resource property name resources.kubernetes-fleet.io/free-cpu, \
          supported values are [allocatable available total]"]
    );
    assert_eq!(
        errors("resources.kubernetes-fleet.io/available-"),
        [format!(
            "property name resources.kubernetes-fleet.io/available- is not valid: name part of \
             key \"available-\" {chars}"
        )]
    );
}

/// A key written twice in a mapping is an error, and the object is read with the last value
/// (as Go's decoders take it): the error names the object by that value too.
#[test]
fn a_repeated_name_key_names_the_object_as_it_is_evaluated() {
    let text = "apiVersion: cluster.kubernetes-fleet.io/v1beta1
kind: MemberCluster
metadata:
  name: first
  name: second
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {name: p}
spec:
  resourceSelectors: [{group: \"\", version: v1, kind: Namespace, name: web}]
  policy: {placementType: PickFixed, clusterNames: [second]}
";
    let r = fleet_policy::place(
        &[Source::new("members.yaml", text)],
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    );
    let errors: Vec<(Option<&str>, &str, u32, u32)> = r
        .errors
        .iter()
        .map(|e| (e.name.as_deref(), e.path.as_str(), e.line, e.column))
        .collect();
    assert_eq!(errors, [(Some("second"), "metadata.name", 5, 3)]);
    assert_eq!(
        r.placements[0]
            .picked
            .iter()
            .map(|c| &*c.cluster)
            .collect::<Vec<_>>(),
        ["second"]
    );
}

/// A diagnostic on an Azure resource names the field as the file has it: `az`'s flattened
/// shape has no `properties` (the engine reads the fields under it), the REST shape has.
#[test]
fn azure_paths_are_shown_as_the_file_writes_them() {
    let t = at("2026-03-02T08:00:00Z");
    let mut flattened = corpus("az/fleet-updatestrategy-show.json");
    flattened.text = flattened.text.replacen(
        "\"afterStageWaitInSeconds\": 3600",
        "\"afterStageWaitInSeconds\": -5",
        1,
    );
    let mut rest = corpus("az/updaterun-rest.json");
    rest.text = rest
        .text
        .replacen("\"maxConcurrency\": null", "\"maxConcurrency\": \"0\"", 1);
    let mut sources = [
        "az/fleet-member-list.json",
        "az/aks-list.json",
        "az/aks-maintenanceconfiguration-show.json",
    ]
    .map(corpus)
    .to_vec();
    sources.extend([flattened, rest]);
    let r = fleet_policy::rollout(&sources, &RolloutOptions::at(t));
    let line_of = |s: &Source, needle: &str| {
        1 + s.text[..s.text.find(needle).unwrap_or(0)]
            .matches('\n')
            .count() as u32
    };
    let errors: Vec<(&str, u32, &str)> = r
        .errors
        .iter()
        .map(|e| (e.source.as_str(), e.line, e.path.as_str()))
        .collect();
    assert_eq!(
        errors,
        [
            (
                "az/fleet-updatestrategy-show.json",
                line_of(&sources[3], "\"afterStageWaitInSeconds\": -5"),
                "strategy.stages[0].afterStageWaitInSeconds"
            ),
            (
                "az/updaterun-rest.json",
                line_of(&sources[4], "\"maxConcurrency\": \"0\""),
                "properties.strategy.stages[0].groups[0].maxConcurrency"
            ),
        ]
    );
}

/// Text after a JSON value (`{…} garbage`, a stray `]` left from cutting a list) is an error
/// where it starts, as kubectl's JSON decoder stops there; the value before it is still read.
/// A comment or a document end marker after it stays YAML's to read, without an error.
#[test]
fn text_after_a_json_value_is_an_error_where_it_starts() {
    let member = r#"{"apiVersion": "cluster.kubernetes-fleet.io/v1", "kind": "MemberCluster", "metadata": {"name": "a"}}"#;
    let crp = PICK_ALL_CRP;
    let run = |tail: &str| {
        let r = fleet_policy::place(
            &[
                Source::new("member.json", format!("{member}{tail}")),
                Source::new("crp.yaml", crp),
            ],
            &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
        );
        let errors: Vec<(usize, u32, u32, String)> = r
            .errors
            .iter()
            .map(|e| (e.document, e.line, e.column, e.message.clone()))
            .collect();
        let picked: Vec<String> = r.placements[0]
            .picked
            .iter()
            .map(|c| c.cluster.to_string())
            .collect();
        (errors, picked)
    };
    let broken = "invalid JSON: this value does not read (JSON values one after another are read \
                  as one manifest each, as kubectl reads them)"
        .to_string();
    let end = member.chars().count() as u32;
    assert_eq!(
        run(" garbage\n"),
        (vec![(2, 1, end + 2, broken.clone())], vec!["a".to_string()])
    );
    assert_eq!(
        run("\n]\n"),
        (vec![(2, 2, 1, broken)], vec!["a".to_string()])
    );
    for fine in ["\n", "\n# the end\n", "\n...\n"] {
        assert_eq!(run(fine), (vec![], vec!["a".to_string()]), "{fine:?}");
    }
}

/// A PDB with `unhealthyPodEvictionPolicy: AlwaysAllow` and no disruptions left lets go of a
/// pod only when the pod's Ready condition is False, as Karpenter tests it (`pkg/utils/pdb`
/// `isEvictable`): a pod without the condition (pending, or written by hand) or with it
/// Unknown is protected as a healthy one, and its node is excluded.
#[test]
fn an_always_allow_pdb_lets_go_only_of_pods_whose_ready_condition_is_false() {
    let node = |n: &str, conditions: &str| {
        format!(
            "{}---
apiVersion: v1
kind: Pod
metadata:
  name: web-{n}
  namespace: ns-{n}
  labels: {{app: web}}
  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u-{n}, controller: true}}]
spec: {{nodeName: node-{n}}}
status: {{phase: Running, conditions: [{conditions}]}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: web, namespace: ns-{n}}}
spec: {{selector: {{matchLabels: {{app: web}}}}, minAvailable: 1, unhealthyPodEvictionPolicy: AlwaysAllow}}
status: {{disruptionsAllowed: 0}}
",
            managed_node(&format!("node-{n}"), "general", ZONE)
        )
    };
    let mut text = "apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s
    budgets: [{nodes: \"100%\"}]
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
"
    .to_string();
    for (n, conditions) in [
        ("false", "{type: Ready, status: \"False\"}"),
        ("none", ""),
        ("true", "{type: Ready, status: \"True\"}"),
        ("unknown", "{type: Ready, status: Unknown}"),
    ] {
        text.push_str(&node(n, conditions));
    }
    let r = json(&fleet_policy::budgets(
        &[Source::new("pool.yaml", text)],
        &fleet_policy::BudgetOptions::at(at("2024-03-05T12:00:00Z")),
    ));
    assert_eq!(r["errors"], serde_json::json!([]));
    let single = method(&r["nodePools"][0], "SingleNodeConsolidation");
    let names = |list: &Value| -> Vec<String> {
        list.as_array()
            .into_iter()
            .flatten()
            .map(|c| c["node"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(names(&single["candidates"]), ["node-false"]);
    let blocked: Vec<(String, String)> = single["excluded"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["node"].as_str().unwrap_or_default().to_string(),
                format!("{} {}", c["blocked"]["kind"], c["blocked"]["pdb"]),
            )
        })
        .collect();
    assert_eq!(
        blocked,
        pairs(&[
            ("node-none", "\"pdbBlocks\" \"ns-none/web\""),
            ("node-true", "\"pdbBlocks\" \"ns-true/web\""),
            ("node-unknown", "\"pdbBlocks\" \"ns-unknown/web\""),
        ])
    );
}

/// Why consolidation passes over a node is Karpenter's first reason, in its order
/// (`consolidation.go` ShouldDisrupt): the price labels, then `consolidateAfter: Never`, then
/// (from v1.14) an empty node, which Emptiness handles, before a `WhenEmpty` policy.
#[test]
fn consolidation_gives_karpenters_first_reason_to_pass_over_a_node() {
    let node = |n: &str, pool: &str, zone: &str, pod: bool| {
        let mut text = managed_node(n, pool, zone);
        if pod {
            text.push_str(&format!(
                "---
apiVersion: v1
kind: Pod
metadata:
  name: web-{n}
  namespace: web
  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u-{n}, controller: true}}]
spec: {{nodeName: {n}}}
status: {{phase: Running}}
"
            ));
        }
        text
    };
    let pool = |name: &str, policy: &str, after: &str| {
        format!(
            "---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: {name}}}
spec:
  disruption: {{consolidationPolicy: {policy}, consolidateAfter: {after}}}
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements: []
"
        )
    };
    let text = [
        pool("empty-only", "WhenEmpty", "0s"),
        node("idle", "empty-only", ZONE, false),
        node("busy", "empty-only", ZONE, true),
        pool("never", "WhenEmptyOrUnderutilized", "Never"),
        node("no-zone", "never", "", true),
        node("zoned", "never", ZONE, true),
    ]
    .concat();
    let reasons = |version: &str| {
        let mut options = fleet_policy::BudgetOptions::at(at("2024-03-05T12:00:00Z"));
        options.karpenter_version = Some(version.to_string());
        let r = json(&fleet_policy::budgets(
            &[Source::new("pools.yaml", text.as_str())],
            &options,
        ));
        assert_eq!(r["errors"], serde_json::json!([]));
        let mut out = Vec::new();
        for p in r["nodePools"].as_array().into_iter().flatten() {
            let single = method(p, "SingleNodeConsolidation");
            for c in single["excluded"].as_array().into_iter().flatten() {
                out.push((
                    c["node"].as_str().unwrap_or_default().to_string(),
                    c["blocked"]["kind"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                ));
            }
        }
        out.sort();
        out
    };
    assert_eq!(
        reasons("head"),
        pairs(&[
            ("busy", "policyExcludes"),
            ("idle", "empty"),
            ("no-zone", "missingLabel"),
            ("zoned", "consolidateAfterNever"),
        ])
    );
    assert_eq!(
        reasons("v1.13"),
        pairs(&[
            ("busy", "policyExcludes"),
            ("idle", "policyExcludes"),
            ("no-zone", "missingLabel"),
            ("zoned", "consolidateAfterNever"),
        ])
    );
}

/// Two `kubectl get -o yaml` Lists pasted one after the other without `---` are one mapping
/// with every key twice: each repeat is an error, and the List's items are the last `items`,
/// as for any repeated key (Go's decoders keep the last value).
#[test]
fn a_list_with_its_items_written_twice_reads_the_last_items() {
    let list = |cluster: &str| {
        format!(
            "apiVersion: v1
kind: List
items:
- apiVersion: cluster.kubernetes-fleet.io/v1beta1
  kind: MemberCluster
  metadata: {{name: {cluster}}}
metadata: {{resourceVersion: \"\"}}
"
        )
    };
    let text = format!("{}{}", list("first"), list("second"));
    let r = fleet_policy::validate(
        &[Source::new("twice.yaml", text)],
        &EvaluateOptions::at(at("2026-03-04T12:00:00Z")),
    );
    let errors: Vec<(&str, u32, &str)> = r
        .errors
        .iter()
        .map(|e| (e.path.as_str(), e.line, e.message.as_str()))
        .collect();
    assert_eq!(
        errors,
        [
            ("apiVersion", 8, "duplicate key \"apiVersion\" in a mapping"),
            ("kind", 9, "duplicate key \"kind\" in a mapping"),
            ("items", 10, "duplicate key \"items\" in a mapping"),
            ("metadata", 14, "duplicate key \"metadata\" in a mapping"),
        ]
    );
    let crp = PICK_ALL_CRP;
    let p = fleet_policy::place(
        &[
            Source::new("twice.yaml", format!("{}{}", list("first"), list("second"))),
            Source::new("crp.yaml", crp),
        ],
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    );
    assert_eq!(
        p.placements[0]
            .picked
            .iter()
            .map(|c| &*c.cluster)
            .collect::<Vec<_>>(),
        ["second"]
    );
}

/// Errors of a validation as `(name, path, line, column, message)`.
fn located(errors: &[fleet_policy::Diagnostic]) -> Vec<(String, String, u32, u32, String)> {
    errors
        .iter()
        .map(|e| {
            (
                e.name.clone().unwrap_or_default(),
                e.path.to_string(),
                e.line,
                e.column,
                e.message.clone(),
            )
        })
        .collect()
}

/// A placement is checked as the API server and KubeFleet admit it: its name is a lowercase
/// RFC 1123 subdomain (every custom resource's), at most 63 characters (the webhook's
/// `validatePlacement`); a string `maxUnavailable`/`maxSurge` matches the CRD's pattern and
/// `revisionHistoryLimit` is within 1..1000. Fields of the v1beta1 API that no engine reads
/// (`strategy.reportBackStrategy`, a MemberCluster's `deleteOptions`) are accepted, and a
/// `topologyKey` is not checked beyond being set, as KubeFleet does not check it.
#[test]
fn a_placement_is_admitted_as_the_api_server_and_the_webhook_admit_it() {
    let long = "a".repeat(64);
    let crp = |name: &str, spec: &str| {
        format!(
            "---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {{name: {name}}}
spec:
  resourceSelectors: [{{group: \"\", version: v1, kind: Namespace, name: web}}]
{spec}"
        )
    };
    let text = [
        "apiVersion: cluster.kubernetes-fleet.io/v1beta1
kind: MemberCluster
metadata: {name: member-a, labels: {zone: z1}}
spec:
  identity: {name: fleet-member-agent, kind: ServiceAccount, namespace: fleet-system}
  deleteOptions: {validationMode: Skip}
"
        .to_string(),
        crp("My_App", "  strategy:\n    reportBackStrategy: {type: Mirror, destination: WorkAPI}\n"),
        crp(&long, "  policy:\n    placementType: PickN\n    numberOfClusters: 1\n    topologySpreadConstraints: [{topologyKey: 'a b'}]\n"),
        crp("ok", "  revisionHistoryLimit: 0\n  strategy:\n    rollingUpdate: {maxUnavailable: '200%', maxSurge: abc}\n"),
        crp("edges", "  revisionHistoryLimit: 1000\n  strategy:\n    rollingUpdate: {maxUnavailable: '100%', maxSurge: 7}\n"),
        crp("over", "  revisionHistoryLimit: 1001\n"),
        crp("ext", "  strategy:\n    type: External\n    rollingUpdate: {maxSurge: '5%%'}\n"),
    ]
    .concat();
    let r = fleet_policy::validate(
        &[Source::new("fleet.yaml", &*text)],
        &EvaluateOptions::at(at("2026-03-04T12:00:00Z")),
    );
    let pattern = "in body should match '^((100|[0-9]{1,2})%|[0-9]+)$'";
    let e = |name: &str, path: &str, line: u32, column: u32, message: &str| {
        (
            name.to_string(),
            path.to_string(),
            line,
            column,
            message.to_string(),
        )
    };
    let mut errors = located(&r.errors);
    errors.sort_by_key(|e| (e.2, e.3));
    assert_eq!(
        errors,
        [
            e("My_App", "metadata.name", 10, 18, "Invalid value: \"My_App\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"),
            e(&long, "metadata.name", 18, 18, "the name field cannot have length exceeding 63"),
            e("ok", "spec.revisionHistoryLimit", 31, 25, "Invalid value: 0: spec.revisionHistoryLimit in body should be greater than or equal to 1"),
            e("ok", "spec.strategy.rollingUpdate.maxUnavailable", 33, 37, &format!("Invalid value: \"200%\": spec.strategy.rollingUpdate.maxUnavailable {pattern}")),
            e("ok", "spec.strategy.rollingUpdate.maxSurge", 33, 55, &format!("Invalid value: \"abc\": spec.strategy.rollingUpdate.maxSurge {pattern}")),
            e("over", "spec.revisionHistoryLimit", 49, 25, "Invalid value: 1001: spec.revisionHistoryLimit in body should be less than or equal to 1000"),
            // The CRD's pattern holds whatever the strategy's type.
            e("ext", "spec.strategy.rollingUpdate", 58, 20, "rollingUpdateConifg is not valid for ExternalRollout strategy type"),
            e("ext", "spec.strategy.rollingUpdate.maxSurge", 58, 31, &format!("Invalid value: \"5%%\": spec.strategy.rollingUpdate.maxSurge {pattern}")),
        ]
    );
    // A refused name is the placement's verdict too; it is still scheduled.
    let p = fleet_policy::place(
        &[Source::new("fleet.yaml", &*text)],
        &PlaceOptions::at(at("2026-03-04T12:00:00Z")),
    );
    let verdict = |name: &str| {
        let p = p.placements.iter().find(|p| *p.name == *name);
        p.map(|p| (p.validation.as_str(), p.picked.len()))
    };
    assert_eq!(verdict("My_App"), Some(("rejected", 1)));
    assert_eq!(verdict(&long), Some(("rejected", 1)));
    assert_eq!(verdict("edges"), Some(("accepted", 1)));
}

const FLEET_ID: &str = "/subscriptions/3f2c1d4e-0000-4a1b-9c2d-5e6f7a8b9c0d/resourceGroups/rg/providers/Microsoft.ContainerService";

/// What `az fleet member list -o json` and `az aks list -o json` print for members in group
/// `g1`, each `(name, control plane version, node pool versions)`.
fn az_fleet(members: &[(&str, &str, &[&str])]) -> [Source; 2] {
    let member = |(name, _, _): &(&str, &str, &[&str])| {
        format!(
            r#"{{"clusterResourceId": "{FLEET_ID}/managedClusters/{name}", "group": "g1", "id": "{FLEET_ID}/fleets/f/members/{name}", "name": "{name}", "type": "Microsoft.ContainerService/fleets/members", "provisioningState": "Succeeded"}}"#
        )
    };
    let cluster = |(name, cp, pools): &(&str, &str, &[&str])| {
        let pools: Vec<String> = pools
            .iter()
            .enumerate()
            .map(|(i, v)| {
                format!(r#"{{"name": "pool{i}", "orchestratorVersion": "{v}", "currentOrchestratorVersion": "{v}"}}"#)
            })
            .collect();
        format!(
            r#"{{"id": "{FLEET_ID}/managedClusters/{name}", "name": "{name}", "type": "Microsoft.ContainerService/ManagedClusters", "location": "westeurope", "currentKubernetesVersion": "{cp}", "kubernetesVersion": "{cp}", "agentPoolProfiles": [{}]}}"#,
            pools.join(", ")
        )
    };
    let list = |items: Vec<String>| format!("[\n{}\n]\n", items.join(",\n"));
    [
        Source::new("members.json", list(members.iter().map(member).collect())),
        Source::new("aks.json", list(members.iter().map(cluster).collect())),
    ]
}

/// A member's state in the first rollout, by name.
fn member_states(r: &fleet_policy::RolloutReport) -> Vec<(String, String)> {
    r.rollouts[0]
        .stages
        .iter()
        .flat_map(|s| s.groups.iter().flat_map(|g| g.members.iter()))
        .map(|m| (m.cluster.to_string(), format!("{:?}", m.state)))
        .collect()
}

/// A Full run to a version without a patch (`1.30`) upgrades the node pools of a member whose
/// control plane is already at a `1.30.x`: nothing is a downgrade. An auto-upgrade profile's
/// run is Full too, so a member at the channel's target with a pool behind is upgraded, not
/// skipped (R-AZ-37, R-AZ-62).
#[test]
fn a_member_with_node_pools_behind_its_control_plane_is_upgraded() {
    let [members, aks] = az_fleet(&[
        ("at-target", "1.30.5", &["1.30.5"]),
        ("pool-behind", "1.30.5", &["1.30.5", "1.29.9"]),
        ("older", "1.29.9", &["1.29.9"]),
    ]);
    let run = Source::new(
        "run.json",
        format!(
            r#"{{"id": "{FLEET_ID}/fleets/f/updateRuns/r1", "name": "r1", "type": "Microsoft.ContainerService/fleets/updateRuns", "managedClusterUpdate": {{"upgrade": {{"type": "Full", "kubernetesVersion": "1.30"}}, "nodeImageSelection": {{"type": "Latest"}}}}}}"#
        ),
    );
    let profile = Source::new(
        "profile.json",
        format!(
            r#"{{"id": "{FLEET_ID}/fleets/f/autoUpgradeProfiles/stable", "name": "stable", "type": "Microsoft.ContainerService/fleets/autoUpgradeProfiles", "channel": "Stable", "disabled": false, "nodeImageSelection": {{"type": "Latest"}}}}"#
        ),
    );
    let versions = Source::new(
        "versions.yaml",
        "apiVersion: azure.fleet-policy.dev/v1
kind: AvailableVersions
metadata: {name: westeurope}
properties:
  kubernetesVersions: [\"1.29.9\", \"1.30.3\", \"1.30.5\", \"1.31.1\"]
",
    );
    let opts = RolloutOptions::at(at("2026-03-02T10:00:00Z"));
    for sources in [
        vec![run, members.clone(), aks.clone()],
        vec![profile, members, aks, versions],
    ] {
        let r = fleet_policy::rollout(&sources, &opts);
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert_eq!(
            member_states(&r),
            pairs(&[
                ("older", "Completed"),
                ("pool-behind", "Completed"),
                ("at-target", "Skipped")
            ]),
            "{}",
            sources[0].name
        );
        assert_eq!(format!("{:?}", r.rollouts[0].state), "Completed");
    }
}

/// What `az … list` prints with nothing to list (`[]`) is no resources, and `az rest` on a
/// collection prints the ARM envelope `{"value": [...], "nextLink": ...}`: its items are read,
/// and a next page, which is not in the input, is a warning at `nextLink`.
#[test]
fn an_empty_az_list_and_the_arm_list_envelope_are_read() {
    let [members, aks] = az_fleet(&[("a", "1.29.9", &["1.29.9"]), ("b", "1.29.9", &[])]);
    let run = Source::new(
        "run.json",
        format!(
            r#"{{"id": "{FLEET_ID}/fleets/f/updateRuns/r1", "name": "r1", "type": "Microsoft.ContainerService/fleets/updateRuns", "managedClusterUpdate": {{"upgrade": {{"type": "Full", "kubernetesVersion": "1.30.5"}}}}}}"#
        ),
    );
    let opts = RolloutOptions::at(at("2026-03-02T10:00:00Z"));
    let plain = fleet_policy::rollout(&[run.clone(), members.clone(), aks.clone()], &opts);
    assert!(plain.errors.is_empty(), "{:?}", plain.errors);
    assert_eq!(
        member_states(&plain),
        pairs(&[("a", "Completed"), ("b", "Completed")])
    );

    let envelope = |s: &Source, next: &str| {
        Source::new(
            s.name.clone(),
            format!("{{\"value\": {}, \"nextLink\": {next}}}\n", s.text),
        )
    };
    let next = "https://management.azure.com/subscriptions/x/providers/Microsoft.ContainerService/managedClusters?api-version=2024-05-01&$skiptoken=abc";
    let none = Source::new("maintenance.json", "[]\n");
    // As YAML, an empty page whose nextLink is null (here unquoted, as go-yaml reads it).
    let empty_page = Source::new("runs.yaml", "value: []\nnextLink: Null\n");
    let r = fleet_policy::rollout(
        &[
            run,
            envelope(&members, "null"),
            envelope(&aks, &format!("\"{next}\"")),
            none,
            empty_page,
        ],
        &opts,
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(member_states(&r), member_states(&plain));
    assert_eq!(
        r.warnings
            .iter()
            .map(|w| (
                w.source.as_str(),
                w.path.to_string(),
                w.line,
                w.message.as_str()
            ))
            .collect::<Vec<_>>(),
        [(
            "aks.json",
            "nextLink".to_string(),
            5,
            &*format!("only this page of the list is read: the rest is at {next}")
        )]
    );
}

/// An Azure group's `maxConcurrency` percentage is at most `100%`, as a count is at least 1.
#[test]
fn a_group_concurrency_over_a_hundred_percent_is_an_error() {
    let [members, aks] = az_fleet(&[("a", "1.29.9", &[])]);
    let run = |mc: &str| {
        Source::new(
            "run.json",
            format!(
                r#"{{"id": "{FLEET_ID}/fleets/f/updateRuns/r1", "name": "r1", "type": "Microsoft.ContainerService/fleets/updateRuns",
 "managedClusterUpdate": {{"upgrade": {{"type": "Full", "kubernetesVersion": "1.30.5"}}}},
 "strategy": {{"stages": [{{"name": "s1", "groups": [{{"name": "g1", "maxConcurrency": {mc}}}]}}]}}}}"#
            ),
        )
    };
    let opts = RolloutOptions::at(at("2026-03-02T10:00:00Z"));
    let errors = |mc: &str| {
        let r = fleet_policy::rollout(&[run(mc), members.clone(), aks.clone()], &opts);
        r.errors
            .iter()
            .map(|e| format!("{}:{}: {}: {}", e.line, e.column, e.path, e.message))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        errors("\"150%\""),
        ["3:85: strategy.stages[0].groups[0].maxConcurrency: maxConcurrency \"150%\" must be an integer >= 1 or a percentage \"1%\"..\"100%\""]
    );
    assert_eq!(errors("\"100%\""), Vec::<String>::new());
    assert_eq!(errors("150"), Vec::<String>::new());
}
