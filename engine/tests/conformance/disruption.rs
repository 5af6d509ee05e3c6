//! Disruption conformance: every section of `disruption-cases.yaml`. Budget, window,
//! validation, candidate and node-cost cases are written out as Kubernetes YAML and run
//! through the public API `fleet_policy::budgets`; the timing and pod-cost cases call the
//! public pure functions of `fleet_policy::disruption::timing`.

use crate::{guarded, load, only_keys, Outcome};
use chrono::{DateTime, Utc};
use fleet_policy::disruption::report::{BudgetReport, NodePoolResult};
use fleet_policy::disruption::timing;
use fleet_policy::disruption::version::KarpenterVersion;
use fleet_policy::disruption::BudgetOptions;
use fleet_policy::input::duration::GoDuration;
use fleet_policy::Source;
use serde_json::Value;
use std::path::Path;

type R = Result<(), String>;

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
    let Some(sections) = doc.as_object() else {
        out.record("(file)", Err("not a mapping".into()));
        return out;
    };
    for (section, cases) in sections.iter().filter(|(k, _)| k.ends_with("_cases")) {
        let Some(cases) = cases.as_array() else {
            out.record(section, Err("section is not a list".into()));
            continue;
        };
        for case in cases {
            let id = case.get("id").and_then(Value::as_str).unwrap_or("?");
            let result = guarded(|| match section.as_str() {
                "budget_cases" => budget_case(case),
                "window_cases" => window_case(case),
                "validation_cases" => validation_case(case),
                "timing_cases" => timing_case(case),
                "candidate_cases" => candidate_case(case),
                "cost_cases" => cost_case(case),
                "fleet_cases" => fleet_case(case),
                other => Err(format!("unknown section {other}")),
            });
            out.record(id, result);
        }
    }
    out
}

fn s<'a>(v: &'a Value, k: &str) -> Result<&'a str, String> {
    v.get(k)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing string {k}"))
}

fn time(v: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(v)
        .map(|d| d.to_utc())
        .map_err(|e| format!("{v}: {e}"))
}

fn opt_time(v: &Value, k: &str) -> Result<Option<DateTime<Utc>>, String> {
    match v.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(t)) => time(t).map(Some),
        Some(o) => Err(format!("{k}: not a time: {o}")),
    }
}

/// A YAML flow value (JSON is valid YAML flow syntax; strings stay quoted).
fn y(v: &Value) -> String {
    v.to_string()
}

fn node_pool_yaml(disruption_extra: &str, budgets: Option<&Value>, template_extra: &str) -> String {
    let mut t = String::from(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: pool\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}\n",
    );
    t.push_str(template_extra);
    t.push_str("  disruption:\n    consolidateAfter: 0s\n");
    t.push_str(disruption_extra);
    if let Some(b) = budgets {
        t.push_str(&format!("    budgets: {}\n", y(b)));
    }
    t
}

fn run_budgets(text: &str, at: DateTime<Utc>) -> BudgetReport {
    crate::same_json(fleet_policy::budgets(
        &[Source::new(
            "case.yaml",
            crate::seed("disruption", text.to_string()),
        )],
        &BudgetOptions::at(at),
    ))
}

fn only_pool(r: &BudgetReport) -> Result<&NodePoolResult, String> {
    match r.node_pools.as_slice() {
        [p] => Ok(p),
        other => Err(format!(
            "expected one NodePool result, got {} (errors: {:?})",
            other.len(),
            r.errors
        )),
    }
}

fn per_reason(expect: &Value, got: &fleet_policy::disruption::budget::PerReason, what: &str) -> R {
    for (k, g) in [
        ("Empty", got.empty),
        ("Drifted", got.drifted),
        ("Underutilized", got.underutilized),
    ] {
        let want = expect
            .get(k)
            .and_then(Value::as_i64)
            .ok_or_else(|| format!("{what}.{k} missing"))?;
        if want != g {
            return Err(format!("{what}.{k}: expected {want}, got {g}"));
        }
    }
    Ok(())
}

