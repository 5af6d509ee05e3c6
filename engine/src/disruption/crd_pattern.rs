//! The NodePool CRD's OpenAPI `pattern`s, each matched by a small hand-written matcher with the
//! API server's semantics (Go RE2 *search*: `^`/`$` anchor only where written, `$` = end of
//! text, `.` = any character but `\n`). Six fixed patterns, each a few lines: the tests
//! cross-check every matcher against the `regex` crate on exhaustive and random inputs.

/// A pattern of the NodePool CRD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrdPattern {
    /// `budgets[].nodes`.
    Nodes,
    /// `budgets[].schedule` (an unparenthesised alternation: a loose pre-filter).
    Schedule,
    /// `budgets[].duration`.
    BudgetDuration,
    /// `consolidateAfter` / `expireAfter` from v1.4.
    Nillable,
    /// `consolidateAfter` / `expireAfter` in v1.0–v1.3 (another unparenthesised alternation).
    NillableV1_0,
    /// `terminationGracePeriod`.
    TerminationGracePeriod,
}

impl CrdPattern {
    /// Every pattern.
    pub const ALL: [CrdPattern; 6] = [
        CrdPattern::Nodes,
        CrdPattern::Schedule,
        CrdPattern::BudgetDuration,
        CrdPattern::Nillable,
        CrdPattern::NillableV1_0,
        CrdPattern::TerminationGracePeriod,
    ];

    /// The pattern as the CRD writes it (quoted in messages).
    pub fn regex(self) -> &'static str {
        match self {
            CrdPattern::Nodes => r"^((100|[0-9]{1,2})%|[0-9]+)$",
            // Go's `\s` is [\t\n\f\r ]; the class is spelled out as the CRD does.
            CrdPattern::Schedule => {
                r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)[\t\n\f\r ](.+)[\t\n\f\r ](.+)[\t\n\f\r ](.+)[\t\n\f\r ](.+))$"
            }
            CrdPattern::BudgetDuration => r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$",
            CrdPattern::Nillable => r"^(([0-9]+(s|m|h))+|Never)$",
            CrdPattern::NillableV1_0 => r"^(([0-9]+(s|m|h))+)|(Never)$",
            CrdPattern::TerminationGracePeriod => r"^([0-9]+(s|m|h))+$",
        }
    }

    /// Whether `value` matches, as the API server's validation decides.
    pub fn matches(self, value: &str) -> bool {
        let v = value.as_bytes();
        match self {
            CrdPattern::Nodes => nodes(v),
            CrdPattern::Schedule => schedule(v),
            CrdPattern::BudgetDuration => budget_duration(v),
            CrdPattern::Nillable => v == b"Never" || units_run(v, b"smh") == Some(v.len()),
            CrdPattern::NillableV1_0 => units_run(v, b"smh").is_some() || v.ends_with(b"Never"),
            CrdPattern::TerminationGracePeriod => units_run(v, b"smh") == Some(v.len()),
        }
    }
}

