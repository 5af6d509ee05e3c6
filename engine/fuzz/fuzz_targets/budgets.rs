//! `fleet_policy::budgets` on any text.
#![no_main]
use fleet_policy_fuzz::{located, options, serialises, source, timed};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(source) = source(data) else { return };
    let sources = [source];
    let opts = options();
    let r = timed(data.len(), || {
        fleet_policy::budgets(&sources, &opts.budgets)
    });
    located(&r.errors);
    located(&r.warnings);
    serialises(&r);
});
