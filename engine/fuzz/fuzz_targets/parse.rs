//! Reading: bytes → text (UTF-8 / UTF-16) → documents and diagnostics, and what the front
//! ends ask of the input (its snapshot instant, its notices).
#![no_main]
use fleet_policy::Input;
use fleet_policy_fuzz::{located, source, timed};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(source) = source(data) else { return };
    let input = timed(data.len(), || Input::parse(std::slice::from_ref(&source)));
    located(&input.diagnostics);
    let _ = input.snapshot();
    let _ = input.notices();
    // The playground reads its two editors apart and joins them: the same as one read.
    let half = source.text.len() / 2;
    let cut = (0..=half)
        .rev()
        .find(|&i| source.text.is_char_boundary(i))
        .unwrap_or(0);
    let (a, b) = source.text.split_at(cut);
    let mut joined = Input::parse(&[fleet_policy::Source::new("a", a)]);
    joined.append(Input::parse(&[fleet_policy::Source::new("b", b)]));
    located(&joined.diagnostics);
});