/// How many ASCII digits `v` starts with.
fn digits(v: &[u8]) -> usize {
    v.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// `[0-9]+` then one of `units`: the length of that prefix of `v`, if it has one.
fn number_unit(v: &[u8], units: &[u8]) -> Option<usize> {
    let n = digits(v);
    let unit = v.get(n)?;
    (n > 0 && units.contains(unit)).then_some(n + 1)
}

/// The end of the longest prefix of `v` matching `([0-9]+[units])+`; `None` when not even one
/// repetition matches. (Digits are greedy and a unit is never a digit, so there is one parse.)
fn units_run(v: &[u8], units: &[u8]) -> Option<usize> {
    let mut end = number_unit(v, units)?;
    while let Some(n) = v.get(end..).and_then(|rest| number_unit(rest, units)) {
        end += n;
    }
    Some(end)
}

/// `^((100|[0-9]{1,2})%|[0-9]+)$`
fn nodes(v: &[u8]) -> bool {
    match v.split_last() {
        Some((b'%', n)) => n == b"100" || (matches!(n.len(), 1 | 2) && digits(n) == n.len()),
        _ => !v.is_empty() && digits(v) == v.len(),
    }
}

/// `^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`
fn budget_duration(v: &[u8]) -> bool {
    // The body always ends in h or m, so a value ending in "0s" can only be body + "0s".
    let body = v.strip_suffix(b"0s").unwrap_or(v);
    match number_unit(body, b"hm") {
        Some(n) if n == body.len() => true,
        Some(n) if body.get(n - 1) == Some(&b'h') => {
            body.get(n..).and_then(|rest| number_unit(rest, b"m")) == Some(body.len() - n)
        }
        _ => false,
    }
}

/// The schedule pattern: `^(@(annually|…|hourly))` (a prefix) or
/// `((.+)\s(.+)\s(.+)\s(.+)\s(.+))$` found anywhere before the end of the text.
fn schedule(v: &[u8]) -> bool {
    const MACROS: [&[u8]; 7] = [
        b"@annually",
        b"@yearly",
        b"@monthly",
        b"@weekly",
        b"@daily",
        b"@midnight",
        b"@hourly",
    ];
    MACROS.iter().any(|m| v.starts_with(m)) || five_fields_at_end(v)
}

/// `((.+)\s(.+)\s(.+)\s(.+)\s(.+))$` with search semantics, as a position-set automaton:
/// `field[k]` = inside the k-th `.+` with at least one character read, `after_sep[k]` = just
/// read the separator before field k. A match may start at any position.
fn five_fields_at_end(v: &[u8]) -> bool {
    let mut field = [false; 5];
    let mut after_sep = [false; 5];
    for &b in v {
        let dot = b != b'\n';
        let space = matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
        let mut next_field = [false; 5];
        let mut next_sep = [false; 5];
        for k in 0..5 {
            // A field starts at any position (k = 0) or after its separator, and goes on.
            let entered = if k == 0 { true } else { after_sep[k] };
            next_field[k] = dot && (entered || field[k]);
            if k > 0 {
                next_sep[k] = space && field[k - 1];
            }
        }
        field = next_field;
        after_sep = next_sep;
    }
    field[4]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    use CrdPattern::*;

    /// The reference: the `regex` crate in byte mode.
    fn reference(pattern: CrdPattern, value: &str) -> bool {
        regex::bytes::Regex::new(&format!("(?-u){}", pattern.regex()))
            .map(|r| r.is_match(value.as_bytes()))
            .unwrap_or(false)
    }

    /// Every string of up to `len` characters over `alphabet`.
    fn strings(alphabet: &[char], len: usize) -> Vec<String> {
        let mut out = vec![String::new()];
        let mut layer = vec![String::new()];
        for _ in 0..len {
            layer = layer
                .iter()
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            out.extend(layer.iter().cloned());
        }
        out
    }

    #[test]
    fn exhaustive_short_values_match_the_regex() {
        let alphabet = ['0', '1', '9', 'h', 'm', 's', '%', 'N', ' '];
        for pattern in CrdPattern::ALL {
            let regex = regex::bytes::Regex::new(&format!("(?-u){}", pattern.regex())).unwrap();
            for v in strings(&alphabet, 5) {
                assert_eq!(
                    pattern.matches(&v),
                    regex.is_match(v.as_bytes()),
                    "{pattern:?} on {v:?}"
                );
            }
        }
    }

    #[test]
    fn documented_quirks() {
        for (v, ok) in [
            ("@dailyx", true),
            ("0 0 * * 7", true),
            ("@every 1h", false),
            ("@DAILY", false),
            ("*", false),
            ("* * * * ", false),
            ("@every 1h      ", true),
            ("x\n0 0 * * *", true),
            ("0 0 *\n* *", true),
            ("0 0\n\n* * *", false),
        ] {
            assert_eq!(Schedule.matches(v), ok, "{v:?}");
            assert_eq!(reference(Schedule, v), ok, "{v:?}");
        }
        assert!(NillableV1_0.matches("FooNever"));
        assert!(NillableV1_0.matches("1hfoo"));
        assert!(!Nillable.matches("FooNever"));
        for (v, ok) in [
            ("100%", true),
            ("101%", false),
            ("07%", true),
            ("007", true),
            ("%", false),
        ] {
            assert_eq!(Nodes.matches(v), ok, "{v:?}");
        }
        for (v, ok) in [
            ("1h30m", true),
            ("1h30m0s", true),
            ("10m0s", true),
            ("100s", false),
            ("1h0s", true),
            ("0s", false),
            ("1m30m", false),
        ] {
            assert_eq!(BudgetDuration.matches(v), ok, "{v:?}");
        }
    }

    fn value() -> impl Strategy<Value = String> {
        let chars = prop::sample::select(vec![
            '0', '1', '5', '9', 'h', 'm', 's', '%', '@', '*', '/', '-', ',', 'N', 'e', 'v', 'r',
            'd', 'a', 'i', 'l', 'y', ' ', '\t', '\n', '\x0b', '\x0c', '\r', 'é',
        ]);
        prop::collection::vec(chars, 0..24).prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #[test]
        fn random_values_match_the_regex(v in value()) {
            for pattern in CrdPattern::ALL {
                prop_assert_eq!(pattern.matches(&v), reference(pattern, &v), "{:?} on {:?}", pattern, v);
            }
        }

        #[test]
        fn schedule_like_values_match_the_regex(
            parts in prop::collection::vec(prop::sample::select(vec!["0", "*", "9", "1-5", "@daily", "@weekly", "", "x"]), 0..7),
            seps in prop::collection::vec(prop::sample::select(vec![" ", "\t", "\n", "  ", "\x0b", "\r\n"]), 7),
        ) {
            let mut v = String::new();
            for (i, p) in parts.iter().enumerate() {
                v.push_str(p);
                v.push_str(seps[i]);
            }
            let v = v.trim_end_matches(' ');
            prop_assert_eq!(Schedule.matches(v), reference(Schedule, v), "{:?}", v);
        }
    }
}
