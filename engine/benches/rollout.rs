//! Rollout speed: an Azure update run over 5,000 members in 3 stages × 10 groups with weekly
//! maintenance windows, and a KubeFleet staged run over 5,000 clusters in 5 stages. The input
//! is parsed once outside the measurement; "plan+simulate" is what `rollout::rollout` does.
//!
//! `ROLLOUT_DUMP=DIR` writes both inputs as files (to diff the CLI's output before and after a
//! change); `ROLLOUT_RUNS=N` with `ROLLOUT_INPUT=azure|staged` runs `rollout` N times on that
//! input and exits, for valgrind (the difference between two run counts is the per-call cost).

#[path = "gen/rollout.rs"]
mod gen;

use criterion::{criterion_group, Criterion};
use fleet_policy::input::{Input, Source};
use fleet_policy::rollout;
use gen::{azure_fleet, options, staged_fleet, DAYS};
use std::hint::black_box;

/// The modes without criterion (see the module doc); whether one ran.
fn tool_modes() -> bool {
    if let Some(dir) = std::env::var_os("ROLLOUT_DUMP") {
        let dir = std::path::PathBuf::from(dir);
        for (name, text) in [
            ("azure.yaml", azure_fleet()),
            ("staged.yaml", staged_fleet()),
        ] {
            let path = dir.join(name);
            if let Err(e) = std::fs::write(&path, text) {
                eprintln!("{}: {e}", path.display());
            }
        }
        return true;
    }
    let Some(runs) = std::env::var("ROLLOUT_RUNS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return false;
    };
    let (name, text, opts) = if std::env::var("ROLLOUT_INPUT").as_deref() == Ok("staged") {
        (
            "staged.yaml",
            staged_fleet(),
            options(", \"approveAll\": true"),
        )
    } else {
        ("azure.yaml", azure_fleet(), options(""))
    };
    let input = Input::parse(&[Source::new(name, text)]);
    let placed =
        fleet_policy::placement::place(&input, &fleet_policy::PlaceOptions::at(opts.at)).placements;
    for _ in 0..runs {
        black_box(rollout::rollout(black_box(&input), &opts, &placed));
    }
    true
}

fn bench(c: &mut Criterion) {
    let az = Input::parse(&[Source::new("azure.yaml", azure_fleet())]);
    assert!(az.diagnostics.is_empty(), "{:?}", az.diagnostics.first());
    let az_opts = options("");
    let r = rollout::rollout(&az, &az_opts, &[]);
    assert!(r.errors.is_empty(), "{:?}", r.errors.first());
    assert_eq!(r.rollouts.len(), 1);
    let members: usize = r.rollouts[0]
        .stages
        .iter()
        .flat_map(|s| &s.groups)
        .map(|g| g.members.len())
        .sum();
    assert_eq!(members, 5000);
    eprintln!(
        "azure run: {:?}, ends {:?}",
        r.rollouts[0].state, r.rollouts[0].end
    );
    c.bench_function(
        "azure run 5000 members 3x10 groups weekly windows (plan+simulate)",
        |b| b.iter(|| rollout::rollout(&az, &az_opts, &[])),
    );

    let kf = Input::parse(&[Source::new("staged.yaml", staged_fleet())]);
    assert!(kf.diagnostics.is_empty(), "{:?}", kf.diagnostics.first());
    let kf_opts = options(", \"approveAll\": true");
    let kf_placed =
        fleet_policy::placement::place(&kf, &fleet_policy::PlaceOptions::at(kf_opts.at)).placements;
    let r = rollout::rollout(&kf, &kf_opts, &kf_placed);
    assert!(r.errors.is_empty(), "{:?}", r.errors.first());
    let ro = r
        .rollouts
        .iter()
        .find(|x| x.kind == "ClusterStagedUpdateRun");
    eprintln!(
        "staged run: {:?}, ends {:?}",
        ro.map(|x| x.state),
        ro.and_then(|x| x.end)
    );
    c.bench_function(
        "kubefleet staged run 5000 clusters 5 stages (plan+simulate)",
        |b| b.iter(|| rollout::rollout(&kf, &kf_opts, &kf_placed)),
    );
}

