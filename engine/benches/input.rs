//! Input speed and memory on realistic dumps: `kubectl get memberclusters -o yaml` and
//! `-o json` Lists of 1k, 10k and 50k clusters (about 2.6 KB per cluster in YAML, see
//! `gen/dump.rs`), read by `Input::parse` (and, apart, freeing what it read), and the whole
//! `place` path (read + schedule + report) on them. Criterion prints MB/s; the peak heap of
//! one read (counted by the global allocator below) is printed as bytes and as a multiple of
//! the input size.
//!
//! `INPUT_DUMP=DIR` writes the 10k and 50k dumps and the placement as files (for the CLI's
//! end-to-end timing) and exits.

#[path = "gen/dump.rs"]
mod dump;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fleet_policy::input::{Input, Source};
use peak_alloc::PeakAlloc;
use std::hint::black_box;

/// The system allocator, counting live and peak heap bytes (for the memory figure).
#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

/// The peak heap of one call of `f`, above what was live before it (the input text).
fn peak_of<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = ALLOC.current_usage();
    ALLOC.reset_peak_usage();
    let out = f();
    (ALLOC.peak_usage() - base, out)
}

fn bench(c: &mut Criterion) {
    // `cargo test --all-targets` runs each bench once, unoptimised: the 1k dump is enough to
    // check it works; the measured sizes are for `cargo bench`.
    let measuring = std::env::args().any(|a| a == "--bench");
    let sizes: &[usize] = if measuring {
        &[1_000, 10_000, 50_000]
    } else {
        &[1_000]
    };
    if let Some(dir) = std::env::var_os("INPUT_DUMP") {
        let dir = std::path::PathBuf::from(dir);
        let write = |name: String, text: &str| {
            let path = dir.join(name);
            if let Err(e) = std::fs::write(&path, text) {
                eprintln!("{}: {e}", path.display());
            }
        };
        for n in [10_000, 50_000] {
            write(format!("members-{n}.yaml"), &dump::members_yaml(n));
            write(format!("members-{n}.json"), &dump::members_json(n));
        }
        write("placement.yaml".into(), dump::PLACEMENT_YAML);
        return;
    }
    let at = match fleet_policy::input::rfc3339::parse(dump::SNAPSHOT) {
        Ok(t) => t.to_utc(),
        Err(e) => panic!("{e}"),
    };
    let opts = fleet_policy::placement::PlaceOptions::at(at);
    let mut group = c.benchmark_group("input");
    group.sample_size(10);
    for &n in sizes {
        for (format, text) in [
            ("yaml", dump::members_yaml(n)),
            ("json", dump::members_json(n)),
        ] {
            let sources = [
                Source::new(format!("members.{format}"), text.as_str()),
                Source::new("placement.yaml", dump::PLACEMENT_YAML),
            ];
            let base = ALLOC.current_usage();
            let (peak, input) = peak_of(|| Input::parse(&sources));
            assert!(
                !input.has_errors(),
                "the {format} dump reads without errors"
            );
            let kept = ALLOC.current_usage() - base;
            let (place_peak, _) = peak_of(|| fleet_policy::placement::place(&input, &opts));
            drop(input);
            println!(
                "input/{format}/{n}: {:.1} MB in, peak heap {:.1} MB = {:.2}× the input \
                 ({:.1} MB kept after the read; placing adds {:.1} MB at its peak)",
                mb(text.len()),
                mb(peak),
                peak as f64 / text.len() as f64,
                mb(kept),
                mb(place_peak),
            );
            group.throughput(Throughput::Bytes(text.len() as u64));
            // Reading, and apart freeing what was read: a caller that reads again frees the
            // last input (the CLI does not free it).
            group.bench_with_input(
                BenchmarkId::new(format!("parse/{format}"), n),
                &sources,
                |b, s| b.iter_with_large_drop(|| Input::parse(black_box(s))),
            );
            group.bench_with_input(
                BenchmarkId::new(format!("drop/{format}"), n),
                &sources,
                |b, s| b.iter_batched(|| Input::parse(s), drop, criterion::BatchSize::PerIteration),
            );
            group.bench_with_input(
                BenchmarkId::new(format!("place/{format}"), n),
                &sources,
                |b, s| {
                    b.iter(|| {
                        let input = Input::parse(black_box(s));
                        black_box(fleet_policy::placement::place(&input, &opts))
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