fn budget_case(case: &Value) -> R {
    let at = time(s(case, "at")?)?;
    let expect = case.get("expect").ok_or("no expect")?;
    let mut counts = String::new();
    if let Some(n) = case.get("nodes").and_then(Value::as_object) {
        for (k, v) in n {
            let key = match k.as_str() {
                "ready" => "ready",
                "deleting" => "deleting",
                "not_ready" => "notReady",
                "deleting_not_ready" => "deletingNotReady",
                "uninitialized" => "uninitialized",
                "unmanaged" => "unmanaged",
                "instance_terminating" => "instanceTerminating",
                other => return Err(format!("unknown node bucket {other}")),
            };
            counts.push_str(&format!("  {key}: {}\n", y(v)));
        }
    }
    let text = format!(
        "{}---\napiVersion: fleet-policy.dev/v1alpha1\nkind: NodeCounts\nmetadata:\n  name: pool\nspec:\n{}",
        node_pool_yaml("", case.get("budgets"), ""),
        if counts.is_empty() { "  {}\n".to_string() } else { counts }
    );
    let r = run_budgets(&text, at);
    let p = only_pool(&r)?;
    let active: Vec<bool> = p.budgets.iter().map(|b| b.active).collect();
    let want_active: Vec<bool> = expect
        .get("active")
        .and_then(Value::as_array)
        .ok_or("expect.active missing")?
        .iter()
        .map(|v| v.as_bool().unwrap_or(false))
        .collect();
    // With `budgets` absent the CRD default is one (always active) budget.
    if active != want_active {
        return Err(format!("active: expected {want_active:?}, got {active:?}"));
    }
    let want_error = expect
        .get("error")
        .and_then(Value::as_bool)
        .ok_or("expect.error missing")?;
    if want_error != p.fail_closed {
        return Err(format!(
            "error: expected {want_error}, got {} ({:?})",
            p.fail_closed, r.errors
        ));
    }
    if want_error
        && !r
            .errors
            .iter()
            .any(|e| e.path.starts_with("spec.disruption.budgets"))
    {
        return Err("fail closed without an error on the budgets field".into());
    }
    per_reason(
        expect.get("raw").ok_or("no raw")?,
        &p.raw_allowed_disruptions,
        "raw",
    )?;
    per_reason(
        expect.get("allowed").ok_or("no allowed")?,
        &p.allowed_disruptions,
        "allowed",
    )
}

fn window_case(case: &Value) -> R {
    let at = time(s(case, "at")?)?;
    let expect = case.get("expect").ok_or("no expect")?;
    let budget = case.get("budget").ok_or("no budget")?;
    let text = node_pool_yaml("", Some(&Value::Array(vec![budget.clone()])), "");
    let r = run_budgets(&text, at);
    let p = only_pool(&r)?;
    let b = p.budgets.first().ok_or("no budget state")?;
    let want_active = expect
        .get("active")
        .and_then(Value::as_bool)
        .ok_or("expect.active")?;
    if b.active != want_active {
        return Err(format!("active: expected {want_active}, got {}", b.active));
    }
    let check = |key: &str, got: Option<DateTime<Utc>>, never: bool| -> R {
        match expect.get(key) {
            None => Ok(()),
            Some(Value::String(v)) if v == "never" => {
                if never && got.is_none() {
                    Ok(())
                } else {
                    Err(format!("{key}: expected never, got {got:?}"))
                }
            }
            Some(Value::String(v)) => {
                let want = time(v)?;
                if got == Some(want) {
                    Ok(())
                } else {
                    Err(format!("{key}: expected {want}, got {got:?}"))
                }
            }
            Some(o) => Err(format!("{key}: unexpected {o}")),
        }
    };
    check("active_until", b.active_until, b.never_closes)?;
    check("next_open", b.next_open, false)?;
    check("next_close", b.next_close, false)
}

