//! `fleet-policy test`: declared expectations about decisions, checked against the engine.
//!
//! A test is a YAML document of our kind `Test` (apiVersion [`API_VERSION`]) naming its inputs
//! (relative to the test file), the instant and a list of expectations. Each expectation is
//! one test case; its failures name the observed value. Rendering as a summary or as JUnit
//! XML is here too, so the words are in one place.

use crate::diff::{reason_in, selected, start_order};
use crate::input::de::DeError;
use crate::input::from_node::{self, FromNode};
use crate::input::{Diagnostic, Document, FieldPath, Input, Node};
use crate::model::ObjectMeta;
use crate::report::{EvaluateOptions, EvaluateReport};
use crate::rollout::plan::State;
use crate::text::Escaped;
use crate::AT_SNAPSHOT;
use chrono::{DateTime, SecondsFormat, Utc};
use fleet_policy_derive::FromNode;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// apiVersion of test documents.
pub const API_VERSION: &str = "fleet-policy.dev/v1alpha1";
/// kind of test documents.
pub const KIND: &str = "Test";

/// A test document.
#[derive(Debug, Clone, FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TestDoc {
    #[allow(dead_code)] // checked when the document is picked
    api_version: String,
    #[allow(dead_code)]
    kind: String,
    #[serde(default)]
    metadata: ObjectMeta,
    spec: TestSpec,
}

#[derive(Debug, Clone, FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TestSpec {
    inputs: Vec<String>,
    #[serde(default)]
    at: Option<String>,
    expect: Vec<ExpectSpec>,
}

#[derive(Debug, Clone, Default, FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ExpectSpec {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    placement: Option<String>,
    #[serde(default)]
    picked: Option<Vec<String>>,
    #[serde(default)]
    not_picked: Option<Vec<String>>,
    #[serde(default)]
    filtered: Option<Vec<FilteredSpec>>,
    #[serde(default)]
    node_pool: Option<String>,
    #[serde(default)]
    at: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    allowed_disruptions: Option<Count>,
    #[serde(default)]
    rollout: Option<String>,
    #[serde(default)]
    order: Option<Vec<String>>,
    #[serde(default)]
    completes_before: Option<String>,
}

/// `filtered` entry: a cluster name, or `{cluster, plugin}`.
#[derive(Debug, Clone)]
struct FilteredSpec {
    cluster: String,
    plugin: Option<String>,
}

#[derive(Debug, Clone, FromNode)]
#[serde(deny_unknown_fields)]
struct FilteredEntry {
    cluster: String,
    #[serde(default)]
    plugin: Option<String>,
}

impl FromNode for FilteredSpec {
    fn from_node(node: &Node) -> Result<Self, DeError> {
        if let Ok(s) = from_node::str_of(node) {
            return Ok(FilteredSpec {
                cluster: s.to_owned(),
                plugin: None,
            });
        }
        let e = FilteredEntry::from_node(node)?;
        Ok(FilteredSpec {
            cluster: e.cluster,
            plugin: e.plugin,
        })
    }
}

/// `allowedDisruptions`: a number, or `{min, max}` (either may be left out).
#[derive(Debug, Clone, Copy, Default, FromNode)]
#[serde(deny_unknown_fields)]
struct CountSpec {
    #[serde(default)]
    min: Option<i64>,
    #[serde(default)]
    max: Option<i64>,
}

/// Decodes a number as `{min: n, max: n}`.
#[derive(Debug, Clone, Copy)]
struct Count(CountSpec);

impl FromNode for Count {
    fn from_node(node: &Node) -> Result<Self, DeError> {
        if let Ok(n) = i64::from_node(node) {
            return Ok(Count(CountSpec {
                min: Some(n),
                max: Some(n),
            }));
        }
        CountSpec::from_node(node).map(Count)
    }
}

// `allowedDisruptions` is read through `Count` (number or range).
impl ExpectSpec {
    fn count(&self) -> Option<CountSpec> {
        self.allowed_disruptions.map(|c| c.0)
    }
}

