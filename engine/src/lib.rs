//! Fleet Policy: KubeFleet placement, Karpenter disruption budgets and fleet rollouts,
//! evaluated offline from the YAML people write.
//!
//! Data flows one way: text → documents with spans ([`input`]) → typed manifests
//! ([`model`]) → a domain engine ([`placement`], [`disruption`], [`rollout`]) → a result with
//! explanations ([`report`]) → rendered by the CLI, the wasm API or the playground (JSON
//! through serde_json).
//!
//! ```
//! use fleet_policy::{place, PlaceOptions, Source};
//! let yaml = "\
//! apiVersion: cluster.kubernetes-fleet.io/v1
//! kind: MemberCluster
//! metadata: {name: east, labels: {region: east}}
//! ---
//! apiVersion: placement.kubernetes-fleet.io/v1
//! kind: ClusterResourcePlacement
//! metadata: {name: web}
//! spec:
//!   policy:
//!     placementType: PickAll
//! ";
//! let at = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap().to_utc();
//! let report = place(&[Source::new("fleet.yaml", yaml)], &PlaceOptions::at(at));
//! assert_eq!(&*report.placements[0].picked[0].cluster, "east");
//! ```

// The wasm modules are built for size (opt-level "z"), which also keeps core's small `#[inline]`
// helpers (slicing, comparing, `CompactString::as_str`) out of line. `optimize_hot` (set by the
// small wasm builds, which already run with RUSTC_BOOTSTRAP for -Zbuild-std) marks the input
// reader's hot functions `optimize(speed)`, so those helpers are inlined there: warm `place()` on
// the 10,000-cluster dumps is 22% faster (YAML) and 14% faster (JSON). Native builds are at
// opt-level 3, where the attribute changes nothing.
#![cfg_attr(optimize_hot, feature(optimize_attribute))]
#![forbid(unsafe_code)]
// Diagnostics are the error currency of the engine; boxing them everywhere buys nothing.
#![allow(clippy::result_large_err)]

pub mod diff;
pub mod disruption;
pub mod input;
pub mod model;
pub mod notice;
pub mod parallel;
pub mod placement;
pub mod report;
pub mod rollout;
pub mod selectors;
pub mod session;
pub mod sorted_map;
pub mod sources;
pub mod testing;
pub mod text;
#[cfg(all(target_arch = "wasm32", feature = "wasm-api"))]
pub mod wasm;

pub use disruption::{BudgetOptions, BudgetReport};
pub use input::{Diagnostic, Input, Severity, Source, Span};
pub use placement::{PlaceOptions, PlacementReport};
pub use report::{EvaluateOptions, EvaluateReport, ValidateReport};
pub use rollout::{RolloutOptions, RolloutReport};

/// The engine version (also written into playground share links).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Schedules every ClusterResourcePlacement in the sources against the MemberClusters in them.
pub fn place(sources: &[Source], options: &PlaceOptions) -> PlacementReport {
    place_input(&Input::parse(sources), options)
}

/// [`place`] on input already read.
pub fn place_input(input: &Input, options: &PlaceOptions) -> PlacementReport {
    let mut r = placement::place(input, options);
    report::prepend_input(input, &mut r.errors, &mut r.warnings, &mut r.notices);
    r
}

/// Evaluates the disruption budgets, windows and candidates of every NodePool in the sources.
pub fn budgets(sources: &[Source], options: &BudgetOptions) -> BudgetReport {
    budgets_input(&Input::parse(sources), options)
}

/// [`budgets`] on input already read.
pub fn budgets_input(input: &Input, options: &BudgetOptions) -> BudgetReport {
    let mut r = disruption::budgets(input, options);
    report::prepend_input(input, &mut r.errors, &mut r.warnings, &mut r.notices);
    r
}

/// Plans and simulates every rollout (update run, staged run, rolling update) in the sources.
/// KubeFleet rollouts start from the placement decision for the same input (placement →
/// bindings → rollout), scheduled here at the rollout's `at`.
pub fn rollout(sources: &[Source], options: &RolloutOptions) -> RolloutReport {
    rollout_input(&Input::parse(sources), options)
}

/// [`rollout`] on input already read.
pub fn rollout_input(input: &Input, options: &RolloutOptions) -> RolloutReport {
    let placed = placement::place(input, &PlaceOptions::at(options.at));
    let mut r = rollout::rollout(input, options, &placed.placements);
    r.notices = placed.notices;
    report::prepend_input(input, &mut r.errors, &mut r.warnings, &mut r.notices);
    r
}

/// Detects what the sources hold and runs every engine that applies.
pub fn evaluate(sources: &[Source], options: &EvaluateOptions) -> EvaluateReport {
    report::evaluate(&Input::parse(sources), options)
}

/// [`evaluate`] on input already read, so a caller can re-read only the source that changed
/// (the playground does, per editor).
pub fn evaluate_input(input: &Input, options: &EvaluateOptions) -> EvaluateReport {
    report::evaluate(input, options)
}

/// Checks the sources without evaluating: YAML, kinds, fields, and each engine's validation.
pub fn validate(sources: &[Source], options: &EvaluateOptions) -> ValidateReport {
    validate_input(&Input::parse(sources), options)
}

/// [`validate`] on input already read.
pub fn validate_input(input: &Input, options: &EvaluateOptions) -> ValidateReport {
    let r = report::evaluate(input, options);
    ValidateReport {
        valid: r.errors.is_empty(),
        errors: r.errors,
        warnings: r.warnings,
        notices: r.notices,
    }
}

/// The value of `at` that means "when the input was captured" ([`Input::snapshot`]).
pub const AT_SNAPSHOT: &str = "snapshot";