fn validation_case(case: &Value) -> R {
    let field = s(case, "field")?;
    let value = case.get("value").ok_or("no value")?;
    let text;
    let path: &str;
    let mut prefix = false;
    match field {
        "nodes" => {
            text = node_pool_yaml("", Some(&serde_json::json!([{ "nodes": value }])), "");
            path = "spec.disruption.budgets[0].nodes";
        }
        "schedule" => {
            text = node_pool_yaml(
                "",
                Some(&serde_json::json!([{ "nodes": "1", "schedule": value, "duration": "1h" }])),
                "",
            );
            path = "spec.disruption.budgets[0].schedule";
        }
        "duration" => {
            text = node_pool_yaml(
                "",
                Some(
                    &serde_json::json!([{ "nodes": "1", "schedule": "* * * * *", "duration": value }]),
                ),
                "",
            );
            path = "spec.disruption.budgets[0].duration";
        }
        "budget" => {
            text = node_pool_yaml("", Some(&Value::Array(vec![value.clone()])), "");
            path = "spec.disruption.budgets";
        }
        "budgets" => {
            text = node_pool_yaml("", Some(value), "");
            path = "spec.disruption.budgets";
        }
        "reasons" => {
            text = node_pool_yaml(
                "",
                Some(&serde_json::json!([{ "nodes": "1", "reasons": value }])),
                "",
            );
            path = "spec.disruption.budgets[0].reasons";
            prefix = true;
        }
        "consolidateAfter" => {
            // Replaces the harness's own consolidateAfter.
            text = node_pool_yaml("", None, "").replace(
                "consolidateAfter: 0s",
                &format!("consolidateAfter: {}", y(value)),
            );
            path = "spec.disruption.consolidateAfter";
        }
        "consolidationPolicy" => {
            text = node_pool_yaml(
                &format!("    consolidationPolicy: {}\n", y(value)),
                None,
                "",
            );
            path = "spec.disruption.consolidationPolicy";
        }
        "expireAfter" => {
            text = node_pool_yaml("", None, &format!("      expireAfter: {}\n", y(value)));
            path = "spec.template.spec.expireAfter";
        }
        "terminationGracePeriod" => {
            text = node_pool_yaml(
                "",
                None,
                &format!("      terminationGracePeriod: {}\n", y(value)),
            );
            path = "spec.template.spec.terminationGracePeriod";
        }
        other => return Err(format!("unknown field {other}")),
    }
    let at = time("2024-03-05T12:00:00Z")?;
    let r = run_budgets(&text, at);
    let p = only_pool(&r)?;
    let checks: Vec<_> = p
        .validation
        .iter()
        .filter(|c| {
            if prefix {
                c.path.starts_with(path)
            } else {
                c.path == path
            }
        })
        .collect();
    if checks.is_empty() {
        return Err(format!("no validation verdict for {path}"));
    }
    let accepts = checks.iter().all(|c| c.crd_accepts);
    let want = case
        .get("crd_accepts")
        .and_then(Value::as_bool)
        .ok_or("crd_accepts missing")?;
    if accepts != want {
        return Err(format!(
            "crd_accepts: expected {want}, got {accepts} ({checks:?})"
        ));
    }
    if !want
        && !r
            .errors
            .iter()
            .any(|e| e.path.starts_with(path) && e.line > 0)
    {
        return Err(format!("rejected value without an error at {path}"));
    }
    if let Some(rt) = case.get("runtime").and_then(Value::as_str) {
        use fleet_policy::disruption::validation::Runtime;
        let errors = checks
            .iter()
            .any(|c| matches!(c.runtime, Some(Runtime::Error { .. })));
        let has_verdict = checks.iter().any(|c| c.runtime.is_some());
        if !has_verdict {
            return Err("no runtime verdict".into());
        }
        match (rt, errors) {
            ("ok", false) | ("error", true) => {}
            _ => return Err(format!("runtime: expected {rt}, got error={errors}")),
        }
        let effect = case.get("effect").and_then(Value::as_str).unwrap_or("");
        if effect.contains("fail closed") && !p.fail_closed {
            return Err("expected the NodePool to fail closed".into());
        }
    }
    Ok(())
}

fn nillable(v: &str) -> Result<Option<GoDuration>, String> {
    if v == "Never" {
        Ok(None)
    } else {
        GoDuration::parse(v).map(Some).map_err(|e| e.0)
    }
}

fn timing_case(case: &Value) -> R {
    let now = time(s(case, "now")?)?;
    let expect = case.get("expect").ok_or("no expect")?;
    match s(case, "kind")? {
        "consolidatable" => {
            let after = nillable(s(case, "consolidate_after")?)?;
            let (ok, at) = timing::consolidatable(
                after,
                opt_time(case, "initialized_at")?,
                opt_time(case, "last_pod_event")?,
                now,
            );
            let want = expect
                .get("consolidatable")
                .and_then(Value::as_bool)
                .ok_or("consolidatable missing")?;
            if ok != want {
                return Err(format!("consolidatable: expected {want}, got {ok}"));
            }
            if let Some(w) = opt_time(expect, "consolidatable_at")? {
                if at != Some(w) {
                    return Err(format!("consolidatable_at: expected {w}, got {at:?}"));
                }
            }
            Ok(())
        }
        "expired" => {
            let after = nillable(s(case, "expire_after")?)?;
            let got = timing::expired(after, time(s(case, "created_at")?)?, now);
            let want = expect
                .get("expired")
                .and_then(Value::as_bool)
                .ok_or("expired missing")?;
            if got == want {
                Ok(())
            } else {
                Err(format!("expired: expected {want}, got {got}"))
            }
        }
        "pod_do_not_disrupt" => {
            let phase = case
                .get("phase")
                .and_then(Value::as_str)
                .unwrap_or("Running");
            let terminal = matches!(phase, "Succeeded" | "Failed");
            let terminating = case
                .get("terminating")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let v = timing::pod_do_not_disrupt(
                case.get("value").and_then(Value::as_str),
                opt_time(case, "pod_started_at")?,
                terminal,
                terminating,
                now,
                KarpenterVersion::default(),
            );
            let want = expect
                .get("blocks")
                .and_then(Value::as_bool)
                .ok_or("blocks missing")?;
            let (blocks, until, warning) = match &v {
                timing::PodDoNotDisrupt::Blocks { until } => (true, *until, None),
                timing::PodDoNotDisrupt::DoesNotBlock => (false, None, None),
                timing::PodDoNotDisrupt::Ignored { warning } => {
                    (false, None, Some(warning.clone()))
                }
            };
            if blocks != want {
                return Err(format!("blocks: expected {want}, got {v:?}"));
            }
            if let Some(w) = opt_time(expect, "blocks_until")? {
                if until != Some(w) {
                    return Err(format!("blocks_until: expected {w}, got {until:?}"));
                }
            }
            if let Some(w) = expect.get("warning").and_then(Value::as_str) {
                if !warning.as_deref().is_some_and(|g| g.contains(w)) {
                    return Err(format!("warning: expected {w:?}, got {warning:?}"));
                }
            }
            Ok(())
        }
        other => Err(format!("unknown timing kind {other}")),
    }
}