/// The disruption reasons an expectation may name.
const REASONS: [&str; 3] = ["Drifted", "Empty", "Underutilized"];

/// What one expectation checks, validated.
#[derive(Debug, Clone)]
enum Check {
    Placement {
        name: String,
        picked: Option<Vec<String>>,
        not_picked: Vec<String>,
        filtered: Vec<FilteredSpec>,
    },
    NodePool {
        name: String,
        at: Option<DateTime<Utc>>,
        reason: Option<usize>,
        allowed: CountSpec,
    },
    Rollout {
        name: String,
        order: Option<Vec<String>>,
        completes_before: Option<DateTime<Utc>>,
    },
}

/// One expectation of a test, ready to check.
#[derive(Debug, Clone)]
pub struct Expectation {
    /// How it reads in reports (its `name`, else a description).
    pub title: String,
    check: Check,
}

/// A test read from a file: its name, inputs, instant and expectations.
#[derive(Debug, Clone)]
pub struct TestCase {
    /// `metadata.name` (else `FILE#DOCUMENT`).
    pub name: String,
    /// The test file.
    pub file: String,
    /// Input files and folders, resolved against the test file's folder.
    pub inputs: Vec<PathBuf>,
    /// `spec.at` as written (`None`: "snapshot").
    pub at: Option<DateTime<Utc>>,
    /// Expectations in order.
    pub expectations: Vec<Expectation>,
}

/// The result of one expectation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The test's name.
    pub test: String,
    /// The test file.
    pub file: String,
    /// The expectation's title.
    pub expectation: String,
    /// What was observed instead, one entry per failed part (empty: it holds).
    pub failures: Vec<String>,
}

fn list(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}

