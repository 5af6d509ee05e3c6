//! The command-line tool as a CI pipeline uses it: output on stdout, problems on stderr with
//! file:line:column, exit codes 0 / 1 (input errors) / 2 (usage errors).

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fleet-policy"))
}

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../static/examples")
        .join(name)
}

fn run(args: &[&str]) -> Output {
    match bin().args(args).output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run fleet-policy: {e}"),
    }
}

#[test]
fn place_prints_json_with_picks_and_reasons() {
    let file = example("pick-all-by-label.yaml");
    let out = run(&[
        "place",
        file.to_str().unwrap_or(""),
        "--at",
        "2026-01-01T00:00:00Z",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => panic!("stdout is not JSON: {e}"),
    };
    let p = &v["placements"][0];
    assert_eq!(p["name"], "web-app");
    let picked: Vec<&str> = p["picked"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["cluster"].as_str())
        .collect();
    assert_eq!(picked, ["aks-eastus-prod", "aks-westeurope-prod"]);
    let filtered: Vec<&str> = p["filtered"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["cluster"].as_str())
        .collect();
    assert_eq!(filtered, ["aks-eastus-dev", "aks-westus-prod"]);
    assert_eq!(p["filtered"][0]["plugin"], "ClusterAffinity");
    assert_eq!(v["errors"], serde_json::json!([]));
}

#[test]
fn bad_input_reports_file_line_column_and_exits_1() {
    let dir = std::env::temp_dir().join(format!("fleet-policy-cli-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("bad.yaml");
    let text = "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\n---\napiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberClustr\n";
    if let Err(e) = std::fs::write(&file, text) {
        panic!("cannot write {}: {e}", file.display());
    }
    let path = file.to_string_lossy().to_string();
    let out = run(&["place", &path, "--at", "2026-01-01T00:00:00Z"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "error: {path}:6:7: document 2 (MemberClustr), kind: unknown kind \"MemberClustr\"; did you mean \"MemberCluster\"?"
        )),
        "{stderr}"
    );
    // The rest of the input is still evaluated and printed.
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(v["errors"][0]["line"], 6);
    assert_eq!(v["errors"][0]["column"], 7);
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["place"]).status.code(), Some(2));
    assert_eq!(run(&["frobnicate", "x.yaml"]).status.code(), Some(2));
    let file = example("pick-all-by-label.yaml");
    let out = run(&["place", file.to_str().unwrap_or(""), "--at", "yesterday"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--at yesterday: not an RFC 3339 time"));
}

#[test]
fn table_and_yaml_formats_render_the_same_result() {
    let file = example("pick-all-by-label.yaml");
    let f = file.to_str().unwrap_or("");
    let table = run(&[
        "place",
        f,
        "--at",
        "2026-01-01T00:00:00Z",
        "--format",
        "table",
    ]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("aks-eastus-prod"), "{text}");
    let yaml = run(&[
        "place",
        f,
        "--at",
        "2026-01-01T00:00:00Z",
        "--format",
        "yaml",
    ]);
    let y = String::from_utf8_lossy(&yaml.stdout);
    let parsed = fleet_policy::input::documents::yaml_to_json(&y).unwrap_or_default();
    let json = run(&["place", f, "--at", "2026-01-01T00:00:00Z"]);
    let j: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap_or_default();
    assert_eq!(parsed, j);
}

#[test]
fn evaluate_table_shows_each_engines_table_and_ends_its_line() {
    let placement = example("docs-affinity-two-terms.yaml");
    let budgets = example("docs-budgets-three-budgets.yaml");
    let out = run(&[
        "evaluate",
        placement.to_str().unwrap_or(""),
        budgets.to_str().unwrap_or(""),
        "--at",
        "2026-03-04T12:00:00Z",
        "--format",
        "table",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("ClusterResourcePlacement crp-west-or-unlabelled (PickAll, accepted)"),
        "{text}"
    );
    assert!(
        text.contains("  east-critical  filtered"),
        "the placement table lists the filtered cluster: {text}"
    );
    assert!(
        text.contains("\nNodePool default\n  nodes: total 19, disrupting 0\n"),
        "{text}"
    );
    assert!(
        text.contains("  allowed  Drifted         4  Empty         4  Underutilized         5\n"),
        "{text}"
    );
    assert!(!text.contains("errors:"), "a table, not YAML: {text}");
    // Warnings go to stderr after the result, which must end its own line.
    assert!(text.ends_with('\n'));
    let place = run(&[
        "place",
        placement.to_str().unwrap_or(""),
        "--format",
        "table",
    ]);
    assert!(String::from_utf8_lossy(&place.stdout).ends_with('\n'));
    // Notices (here: the hand-written clusters) come first, once.
    assert!(String::from_utf8_lossy(&place.stderr).starts_with("note: "));
}

#[test]
fn at_snapshot_evaluates_a_dump_when_it_was_taken_and_now_says_why_all_are_filtered() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/kubectl");
    let fleet = corpus.join("memberclusters.yaml");
    let policies = corpus.join("placements.yaml");
    let (fleet, policies) = (
        fleet.to_str().unwrap_or(""),
        policies.to_str().unwrap_or(""),
    );
    let snap = run(&["place", fleet, policies, "--at", "snapshot"]);
    assert_eq!(snap.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&snap.stderr), "");
    let v: serde_json::Value = serde_json::from_slice(&snap.stdout).unwrap_or_default();
    let picked: Vec<&str> = v["placements"][1]["picked"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["cluster"].as_str())
        .collect();
    assert_eq!(picked, ["bravelion", "quietowl", "smartfish"]);
    // Evaluated now (months later), every heartbeat is stale: a note says so and names the
    // instant to use.
    let now = run(&["place", fleet, policies, "--format", "table"]);
    let stderr = String::from_utf8_lossy(&now.stderr);
    assert!(
        stderr.starts_with("note: 5 of 6 member agents sent no heartbeat in the 5 minutes before "),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "the input was captured at 2026-03-04T11:58:42Z — evaluate there with --at snapshot"
        ),
        "{stderr}"
    );
}