/// A NodeClaim + Node (+ pods and PDBs) of NodePool "pool", as YAML documents.
fn node_yaml(
    initialized: bool,
    node_annotations: Option<&Value>,
    tgp: Option<&str>,
    expire_after: Option<&str>,
    created: &str,
    pods: &[Value],
) -> String {
    let init = if initialized { "\"true\"" } else { "\"false\"" };
    let mut t = format!(
        "---\napiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata:\n  name: nc-1\n  creationTimestamp: \"{created}\"\n  labels: {{karpenter.sh/nodepool: pool}}\nspec:\n  nodeClassRef: {{group: karpenter.azure.com, kind: AKSNodeClass, name: default}}\n"
    );
    if let Some(g) = tgp {
        t.push_str(&format!("  terminationGracePeriod: {g}\n"));
    }
    if let Some(e) = expire_after {
        t.push_str(&format!("  expireAfter: {e}\n"));
    }
    t.push_str("status:\n  nodeName: node-1\n  conditions:\n");
    t.push_str(&format!(
        "  - {{type: Initialized, status: \"{}\", lastTransitionTime: \"{created}\"}}\n",
        if initialized { "True" } else { "False" }
    ));
    t.push_str(&format!(
        "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-1\n  labels:\n    karpenter.sh/nodepool: pool\n    karpenter.sh/initialized: {init}\n    karpenter.sh/registered: \"true\"\n    node.kubernetes.io/instance-type: Standard_D4s_v5\n    karpenter.sh/capacity-type: on-demand\n    topology.kubernetes.io/zone: westeurope-1\n  annotations: {}\nstatus:\n  conditions:\n  - {{type: Ready, status: \"True\"}}\n",
        node_annotations.map_or("{}".to_string(), y)
    ));
    for (i, p) in pods.iter().enumerate() {
        let mut meta = format!("  name: p{i}\n  namespace: default\n  labels: {{app: p{i}}}\n");
        if let Some(a) = p.get("annotations") {
            meta.push_str(&format!("  annotations: {}\n", y(a)));
        }
        if let Some(o) = p.get("owner").and_then(Value::as_str) {
            let api = if o == "Node" { "v1" } else { "apps/v1" };
            meta.push_str(&format!("  ownerReferences: [{{apiVersion: {api}, kind: {o}, name: owner-{i}, uid: u{i}}}]\n"));
        }
        if p.get("terminating").and_then(Value::as_bool) == Some(true) {
            meta.push_str(&format!("  deletionTimestamp: \"{created}\"\n"));
        }
        if let Some(dc) = p.get("deletion_cost") {
            meta.push_str(&format!(
                "  annotations: {{controller.kubernetes.io/pod-deletion-cost: {}}}\n",
                y(dc)
            ));
        }
        let mut spec =
            "  nodeName: node-1\n  containers: [{name: c, image: busybox}]\n".to_string();
        if let Some(pr) = p.get("priority") {
            spec.push_str(&format!("  priority: {pr}\n"));
        }
        let phase = p.get("phase").and_then(Value::as_str).unwrap_or("Running");
        t.push_str(&format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n{meta}spec:\n{spec}status:\n  phase: {phase}\n  startTime: \"{created}\"\n"
        ));
        let mut pdbs: Vec<Value> = Vec::new();
        if let Some(b) = p.get("pdb") {
            pdbs.push(b.clone());
        }
        if let Some(bs) = p.get("pdbs").and_then(Value::as_array) {
            pdbs.extend(bs.iter().cloned());
        }
        for (j, b) in pdbs.iter().enumerate() {
            let allowed = b
                .get("disruptionsAllowed")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            t.push_str(&format!(
                "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: pdb-{i}-{j}, namespace: default}}\nspec:\n  minAvailable: 1\n  selector: {{matchLabels: {{app: p{i}}}}}\nstatus:\n  disruptionsAllowed: {allowed}\n"
            ));
        }
    }
    t
}

