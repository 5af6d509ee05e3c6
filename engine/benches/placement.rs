//! Placement speed: YAML parse, and scheduling alone on parsed input, for fleets of 1k, 10k
//! and 50k clusters (random labels over 5 regions × 3 envs, 6 properties, 10% tainted, 2%
//! ineligible). PickN N=50 with 2 required terms, 3 preferred terms (2 with property
//! sorters) and 2 topology spread constraints (DoNotSchedule + ScheduleAnyway); PickAll with
//! the same required affinity.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fleet_policy::input::{Input, Source};
use fleet_policy::placement::{self, PlaceOptions};
use std::fmt::Write;
use std::hint::black_box;

const REGIONS: [&str; 5] = ["east", "west", "central", "north", "south"];
const ENVS: [&str; 3] = ["prod", "staging", "canary"];

/// A small deterministic generator (xorshift), so every run measures the same fleet.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn fleet_yaml(n: usize) -> String {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut y = String::with_capacity(n * 900);
    for i in 0..n {
        let region = REGIONS[rng.below(5) as usize];
        let env = ENVS[rng.below(3) as usize];
        let tainted = rng.below(10) == 0;
        let ineligible = rng.below(50) == 0;
        let heartbeat = if ineligible {
            "2025-12-31T00:00:00Z"
        } else {
            "2026-01-01T11:59:00Z"
        };
        let _ = write!(
            y,
            "apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\nmetadata:\n  name: member-{i:06}\n  labels: {{region: {region}, env: {env}, tier: t{}}}\nspec:\n",
            rng.below(4)
        );
        if tainted {
            let _ = writeln!(
                y,
                "  taints: [{{key: dedicated, value: team-{}, effect: NoSchedule}}]",
                rng.below(2)
            );
        }
        let _ = write!(
            y,
            "status:\n  properties:\n    kubernetes-fleet.io/node-count: {{value: \"{}\"}}\n    kubernetes.azure.com/per-cpu-core-cost: {{value: \"0.{:03}\"}}\n    test.only/energy-efficiency-rating: {{value: \"{}\"}}\n  resourceUsage:\n    allocatable: {{cpu: \"{}\", memory: {}Gi}}\n    available: {{cpu: \"{}\", memory: {}Gi}}\n  agentStatus:\n  - type: MemberAgent\n    lastReceivedHeartbeat: \"{heartbeat}\"\n    conditions:\n    - {{type: Joined, status: \"True\", lastTransitionTime: \"2025-12-01T00:00:00Z\", reason: Joined}}\n    - {{type: Healthy, status: \"True\", lastTransitionTime: \"2025-12-01T00:00:00Z\", reason: Healthy}}\n---\n",
            1 + rng.below(20),
            20 + rng.below(200),
            rng.below(101),
            8 + rng.below(120),
            16 + rng.below(480),
            rng.below(64),
            rng.below(256),
        );
    }
    y
}

const REQUIRED: &str = "
        requiredDuringSchedulingIgnoredDuringExecution:
          clusterSelectorTerms:
          - labelSelector:
              matchExpressions: [{key: env, operator: In, values: [prod, staging]}]
            propertySelector:
              matchExpressions: [{name: kubernetes-fleet.io/node-count, operator: Ge, values: [\"3\"]}]
          - labelSelector: {matchLabels: {env: canary}}
            propertySelector:
              matchExpressions: [{name: resources.kubernetes-fleet.io/available-cpu, operator: Gt, values: [\"4\"]}]";

fn pick_n_yaml() -> String {
    format!(
        "apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {{name: pick-n}}
spec:
  policy:
    placementType: PickN
    numberOfClusters: 50
    affinity:
      clusterAffinity:{REQUIRED}
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 30
          preference: {{labelSelector: {{matchLabels: {{region: east}}}}}}
        - weight: 50
          preference:
            propertySorter: {{name: kubernetes.azure.com/per-cpu-core-cost, sortOrder: Ascending}}
        - weight: 20
          preference:
            labelSelector: {{matchLabels: {{env: prod}}}}
            propertySorter: {{name: resources.kubernetes-fleet.io/available-memory, sortOrder: Descending}}
    topologySpreadConstraints:
    - {{maxSkew: 2, topologyKey: region, whenUnsatisfiable: DoNotSchedule}}
    - {{maxSkew: 1, topologyKey: env, whenUnsatisfiable: ScheduleAnyway}}
    tolerations:
    - {{key: dedicated, operator: Equal, value: team-0, effect: NoSchedule}}
"
    )
}

fn pick_all_yaml() -> String {
    format!(
        "apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {{name: pick-all}}
spec:
  policy:
    placementType: PickAll
    affinity:
      clusterAffinity:{REQUIRED}
    tolerations:
    - {{key: dedicated, operator: Equal, value: team-0, effect: NoSchedule}}
"
    )
}

fn options() -> PlaceOptions {
    let at = chrono::DateTime::parse_from_rfc3339("2026-01-01T12:00:00Z")
        .map(|t| t.to_utc())
        .unwrap_or_default();
    PlaceOptions::at(at)
}

fn bench(c: &mut Criterion) {
    let opts = options();
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