#[test]
fn unknown_set_keys_and_bad_horizons_are_usage_errors_naming_what_is_accepted() {
    let file = example("budget-ramp-up.yaml");
    let f = file.to_str().unwrap_or("");
    let out = run(&["budgets", f, "--set", "horizn=1h"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().last(),
        Some("fleet-policy: invalid options: unknown field `horizn`, expected one of `at`, `horizon`, `karpenterVersion`")
    );
    let out = run(&["budgets", f, "--horizon", "7d"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().last(),
        Some("fleet-policy: --horizon 7d: time: unknown unit \"d\" in duration \"7d\"; a Go duration such as 168h, 36h30m or 90m is expected")
    );
    // Each command's help lists its keys, from the engine's option types.
    let help = run(&["budgets", "--help"]);
    assert!(
        String::from_utf8_lossy(&help.stdout).contains("Keys: horizon, karpenterVersion"),
        "{}",
        String::from_utf8_lossy(&help.stdout)
    );
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read;
    // A result far larger than a pipe's buffer, so that writing it meets the closed pipe.
    let mut text: String = (0..3000)
        .map(|i| format!("apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {{name: c{i}}}\n---\n"))
        .collect();
    text.push_str("apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {name: all}\nspec: {policy: {placementType: PickAll}}\n");
    let dir = std::env::temp_dir().join(format!("fleet-policy-pipe-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("big.yaml");
    if let Err(e) = std::fs::write(&file, text) {
        panic!("cannot write {}: {e}", file.display());
    }
    let mut child = match bin()
        .args([
            "evaluate",
            file.to_str().unwrap_or(""),
            "--at",
            "2026-01-01T00:00:00Z",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("cannot run fleet-policy: {e}"),
    };
    // Read one byte, then close the pipe as `head -c 1` does.
    let mut stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    let mut one = [0u8; 1];
    let _ = stdout.read(&mut one);
    drop(stdout);
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_examples_at_line_is_its_instant_and_long_names_keep_columns_aligned() {
    let file = example("kubefleet-staged-run.yaml");
    let out = run(&["rollout", file.to_str().unwrap_or(""), "--format", "table"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("note: evaluating at 2026-03-02T08:00:00Z, the `# at:` line of "),
        "{stderr}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // The run started at the pinned instant, not now.
    assert!(
        text.starts_with("ClusterStagedUpdateRun web-app-run — Waiting (start 2026-03-02 08:00"),
        "{text}"
    );
    // Every row's STATE column starts where the header's does, whatever the names' length.
    let lines: Vec<&str> = text.lines().skip(1).collect();
    let col = lines.first().and_then(|h| h.find("STATE")).unwrap_or(0);
    assert!(col > 0);
    for l in &lines[1..] {
        assert_eq!(l.get(col - 2..col), Some("  "), "{l}");
        assert_ne!(l.get(col..col + 1), Some(" "), "{l}");
    }
    assert!(
        text.contains("web-app-run-timedwait-staging  Completed"),
        "{text}"
    );
}

/// Runs the CLI with `text` on standard input (the file argument `-`).
fn run_stdin(args: &[&str], text: &str) -> Output {
    use std::io::Write;
    let mut child = match bin()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("cannot run fleet-policy: {e}"),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(text.as_bytes());
    }
    match child.wait_with_output() {
        Ok(o) => o,
        Err(e) => panic!("fleet-policy did not finish: {e}"),
    }
}

/// A name as a hostile input writes it: a newline starting a forged diagnostic and a GitHub
/// annotation, and terminal escapes (colour, window title, bell).
const FORGED: &str = r#""x\nerror: forged\n::error file=a.yaml::forged\e[31m\e]0;title\a""#;
/// The same name as text output shows it: on its own line, every control character escaped.
const SHOWN: &str = r"x\nerror: forged\n::error file=a.yaml::forged\u{1b}[31m\u{1b}]0;title\u{7}";

/// Neither stream holds a control character other than line ends, and every line is one the
/// CLI wrote (no forged `error:` line, no `::` annotation).
fn assert_no_forged_lines(out: &Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{stream}: {text:?}"
        );
        for line in text.lines() {
            assert!(
                !line.starts_with("::") && !line.starts_with("error: forged"),
                "{stream}: {line:?}"
            );
        }
    }
}

#[test]
fn hostile_names_stay_on_their_line_in_diagnostics_and_placement_tables() {
    let text = format!(
        "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {{name: {FORGED}}}\nspec: {{unknownField: 1}}\n---\napiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {{name: {FORGED}}}\nspec:\n  resourceSelectors: [{{group: \"\", kind: Namespace, version: v1, name: a}}]\n  policy: {{placementType: PickFixed, clusterNames: [{FORGED}]}}\n"
    );
    let out = run_stdin(
        &[
            "place",
            "-",
            "--at",
            "2026-01-01T00:00:00Z",
            "--format",
            "table",
        ],
        &text,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_no_forged_lines(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(&format!(
            "ClusterResourcePlacement {SHOWN} (PickFixed, rejected)"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("\n  {SHOWN}  picked ")),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines,
        [
            "note: 1 MemberCluster(s) have no status (written by hand): treated as joined and healthy".to_string(),
            format!("error: -:4:8: document 1 (MemberCluster {SHOWN}), spec.unknownField: unknown field `unknownField`, expected one of `heartbeatPeriodSeconds`, `taints`, `identity`, `deleteOptions`"),
            format!("error: -:3:18: document 1 (MemberCluster {SHOWN}), metadata.name: Invalid value: \"x\\nerror: forged\\n::error file=a.yaml::forged\\u{{1b}}[31m\\u{{1b}}]0;title\\u{{7}}\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"),
            format!("error: -:8:18: document 2 (ClusterResourcePlacement {SHOWN}), metadata.name: Invalid value: \"x\\nerror: forged\\n::error file=a.yaml::forged\\u{{1b}}[31m\\u{{1b}}]0;title\\u{{7}}\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"),
            format!("error: -:11:53: document 2 (ClusterResourcePlacement {SHOWN}), spec.policy.clusterNames[0]: cluster name \"x\\nerror: forged\\n::error file=a.yaml::forged\\u{{1b}}[31m\\u{{1b}}]0;title\\u{{7}}\" is not a valid DNS-1123 subdomain of at most 63 characters"),
        ]
    );
    // JSON keeps the name as it is (serde escapes it).
    let out = run_stdin(&["validate", "-", "--at", "2026-01-01T00:00:00Z"], &text);
    assert_no_forged_lines(&out);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(
        v["errors"][0]["name"],
        "x\nerror: forged\n::error file=a.yaml::forged\u{1b}[31m\u{1b}]0;title\u{7}"
    );
}

#[test]
fn hostile_stage_and_node_pool_names_stay_on_their_line_in_rollout_and_budget_tables() {
    let run_text = std::fs::read_to_string(example("kubefleet-staged-run.yaml"))
        .unwrap_or_default()
        .replace("{name: staging-1,", &format!("{{name: {FORGED},"))
        .replace("{name: web-app-run}", &format!("{{name: {FORGED}}}"));
    let out = run_stdin(&["rollout", "-", "--format", "table"], &run_text);
    assert_no_forged_lines(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(&format!("ClusterStagedUpdateRun {SHOWN} — ")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("  staging     staging     ")
                && l.contains(&format!("{SHOWN}  "))
                && l.ends_with("Completed   2026-03-02 08:00  2026-03-02 08:02")),
        "{stdout}"
    );

    let pool_text = std::fs::read_to_string(example("budget-candidates.yaml"))
        .unwrap_or_default()
        .replace("  name: general\n", &format!("  name: {FORGED}\n"));
    let out = run_stdin(&["budgets", "-", "--format", "table"], &pool_text);
    assert_no_forged_lines(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("\nNodePool {SHOWN}\n")),
        "{stdout}"
    );
}

/// Writes `bytes` to a file of this test run's temporary folder.
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fleet-policy-cli-enc-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join(name);
    if let Err(e) = std::fs::write(&file, bytes) {
        panic!("cannot write {}: {e}", file.display());
    }
    file
}

const CLUSTER: &str =
    "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {name: a}\n";

#[test]
fn a_file_that_is_not_utf8_is_an_error_at_its_byte_and_the_other_files_are_evaluated() {
    let mut bytes = format!("{CLUSTER}---\napiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {{name: \"b").into_bytes();
    bytes.push(0xff);
    bytes.extend(b"\"}\n");
    let bad = temp_file("not-utf8.yaml", &bytes);
    let good = example("pickfixed.yaml");
    let (bad, good) = (bad.to_string_lossy(), good.to_string_lossy());
    let out = run(&["place", &bad, &good, "--at", "2026-01-01T00:00:00Z"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an input error, not a usage error"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("error: {bad}:7:20: document 2: not UTF-8: byte 0xFF is not part of a character (YAML is read as UTF-8, or UTF-16 with a byte order mark); the file is not read\n")),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(v["placements"][0]["picked"][0]["cluster"], "member-c");
}

#[test]
fn byte_order_marks_utf16_and_utf8_read_as_plain_utf8() {
    let plain = std::fs::read_to_string(example("pickfixed.yaml")).unwrap_or_default();
    let run_file = |name: &str, bytes: Vec<u8>| {
        let f = temp_file(name, &bytes);
        let out = run(&[
            "place",
            &f.to_string_lossy(),
            "--at",
            "2026-01-01T00:00:00Z",
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        v["placements"][0]["picked"].clone()
    };
    let expected = run_file("plain.yaml", plain.clone().into_bytes());
    assert_eq!(expected[1]["cluster"], "member-a");
    let mut bom = vec![0xef, 0xbb, 0xbf];
    bom.extend(plain.as_bytes());
    assert_eq!(run_file("bom.yaml", bom), expected);
    // After a byte order mark, an example's `# at:` line still pins its instant.
    let mut pinned = vec![0xef, 0xbb, 0xbf];
    pinned.extend(b"# at: 2026-03-02T08:00:00Z\n");
    pinned.extend(plain.as_bytes());
    let f = temp_file("bom-at.yaml", &pinned);
    let out = run(&["place", &f.to_string_lossy()]);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("note: evaluating at 2026-03-02T08:00:00Z, the `# at:` line of "),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut le = vec![0xff, 0xfe];
    le.extend(plain.encode_utf16().flat_map(u16::to_le_bytes));
    assert_eq!(run_file("utf16le.yaml", le), expected);
    let mut be = vec![0xfe, 0xff];
    be.extend(plain.encode_utf16().flat_map(u16::to_be_bytes));
    assert_eq!(run_file("utf16be.yaml", be), expected);
}

#[test]
fn what_go_yaml_refuses_is_an_error_and_errors_name_kind_name_and_field() {
    let cases: [(&str, String, &str); 7] = [
        (
            "a NUL",
            CLUSTER.replace("{name: a}", "{name: \"a\0b\"}"),
            "error: -:3:20: document 1: control character U+0000 is not allowed in YAML (the document is not read)",
        ),
        (
            "an escape character",
            CLUSTER.replace("{name: a}", "{name: \"a\u{1b}[2J\"}"),
            "error: -:3:20: document 1: control character U+001B is not allowed in YAML (the document is not read)",
        ),
        (
            "%YAML 9.9",
            format!("%YAML 9.9\n---\n{CLUSTER}"),
            "error: -:1:1: document 1: %YAML 9.9: only YAML 1.x is read (as by go-yaml)",
        ),
        (
            "a duplicate key",
            CLUSTER.replace("{name: a}", "\n  name: a\n  labels: {x: \"1\", x: \"2\"}"),
            "error: -:5:20: document 1 (MemberCluster a), metadata.labels.x: duplicate key \"x\" in a mapping",
        ),
        (
            // Once, by the reader: not again as the decoder's "duplicate field".
            "a field written twice",
            CLUSTER.replace("{name: a}", "\n  name: a\n  labels: {x: \"1\"}\n  labels: {y: \"2\"}"),
            "error: -:6:3: document 1 (MemberCluster a), metadata.labels: duplicate key \"labels\" in a mapping",
        ),
        (
            "a syntax error",
            CLUSTER.replace("{name: a}", "{name: a, labels: [}"),
            "error: -:3:30: document 1 (MemberCluster): invalid YAML: while parsing a node, did not find expected node content",
        ),
        (
            "a missing kind",
            CLUSTER.replace("kind: MemberCluster\n", ""),
            "error: -:1:1: document 1 (name a): missing required field \"kind\"",
        ),
    ];
    for (what, text, expected) in cases {
        let out = run_stdin(&["validate", "-", "--format", "table"], &text);
        assert_eq!(out.status.code(), Some(1), "{what}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().collect::<Vec<_>>(), [expected], "{what}");
    }
}

#[test]
fn a_property_value_that_is_not_a_quantity_is_an_error_at_the_value() {
    for value in ["NaN", "1 Gi", "0x10"] {
        let text = format!(
            "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {{name: a}}\nstatus:\n  properties:\n    example.com/cost: {{value: \"{value}\"}}\n---\napiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata: {{name: crp}}\nspec:\n  resourceSelectors: [{{group: \"\", kind: Namespace, version: v1, name: a}}]\n  policy:\n    placementType: PickN\n    numberOfClusters: 1\n    affinity:\n      clusterAffinity:\n        preferredDuringSchedulingIgnoredDuringExecution:\n          - weight: 10\n            preference:\n              propertySorter: {{name: example.com/cost, sortOrder: Ascending}}\n"
        );
        let out = run_stdin(
            &[
                "place",
                "-",
                "--at",
                "2026-01-01T00:00:00Z",
                "--format",
                "table",
            ],
            &text,
        );
        assert_eq!(out.status.code(), Some(1), "{value}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("error: -:6:31: document 1 (MemberCluster a), status.properties[\"example.com/cost\"].value: value {value:?} is not a quantity (quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'): the scheduling cycle of ClusterResourcePlacement crp aborts on it\n")),
            "{value}: {stderr}"
        );
        // The cycle still aborts, as KubeFleet's does.
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains(&format!("  scheduling cycle aborted: value {value} of property example.com/cost from cluster a is not a valid quantity")), "{stdout}");
    }
}

#[test]
fn hostile_names_stay_on_their_line_in_diff_tables_and_markdown() {
    // An update run's name: the names a placement table shows are refused when not RFC 1123
    // subdomains, and `diff` does not compare inputs with errors.
    let old = example("azure-update-run.yaml");
    let new_text = std::fs::read_to_string(&old)
        .unwrap_or_default()
        .replace("{name: upgrade-1-30}", &format!("{{name: {FORGED}}}"));
    let new = temp_file("diff-new.yaml", new_text.as_bytes());
    let (old, new) = (old.to_string_lossy(), new.to_string_lossy());
    for format in ["table", "markdown"] {
        let out = run(&[
            "diff",
            &old,
            "--against",
            &new,
            "--at",
            "2026-03-02T08:00:00Z",
            "--format",
            format,
        ]);
        assert_eq!(out.status.code(), Some(1), "{format}: decisions changed");
        assert_no_forged_lines(&out);
        let stdout = String::from_utf8_lossy(&out.stdout);
        // Markdown joins lines with a space (a row stays a row); the table escapes them.
        let shown = if format == "table" {
            SHOWN.to_string()
        } else {
            SHOWN.replace("\\n", " ")
        };
        let row = match format {
            "table" => format!("rollout {shown}  new"),
            _ => format!("| rollout {shown} | new |"),
        };
        assert!(stdout.contains(&row), "{format}: {stdout}");
    }
}

#[test]
fn budgets_table_ends_with_the_controller_pass_over_all_node_pools() {
    let file = example("budget-candidates.yaml");
    let out = run(&["budgets", &file.to_string_lossy(), "--format", "table"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let tail: Vec<&str> = stdout.lines().rev().take(3).collect();
    assert_eq!(
        tail,
        [
            "  Drift: 2 candidate(s), commands [node-b], budget used general 1/1",
            "This pass (all NodePools): Drift",
            "",
        ],
        "{stdout}"
    );
}

/// A PickFixed placement's table has a row for every name in `clusterNames`: the names not
/// found and the clusters not eligible are unselected, with the scheduler's reason (they are in
/// no filter list: no filter runs for PickFixed); its picks have no scores.
#[test]
fn a_pick_fixed_table_lists_the_names_it_could_not_place_and_why() {
    let dir = std::env::temp_dir().join(format!("fleet-policy-fixed-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("fixed.yaml");
    let yaml = "apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\nmetadata: {name: a}\nspec: {}\n---\n\
        apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\nmetadata: {name: b}\nspec: {}\nstatus: {agentStatus: []}\n---\n\
        apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourcePlacement\nmetadata: {name: fixed}\nspec:\n  \
        resourceSelectors: [{group: \"\", kind: Namespace, name: web, version: v1}]\n  \
        policy: {placementType: PickFixed, clusterNames: [a, b, gone]}\n";
    std::fs::write(&file, yaml).unwrap_or_default();
    let out = run(&[
        "place",
        file.to_str().unwrap_or(""),
        "--at",
        "2026-03-04T12:00:00Z",
        "--format",
        "table",
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = text.lines().skip(2).collect();
    assert_eq!(
        rows,
        [
            "  a        picked                           pick #1",
            "  b        unselected                       Cluster \"b\" is not eligible for resource placement yet: cluster is not connected to the fleet: member agent not online yet",
            "  gone     unselected                       Specified cluster \"gone\" is not found",
        ],
        "{text}"
    );
}

/// `--set` reads its value as JSON, else as a string; an option that takes a string is given
/// the text as written even where it reads as a number, so `karpenterVersion=1.10` is v1.10
/// (as the JS API's `{karpenterVersion: '1.10'}`), not the float 1.1 nor a type error.
#[test]
fn set_gives_a_string_option_the_text_written_even_when_it_reads_as_a_number() {
    let budgets = example("docs-budgets-three-budgets.yaml");
    let budgets = budgets.to_str().unwrap_or("");
    for (written, version) in [("1.10", "v1.10"), ("1.0", "v1.0"), ("v1.14", "v1.14")] {
        let set = format!("karpenterVersion={written}");
        let out = run(&[
            "budgets",
            budgets,
            "--at",
            "2026-03-04T12:00:00Z",
            "--set",
            &set,
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{set}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        assert_eq!(v["karpenterVersion"], version, "{set}");
    }
    // A number where a duration is expected reaches the engine, which says why it is wrong.
    let out = run(&[
        "budgets",
        budgets,
        "--at",
        "2026-03-04T12:00:00Z",
        "--set",
        "horizon=3",
    ]);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("horizon: time: missing unit in duration \"3\""),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(2));
}

/// A kept binding on a cluster that now fails a filter (sickhawk went unhealthy after it was
/// bound): the table gives one row saying both, not a "kept" row and a "filtered" row for the
/// same cluster.
#[test]
fn a_kept_binding_on_a_filtered_cluster_is_one_table_row() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/kubectl");
    let read = |name: &str| std::fs::read_to_string(corpus.join(name)).unwrap_or_default();
    let dir = std::env::temp_dir().join(format!("fleet-policy-kept-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let files = [
        ("memberclusters.yaml", read("memberclusters.yaml")),
        (
            "placements.yaml",
            read("placements.yaml").replacen("numberOfClusters: 1", "numberOfClusters: 2", 1),
        ),
        (
            "bindings.yaml",
            read("bindings.yaml")
                .replacen("clusterName: bravelion", "clusterName: sickhawk", 1)
                .replacen("targetCluster: bravelion", "targetCluster: sickhawk", 1),
        ),
    ];
    let mut args = vec!["place", "--at", "2026-03-04T12:00:00Z", "--format", "table"];
    let paths: Vec<String> = files
        .iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            let _ = std::fs::write(&path, text);
            path.to_string_lossy().into_owned()
        })
        .collect();
    args.extend(paths.iter().map(String::as_str));
    let out = run(&args);
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = stdout
        .lines()
        .take_while(|l| !l.starts_with("ClusterResourcePlacement everywhere"))
        .filter(|l| l.contains("sickhawk"))
        .collect();
    assert_eq!(
        rows,
        ["  sickhawk   kept                             existing binding kept; filtered for new picks: ClusterEligibility: cluster is not connected to the fleet: unhealthy for a prolonged period of time (last transitioned 117.82 minutes ago)"],
        "{stdout}"
    );
}

/// An option's value that is refused (`--set karpenterVersion=garbage`) is named as an
/// option, without a file position it does not have.
#[test]
fn a_refused_option_value_is_named_without_a_position() {
    let out = run(&[
        "budgets",
        example("budget-business-hours.yaml").to_str().unwrap_or(""),
        "--set",
        "karpenterVersion=garbage",
        "--format",
        "table",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.lines().any(|l| l.starts_with(
            "error: options: karpenterVersion \"garbage\": expected head or v1.0 … v1."
        )),
        "{stderr}"
    );
    assert!(!stderr.contains(":0:0"), "{stderr}");
    // A usage error, as a malformed `--horizon` is: exit 2, the result still printed.
    assert_eq!(out.status.code(), Some(2));
    assert!(!out.stdout.is_empty());
    let out = run(&[
        "rollout",
        example("kubefleet-staged-run.yaml").to_str().unwrap_or(""),
        "--set",
        "defaultDuration=abc",
        "--format",
        "table",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.lines().last(),
        Some(
            "error: options: defaultDuration: time: invalid duration \"abc\"; the default is used"
        ),
        "{stderr}"
    );
    // Whichever engines apply: `evaluate` on a placement alone (no NodePool) still refuses a
    // horizon, and `rollout` a KubeFleet stuck threshold that is no duration.
    for (command, file, set, message) in [
        (
            "evaluate",
            "docs-affinity-two-terms.yaml",
            "horizon=7d",
            "error: options: horizon: time: unknown unit \"d\" in duration \"7d\"",
        ),
        (
            "rollout",
            "kubefleet-staged-run.yaml",
            "kubefleet.stuckThreshold=abc",
            "error: options: kubefleet.stuckThreshold: time: invalid duration \"abc\"; the \
             default is used",
        ),
    ] {
        let out = run(&[
            command,
            example(file).to_str().unwrap_or(""),
            "--set",
            set,
            "--format",
            "table",
        ]);
        assert_eq!(out.status.code(), Some(2), "{set}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.lines().any(|l| l == message), "{set}: {stderr}");
    }
}

/// A pipe given as a file (`/dev/stdin`, or bash's `<(kubectl get …)`) is read once: whether
/// or not it is a kubectl List, the result is that of the same text in a file.
#[test]
fn a_pipe_given_as_a_file_reads_as_the_same_text_in_a_file() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/kubectl");
    let (list, placements) = (
        corpus.join("memberclusters.yaml"),
        corpus.join("placements.yaml"),
    );
    let example = example("pick-all-by-label.yaml");
    for (piped, other) in [(&example, None), (&list, Some(&placements))] {
        let text = std::fs::read_to_string(piped).unwrap_or_else(|e| panic!("{e}"));
        let other: Vec<&str> = other.and_then(|p| p.to_str()).into_iter().collect();
        let place = |file: &str, stdin: Option<&str>| {
            let mut a = vec!["place", file];
            a.extend(&other);
            a.extend(["--at", "2026-03-04T12:00:00Z", "--format", "table"]);
            match stdin {
                Some(text) => run_stdin(&a, text),
                None => run(&a),
            }
        };
        let from_file = place(piped.to_str().unwrap_or(""), None);
        let from_pipe = place("/dev/stdin", Some(&text));
        assert!(!from_file.stdout.is_empty());
        assert_eq!(
            String::from_utf8_lossy(&from_pipe.stdout),
            String::from_utf8_lossy(&from_file.stdout),
            "{}",
            piped.display()
        );
    }
}