fn candidate_case(case: &Value) -> R {
    let at = time("2024-03-05T12:00:00Z")?;
    let expect = case.get("expect").ok_or("no expect")?;
    let pods: Vec<Value> = case
        .get("pods")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let initialized = case.get("node_state").and_then(Value::as_str) != Some("uninitialized");
    let tgp = case.get("tgp").and_then(Value::as_str);
    let text = format!(
        "{}{}",
        node_pool_yaml("", Some(&serde_json::json!([{ "nodes": "100%" }])), ""),
        node_yaml(
            initialized,
            case.get("node_annotations"),
            tgp,
            None,
            "2024-03-05T10:00:00Z",
            &pods
        )
    );
    let r = run_budgets(&text, at);
    let p = only_pool(&r)?;
    let f = p
        .node_facts
        .iter()
        .find(|f| f.node == "node-1")
        .ok_or("node-1 not in the result")?;
    let blocked = match s(case, "class")? {
        "graceful" => &f.graceful_blocked,
        "eventual" => &f.eventual_blocked,
        other => return Err(format!("unknown class {other}")),
    };
    let want = expect
        .get("candidate")
        .and_then(Value::as_bool)
        .ok_or("candidate missing")?;
    if blocked.is_none() != want {
        return Err(format!(
            "candidate: expected {want}, got blocked={blocked:?}"
        ));
    }
    if let Some(reason) = expect.get("reason").and_then(Value::as_str) {
        let msg = blocked.as_ref().map(|b| b.message()).unwrap_or_default();
        if !msg.contains(reason) {
            return Err(format!("reason: expected {reason:?} in {msg:?}"));
        }
    }
    Ok(())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

fn cost_case(case: &Value) -> R {
    let expect = case.get("expect").ok_or("no expect")?;
    if let Some(want) = expect.get("eviction_cost").and_then(Value::as_f64) {
        let pod = case.get("pod").ok_or("no pod")?;
        let got = timing::eviction_cost(
            pod.get("deletion_cost").and_then(Value::as_str),
            pod.get("priority").and_then(Value::as_i64),
        );
        return if close(got, want) {
            Ok(())
        } else {
            Err(format!("eviction_cost: expected {want}, got {got}"))
        };
    }
    let expire = s(case, "expire_after")?;
    let age = GoDuration::parse(s(case, "age")?).map_err(|e| e.0)?;
    if let Some(want) = expect.get("lifetime_remaining").and_then(Value::as_f64) {
        let got = timing::lifetime_remaining(nillable(expire)?, age.to_chrono());
        return if close(got, want) {
            Ok(())
        } else {
            Err(format!("lifetime_remaining: expected {want}, got {got}"))
        };
    }
    if let Some(want) = expect.get("disruption_cost").and_then(Value::as_f64) {
        // Through the engine: a node of that age with those pods.
        let at = time("2024-03-05T12:00:00Z")?;
        let created = (at - age.to_chrono()).to_rfc3339();
        let pods: Vec<Value> = case
            .get("pods")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let text = format!(
            "{}{}",
            node_pool_yaml("", None, ""),
            node_yaml(true, None, None, Some(expire), &created, &pods)
        );
        let r = run_budgets(&text, at);
        let p = only_pool(&r)?;
        let f = p
            .node_facts
            .iter()
            .find(|f| f.node == "node-1")
            .ok_or("node-1 not in the result")?;
        return if close(f.disruption_cost, want) {
            Ok(())
        } else {
            Err(format!(
                "disruption_cost: expected {want}, got {}",
                f.disruption_cost
            ))
        };
    }
    Err("no known expectation".into())
}

// ---------------------------------------------------------------------------------------------
// Project cases (`cases/disruption-cases.yaml`, keys in `cases/README.md`): several NodePools
// and nodes at once, run through `fleet_policy::budgets`, checked on the report's `pass` and
// per-pool results.

fn fleet_pool_yaml(p: &Value) -> Result<String, String> {
    only_keys(
        "node pool",
        p,
        &[
            "name",
            "budgets",
            "consolidation_policy",
            "consolidate_after",
            "replicas",
            "node_limit",
        ],
    )?;
    let name = s(p, "name")?;
    let mut t = format!(
        "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {name}\nspec:\n"
    );
    if let Some(r) = p.get("replicas") {
        t.push_str(&format!("  replicas: {}\n", y(r)));
    }
    if let Some(l) = p.get("node_limit") {
        t.push_str(&format!("  limits: {{nodes: {}}}\n", y(l)));
    }
    t.push_str("  template:\n    spec:\n      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}\n  disruption:\n");
    let after = p
        .get("consolidate_after")
        .and_then(Value::as_str)
        .unwrap_or("0s");
    t.push_str(&format!("    consolidateAfter: {after}\n"));
    if let Some(c) = p.get("consolidation_policy") {
        t.push_str(&format!("    consolidationPolicy: {}\n", y(c)));
    }
    if let Some(b) = p.get("budgets") {
        t.push_str(&format!("    budgets: {}\n", y(b)));
    }
    Ok(t)
}

const FLEET_CREATED: &str = "2024-03-05T10:00:00Z";

fn fleet_node_yaml(n: &Value) -> Result<String, String> {
    only_keys(
        "node",
        n,
        &[
            "name",
            "pool",
            "price",
            "pods",
            "drifted_at",
            "deleting",
            "queued",
            "nominated_until",
            "ready",
            "initialized",
            "tgp",
        ],
    )?;
    let name = s(n, "name")?;
    let pool = s(n, "pool")?;
    let flag = |k: &str, d: bool| n.get(k).and_then(Value::as_bool).unwrap_or(d);
    let init = flag("initialized", true);
    let mut t = format!(
        "---\napiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata:\n  name: {name}\n  creationTimestamp: \"{FLEET_CREATED}\"\n  labels: {{karpenter.sh/nodepool: {pool}}}\n"
    );
    if flag("deleting", false) {
        t.push_str(&format!("  deletionTimestamp: \"{FLEET_CREATED}\"\n"));
    }
    t.push_str(
        "spec:\n  nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}\n",
    );
    if let Some(g) = n.get("tgp").and_then(Value::as_str) {
        t.push_str(&format!("  terminationGracePeriod: {g}\n"));
    }
    t.push_str(&format!("status:\n  nodeName: {name}\n  conditions:\n"));
    t.push_str(&format!(
        "  - {{type: Initialized, status: \"{}\", lastTransitionTime: \"{FLEET_CREATED}\"}}\n",
        if init { "True" } else { "False" }
    ));
    if let Some(d) = n.get("drifted_at").and_then(Value::as_str) {
        t.push_str(&format!(
            "  - {{type: Drifted, status: \"True\", lastTransitionTime: \"{d}\"}}\n"
        ));
    }
    let mut annotations = serde_json::Map::new();
    if let Some(p) = n.get("price") {
        annotations.insert(
            "fleet-policy.dev/price".into(),
            Value::String(p.to_string()),
        );
    }
    if let Some(u) = n.get("nominated_until") {
        annotations.insert("fleet-policy.dev/nominated-until".into(), u.clone());
    }
    t.push_str(&format!(
        "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels:\n    karpenter.sh/nodepool: {pool}\n    karpenter.sh/initialized: \"{init}\"\n    node.kubernetes.io/instance-type: Standard_D4s_v5\n    karpenter.sh/capacity-type: on-demand\n    topology.kubernetes.io/zone: westeurope-1\n  annotations: {}\n",
        Value::Object(annotations)
    ));
    if flag("queued", false) {
        t.push_str("spec:\n  taints: [{key: karpenter.sh/disrupted, effect: NoSchedule}]\n");
    }
    let ready = if flag("ready", true) { "True" } else { "False" };
    t.push_str(&format!(
        "status:\n  conditions:\n  - {{type: Ready, status: \"{ready}\"}}\n"
    ));
    // `pods`: a count of plain reschedulable pods, or a list of {annotations, started_at}.
    let pods: Vec<Value> = match n.get("pods") {
        None => Vec::new(),
        Some(Value::Number(k)) => (0..k.as_u64().unwrap_or(0))
            .map(|_| serde_json::json!({}))
            .collect(),
        Some(Value::Array(a)) => a.clone(),
        Some(o) => return Err(format!("pods: not a count or a list: {o}")),
    };
    for (i, p) in pods.iter().enumerate() {
        only_keys("pod", p, &["annotations", "started_at"])?;
        let started = p
            .get("started_at")
            .and_then(Value::as_str)
            .unwrap_or(FLEET_CREATED);
        let ann = p.get("annotations").map_or("{}".to_string(), y);
        t.push_str(&format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}-p{i}\n  namespace: default\n  annotations: {ann}\n  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u}}]\nspec:\n  nodeName: {name}\n  containers: [{{name: c, image: busybox}}]\nstatus:\n  phase: Running\n  startTime: \"{started}\"\n"
        ));
    }
    Ok(t)
}

