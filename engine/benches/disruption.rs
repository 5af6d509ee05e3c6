//! Disruption engine speed: one NodePool with 10 budgets (5 with cron windows) over 5,000
//! nodes and 50,000 pods at one instant, and a 7-day timeline of 10 scheduled budgets.

#[path = "gen/disruption.rs"]
mod gen;

use chrono::Duration;
use criterion::{criterion_group, criterion_main, Criterion};
use fleet_policy::disruption::budget::RuntimeBudget;
use fleet_policy::disruption::{prepare, timeline, BudgetOptions};
use fleet_policy::{Input, Source};
use gen::{at, fleet};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    // Reading and decoding the YAML is input handling, done once; the bench measures the
    // evaluation of the decoded fleet at one instant.
    let input = Input::parse(&[Source::new("fleet.yaml", fleet(5_000, 10))]);
    let prepared = prepare(&input);
    let opts = BudgetOptions::at(at());
    let r = prepared.evaluate(&opts);
    assert_eq!(r.node_pools.len(), 1);
    assert_eq!(r.node_pools[0].nodes.total, 5_000);
    c.bench_function(
        "budgets: 10 budgets (5 cron), 5,000 nodes, 50,000 pods, one instant",
        |b| b.iter(|| black_box(black_box(&prepared).evaluate(&opts))),
    );

    let scheduled: Vec<RuntimeBudget> = gen::SCHEDULED
        .iter()
        .map(|(n, s, d)| RuntimeBudget::new(Some(n), Some(s), Some(d), None))
        .collect();
    c.bench_function("timeline: 7 days, 10 scheduled budgets", |b| {
        b.iter(|| {
            black_box(timeline::timeline(
                black_box(&scheduled),
                at(),
                at() + Duration::days(7),
                100,
                2,
            ))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
