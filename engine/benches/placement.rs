//! Placement speed: YAML parse, and scheduling alone on parsed input, for fleets of 1k, 10k
//! and 50k clusters (random labels over 5 regions × 3 envs, 6 properties, 10% tainted, 2%
//! ineligible). PickN N=50 with 2 required terms, 3 preferred terms (2 with property
//! sorters) and 2 topology spread constraints (DoNotSchedule + ScheduleAnyway); PickAll with
//! the same required affinity.
//!
//! `PLACEMENT_DUMP=DIR` writes the 1k and 10k inputs as files (to diff the CLI's output
//! before and after a change); `PLACEMENT_EVAL_RUNS=N` (with `PLACEMENT_EVAL_POLICY=pick-n`
//! for PickN) runs `evaluate` N times on the 10k fleet and exits, for valgrind.

#[path = "gen/placement.rs"]
mod gen;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fleet_policy::input::{Input, Source};
use fleet_policy::placement;
use gen::{fleet_yaml, options, pick_all_yaml, pick_n_yaml};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let opts = options();
    if let Some(dir) = std::env::var_os("PLACEMENT_DUMP") {
        // The bench's inputs as files, to diff the CLI's output before and after a change.
        let dir = std::path::PathBuf::from(dir);
        for n in [1_000usize, 10_000] {
            for (label, policy) in [("pick-n", pick_n_yaml()), ("pick-all", pick_all_yaml())] {
                let path = dir.join(format!("{label}-{n}.yaml"));
                if let Err(e) = std::fs::write(&path, fleet_yaml(n) + &policy) {
                    eprintln!("{}: {e}", path.display());
                }
            }
        }
        return;
    }
    if let Some(runs) = std::env::var("PLACEMENT_EVAL_RUNS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        // `evaluate` alone, `runs` times, for valgrind (dhat, callgrind): the difference
        // between two run counts is the per-call cost, without criterion around it.
        let label = std::env::var("PLACEMENT_EVAL_POLICY").unwrap_or_default();
        let policy = if label == "pick-n" {
            pick_n_yaml()
        } else {
            pick_all_yaml()
        };
        let text = fleet_yaml(10_000) + &policy;
        let input = Input::parse(&[Source::new("fleet.yaml", text.as_str())]);
        let prepared = placement::prepare(&input, &opts);
        for _ in 0..runs {
            black_box(placement::evaluate(black_box(&prepared)));
        }
        return;
    }
    {
        // Where parse time goes, once, for the report.
        let text = fleet_yaml(10_000) + &pick_n_yaml();
        let t0 = std::time::Instant::now();
        let input = Input::parse(&[Source::new("fleet.yaml", text.as_str())]);
        let t1 = std::time::Instant::now();
        let prepared = placement::prepare(&input, &opts);
        let t2 = std::time::Instant::now();
        eprintln!(
            "10k: Input::parse {:?}, placement::prepare {:?}, {} diagnostics",
            t1 - t0,
            t2 - t1,
            prepared.diagnostics.len()
        );
        if std::env::var_os("PLACEMENT_PHASES").is_some() {
            let text = fleet_yaml(10_000) + &pick_all_yaml();
            let input = Input::parse(&[Source::new("fleet.yaml", text.as_str())]);
            let prepared = placement::prepare(&input, &opts);
            if let Some(p) = prepared.placements.first() {
                for _ in 0..3 {
                    let t0 = std::time::Instant::now();
                    let Ok(policy) = placement::compile(&p.placement, &prepared.fleet) else {
                        return;
                    };
                    let t1 = std::time::Instant::now();
                    let mut n = 0;
                    for i in 0..prepared.fleet.len() {
                        if policy.required.passes(&prepared.fleet, i).unwrap_or(false) {
                            n += 1;
                        }
                    }
                    let t2 = std::time::Instant::now();
                    let r = placement::schedule::run(&prepared.fleet, &policy, &[]);
                    let t3 = std::time::Instant::now();
                    drop(r);
                    let t4 = std::time::Instant::now();
                    eprintln!(
                        "compile {:?} passes {:?} ({n}) run {:?} drop {:?}",
                        t1 - t0,
                        t2 - t1,
                        t3 - t2,
                        t4 - t3
                    );
                }
            }
        }
    }
    let mut parse = c.benchmark_group("placement/parse");
    parse.sample_size(10);
    for n in [1_000usize, 10_000, 50_000] {
        let text = fleet_yaml(n) + &pick_n_yaml();
        parse.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| {
                let input = Input::parse(&[Source::new("fleet.yaml", text.as_str())]);
                black_box(placement::prepare(&input, &opts))
            })
        });
    }
    parse.finish();

    for (label, policy) in [("pick-n", pick_n_yaml()), ("pick-all", pick_all_yaml())] {
        let mut g = c.benchmark_group(format!("placement/schedule-{label}"));
        g.sample_size(20);
        for n in [1_000usize, 10_000, 50_000] {
            let text = fleet_yaml(n) + &policy;
            let input = Input::parse(&[Source::new("fleet.yaml", text.as_str())]);
            let prepared = placement::prepare(&input, &opts);
            let report = placement::evaluate(&prepared);
            let Some(p) = report.placements.first() else {
                eprintln!(
                    "{label} n={n}: no placement: {:?}",
                    report
                        .errors
                        .iter()
                        .take(3)
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                );
                continue;
            };
            eprintln!(
                "{label} n={n}: picked {}, notPicked {}, filtered {}, cycles {}, error {:?}",
                p.picked.len(),
                p.not_picked.len(),
                p.filtered.len(),
                p.cycles,
                p.cycle_error.as_ref().map(|e| &e.message)
            );
            g.bench_with_input(BenchmarkId::from_parameter(n), &prepared, |b, prepared| {
                b.iter(|| black_box(placement::evaluate(prepared)))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
