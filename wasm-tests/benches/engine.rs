//! The engine benchmarks again, compiled to wasm and run under Node by wasm-bindgen-test's
//! criterion port (`make bench-wasm`): the same generated inputs as the native criterion benches
//! (`engine/benches/gen/`), the same phases (YAML parse + decode, then the engine alone on
//! parsed input), so native and wasm figures compare one to one.
#![cfg(target_arch = "wasm32")]

#[path = "../../engine/benches/gen/disruption.rs"]
mod disruption_gen;
#[path = "../../engine/benches/gen/placement.rs"]
mod placement_gen;
#[path = "../../engine/benches/gen/rollout.rs"]
mod rollout_gen;

use fleet_policy::disruption::budget::RuntimeBudget;
use fleet_policy::disruption::{self, timeline, BudgetOptions};
use fleet_policy::input::{Input, Source};
use fleet_policy::{placement, rollout};
use std::hint::black_box;
use std::time::Duration;
use wasm_bindgen_test::{wasm_bindgen_bench, Criterion};

/// Fewer, longer samples than the default: one iteration of the big inputs takes long.
fn configure(c: &mut Criterion, samples: usize) {
    *c = std::mem::take(c)
        .sample_size(samples)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
}

#[wasm_bindgen_bench]
fn placement_parse(c: &mut Criterion) {
    configure(c, 10);
    let opts = placement_gen::options();
    for n in [1_000usize, 10_000] {
        let text = placement_gen::fleet_yaml(n) + &placement_gen::pick_n_yaml();
        c.bench_function(&format!("placement/parse/{n}"), |b| {
            b.iter(|| {
                let input = Input::parse(&[Source::new("fleet.yaml", text.as_str())]);
                black_box(placement::prepare(&input, &opts))
            })
        });
    }
}

#[wasm_bindgen_bench]
fn placement_schedule(c: &mut Criterion) {
    configure(c, 20);
    let opts = placement_gen::options();
    for (label, policy) in [
        ("pick-n", placement_gen::pick_n_yaml()),
        ("pick-all", placement_gen::pick_all_yaml()),
    ] {
        for n in [1_000usize, 10_000, 50_000] {
            let text = placement_gen::fleet_yaml(n) + &policy;
            let input = Input::parse(&[Source::new("fleet.yaml", text.as_str())]);
            let prepared = placement::prepare(&input, &opts);
            drop(input);
            c.bench_function(&format!("placement/schedule-{label}/{n}"), |b| {
                b.iter(|| black_box(placement::evaluate(&prepared)))
            });
        }
    }
}

#[wasm_bindgen_bench]
fn disruption_budgets(c: &mut Criterion) {
    configure(c, 20);
    let input = Input::parse(&[Source::new("fleet.yaml", disruption_gen::fleet(5_000, 10))]);
    let prepared = disruption::prepare(&input);
    let opts = BudgetOptions::at(disruption_gen::at());
    c.bench_function(
        "budgets: 10 budgets (5 cron), 5,000 nodes, 50,000 pods, one instant",
        |b| b.iter(|| black_box(prepared.evaluate(&opts))),
    );
    let scheduled: Vec<RuntimeBudget> = disruption_gen::SCHEDULED
        .iter()
        .map(|(n, s, d)| RuntimeBudget::new(Some(n), Some(s), Some(d), None))
        .collect();
    let at = disruption_gen::at();
    c.bench_function("timeline: 7 days, 10 scheduled budgets", |b| {
        b.iter(|| {
            black_box(timeline::timeline(
                &scheduled,
                at,
                at + chrono::Duration::days(7),
                100,
                2,
            ))
        })
    });
}

#[wasm_bindgen_bench]
fn rollout_runs(c: &mut Criterion) {
    configure(c, 20);
    let az = Input::parse(&[Source::new("azure.yaml", rollout_gen::azure_fleet())]);
    let az_opts = rollout_gen::options("");
    c.bench_function(
        "azure run 5000 members 3x10 groups weekly windows (plan+simulate)",
        |b| b.iter(|| black_box(rollout::rollout(&az, &az_opts, &[]))),
    );
    let kf = Input::parse(&[Source::new("staged.yaml", rollout_gen::staged_fleet())]);
    let kf_opts = rollout_gen::options(", \"approveAll\": true");
    let kf_placed =
        fleet_policy::placement::place(&kf, &fleet_policy::PlaceOptions::at(kf_opts.at)).placements;
    c.bench_function(
        "kubefleet staged run 5000 clusters 5 stages (plan+simulate)",
        |b| b.iter(|| black_box(rollout::rollout(&kf, &kf_opts, &kf_placed))),
    );
}
