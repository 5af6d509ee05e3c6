//! Differential test of the two JSON writers: `ToJson` (used by the wasm API and the CLI)
//! against serde's `Serialize` through `serde_json` (the reference: the types keep it). The
//! reports of the examples, the bench generators (small sizes) and names with odd characters
//! are written both ways, compact and pretty; the texts must be identical byte for byte.
//! The conformance harness (`tests/conformance/main.rs`, `same_json`) checks every report it
//! makes from the `*-cases.yaml` inputs the same way.

mod common;

use chrono::{DateTime, Utc};
use common::{gen_disruption, gen_placement, gen_rollout, repo, yaml_files};
use fleet_policy::json_out::{self, ToJson};
use fleet_policy::{BudgetOptions, EvaluateOptions, PlaceOptions, RolloutOptions, Source};
use serde::Serialize;

/// Counts of compared reports, and of reports with content (not just empty lists).
#[derive(Default)]
struct Tally {
    reports: usize,
    bytes: usize,
}

impl Tally {
    fn same<T: ToJson + Serialize>(&mut self, value: &T, what: &str) {
        let serde = serde_json::to_string(value).unwrap_or_default();
        let ours = json_out::to_string(value);
        assert!(
            serde == ours,
            "{what}: compact JSON differs\nserde: {serde}\nours:  {ours}"
        );
        let serde = serde_json::to_string_pretty(value).unwrap_or_default();
        let ours = json_out::to_string_pretty(value);
        assert!(
            serde == ours,
            "{what}: pretty JSON differs\nserde: {serde}\nours:  {ours}"
        );
        self.reports += 1;
        self.bytes += ours.len();
    }

    /// Every engine's report of `text`, at `at`, with the default options and with
    /// `approveAll` (rollouts then run further).
    fn text(&mut self, what: &str, text: &str, at: DateTime<Utc>) {
        let src = [Source::new("input.yaml", text)];
        self.same(&fleet_policy::place(&src, &PlaceOptions::at(at)), what);
        self.same(&fleet_policy::budgets(&src, &BudgetOptions::at(at)), what);
        self.same(&fleet_policy::rollout(&src, &RolloutOptions::at(at)), what);
        let all = EvaluateOptions::at(at);
        self.same(&fleet_policy::evaluate(&src, &all), what);
        self.same(&fleet_policy::validate(&src, &all), what);
        let approve = serde_json::json!({ "at": at.to_rfc3339(), "approveAll": true });
        if let Ok(opts) = fleet_policy::report::options_from_json::<RolloutOptions>(
            &fleet_policy::Json::from(&approve),
        ) {
            self.same(&fleet_policy::rollout(&src, &opts), what);
        }
    }
}

fn at() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2025-06-02T00:00:00Z")
        .map(|t| t.to_utc())
        .unwrap_or_default()
}

#[test]
fn examples_write_the_same() {
    let mut files = Vec::new();
    yaml_files(&repo().join("static"), &mut files);
    assert!(!files.is_empty(), "no examples under static/");
    let mut t = Tally::default();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        t.text(&f.display().to_string(), &text, at());
        // A second instant: other windows open, other budgets apply.
        t.text(&f.display().to_string(), &text, DateTime::UNIX_EPOCH);
    }
    assert!(
        t.reports > 200 && t.bytes > 500_000,
        "{} reports, {} bytes",
        t.reports,
        t.bytes
    );
}

#[test]
fn bench_fleets_write_the_same() {
    let mut t = Tally::default();
    let azure = gen_rollout::azure_fleet();
    let staged = gen_rollout::staged_fleet();
    let first = |text: &str, n: usize| {
        text.split("\n---\n")
            .take(n)
            .collect::<Vec<_>>()
            .join("\n---\n")
    };
    t.text("azure", &first(&azure, 200), at());
    t.text("staged", &first(&staged, 200), at());
    t.text("placement", &gen_placement::fleet_yaml(30), at());
    t.text("pick-n", &gen_placement::pick_n_yaml(), at());
    t.text("pick-all", &gen_placement::pick_all_yaml(), at());
    t.text("disruption", &gen_disruption::fleet(6, 3), at());
    assert!(t.bytes > 75_000, "{} bytes", t.bytes);
}

/// Strings with every kind of character the escaping distinguishes, in names and messages.
#[test]
fn odd_strings_write_the_same() {
    let names = [
        "a\"b",
        "a\\b",
        "tab\there",
        "nl\nx",
        "\u{1}\u{1f}\u{7f}é✓𝄞",
        "\u{2028}",
    ];
    let mut t = Tally::default();
    for n in names {
        let quoted = serde_json::to_string(n).unwrap_or_default();
        let yaml = format!(
            "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {{name: {quoted}, labels: {{{quoted}: {quoted}}}}}\n---\napiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {{name: {quoted}}}\nspec:\n  policy: {{placementType: PickN, numberOfClusters: 1, affinity: {{clusterAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: {{clusterSelectorTerms: [{{labelSelector: {{matchLabels: {{{quoted}: {quoted}}}}}}}]}}}}}}}}\n"
        );
        t.text(n, &yaml, at());
    }
    assert!(t.reports > 10);
}
