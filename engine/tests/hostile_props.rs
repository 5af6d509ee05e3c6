//! Hostile input, fuzzed in the project: mutated examples and real-format dumps, and token
//! soup of YAML and JSON syntax, through every entry point. Nothing may panic, and every
//! error must say where it is (a document and a line, or the input as a whole).

use fleet_policy::{EvaluateOptions, Source};
use proptest::prelude::*;
use std::path::PathBuf;

fn at() -> EvaluateOptions {
    EvaluateOptions::at(
        chrono::DateTime::parse_from_rfc3339("2026-03-04T12:00:00Z")
            .map(|t| t.to_utc())
            .unwrap_or_default(),
    )
}

/// The texts mutations start from: every example, and the real-format corpus.
fn seeds() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [
        root.join("../static/examples"),
        root.join("tests/corpus/kubectl"),
        root.join("tests/corpus/az"),
        root.join("tests/corpus/neighbours"),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        files.sort();
        for f in files {
            // The large dumps are mutated by their first part (the fuzzer wants many runs).
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            out.push(text.chars().take(6000).collect());
        }
    }
    out
}

/// Runs every entry point and checks what a user relies on when the input is broken.
fn check(text: &str) -> Result<(), TestCaseError> {
    let sources = [Source::new("fuzz.yaml", text)];
    let opts = at();
    let e = fleet_policy::evaluate(&sources, &opts);
    let v = fleet_policy::validate(&sources, &opts);
    let _ = fleet_policy::place(&sources, &opts.place);
    let _ = fleet_policy::budgets(&sources, &opts.budgets);
    let _ = fleet_policy::rollout(&sources, &opts.rollout);
    prop_assert_eq!(v.valid, e.errors.is_empty());
    for d in e.errors.iter().chain(&e.warnings) {
        // A diagnostic names a document and a line, or is about the input as a whole.
        prop_assert!(
            (d.document >= 1 && d.line >= 1) || d.document == 0,
            "{:?}",
            d
        );
    }
    prop_assert!(e.errors.len() <= 1001);
    // Results always serialise (every front end reads them as JSON).
    prop_assert!(serde_json::to_string(&e).is_ok());
    Ok(())
}

/// A mutation: at a position (a fraction of the text), delete, insert or replace a few bytes.
#[derive(Debug, Clone)]
enum Edit {
    Delete(f64, usize),
    Insert(f64, String),
    Replace(f64, usize, String),
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len);
        match e {
            Edit::Delete(f, n) => {
                let i = at(*f, chars.len());
                let j = (i + n).min(chars.len());
                chars.drain(i..j);
            }
            Edit::Insert(f, s) => {
                let i = at(*f, chars.len());
                chars.splice(i..i, s.chars());
            }
            Edit::Replace(f, n, s) => {
                let i = at(*f, chars.len());
                let j = (i + n).min(chars.len());
                chars.splice(i..j, s.chars());
            }
        }
    }
    chars.into_iter().collect()
}

fn fragment() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "\n",
        ": ",
        "- ",
        "{",
        "}",
        "[",
        "]",
        ",",
        "&a ",
        "*a",
        "!!str ",
        "---\n",
        "...\n",
        "'",
        "\"",
        "#",
        "|\n",
        ">-\n",
        "? ",
        "\t",
        "~",
        "null",
        "true",
        "1e400",
        "-0",
        "0x10",
        "\u{feff}",
        "\r",
        "é",
        "💥",
        "kind: ",
        "apiVersion: v1\n",
        "metadata: {name: x}\n",
        "status: {}\n",
        "spec: ",
        "items: ",
        "type: Microsoft.ContainerService/fleets/members\n",
        "  ",
        "2026-02-30T00:00:00Z",
        "lastReceivedHeartbeat: ",
        "5m",
        "-1",
        "100%",
    ])
    .prop_map(str::to_string)
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0.0..1.0f64, 1..40usize).prop_map(|(f, n)| Edit::Delete(f, n)),
        (0.0..1.0f64, prop::collection::vec(fragment(), 1..4))
            .prop_map(|(f, s)| Edit::Insert(f, s.concat())),
        (
            0.0..1.0f64,
            1..12usize,
            prop::collection::vec(fragment(), 1..3)
        )
            .prop_map(|(f, n, s)| Edit::Replace(f, n, s.concat())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn mutated_real_input_never_panics(seed in any::<prop::sample::Index>(), edits in prop::collection::vec(edit(), 1..6)) {
        let seeds = seeds();
        prop_assume!(!seeds.is_empty());
        let text = apply(&seeds[seed.index(seeds.len())], &edits);
        check(&text)?;
    }

    #[test]
    fn token_soup_never_panics(parts in prop::collection::vec(fragment(), 0..60)) {
        check(&parts.concat())?;
    }
}
