//! `fleet_policy::evaluate` (every engine that applies) and `validate` on any text: validate
//! passes exactly when evaluate finds no error.
#![no_main]
use fleet_policy_fuzz::{located, options, serialises, source, timed};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(source) = source(data) else { return };
    let sources = [source];
    let opts = options();
    let e = timed(data.len(), || fleet_policy::evaluate(&sources, &opts));
    let v = fleet_policy::validate(&sources, &opts);
    assert_eq!(v.valid, e.errors.is_empty(), "{:?}", e.errors);
    located(&e.errors);
    located(&e.warnings);
    serialises(&e);
    serialises(&v);
});