fn names(v: &Value, what: &str) -> Result<Vec<String>, String> {
    v.as_array()
        .ok_or_else(|| format!("{what}: not a list"))?
        .iter()
        .map(|n| {
            n.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("{what}: not a name: {n}"))
        })
        .collect()
}

fn fleet_case(case: &Value) -> R {
    only_keys(
        "case",
        case,
        &[
            "id",
            "source",
            "note",
            "karpenter_version",
            "at",
            "node_pools",
            "nodes",
            "generated_nodes",
            "expect",
        ],
    )?;
    let at = time(
        case.get("at")
            .and_then(Value::as_str)
            .unwrap_or("2024-03-05T12:00:00Z"),
    )?;
    let mut text = String::new();
    for p in case
        .get("node_pools")
        .and_then(Value::as_array)
        .ok_or("node_pools missing")?
    {
        text.push_str(&fleet_pool_yaml(p)?);
    }
    for n in case
        .get("nodes")
        .and_then(Value::as_array)
        .ok_or("nodes missing")?
    {
        text.push_str(&fleet_node_yaml(n)?);
    }
    // `generated_nodes: {count, prefix, pool, pods?}`: nodes <prefix>001, <prefix>002, …
    if let Some(g) = case.get("generated_nodes") {
        only_keys("generated_nodes", g, &["count", "prefix", "pool", "pods"])?;
        let count = g
            .get("count")
            .and_then(Value::as_u64)
            .ok_or("generated_nodes.count")?;
        for i in 1..=count {
            let mut n = serde_json::json!({
                "name": format!("{}{i:03}", s(g, "prefix")?),
                "pool": s(g, "pool")?,
            });
            if let (Some(p), Some(m)) = (g.get("pods"), n.as_object_mut()) {
                m.insert("pods".into(), p.clone());
            }
            text.push_str(&fleet_node_yaml(&n)?);
        }
    }
    let mut options = BudgetOptions::at(at);
    options.karpenter_version = case
        .get("karpenter_version")
        .and_then(Value::as_str)
        .map(str::to_string);
    let r = crate::same_json(fleet_policy::budgets(
        &[Source::new("case.yaml", crate::seed("disruption", text))],
        &options,
    ));
    if !r.errors.is_empty() {
        return Err(format!("errors: {:?}", r.errors));
    }
    let expect = case.get("expect").ok_or("no expect")?;
    only_keys(
        "expect",
        expect,
        &[
            "acting",
            "commands",
            "command_sizes",
            "order",
            "budgets",
            "blocked",
            "nodes",
            "not_selected",
        ],
    )?;
    let method = |name: &str| {
        r.pass
            .methods
            .iter()
            .find(|m| m.method.as_str() == name)
            .ok_or_else(|| format!("no method {name} in the pass"))
    };
    if let Some(a) = expect.get("acting") {
        let got = r.pass.acting.map_or("none", |m| m.as_str());
        if a.as_str() != Some(got) {
            return Err(format!("acting: expected {a}, got {got}"));
        }
    }
    // `commands`: every method's commands; a method not listed builds none.
    if let Some(c) = expect.get("commands") {
        let want = c.as_object().ok_or("commands: not a mapping")?;
        for m in &r.pass.methods {
            let got: Vec<Vec<String>> = m
                .commands
                .iter()
                .map(|c| c.iter().map(|n| n.to_string()).collect())
                .collect();
            let w: Vec<Vec<String>> = match want.get(m.method.as_str()) {
                None => Vec::new(),
                Some(v) => v
                    .as_array()
                    .ok_or("commands: not a list")?
                    .iter()
                    .map(|c| names(c, "command"))
                    .collect::<Result<_, _>>()?,
            };
            if got != w {
                return Err(format!(
                    "commands of {}: expected {w:?}, got {got:?}",
                    m.method.as_str()
                ));
            }
        }
        for k in want.keys() {
            method(k)?;
        }
    }
    if let Some(cs) = expect.get("command_sizes").and_then(Value::as_object) {
        for (k, v) in cs {
            let got: Vec<u64> = method(k)?.commands.iter().map(|c| c.len() as u64).collect();
            let w: Vec<u64> = v
                .as_array()
                .ok_or("command_sizes: not a list")?
                .iter()
                .filter_map(Value::as_u64)
                .collect();
            if got != w {
                return Err(format!("command sizes of {k}: expected {w:?}, got {got:?}"));
            }
        }
    }
    if let Some(o) = expect.get("order").and_then(Value::as_object) {
        for (k, v) in o {
            let got: Vec<String> = method(k)?
                .candidates
                .iter()
                .map(|c| c.node.to_string())
                .collect();
            let w = names(v, "order")?;
            if got != w {
                return Err(format!("order of {k}: expected {w:?}, got {got:?}"));
            }
        }
    }
    if let Some(b) = expect.get("budgets").and_then(Value::as_object) {
        for (k, v) in b {
            let m = method(k)?;
            let want = v.as_object().ok_or("budgets: not a mapping")?;
            for (pool, pv) in want {
                let got = m
                    .budgets
                    .iter()
                    .find(|u| &u.node_pool == pool)
                    .ok_or_else(|| format!("budgets of {k}: no pool {pool}"))?;
                let wa = pv.get("allowed").and_then(Value::as_i64);
                let wu = pv.get("used").and_then(Value::as_i64);
                if wa.is_some_and(|a| a != got.allowed) || wu.is_some_and(|u| u != got.used) {
                    return Err(format!(
                        "budgets of {k} for {pool}: expected {pv}, got allowed {} used {}",
                        got.allowed, got.used
                    ));
                }
            }
            if want.len() != m.budgets.len() {
                let got: Vec<&str> = m.budgets.iter().map(|u| u.node_pool.as_str()).collect();
                return Err(format!("budgets of {k}: pools {got:?}"));
            }
        }
    }
    // `not_selected`: method → node → words of the reason the pass passed it over.
    if let Some(ns) = expect.get("not_selected").and_then(Value::as_object) {
        for (k, v) in ns {
            let m = method(k)?;
            for (node, words) in v.as_object().ok_or("not_selected: not a mapping")? {
                let c = m
                    .candidates
                    .iter()
                    .find(|c| c.node == node.as_str())
                    .ok_or_else(|| format!("not_selected of {k}: {node} is not a candidate"))?;
                let msg = c.not_selected.as_ref().map(|b| b.message());
                let w = words.as_str().ok_or("not_selected: not a string")?;
                if c.selected || !msg.as_deref().is_some_and(|g| g.contains(w)) {
                    return Err(format!(
                        "not_selected of {k} for {node}: expected {w:?}, got {msg:?} (selected {})",
                        c.selected
                    ));
                }
            }
        }
    }
    // `blocked`: node → class → words of the common filter's reason (or `null`: a candidate).
    if let Some(bl) = expect.get("blocked").and_then(Value::as_object) {
        for (node, v) in bl {
            let f = r
                .node_pools
                .iter()
                .flat_map(|p| &p.node_facts)
                .find(|f| f.node == node.as_str())
                .ok_or_else(|| format!("blocked: no node {node}"))?;
            for (class, words) in v.as_object().ok_or("blocked: not a mapping")? {
                let b = match class.as_str() {
                    "graceful" => &f.graceful_blocked,
                    "eventual" => &f.eventual_blocked,
                    o => return Err(format!("blocked: unknown class {o}")),
                };
                let msg = b.as_ref().map(|b| b.message());
                let ok = match words.as_str() {
                    None => msg.is_none(),
                    Some(w) => msg.as_deref().is_some_and(|g| g == w),
                };
                if !ok {
                    return Err(format!(
                        "blocked {node} {class}: expected {words}, got {msg:?}"
                    ));
                }
            }
        }
    }
    // `nodes`: pool → {total, disrupting}.
    if let Some(n) = expect.get("nodes").and_then(Value::as_object) {
        for (pool, v) in n {
            let p = r
                .node_pools
                .iter()
                .find(|p| &p.name == pool)
                .ok_or_else(|| format!("nodes: no pool {pool}"))?;
            let wt = v.get("total").and_then(Value::as_i64);
            let wd = v.get("disrupting").and_then(Value::as_i64);
            if wt != Some(p.nodes.total) || wd != Some(p.nodes.disrupting) {
                return Err(format!(
                    "nodes of {pool}: expected {v}, got total {} disrupting {}",
                    p.nodes.total, p.nodes.disrupting
                ));
            }
        }
    }
    Ok(())
}
