//! The option readers (what `--set`, the npm API and the playground pass): any JSON object as
//! the options of each engine, and, when accepted, an evaluation of the examples with them.
#![no_main]
use fleet_policy::report::{nest_dotted, options_from_value, EvaluateOptions};
use fleet_policy::{BudgetOptions, PlaceOptions, RolloutOptions, Source};
use fleet_policy_fuzz::{located, serialises, timed};
use libfuzzer_sys::fuzz_target;

/// A rollout with stages, groups and waits, a placement, and budgets: inputs every option
/// can act on.
const INPUT: [&str; 3] = [
    include_str!("../../../static/examples/azure-update-run.yaml"),
    include_str!("../../../static/examples/kubefleet-staged-run.yaml"),
    include_str!("../../../static/examples/budget-candidates.yaml"),
];

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let _ = nest_dotted(&value);
    let _ = options_from_value::<PlaceOptions>(&value);
    let _ = options_from_value::<BudgetOptions>(&value);
    let _ = options_from_value::<RolloutOptions>(&value);
    let Ok(opts) = EvaluateOptions::from_value(&value) else {
        return;
    };
    for (i, text) in INPUT.iter().enumerate() {
        let sources = [Source::new(format!("example-{i}.yaml"), *text)];
        let r = timed(data.len(), || fleet_policy::evaluate(&sources, &opts));
        located(&r.errors);
        located(&r.warnings);
        serialises(&r);
    }
});
