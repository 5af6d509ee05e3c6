//! placement-cases.yaml: each case's fleet, policy and bindings are written out as
//! Kubernetes YAML text (MemberCluster, ClusterResourcePlacement, PlacementBinding) and run
//! through the public API, then every field present in `expect` is checked.

use crate::{guarded, load, only_keys, Outcome};
use fleet_policy::placement::{Decision, PlacementResult};
use fleet_policy::{place, PlaceOptions, Source};
use serde_json::{json, Map, Value};
use std::fmt::Write;
use std::path::Path;

/// The evaluation instant of every case; health states are written relative to it.
const AT: &str = "2026-01-01T12:00:00Z";
const MINUTE_AGO: &str = "2026-01-01T11:59:00Z";
const TEN_MINUTES_AGO: &str = "2026-01-01T11:50:00Z";
const DAY_AGO: &str = "2025-12-31T11:00:00Z";

/// Runs every case of the file.
pub fn run(path: &Path) -> Outcome {
    let mut out = Outcome::default();
    let doc = match load(path) {
        Ok(d) => d,
        Err(e) => {
            out.record("(file)", Err(e));
            return out;
        }
    };
    let fleets = doc.get("fleets").cloned().unwrap_or(Value::Null);
    let Some(cases) = doc.get("cases").and_then(Value::as_array) else {
        out.record("(file)", Err("no `cases` list".into()));
        return out;
    };
    for case in cases {
        let id = case.get("id").and_then(Value::as_str).unwrap_or("(no id)");
        out.record(id, guarded(|| run_case(case, &fleets)));
    }
    out
}

/// The keys a case may have; see the schema at the top of the cases file.
const CASE_KEYS: &[&str] = &[
    "id",
    "title",
    "source",
    "fleet",
    "fleetOverrides",
    "clusters",
    "policy",
    "existingBindings",
    "expect",
    // Project cases only (cases/README.md).
    "generatedClusters",
    "options",
    "placement",
];

/// The keys `expect` may have: the asserted ones, then the free-text notes.
const EXPECT_KEYS: &[&str] = &[
    "validation",
    "error",
    "picked",
    "notPicked",
    "kept",
    "unscheduled",
    "filtered",
    "decisions",
    "condition",
    // Project cases only (cases/README.md).
    "perClusterStatuses",
    "decisionCount",
    "selectedDecisionCount",
    "errorCause",
    "validationNotes",
    "decisionsNotes",
    "notes",
];