fn instant(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// An RFC 3339 instant, or `None` for "snapshot".
pub fn parse_at(text: &str) -> Result<Option<DateTime<Utc>>, String> {
    if text == AT_SNAPSHOT {
        return Ok(None);
    }
    // As the options' `at` and the input's timestamps are read (Go's RFC 3339).
    crate::input::rfc3339::parse(text)
        .map(|t| Some(t.to_utc()))
        .map_err(|e| format!("not an RFC 3339 time or \"{AT_SNAPSHOT}\": {e}"))
}

/// The tests in the given files and folders. A file named on the command line must hold a
/// test; folders are searched for test documents (other YAML in them is left alone).
pub fn load(paths: &[String]) -> Result<Vec<TestCase>, Vec<String>> {
    let mut tests = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        let path = Path::new(p);
        let explicit = !path.is_dir();
        let files = match crate::sources::yaml_files(path) {
            Ok(f) => f,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let before = tests.len();
        for f in files {
            let source = match crate::sources::read(&f) {
                Ok(s) => s,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            let input = Input::parse(&[source]);
            let docs: Vec<&Document> = input
                .own
                .iter()
                .filter(|d| d.kind == KIND && d.api_version == API_VERSION)
                .collect();
            if docs.is_empty() && !explicit {
                continue;
            }
            errors.extend(
                input
                    .diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| d.to_string()),
            );
            for d in docs {
                match read_test(d, &f) {
                    Ok(t) => tests.push(t),
                    Err(es) => errors.extend(es.iter().map(|e| e.to_string())),
                }
            }
        }
        if tests.len() == before && errors.is_empty() {
            errors.push(format!(
                "{p}: no test (apiVersion: {API_VERSION}, kind: {KIND})"
            ));
        }
    }
    if errors.is_empty() {
        Ok(tests)
    } else {
        Err(errors)
    }
}

fn read_test(doc: &Document, file: &Path) -> Result<TestCase, Vec<Diagnostic>> {
    let t: TestDoc = doc.decode().map_err(|e| vec![e])?;
    let spec_path = FieldPath::root().key("spec");
    let mut errors = Vec::new();
    let at = match t.spec.at.as_deref().map(parse_at) {
        None => None,
        Some(Ok(at)) => at,
        Some(Err(e)) => {
            errors.push(doc.error(&spec_path.key("at"), e));
            None
        }
    };
    let dir = file.parent().unwrap_or(Path::new(""));
    let inputs = t.spec.inputs.iter().map(|i| dir.join(i)).collect();
    if t.spec.inputs.is_empty() {
        errors.push(doc.error(&spec_path.key("inputs"), "no input: list files or folders"));
    }
    if t.spec.expect.is_empty() {
        // A test without expectations would always pass.
        errors.push(doc.error(&spec_path.key("expect"), "no expectation"));
    }
    let mut expectations = Vec::new();
    for (i, e) in t.spec.expect.iter().enumerate() {
        match expectation(e, doc, &spec_path.key("expect").index(i)) {
            Ok(x) => expectations.push(x),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(TestCase {
        name: if t.metadata.name.is_empty() {
            format!("{}#{}", file.display(), doc.index)
        } else {
            t.metadata.name
        },
        file: file.display().to_string(),
        inputs,
        at,
        expectations,
    })
}

/// Validates one `expect` entry: one subject, and only the fields of that subject.
fn expectation(
    e: &ExpectSpec,
    doc: &Document,
    path: &FieldPath,
) -> Result<Expectation, Diagnostic> {
    let subjects = [
        ("placement", e.placement.is_some()),
        ("nodePool", e.node_pool.is_some()),
        ("rollout", e.rollout.is_some()),
    ];
    let given: Vec<&str> = subjects.iter().filter(|s| s.1).map(|s| s.0).collect();
    if given.len() != 1 {
        return Err(doc.error(
            path,
            format!(
                "an expectation names exactly one of placement, nodePool, rollout (found {})",
                if given.is_empty() {
                    "none".to_string()
                } else {
                    given.join(", ")
                }
            ),
        ));
    }
    let fields: [(&str, bool, &str); 8] = [
        ("picked", e.picked.is_some(), "placement"),
        ("notPicked", e.not_picked.is_some(), "placement"),
        ("filtered", e.filtered.is_some(), "placement"),
        ("at", e.at.is_some(), "nodePool"),
        ("reason", e.reason.is_some(), "nodePool"),
        (
            "allowedDisruptions",
            e.allowed_disruptions.is_some(),
            "nodePool",
        ),
        ("order", e.order.is_some(), "rollout"),
        ("completesBefore", e.completes_before.is_some(), "rollout"),
    ];
    if let Some((f, _, owner)) = fields
        .iter()
        .find(|(_, set, owner)| *set && *owner != given[0])
    {
        return Err(doc.error(
            &path.key(f),
            format!(
                "`{f}` belongs to a {owner} expectation, not a {} one",
                given[0]
            ),
        ));
    }
    let none_of = |names: &[&str]| {
        doc.error(
            path,
            format!(
                "a {} expectation needs at least one of {}",
                given[0],
                names.join(", ")
            ),
        )
    };
    let time = |field: &str, text: &Option<String>| -> Result<Option<DateTime<Utc>>, Diagnostic> {
        match text {
            None => Ok(None),
            Some(t) => crate::input::rfc3339::parse(t)
                .map(|t| Some(t.to_utc()))
                .map_err(|err| doc.error(&path.key(field), format!("not an RFC 3339 time: {err}"))),
        }
    };
    let (check, parts) = if let Some(name) = &e.placement {
        if e.picked.is_none() && e.not_picked.is_none() && e.filtered.is_none() {
            return Err(none_of(&["picked", "notPicked", "filtered"]));
        }
        let mut parts = Vec::new();
        if let Some(p) = &e.picked {
            parts.push(format!("picked {}", list(p)));
        }
        if let Some(p) = &e.not_picked {
            parts.push(format!("notPicked {}", list(p)));
        }
        if let Some(f) = &e.filtered {
            let items: Vec<String> = f
                .iter()
                .map(|f| match &f.plugin {
                    Some(p) => format!("{} by {p}", f.cluster),
                    None => f.cluster.clone(),
                })
                .collect();
            parts.push(format!("filtered {}", list(&items)));
        }
        (
            Check::Placement {
                name: name.clone(),
                picked: e.picked.clone(),
                not_picked: e.not_picked.clone().unwrap_or_default(),
                filtered: e.filtered.clone().unwrap_or_default(),
            },
            format!("placement {name} {}", parts.join(", ")),
        )
    } else if let Some(name) = &e.node_pool {
        let Some(allowed) = e.count() else {
            return Err(none_of(&["allowedDisruptions"]));
        };
        let reason = match &e.reason {
            None => None,
            Some(r) => Some(REASONS.iter().position(|x| x == r).ok_or_else(|| {
                doc.error(
                    &path.key("reason"),
                    format!(
                        "unknown reason {r:?}; expected one of {}",
                        REASONS.join(", ")
                    ),
                )
            })?),
        };
        let at = match &e.at {
            None => None,
            Some(t) => parse_at(t).map_err(|err| doc.error(&path.key("at"), err))?,
        };
        let mut text = format!("nodePool {name} allowedDisruptions {}", count_text(allowed));
        if let Some(r) = reason {
            text.push_str(&format!(" ({})", REASONS[r]));
        }
        if let Some(t) = &at {
            text.push_str(&format!(" at {}", instant(t)));
        }
        (
            Check::NodePool {
                name: name.clone(),
                at,
                reason,
                allowed,
            },
            text,
        )
    } else {
        let name = e.rollout.clone().unwrap_or_default();
        if e.order.is_none() && e.completes_before.is_none() {
            return Err(none_of(&["order", "completesBefore"]));
        }
        let completes_before = time("completesBefore", &e.completes_before)?;
        let mut parts = Vec::new();
        if let Some(o) = &e.order {
            parts.push(format!("order {}", list(o)));
        }
        if let Some(t) = &completes_before {
            parts.push(format!("completesBefore {}", instant(t)));
        }
        let text = format!("rollout {name} {}", parts.join(", "));
        (
            Check::Rollout {
                name,
                order: e.order.clone(),
                completes_before,
            },
            text,
        )
    };
    Ok(Expectation {
        title: e.name.clone().unwrap_or(parts),
        check,
    })
}

fn count_text(c: CountSpec) -> String {
    match (c.min, c.max) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) => format!("{a}..{b}"),
        (Some(a), None) => format!(">= {a}"),
        (None, Some(b)) => format!("<= {b}"),
        (None, None) => "any".to_string(),
    }
}

/// Evaluates a test's inputs and checks its expectations. `Err`: the inputs could not be read
/// or have errors (a test on broken input proves nothing).
pub fn run(test: &TestCase) -> Result<Vec<Outcome>, Vec<String>> {
    let input = crate::sources::read_paths(&test.inputs)
        .map_err(|e| vec![format!("test {}: {e}", test.name)])?;
    let snapshot = || {
        input.snapshot().ok_or_else(|| {
            vec![format!(
                "test {} ({}): spec.at is \"{AT_SNAPSHOT}\" but the inputs carry no status timestamp; give an RFC 3339 instant",
                test.name, test.file
            )]
        })
    };
    let at = match test.at {
        Some(t) => t,
        None => snapshot()?,
    };
    let mut reports: BTreeMap<DateTime<Utc>, EvaluateReport> = BTreeMap::new();
    let mut evaluate = |t: DateTime<Utc>| -> Result<EvaluateReport, Vec<String>> {
        if let Some(r) = reports.get(&t) {
            return Ok(r.clone());
        }
        let r = crate::evaluate_input(&input, &EvaluateOptions::at(t));
        if !r.errors.is_empty() {
            return Err(r.errors.iter().map(|e| e.to_string()).collect());
        }
        reports.insert(t, r.clone());
        Ok(r)
    };
    let main = evaluate(at)?;
    let mut out = Vec::new();
    for x in &test.expectations {
        let failures = match &x.check {
            Check::Placement {
                name,
                picked,
                not_picked,
                filtered,
            } => check_placement(&main, name, picked.as_deref(), not_picked, filtered),
            Check::NodePool {
                name,
                at: own,
                reason,
                allowed,
            } => {
                let report = match own {
                    None => main.clone(),
                    Some(t) => evaluate(*t)?,
                };
                check_node_pool(&report, name, *reason, *allowed)
            }
            Check::Rollout {
                name,
                order,
                completes_before,
            } => check_rollout(&main, name, order.as_deref(), *completes_before),
        };
        out.push(Outcome {
            test: test.name.clone(),
            file: test.file.clone(),
            expectation: x.title.clone(),
            failures,
        });
    }
    Ok(out)
}

fn names_of<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = names.collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

fn check_placement(
    r: &EvaluateReport,
    name: &str,
    picked: Option<&[String]>,
    not_picked: &[String],
    filtered: &[FilteredSpec],
) -> Vec<String> {
    let Some(p) = r.placements.iter().find(|p| p.name == name) else {
        return vec![format!(
            "no placement {name} (placements: {})",
            names_of(r.placements.iter().map(|p| p.name.as_str()))
        )];
    };
    let chosen = selected(p);
    let is_picked = |c: &str| chosen.contains(&c);
    let mut out = Vec::new();
    if let Some(want) = picked {
        let also: Vec<&str> = chosen
            .iter()
            .copied()
            .filter(|c| !want.iter().any(|w| w == c))
            .collect();
        if !also.is_empty() {
            out.push(format!("picked also {}", also.join(", ")));
        }
        for w in want.iter().filter(|w| !is_picked(w)) {
            out.push(format!("{w} not picked ({})", reason_in(p, w)));
        }
    }
    for n in not_picked.iter().filter(|n| is_picked(n)) {
        out.push(format!("{n} picked"));
    }
    for f in filtered {
        match p.filtered.iter().find(|x| *x.cluster == *f.cluster) {
            Some(x) => {
                if let Some(plugin) = f.plugin.as_deref().filter(|pl| *pl != x.plugin) {
                    out.push(format!(
                        "{} filtered by {}, not {plugin} ({})",
                        f.cluster, x.plugin, &*x.reason
                    ));
                }
            }
            None => {
                let state = if is_picked(&f.cluster) {
                    "picked"
                } else if p.not_picked.iter().any(|x| *x.cluster == *f.cluster) {
                    "not picked by score"
                } else {
                    "not in the input"
                };
                out.push(format!("{} not filtered ({state})", f.cluster));
            }
        }
    }
    out
}

fn check_node_pool(
    r: &EvaluateReport,
    name: &str,
    reason: Option<usize>,
    allowed: CountSpec,
) -> Vec<String> {
    let Some(p) = r.node_pools.iter().find(|p| p.name == name) else {
        return vec![format!(
            "no NodePool {name} (NodePools: {})",
            names_of(r.node_pools.iter().map(|p| p.name.as_str()))
        )];
    };
    let a = &p.allowed_disruptions;
    let values = [a.drifted, a.empty, a.underutilized];
    let holds = |v: i64| allowed.min.is_none_or(|m| v >= m) && allowed.max.is_none_or(|m| v <= m);
    let bad: Vec<String> = (0..REASONS.len())
        .filter(|r| reason.is_none_or(|x| x == *r))
        .filter(|r| !holds(values[*r]))
        .map(|r| format!("{} {}", REASONS[r], values[r]))
        .collect();
    if bad.is_empty() {
        Vec::new()
    } else {
        vec![format!("allowed {}", bad.join(", "))]
    }
}

fn check_rollout(
    r: &EvaluateReport,
    name: &str,
    order: Option<&[String]>,
    completes_before: Option<DateTime<Utc>>,
) -> Vec<String> {
    let Some(ro) = r.rollouts.iter().find(|x| x.name == name) else {
        return vec![format!(
            "no rollout {name} (rollouts: {})",
            names_of(r.rollouts.iter().map(|x| x.name.as_str()))
        )];
    };
    let mut out = Vec::new();
    if let Some(want) = order {
        let started = start_order(ro);
        let first: Vec<String> = started.iter().take(want.len()).cloned().collect();
        if first != want {
            out.push(format!("order {}", list(&first)));
        }
    }
    if let Some(before) = completes_before {
        // The run's end as Completed, or Skipped (every member already at the target): a run
        // that ends Failed before the instant does not meet it.
        match ro.end {
            Some(end) if end < before && matches!(ro.state, State::Completed | State::Skipped) => {}
            Some(end) => out.push(format!("ends {} ({:?})", instant(&end), ro.state)),
            None => out.push(format!("does not end ({:?})", ro.state)),
        }
    }
    out
}

/// The readable summary: one line per expectation, failures indented under it, and a total.
pub fn render_summary(outcomes: &[Outcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        let mark = if o.failures.is_empty() {
            "ok  "
        } else {
            "FAIL"
        };
        out.push_str(&format!(
            "{mark} {}: {}\n",
            Escaped(&o.test),
            Escaped(&o.expectation)
        ));
        for f in &o.failures {
            out.push_str(&format!("       {}\n", Escaped(f)));
        }
    }
    let failed = outcomes.iter().filter(|o| !o.failures.is_empty()).count();
    let tests = test_names(outcomes).len();
    out.push_str(&format!(
        "{tests} test(s), {} expectation(s): {} passed, {failed} failed\n",
        outcomes.len(),
        outcomes.len() - failed
    ));
    out
}

fn test_names(outcomes: &[Outcome]) -> Vec<(&str, &str)> {
    let mut names: Vec<(&str, &str)> = Vec::new();
    for o in outcomes {
        if !names.contains(&(o.test.as_str(), o.file.as_str())) {
            names.push((&o.test, &o.file));
        }
    }
    names
}

/// Text for an XML attribute or element.
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            // XML 1.0 has no way to write other control characters: drop them.
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML: a test suite per test, a test case per expectation, a `failure` per failed one.
pub fn render_junit(outcomes: &[Outcome]) -> String {
    let failed = outcomes.iter().filter(|o| !o.failures.is_empty()).count();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fleet-policy\" tests=\"{}\" failures=\"{failed}\" errors=\"0\">\n",
        outcomes.len()
    );
    for (test, file) in test_names(outcomes) {
        let cases: Vec<&Outcome> = outcomes
            .iter()
            .filter(|o| o.test == test && o.file == file)
            .collect();
        let failures = cases.iter().filter(|o| !o.failures.is_empty()).count();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" file=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">\n",
            xml_escape(test),
            xml_escape(file),
            cases.len()
        ));
        for c in cases {
            let open = format!(
                "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\"",
                xml_escape(&c.expectation),
                xml_escape(test),
                xml_escape(file)
            );
            if c.failures.is_empty() {
                out.push_str(&open);
                out.push_str("/>\n");
            } else {
                let message = c.failures.join("; ");
                out.push_str(&format!(
                    "{open}>\n      <failure message=\"{}\" type=\"expectation\">{}</failure>\n    </testcase>\n",
                    xml_escape(&message),
                    xml_escape(&c.failures.join("\n"))
                ));
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escape_covers_markup_quotes_and_controls() {
        assert_eq!(
            xml_escape("a<b>&\"c'\n\u{1}d"),
            "a&lt;b&gt;&amp;&quot;c&apos;&#10;d"
        );
    }

    #[test]
    fn counts_read_as_number_or_range() {
        assert_eq!(
            count_text(CountSpec {
                min: Some(0),
                max: Some(0)
            }),
            "0"
        );
        assert_eq!(
            count_text(CountSpec {
                min: None,
                max: Some(2)
            }),
            "<= 2"
        );
        assert_eq!(
            count_text(CountSpec {
                min: Some(1),
                max: Some(3)
            }),
            "1..3"
        );
    }
}