/// The engine without YAML decoding: window expansion, ordering and the virtual clock.
fn bench_core(c: &mut Criterion) {
    use fleet_policy::model::rollout::{MaintenanceWindow, Schedule, WeeklySchedule};
    use fleet_policy::rollout::maintenance;
    use fleet_policy::rollout::options::AzureOptions;
    use fleet_policy::rollout::simulate::{simulate, SimGroup, SimMember, SimPlan, SimStage};
    use fleet_policy::rollout::staged::{execute, ExecParams, ExecStage};
    let at = match chrono::DateTime::parse_from_rfc3339("2025-06-02T00:00:00Z") {
        Ok(t) => t.to_utc(),
        Err(e) => panic!("{e}"),
    };
    let start = at.timestamp();
    let horizon = start + 366 * 86_400;
    c.bench_function(
        "azure 5000 members: expand windows + order + simulate (no YAML decoding)",
        |b| {
            b.iter(|| {
                let mut plan = SimPlan::default();
                for day in DAYS {
                    for h in 0..24 {
                        let w = MaintenanceWindow {
                            schedule: Schedule {
                                weekly: Some(WeeklySchedule {
                                    interval_weeks: 1,
                                    day_of_week: day.into(),
                                }),
                                ..Schedule::default()
                            },
                            duration_hours: 8,
                            start_time: format!("{h:02}:00"),
                            ..MaintenanceWindow::default()
                        };
                        let list = match maintenance::compile(&w) {
                            Ok(cw) => maintenance::normalise(cw.expand(
                                at,
                                at + chrono::Duration::days(366),
                                at.date_naive(),
                            )),
                            Err(e) => panic!("{e:?}"),
                        };
                        plan.windows.push(list);
                    }
                }
                let mut groups: Vec<Vec<usize>> = vec![Vec::new(); 30];
                for i in 0..5000usize {
                    groups[(i % 3) * 10 + (i / 3) % 10].push(plan.members.len());
                    plan.members.push(SimMember {
                        name: format!("aks-{i:04}").into(),
                        windows: Some((i % 7) * 24 + (i * 5) % 24),
                        duration: 3600,
                        skip: None,
                        reject: None,
                    });
                }
                for s in 0..3 {
                    plan.stages.push(SimStage {
                        name: format!("stage{s}").into(),
                        wait_seconds: 3600,
                        groups: (0..10)
                            .map(|g| SimGroup {
                                name: format!("g{s}-{g}").into(),
                                concurrency: 4,
                                members: groups[s * 10 + g].clone(),
                            })
                            .collect(),
                    });
                }
                simulate(&plan, start, &[], &AzureOptions::default(), horizon)
            })
        },
    );
    let stages: Vec<ExecStage> = (0..5)
        .map(|s| ExecStage {
            name: format!("ring{s}").into(),
            clusters: (0..1000)
                .map(|i| format!("member-{:04}", i * 5 + s).into())
                .collect(),
            concurrency: 100,
            before_approval: true,
            after_wait: Some(3600),
            after_approval: false,
            deletion: false,
        })
        .collect();
    let dur = |_: &str| 120i64;
    c.bench_function(
        "staged 5000 clusters 5 stages: execute (no YAML decoding)",
        |b| {
            b.iter(|| {
                execute(
                    &stages,
                    &ExecParams {
                        run_name: "run",
                        start,
                        duration: &dur,
                        events: &[],
                        approve_all: true,
                        stuck_threshold: 300,
                        horizon_end: horizon,
                    },
                )
            })
        },
    );
}

criterion_group!(benches, bench, bench_core);
fn main() {
    if tool_modes() {
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