pub fn run_case(case: &Value, fleets: &Value) -> Result<(), String> {
    only_keys("case", case, CASE_KEYS)?;
    if let Some(e) = case.get("expect") {
        only_keys("expect", e, EXPECT_KEYS)?;
    }
    let yaml = case_yaml(case, fleets)?;
    // `options` (project cases): engine options beside the evaluation instant, as the CLI's
    // `--set` and the npm options object give them.
    let mut options = json!({ "at": AT });
    if let (Some(o), Some(given)) = (
        options.as_object_mut(),
        case.get("options").and_then(Value::as_object),
    ) {
        o.extend(given.clone());
    }
    let options: PlaceOptions =
        serde_json::from_value(options).map_err(|e| format!("options: {e}"))?;
    let report = crate::same_json(place(
        &[Source::new(
            "case.yaml",
            crate::seed("placement", yaml.clone()),
        )],
        &options,
    ));
    let p = match report.placements.as_slice() {
        [p] => p,
        other => {
            return Err(format!(
                "expected one placement result, got {} (errors: {:?})",
                other.len(),
                report
                    .errors
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
            ))
        }
    };
    let expect = case.get("expect").cloned().unwrap_or(json!({}));
    let mut problems = Vec::new();
    check(&expect, p, &mut problems);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

// ------------------------------------------------------------------------------------------
// Case → YAML text.

fn clusters_of(case: &Value, fleets: &Value) -> Result<Vec<Value>, String> {
    let mut clusters: Vec<Value> = Vec::new();
    if let Some(f) = case.get("fleet").and_then(Value::as_str) {
        let base = fleets
            .get(f)
            .and_then(|x| x.get("clusters"))
            .and_then(Value::as_array)
            .ok_or_else(|| format!("unknown fleet {f}"))?;
        clusters.extend(base.iter().cloned());
    }
    if let Some(over) = case.get("fleetOverrides").and_then(Value::as_object) {
        for (name, fields) in over {
            let c = clusters
                .iter_mut()
                .find(|c| c.get("name").and_then(Value::as_str) == Some(name))
                .ok_or_else(|| format!("override for unknown cluster {name}"))?;
            if let (Some(obj), Some(fields)) = (c.as_object_mut(), fields.as_object()) {
                for (k, v) in fields {
                    obj.insert(k.clone(), v.clone());
                }
            }
        }
    }
    if let Some(extra) = case.get("clusters").and_then(Value::as_array) {
        clusters.extend(extra.iter().cloned());
    }
    // `generatedClusters: {count, prefix, labels?}`: many healthy clusters named
    // <prefix>0001… (fleets past the scheduler's decision limits).
    if let Some(g) = case.get("generatedClusters") {
        crate::only_keys("generatedClusters", g, &["count", "prefix", "labels"])?;
        let count = g
            .get("count")
            .and_then(Value::as_u64)
            .ok_or("generatedClusters.count")?;
        let prefix = g
            .get("prefix")
            .and_then(Value::as_str)
            .ok_or("generatedClusters.prefix")?;
        for i in 1..=count {
            let mut c = json!({ "name": format!("{prefix}{i:04}") });
            if let (Some(l), Some(obj)) = (g.get("labels"), c.as_object_mut()) {
                obj.insert("labels".into(), l.clone());
            }
            clusters.push(c);
        }
    }
    Ok(clusters)
}

/// A JSON value as a YAML flow value (JSON is YAML; strings stay quoted).
fn flow(v: &Value) -> String {
    v.to_string()
}

/// `AT` minus a Go duration, as RFC 3339 text.
fn before_at(age: &str) -> Result<String, String> {
    let d = fleet_policy::input::duration::GoDuration::parse(age).map_err(|e| e.to_string())?;
    let at = chrono::DateTime::parse_from_rfc3339(AT).map_err(|e| e.to_string())?;
    Ok((at - d.to_chrono())
        .to_utc()
        .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

/// The keys a cluster entry may have.
const CLUSTER_KEYS: &[&str] = &[
    "name",
    "labels",
    "health",
    "taints",
    "properties",
    "resourceUsage",
    // Project cases only (cases/README.md).
    "heartbeatAge",
    "unhealthyFor",
    "namespaces",
    "namespaceCollection",
];

fn member_cluster_yaml(c: &Value) -> Result<String, String> {
    crate::only_keys("cluster", c, CLUSTER_KEYS)?;
    let name = c
        .get("name")
        .and_then(Value::as_str)
        .ok_or("cluster without a name")?;
    let health = c.get("health").and_then(Value::as_str).unwrap_or("Healthy");
    let mut y = String::new();
    let _ = writeln!(y, "apiVersion: cluster.kubernetes-fleet.io/v1beta1");
    let _ = writeln!(y, "kind: MemberCluster");
    let _ = writeln!(y, "metadata:");
    let _ = writeln!(y, "  name: {}", flow(&json!(name)));
    if let Some(l) = c.get("labels").filter(|l| !l.is_null()) {
        let _ = writeln!(y, "  labels: {}", flow(l));
    }
    if health == "Left" {
        let _ = writeln!(y, "  deletionTimestamp: \"{MINUTE_AGO}\"");
    }
    let _ = writeln!(y, "spec:");
    let _ = writeln!(
        y,
        "  taints: {}",
        flow(c.get("taints").unwrap_or(&json!([])))
    );
    let _ = writeln!(y, "status:");
    if let Some(props) = c.get("properties").and_then(Value::as_object) {
        let mut m = Map::new();
        for (k, v) in props {
            m.insert(k.clone(), json!({ "value": v }));
        }
        let _ = writeln!(y, "  properties: {}", flow(&Value::Object(m)));
    }
    if let Some(ru) = c.get("resourceUsage").filter(|r| !r.is_null()) {
        let _ = writeln!(y, "  resourceUsage: {}", flow(ru));
    }
    let cond = |t: &str, s: &str, when: &str| json!({"type": t, "status": s, "lastTransitionTime": when, "reason": t});
    let agent = |hb: &str, conds: Vec<Value>| json!([{ "type": "MemberAgent", "lastReceivedHeartbeat": hb, "conditions": conds }]);
    let agents = match health {
        "Healthy" | "Left" => agent(
            MINUTE_AGO,
            vec![
                cond("Joined", "True", DAY_AGO),
                cond("Healthy", "True", DAY_AGO),
            ],
        ),
        "UnhealthyRecent" => agent(
            MINUTE_AGO,
            vec![
                cond("Joined", "True", DAY_AGO),
                cond("Healthy", "False", MINUTE_AGO),
            ],
        ),
        "AgentNotOnline" => json!([]),
        "NotJoined" => agent(
            MINUTE_AGO,
            vec![
                cond("Joined", "False", DAY_AGO),
                cond("Healthy", "True", DAY_AGO),
            ],
        ),
        "NoRecentHeartbeat" => agent(
            DAY_AGO,
            vec![
                cond("Joined", "True", DAY_AGO),
                cond("Healthy", "True", DAY_AGO),
            ],
        ),
        "NoHealthCondition" => agent(MINUTE_AGO, vec![cond("Joined", "True", DAY_AGO)]),
        "UnhealthyProlonged" => agent(
            MINUTE_AGO,
            vec![
                cond("Joined", "True", DAY_AGO),
                cond("Healthy", "False", TEN_MINUTES_AGO),
            ],
        ),
        other => return Err(format!("unknown health state {other}")),
    };
    // `heartbeatAge` / `unhealthyFor` (Go durations before the evaluation instant) replace
    // the health state's heartbeat and make Healthy=False since then.
    let mut agents = agents;
    if let Some(age) = c.get("heartbeatAge").and_then(Value::as_str) {
        let when = before_at(age)?;
        if let Some(a) = agents.get_mut(0).and_then(Value::as_object_mut) {
            a.insert("lastReceivedHeartbeat".into(), json!(when));
        }
    }
    if let Some(age) = c.get("unhealthyFor").and_then(Value::as_str) {
        let when = before_at(age)?;
        if let Some(conds) = agents
            .get_mut(0)
            .and_then(|a| a.get_mut("conditions"))
            .and_then(Value::as_array_mut)
        {
            conds.retain(|c| c.get("type").and_then(Value::as_str) != Some("Healthy"));
            conds.push(cond("Healthy", "False", &when));
        }
    }
    let _ = writeln!(y, "  agentStatus: {}", flow(&agents));
    // `namespaceCollection: "True" | "False"` adds the NamespaceCollectionSucceeded condition;
    // `namespaces: [names]` the collected namespaces (each created by no Work).
    if let Some(status) = c.get("namespaceCollection").and_then(Value::as_str) {
        let _ = writeln!(
            y,
            "  conditions: {}",
            flow(&json!([cond(
                "NamespaceCollectionSucceeded",
                status,
                DAY_AGO
            )]))
        );
    }
    if let Some(names) = c.get("namespaces").and_then(Value::as_array) {
        let map: Map<String, Value> = names
            .iter()
            .filter_map(Value::as_str)
            .map(|n| (n.to_string(), json!("")))
            .collect();
        let _ = writeln!(y, "  namespaces: {}", flow(&Value::Object(map)));
    }
    Ok(y)
}

fn case_yaml(case: &Value, fleets: &Value) -> Result<String, String> {
    let mut docs: Vec<String> = Vec::new();
    for c in clusters_of(case, fleets)? {
        docs.push(member_cluster_yaml(&c)?);
    }
    // `placement: {kind: ResourcePlacement, namespace?}` (project cases): the namespaced
    // placement instead of a ClusterResourcePlacement; its bindings are in its namespace.
    let placement = case.get("placement");
    if let Some(p) = placement {
        crate::only_keys("placement", p, &["kind", "namespace"])?;
    }
    let kind = placement
        .and_then(|p| p.get("kind"))
        .and_then(Value::as_str)
        .unwrap_or("ClusterResourcePlacement");
    let namespace = placement
        .and_then(|p| p.get("namespace"))
        .and_then(Value::as_str);
    let ns_line = namespace.map_or(String::new(), |n| {
        format!("  namespace: {}\n", flow(&json!(n)))
    });
    let mut crp = if kind == "ResourcePlacement" {
        format!("apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ResourcePlacement\nmetadata:\n  name: crp\n{ns_line}spec:\n  resourceSelectors: [{{group: \"\", version: v1, kind: ConfigMap, name: app}}]\n")
    } else {
        String::from(
            "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourcePlacement\nmetadata:\n  name: crp\nspec:\n  resourceSelectors: [{group: \"\", version: v1, kind: Namespace, name: app}]\n",
        )
    };
    if let Some(p) = case.get("policy").filter(|p| !p.is_null()) {
        let _ = writeln!(crp, "  policy: {}", flow(p));
    }
    docs.push(crp);
    for b in case
        .get("existingBindings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let cluster = b
            .get("cluster")
            .and_then(Value::as_str)
            .ok_or("binding without cluster")?;
        let state = b.get("state").and_then(Value::as_str).unwrap_or("Bound");
        let snapshot = match b.get("snapshot").and_then(Value::as_str) {
            Some("obsolete") => "Obsolete",
            _ => "Current",
        };
        crate::only_keys(
            "existingBindings[]",
            b,
            &[
                "cluster",
                "state",
                "snapshot",
                "affinityScore",
                "topologySpreadScore",
                "deleting",
            ],
        )?;
        // `deleting: true` (project cases): the binding has a deletionTimestamp.
        let deleting = if b.get("deleting").and_then(Value::as_bool) == Some(true) {
            format!("  deletionTimestamp: \"{MINUTE_AGO}\"\n")
        } else {
            String::new()
        };
        let mut y = format!(
            "apiVersion: fleet-policy.dev/v1alpha1\nkind: PlacementBinding\nmetadata:\n  name: crp-{cluster}\n{ns_line}{deleting}spec:\n  placement: crp\n  cluster: {}\n  state: {state}\n  policySnapshot: {snapshot}\n",
            flow(&json!(cluster))
        );
        if b.get("affinityScore").is_some() || b.get("topologySpreadScore").is_some() {
            let _ = writeln!(
                y,
                "  clusterScore: {{affinityScore: {}, topologySpreadScore: {}}}",
                b.get("affinityScore").and_then(Value::as_i64).unwrap_or(0),
                b.get("topologySpreadScore")
                    .and_then(Value::as_i64)
                    .unwrap_or(0)
            );
        }
        docs.push(y);
    }
    Ok(docs.join("---\n"))
}

// ------------------------------------------------------------------------------------------
// Checks.

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn check_text(what: &str, expected: &Value, actual: &str, problems: &mut Vec<String>) {
    if let Some(r) = s(expected, "reason") {
        if r != actual {
            problems.push(format!("{what}: reason {actual:?}, expected {r:?}"));
        }
    } else if let Some(r) = s(expected, "reasonPrefix") {
        if !actual.starts_with(r) {
            problems.push(format!("{what}: reason {actual:?}, expected prefix {r:?}"));
        }
    }
}

fn check_scored(
    what: &str,
    expected: &[Value],
    actual: &[fleet_policy::placement::Picked],
    problems: &mut Vec<String>,
) {
    let names = |a: &[fleet_policy::placement::Picked]| {
        a.iter()
            .map(|p| {
                format!(
                    "{}({}/{})",
                    p.cluster, p.affinity_score, p.topology_spread_score
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    if expected.len() != actual.len() {
        problems.push(format!(
            "{what}: got [{}], expected {} entries",
            names(actual),
            expected.len()
        ));
        return;
    }
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        let ok_name = s(e, "cluster") == Some(&*a.cluster);
        let ok_aff = e
            .get("affinityScore")
            .and_then(Value::as_i64)
            .is_none_or(|v| v == i64::from(a.affinity_score));
        let ok_tsc = e
            .get("topologySpreadScore")
            .and_then(Value::as_i64)
            .is_none_or(|v| v == i64::from(a.topology_spread_score));
        if !(ok_name && ok_aff && ok_tsc) {
            problems.push(format!(
                "{what}[{i}]: got [{}], expected {}",
                names(actual),
                Value::Array(expected.to_vec())
            ));
            return;
        }
    }
}

fn check_names(what: &str, expected: &[Value], actual: &[String], problems: &mut Vec<String>) {
    let mut e: Vec<&str> = expected.iter().filter_map(Value::as_str).collect();
    let mut a: Vec<&str> = actual.iter().map(String::as_str).collect();
    e.sort_unstable();
    a.sort_unstable();
    if e != a {
        problems.push(format!("{what}: got {a:?}, expected {e:?}"));
    }
}

fn check_decision(i: usize, e: &Value, a: &Decision, problems: &mut Vec<String>) {
    let what = format!("decisions[{i}]");
    if s(e, "clusterName") != Some(&*a.cluster_name) {
        problems.push(format!(
            "{what}: cluster {}, expected {:?}",
            a.cluster_name,
            s(e, "clusterName")
        ));
        return;
    }
    if e.get("selected").and_then(Value::as_bool) != Some(a.selected) {
        problems.push(format!(
            "{what} {}: selected {}",
            a.cluster_name, a.selected
        ));
    }
    let expected_score = e.get("clusterScore").map(|cs| {
        (
            cs.get("affinityScore").and_then(Value::as_i64).unwrap_or(0),
            cs.get("topologySpreadScore")
                .and_then(Value::as_i64)
                .unwrap_or(0),
        )
    });
    let actual_score = a.cluster_score.map(|c| {
        (
            i64::from(c.affinity_score),
            i64::from(c.topology_spread_score),
        )
    });
    if expected_score != actual_score {
        problems.push(format!(
            "{what} {}: clusterScore {actual_score:?}, expected {expected_score:?}",
            a.cluster_name
        ));
    }
    check_text(&what, e, &a.reason, problems);
}

/// `perClusterStatuses`: the CRP's entries in order, each
/// `{clusterName (absent for ScheduleFailed), status, reason, message | messagePrefix}`.
fn check_per_cluster(want: &[Value], p: &PlacementResult, problems: &mut Vec<String>) {
    let got: Vec<_> = p.per_cluster_placement_statuses().collect();
    let show = |g: &[fleet_policy::placement::per_cluster::PerClusterPlacementStatus<'_>]| {
        g.iter()
            .map(|e| {
                format!(
                    "{}:{}",
                    e.cluster_name.unwrap_or("-"),
                    e.conditions[0].reason
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    if got.len() != want.len() {
        problems.push(format!(
            "perClusterStatuses: got [{}], expected {} entries",
            show(&got),
            want.len()
        ));
        return;
    }
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        let c = &g.conditions[0];
        let message = c.message.to_string();
        let ok = s(w, "clusterName") == g.cluster_name
            && s(w, "status") == Some(c.status)
            && s(w, "reason") == Some(c.reason)
            && s(w, "message").is_none_or(|m| m == message)
            && s(w, "messagePrefix").is_none_or(|m| message.starts_with(m));
        if !ok {
            problems.push(format!(
                "perClusterStatuses[{i}]: got {:?} {} {} {message:?}, expected {w}",
                g.cluster_name, c.status, c.reason
            ));
        }
    }
}

fn check(expect: &Value, p: &PlacementResult, problems: &mut Vec<String>) {
    if let Some(v) = s(expect, "validation") {
        if v != p.validation {
            problems.push(format!("validation {}, expected {v}", p.validation));
        }
    }
    if let Some(e) = expect.get("error").and_then(Value::as_bool) {
        if e != p.cycle_error.is_some() {
            problems.push(format!(
                "cycle error {:?}, expected error: {e}",
                p.cycle_error.as_ref().map(|c| c.message.as_str())
            ));
        }
    }
    if let Some(picked) = expect.get("picked").and_then(Value::as_array) {
        check_scored("picked", picked, &p.picked, problems);
    }
    if let Some(np) = expect.get("notPicked").and_then(Value::as_array) {
        check_scored("notPicked", np, &p.not_picked, problems);
    }
    if let Some(k) = expect.get("kept").and_then(Value::as_array) {
        check_names("kept", k, &p.kept, problems);
    }
    if let Some(u) = expect.get("unscheduled").and_then(Value::as_array) {
        check_names("unscheduled", u, &p.unscheduled, problems);
    }
    if let Some(f) = expect.get("filtered").and_then(Value::as_array) {
        if f.len() != p.filtered.len() {
            problems.push(format!(
                "filtered: got {:?}, expected {} entries",
                p.filtered
                    .iter()
                    .map(|x| format!("{} {}", x.cluster, x.plugin))
                    .collect::<Vec<_>>(),
                f.len()
            ));
        } else {
            for (i, (e, a)) in f.iter().zip(&p.filtered).enumerate() {
                if s(e, "cluster") != Some(&*a.cluster) {
                    problems.push(format!(
                        "filtered[{i}]: cluster {}, expected {:?}",
                        a.cluster,
                        s(e, "cluster")
                    ));
                    continue;
                }
                if let Some(pl) = s(e, "plugin") {
                    if pl != a.plugin {
                        problems.push(format!(
                            "filtered[{i}] {}: plugin {}, expected {pl}",
                            a.cluster, a.plugin
                        ));
                    }
                }
                check_text(
                    &format!("filtered[{i}] {}", a.cluster),
                    e,
                    &a.reason,
                    problems,
                );
            }
        }
    }
    if let Some(d) = expect.get("decisions").and_then(Value::as_array) {
        // Selected decisions are compared as a set (their order follows binding listing,
        // which the scheduler leaves open); unselected ones in order.
        let (mut es, eu): (Vec<&Value>, Vec<&Value>) = d
            .iter()
            .partition(|x| x.get("selected").and_then(Value::as_bool) == Some(true));
        let (mut a_s, au): (Vec<&Decision>, Vec<&Decision>) =
            p.decisions.iter().partition(|x| x.selected);
        es.sort_by_key(|x| s(x, "clusterName").unwrap_or("").to_string());
        a_s.sort_by(|x, y| x.cluster_name.cmp(&y.cluster_name));
        if es.len() != a_s.len() || eu.len() != au.len() {
            problems.push(format!(
                "decisions: got {} selected + {} unselected, expected {} + {}",
                a_s.len(),
                au.len(),
                es.len(),
                eu.len()
            ));
        } else {
            for (i, (e, a)) in es.iter().zip(&a_s).chain(eu.iter().zip(&au)).enumerate() {
                check_decision(i, e, a, problems);
            }
        }
    }
    if let Some(n) = expect.get("decisionCount").and_then(Value::as_u64) {
        if n != p.decisions.len() as u64 {
            problems.push(format!(
                "decisionCount: {}, expected {n}",
                p.decisions.len()
            ));
        }
    }
    if let Some(n) = expect.get("selectedDecisionCount").and_then(Value::as_u64) {
        let got = p.decisions.iter().filter(|d| d.selected).count() as u64;
        if n != got {
            problems.push(format!("selectedDecisionCount: {got}, expected {n}"));
        }
    }
    if let Some(want) = expect.get("perClusterStatuses").and_then(Value::as_array) {
        check_per_cluster(want, p, problems);
    }
    if let Some(c) = expect.get("condition") {
        for (k, actual) in [
            ("status", &p.condition.status),
            ("reason", &p.condition.reason),
            ("message", &p.condition.message),
        ] {
            if let Some(v) = s(c, k) {
                if v != actual {
                    problems.push(format!("condition.{k}: {actual:?}, expected {v:?}"));
                }
            }
        }
    }
}
