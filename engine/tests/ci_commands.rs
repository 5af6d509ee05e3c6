//! `fleet-policy test` and `fleet-policy diff` as a CI pipeline runs them: exact output,
//! JUnit XML that parses, and exit codes 0 (holds / no change), 1 (fails / changed), 2 (errors).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .display()
        .to_string()
}

fn example(name: &str) -> String {
    repo(&format!("static/examples/{name}"))
}

/// Runs the CLI from the engine folder, so test files are named as a user in `engine/` would.
fn run(args: &[&str]) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_fleet-policy"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("cannot run fleet-policy: {e}"),
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// An example with `from` replaced by `to`, written to a file of its own.
fn edited(name: &str, from: &str, to: &str, out: &str) -> String {
    let text = std::fs::read_to_string(example(name)).unwrap_or_default();
    assert!(text.contains(from), "{name} has no {from:?}");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ci_commands");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot create {}: {e}", dir.display());
    }
    let path = dir.join(out);
    if let Err(e) = std::fs::write(&path, text.replace(from, to)) {
        panic!("cannot write {}: {e}", path.display());
    }
    path.display().to_string()
}

#[test]
fn passing_tests_exit_0_with_a_summary() {
    let out = run(&["test", "tests/policy-tests"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\
ok   no-disruption-in-business-hours: nodePool web allowedDisruptions 0
ok   no-disruption-in-business-hours: drift allowed after hours
ok   upgrade-finishes-the-same-day: rollout upgrade-1-30 order [dev-eastus, dev-westus], completesBefore 2026-03-02T15:00:00Z
ok   corpus-placements: placement everywhere picked [bravelion, quietowl, smartfish], filtered [gpuyak by TaintToleration, oldbadger]
ok   corpus-placements: placement prod-east picked [bravelion], notPicked [smartfish, quietowl]
3 test(s), 5 expectation(s): 5 passed, 0 failed
"
    );
}

#[test]
fn failing_tests_exit_1_naming_test_expectation_and_observed_value() {
    let out = run(&["test", "tests/policy-tests-failing/wrong.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\
FAIL wrong-expectations: placement everywhere picked [bravelion, quietowl, gpuyak]
       picked also smartfish
       gpuyak not picked (TaintToleration: ClusterUnschedulable, taint &{Key:gpu Value:true Effect:NoSchedule} cannot be tolerated)
FAIL wrong-expectations: placement prod-east filtered [quietowl by TaintToleration, bravelion]
       quietowl filtered by ClusterAffinity, not TaintToleration (ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms)
       bravelion not filtered (picked)
FAIL wrong-budget-and-rollout: nodePool web allowedDisruptions >= 2 at 2026-03-04T12:00:00Z
       allowed Drifted 0, Empty 0, Underutilized 0
FAIL wrong-budget-and-rollout: rollout upgrade-1-30 order [prod-eastus-1], completesBefore 2026-03-02T13:00:00Z
       order [dev-eastus]
       ends 2026-03-02T14:00:00Z (Completed)
FAIL wrong-budget-and-rollout: nodePool batch allowedDisruptions 1
       no NodePool batch (NodePools: web)
2 test(s), 5 expectation(s): 0 passed, 5 failed
"
    );
}

/// `completesBefore` holds for a run that ends Completed, or Skipped (every member already at
/// the target), before the instant; one that fails before it (a member at 1.28 cannot go to
/// 1.30, which fails the run at once) does not meet it.
#[test]
fn a_run_that_fails_before_the_instant_does_not_complete_before_it() {
    let check = |from: &str, to: &str, out: &str| {
        let dump = edited("azure-update-run.yaml", from, to, &format!("{out}.yaml"));
        let test = Path::new(&dump).with_file_name(format!("{out}-test.yaml"));
        let text = format!(
            "apiVersion: fleet-policy.dev/v1alpha1
kind: Test
metadata: {{name: {out}}}
spec:
  inputs: [{dump}]
  at: \"2026-03-02T10:00:00Z\"
  expect:
  - rollout: upgrade-1-30
    completesBefore: \"2026-03-09T00:00:00Z\"
"
        );
        if let Err(e) = std::fs::write(&test, text) {
            panic!("cannot write {}: {e}", test.display());
        }
        let o = run(&["test", &test.display().to_string()]);
        (o.status.code(), stdout(&o))
    };
    let eastus = "cluster: {kubernetesVersion: \"1.29.7\", location: eastus}";
    assert_eq!(
        check(eastus, &eastus.replace("1.29.7", "1.28.9"), "failed-run"),
        (
            Some(1),
            "\
FAIL failed-run: rollout upgrade-1-30 completesBefore 2026-03-09T00:00:00Z
       ends 2026-03-02T10:00:00Z (Failed)
1 test(s), 1 expectation(s): 0 passed, 1 failed
"
            .to_string()
        )
    );
    assert_eq!(
        check("\"1.29.7\"", "\"1.30.3\"", "skipped-run"),
        (
            Some(0),
            "\
ok   skipped-run: rollout upgrade-1-30 completesBefore 2026-03-09T00:00:00Z
1 test(s), 1 expectation(s): 1 passed, 0 failed
"
            .to_string()
        )
    );
}

fn junit(path: &str, want_code: i32) -> (usize, Vec<(String, Option<String>)>) {
    let out = run(&["test", path, "--format", "junit"]);
    assert_eq!(out.status.code(), Some(want_code), "{}", stderr(&out));
    let text = stdout(&out);
    let doc = match roxmltree::Document::parse(&text) {
        Ok(d) => d,
        Err(e) => panic!("not XML: {e}\n{text}"),
    };
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .count();
    let cases = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|c| {
            let failure = c
                .children()
                .find(|n| n.has_tag_name("failure"))
                .and_then(|f| f.attribute("message"))
                .map(str::to_string);
            (c.attribute("name").unwrap_or_default().to_string(), failure)
        })
        .collect();
    (suites, cases)
}

#[test]
fn junit_has_a_testcase_per_expectation_and_a_failure_per_failed_one() {
    let (suites, cases) = junit("tests/policy-tests", 0);
    assert_eq!(suites, 3);
    assert_eq!(cases.len(), 5);
    assert!(cases.iter().all(|(_, f)| f.is_none()), "{cases:?}");
    assert_eq!(cases[1].0, "drift allowed after hours");

    let (suites, cases) = junit("tests/policy-tests-failing", 1);
    assert_eq!(suites, 2);
    assert_eq!(cases.len(), 5);
    // Markup in names and messages comes back unescaped.
    assert_eq!(
        cases[2],
        (
            "nodePool web allowedDisruptions >= 2 at 2026-03-04T12:00:00Z".to_string(),
            Some("allowed Drifted 0, Empty 0, Underutilized 0".to_string())
        )
    );
    assert_eq!(
        cases[3].1.as_deref(),
        Some("order [dev-eastus]; ends 2026-03-02T14:00:00Z (Completed)")
    );
    assert!(cases[0]
        .1
        .as_deref()
        .is_some_and(|m| m.contains("taint &{Key:gpu")));
}

#[test]
fn bad_test_documents_exit_2_with_line_and_column() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ci_commands_bad");
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("bad.yaml");
    let text = "\
apiVersion: fleet-policy.dev/v1alpha1
kind: Test
metadata: {name: bad}
spec:
  inputs: [x.yaml]
  at: \"2026-03-04T12:00:00Z\"
  expect:
  - nodePool: web
    picked: [a]
    allowedDisruptions: 1
";
    if let Err(e) = std::fs::write(&file, text) {
        panic!("cannot write: {e}");
    }
    let path = file.display().to_string();
    let out = run(&["test", &path]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!("error: {path}:9:13: document 1 (Test bad), spec.expect[0].picked: `picked` belongs to a placement expectation, not a nodePool one\n")
    );
    assert_eq!(stdout(&out), "");

    // An unknown field is named with its place and the near miss.
    let typo = text.replace("    picked: [a]\n", "    alowedDisruptions: 1\n");
    let _ = std::fs::write(&file, typo);
    let out = run(&["test", &path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(&format!("error: {path}:9:5: document 1 (Test bad), spec.expect[0].alowedDisruptions: unknown field `alowedDisruptions`")),
        "{}",
        stderr(&out)
    );

    // A test without expectations would always pass.
    let empty = text
        .replace(
            "  - nodePool: web\n    picked: [a]\n    allowedDisruptions: 1\n",
            "",
        )
        .replace("  expect:\n", "  expect: []\n");
    let _ = std::fs::write(&file, empty);
    let out = run(&["test", &path]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!("error: {path}:7:11: document 1 (Test bad), spec.expect: no expectation\n")
    );

    // Inputs that cannot be read, a folder without tests, and no argument at all.
    let _ = std::fs::write(&file, text.replace("    picked: [a]\n", ""));
    let out = run(&["test", &path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("x.yaml: No such file"),
        "{}",
        stderr(&out)
    );
    let out = run(&["test", "tests/corpus/kubectl"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "tests/corpus/kubectl: no test (apiVersion: fleet-policy.dev/v1alpha1, kind: Test)\n"
    );
    assert_eq!(run(&["test"]).status.code(), Some(2));
}

#[test]
fn diff_placement_picks_added_and_dropped_with_reasons() {
    let old = example("pickn-preferred-labels.yaml");
    let more = edited(
        "pickn-preferred-labels.yaml",
        "numberOfClusters: 2",
        "numberOfClusters: 3",
        "pickn-3.yaml",
    );
    let out = run(&[
        "diff",
        &old,
        "--against",
        &more,
        "--at",
        "2026-03-04T12:00:00Z",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\
SUBJECT        CHANGE
placement api  picked: + dev-eastus (Successfully scheduled resources for placement in \"dev-eastus\" (affinity score: 20, topology spread score: 0): picked by scheduling policy)
placement api  picked count: 2 → 3
placement api  Scheduled: found all cluster needed as specified by the scheduling policy, found 2 cluster(s) → found all cluster needed as specified by the scheduling policy, found 3 cluster(s)
rollout api    end: 2026-03-04T12:04:00Z → 2026-03-04T12:06:00Z
rollout api    order: prod-eastus, prod-westus → dev-eastus, prod-eastus, prod-westus
5 change(s) in 2 subject(s)
"
    );
    let fewer = edited(
        "pickn-preferred-labels.yaml",
        "numberOfClusters: 2",
        "numberOfClusters: 1",
        "pickn-1.yaml",
    );
    let out = run(&[
        "diff",
        &old,
        "--against",
        &fewer,
        "--at",
        "2026-03-04T12:00:00Z",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(v["changed"], true);
    assert_eq!(
        v["changes"][0],
        serde_json::json!({
            "subject": {"kind": "placement", "name": "api"},
            "change": "dropped",
            "cluster": "prod-westus",
            "reason": "Cluster \"prod-westus\" does not score high enough (affinity score: 40, topology spread score: 0)",
        })
    );
}

#[test]
fn diff_budget_changes_over_the_horizon_as_markdown() {
    let old = example("budget-business-hours.yaml");
    let new = edited(
        "budget-business-hours.yaml",
        "duration: 8h",
        "duration: 10h",
        "business-10h.yaml",
    );
    let out = run(&[
        "diff",
        &old,
        "--against",
        &new,
        "--at",
        "2026-03-04T12:00:00Z",
        "--format",
        "markdown",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\
### fleet-policy diff: decisions changed

| Subject | Change |
|---|---|
| NodePool web | allowed Drifted, Empty, Underutilized: 3 → 0 from 2026-03-04T17:00:00Z until 2026-03-04T19:00:00Z |
| NodePool web | allowed Drifted, Empty, Underutilized: 3 → 0 from 2026-03-05T17:00:00Z until 2026-03-05T19:00:00Z |
| NodePool web | allowed Drifted, Empty, Underutilized: 3 → 0 from 2026-03-06T17:00:00Z until 2026-03-06T19:00:00Z |
| NodePool web | allowed Drifted, Empty, Underutilized: 3 → 0 from 2026-03-09T17:00:00Z until 2026-03-09T19:00:00Z |
| NodePool web | allowed Drifted, Empty, Underutilized: 3 → 0 from 2026-03-10T17:00:00Z until 2026-03-10T19:00:00Z |

5 change(s) in 1 subject(s)
"
    );
}

#[test]
fn diff_rollout_order_and_end() {
    let old = example("azure-update-run.yaml");
    let swapped = edited(
        "azure-update-run.yaml",
        "      - name: dev\n        groups: [{name: dev-a}, {name: dev-b}]\n        afterStageWaitInSeconds: 3600\n      - name: prod\n        groups: [{name: prod-a}, {name: prod-b}]",
        "      - name: prod\n        groups: [{name: prod-a}, {name: prod-b}]\n        afterStageWaitInSeconds: 3600\n      - name: dev\n        groups: [{name: dev-a}, {name: dev-b}]",
        "azure-prod-first.yaml",
    );
    let out = run(&[
        "diff",
        &old,
        "--against",
        &swapped,
        "--at",
        "2026-03-02T10:00:00Z",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\
SUBJECT               CHANGE
rollout upgrade-1-30  order: dev-eastus, dev-westus, prod-eastus-1, prod-westus-1, prod-eastus-2 → prod-eastus-1, prod-westus-1, prod-eastus-2, dev-eastus, dev-westus
1 change(s) in 1 subject(s)
"
    );
    let longer = edited(
        "azure-update-run.yaml",
        "afterStageWaitInSeconds: 3600",
        "afterStageWaitInSeconds: 7200",
        "azure-longer-wait.yaml",
    );
    let out = run(&[
        "diff",
        &old,
        "--against",
        &longer,
        "--at",
        "2026-03-02T10:00:00Z",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\
SUBJECT               CHANGE
rollout upgrade-1-30  end: 2026-03-02T14:00:00Z → 2026-03-02T15:00:00Z
1 change(s) in 1 subject(s)
"
    );
}

#[test]
fn diff_exit_codes() {
    // Same decisions: 0 (the corpus folder against its files, at its snapshot).
    let out = run(&[
        "diff",
        "tests/corpus/kubectl",
        "--against",
        "tests/corpus/kubectl/bindings.yaml",
        "tests/corpus/kubectl/crp-list.yaml",
        "tests/corpus/kubectl/memberclusters.yaml",
        "tests/corpus/kubectl/placements.yaml",
        "--at",
        "snapshot",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "no change in the decisions\n");
    let ex = example("pickfixed.yaml");
    let out = run(&["diff", &ex, "--against", &ex, "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "### fleet-policy diff: no change in the decisions\n"
    );
    // Errors: 2.
    let broken = edited(
        "pickfixed.yaml",
        "kind: ClusterResourcePlacement",
        "kind: ClusterResourcePlacment",
        "typo.yaml",
    );
    let out = run(&["diff", &ex, "--against", &broken]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean \"ClusterResourcePlacement\""),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        run(&["diff", &ex, "--against", "no-such.yaml"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run(&["diff", &ex, "--against", &ex, "--at", "noon"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&["diff", &ex]).status.code(), Some(2));
}
