//! The playground's keystrokes on a realistic 10,000-cluster `kubectl get memberclusters -o
//! yaml` dump (`gen/dump.rs`, 2.6 KB per cluster) held by a [`Session`]: each measured step is
//! one `update_shared` with the edited texts plus one `evaluate`, as the page runs them. The edits
//! alternate between two texts, so every step has something to read again.

#[path = "gen/dump.rs"]
#[allow(dead_code)] // the JSON dump is the input bench's
mod dump;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fleet_policy::session::Session;
use fleet_policy::EvaluateOptions;
use std::hint::black_box;
use std::rc::Rc;

/// The fleet and policy texts of one keystroke and of its undo.
struct Edit {
    name: &'static str,
    texts: [(String, String); 2],
}

fn edits(fleet: &str, policy: &str, n: usize) -> Vec<Edit> {
    let insert = |text: &str, after: &str, what: &str| {
        let at = text.find(after).map_or(text.len(), |i| i + after.len());
        let mut t = text.to_string();
        t.insert_str(at, what);
        t
    };
    let pair = |a: (String, String), b: (String, String)| [a, b];
    let base = (fleet.to_string(), policy.to_string());
    // The middle item's env label (a label the policy selects on).
    let middle = format!("name: member-{:06}", n / 2);
    let label_at = fleet.find(&middle).unwrap_or(0);
    let env_at = fleet[..label_at]
        .rfind("env: ")
        .map_or(0, |i| i + "env: ".len());
    let mut relabelled = fleet.to_string();
    relabelled.insert(env_at, 'x');
    // The same item's `labels:` key mistyped (`labelsx:`): an unknown field, an error.
    let labels_at = fleet[..label_at]
        .rfind("labels:")
        .map_or(0, |i| i + "labels".len());
    let mut mistyped = fleet.to_string();
    mistyped.insert(labels_at, 'x');
    vec![
        Edit {
            name: "policy-comment",
            texts: pair(
                (fleet.into(), format!("{policy}# a")),
                (fleet.into(), format!("{policy}# ab")),
            ),
        },
        Edit {
            name: "policy-numberOfClusters",
            texts: pair(
                base.clone(),
                (fleet.into(), insert(policy, "numberOfClusters: 5", "1")),
            ),
        },
        Edit {
            name: "fleet-blank-at-end",
            texts: pair((format!("{fleet} "), policy.into()), base.clone()),
        },
        Edit {
            name: "fleet-label-in-one-item",
            texts: pair((relabelled, policy.into()), base.clone()),
        },
        Edit {
            name: "fleet-key-typo-in-one-item",
            texts: pair((mistyped, policy.into()), base),
        },
    ]
}

fn bench(c: &mut Criterion) {
    // `cargo test --all-targets` runs each bench once, unoptimised: 500 clusters check it
    // works; 10,000 is what `cargo bench` measures.
    let n = if std::env::args().any(|a| a == "--bench") {
        10_000
    } else {
        500
    };
    let at = match fleet_policy::input::rfc3339::parse(dump::SNAPSHOT) {
        Ok(t) => t.to_utc(),
        Err(e) => panic!("{e}"),
    };
    let options = EvaluateOptions::at(at);
    let fleet = dump::members_yaml(n);
    let policy = dump::PLACEMENT_YAML;
    let mut group = c.benchmark_group("session");
    group.sample_size(20);
    for edit in edits(&fleet, policy, n) {
        // As the playground hands them over: each editor's text shared, and the same text
        // (the same `Rc`) for the editor not typed in.
        let [(f0, p0), (f1, p1)] = &edit.texts;
        let (f0, p0): (Rc<str>, Rc<str>) = (Rc::from(f0.as_str()), Rc::from(p0.as_str()));
        let f1 = if *f1 == *f0 {
            f0.clone()
        } else {
            Rc::from(f1.as_str())
        };
        let p1 = if *p1 == *p0 {
            p0.clone()
        } else {
            Rc::from(p1.as_str())
        };
        let texts = [
            [("fleet", f0), ("policy", p0)],
            [("fleet", f1), ("policy", p1)],
        ];
        let mut session = Session::new();
        session.update_shared(&texts[1]);
        let report = session.evaluate(&options);
        assert!(
            report.errors.is_empty() && report.placements.len() == 1,
            "{}: the dump places without errors",
            edit.name
        );
        let mut k = 0;
        group.bench_function(BenchmarkId::new(edit.name, n), |b| {
            b.iter(|| {
                k ^= 1;
                session.update_shared(&texts[k]);
                black_box(session.evaluate(&options))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
