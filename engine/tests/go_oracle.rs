//! Differential test against the real Go libraries the reference systems run: robfig/cron v3
//! (Karpenter's budget schedules), `time.ParseDuration`, `time.Parse(time.RFC3339)`,
//! `strconv.ParseFloat` and sigs.k8s.io/yaml (go-yaml v2 typing). The Go program in
//! `go_oracle/main.go` is built from Debian's packages (`.ci/setup.sh` installs them) and
//! answers the same generated inputs as the engine; every answer must agree.
//!
//! `ORACLE_CASES` sets the number of inputs (default 100,000; `make oracle` runs more) and
//! `ORACLE_SEED` the generator's seed. Without a Go toolchain the test says so and passes,
//! except under CI (`CI` set), where setup installs Go and its absence is a failure.

use chrono::{DateTime, Utc};
use fleet_policy::disruption::schedule::CronSchedule;
use fleet_policy::input::duration::GoDuration;
use fleet_policy::input::node::{resolve, Resolved};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

/// splitmix64: a fixed, seedable input stream (the same seed gives the same inputs).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    fn digits_between(&mut self, lo: i64, hi: i64) -> String {
        let n = self.range(lo, hi) as usize;
        self.digits(n)
    }
    fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }
}

// ------------------------------------------------------------------------------------------
// Generators: mostly near-valid texts, so that both acceptance and each rejection path of the
// Go code are reached.

const SPACES: &[&str] = &[
    " ", " ", " ", " ", "  ", "\t", "\u{a0}", "\u{85}", "\u{2003}",
];
const MONTH_NAMES: &[&str] = &[
    "jan",
    "FEB",
    "Mar",
    "apr",
    "MAY",
    "jun",
    "JUL",
    "aug",
    "SEP",
    "oct",
    "Nov",
    "DEC",
    "janu",
    "ja",
    "DEC\u{130}",
    "\u{212a}",
];
const DOW_NAMES: &[&str] = &[
    "sun",
    "MON",
    "Tue",
    "wed",
    "THU",
    "fri",
    "SAT",
    "FR\u{130}",
    "S\u{212a}T",
    "\u{17f}un",
    "sunday",
    "mo",
];

fn cron_number(r: &mut Rng, lo: i64, hi: i64) -> String {
    match r.below(20) {
        0 => format!("0{}", r.range(lo, hi)),
        1 => r.range(hi + 1, hi + 5).to_string(),
        2 => "-1".into(),
        3 => r.digits(20),
        4 => format!("+{}", r.range(lo, hi)),
        5 => "".into(),
        _ => r.range(lo, hi).to_string(),
    }
}

fn cron_item(r: &mut Rng, lo: i64, hi: i64, names: &[&str]) -> String {
    let base = match r.below(12) {
        0 | 1 => "*".to_string(),
        2 => "?".to_string(),
        3 | 4 => format!("{}-{}", cron_number(r, lo, hi), cron_number(r, lo, hi)),
        5 if !names.is_empty() => r.pick(names).to_string(),
        6 if !names.is_empty() => format!("{}-{}", r.pick(names), r.pick(names)),
        7 => format!("{}-", cron_number(r, lo, hi)),
        _ => cron_number(r, lo, hi),
    };
    if r.chance(25) {
        let step = match r.below(6) {
            0 => "0".to_string(),
            1 => "".to_string(),
            2 => r.range(hi, hi + 3).to_string(),
            _ => r.range(1, 15).to_string(),
        };
        let extra = if r.chance(5) { "/2" } else { "" };
        format!("{base}/{step}{extra}")
    } else {
        base
    }
}

fn cron_field(r: &mut Rng, lo: i64, hi: i64, names: &[&str]) -> String {
    let n = if r.chance(75) {
        1
    } else {
        r.range(2, 4) as usize
    };
    (0..n)
        .map(|_| cron_item(r, lo, hi, names))
        .collect::<Vec<_>>()
        .join(",")
}

fn cron_spec(r: &mut Rng) -> String {
    if r.chance(8) {
        let d = r.pick(&[
            "@yearly",
            "@annually",
            "@monthly",
            "@weekly",
            "@daily",
            "@midnight",
            "@hourly",
            "@every 1h30m",
            "@every 90s",
            "@every 0.5s",
            "@every -1m",
            "@every 1d",
            "@every ",
            "@reboot",
            "@Yearly",
            "@every 1h ",
            "@daily ",
        ]);
        return if r.chance(20) {
            format!(" {d}")
        } else {
            d.to_string()
        };
    }
    let bounds: [(i64, i64, &[&str]); 5] = [
        (0, 59, &[]),
        (0, 23, &[]),
        (1, 31, &[]),
        (1, 12, MONTH_NAMES),
        (0, 6, DOW_NAMES),
    ];
    let mut fields: Vec<String> = bounds
        .iter()
        .map(|(lo, hi, names)| {
            // Plain values dominate real schedules; they also keep the firing checks busy.
            if r.chance(40) {
                "*".to_string()
            } else {
                cron_field(r, *lo, *hi, names)
            }
        })
        .collect();
    if r.chance(4) {
        fields.pop();
    } else if r.chance(4) {
        fields.push("*".into());
    }
    let mut s = String::new();
    if r.chance(3) {
        s.push_str(r.pick(SPACES));
    }
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            s.push_str(if r.chance(90) { " " } else { r.pick(SPACES) });
        }
        s.push_str(f);
    }
    if r.chance(3) {
        s.push_str(r.pick(SPACES));
    }
    s
}

/// An instant as "unixSeconds.nanos": mostly this century, some far years, some on minutes.
fn instant(r: &mut Rng) -> (i64, u32) {
    let secs = match r.below(10) {
        0 => r.range(-30_610_224_000, 7_258_118_400), // 1000..2200
        1 => r.range(4_102_444_800 - 86_400 * 400, 4_102_444_800 + 86_400 * 400), // around 2100
        _ => r.range(946_684_800, 2_524_608_000),     // 2000..2050
    };
    let secs = if r.chance(40) {
        secs - secs.rem_euclid(60)
    } else {
        secs
    };
    let nanos = if r.chance(20) {
        r.below(1_000_000_000) as u32
    } else {
        0
    };
    (secs, nanos)
}

fn duration_text(r: &mut Rng) -> String {
    if r.chance(5) {
        return r
            .pick(&[
                "0",
                "",
                "-0",
                "+0",
                ".",
                "1..s",
                "-",
                "+",
                "0x",
                "1e3s",
                "1_0s",
                " 1s",
                "1s ",
                "1h-2m",
                "1.s",
                ".5h",
                "00",
                "9223372036854775807ns",
                "9223372036854775808ns",
                "-9223372036854775808ns",
                "2562047h47m16.854775807s",
                "2562047h47m16.854775808s",
                "0.0000000001s",
                "1.0000000009s",
            ])
            .to_string();
    }
    let mut s = r.pick(&["", "", "", "-", "+"]).to_string();
    for _ in 0..r.range(1, 3) {
        let int_len = match r.below(10) {
            0 => 0,
            1 => r.range(10, 22) as usize,
            _ => r.range(1, 4) as usize,
        };
        s.push_str(&r.digits(int_len));
        if r.chance(25) {
            s.push('.');
            let n = if r.chance(20) {
                r.range(9, 14) as usize
            } else {
                r.range(0, 4) as usize
            };
            s.push_str(&r.digits(n));
        }
        s.push_str(r.pick(&[
            "h", "m", "s", "ms", "us", "\u{b5}s", "\u{3bc}s", "ns", "h", "m", "s", "", "d", "H",
            "sec", "mss", "u", "µ",
        ]));
    }
    s
}

fn rfc3339_text(r: &mut Rng) -> String {
    let bad = |r: &mut Rng| r.chance(4);
    let num = |r: &mut Rng, lo: i64, hi: i64, width: usize| -> String {
        let v = r.range(lo, hi);
        match r.below(30) {
            0 => v.to_string(),
            1 => format!("{v:0w$}", w = width + 1),
            2 => "x".repeat(width),
            _ => format!("{v:0width$}"),
        }
    };
    let mut s = String::new();
    s.push_str(&if bad(r) {
        r.digits_between(2, 5)
    } else {
        format!("{:04}", r.range(0, 9999))
    });
    s.push(if bad(r) { '/' } else { '-' });
    s.push_str(&num(r, 0, 13, 2));
    s.push(if bad(r) { '/' } else { '-' });
    s.push_str(&num(r, 0, 32, 2));
    s.push_str(r.pick(&["T", "T", "T", "T", "T", "T", "t", " ", "TT"]));
    s.push_str(&num(r, 0, 25, 2));
    s.push(if bad(r) { '.' } else { ':' });
    s.push_str(&num(r, 0, 61, 2));
    s.push(if bad(r) { '.' } else { ':' });
    s.push_str(&num(r, 0, 61, 2));
    if r.chance(30) {
        s.push(if r.chance(80) { '.' } else { ',' });
        let n = r.range(0, 12) as usize;
        s.push_str(&r.digits(n));
    }
    match r.below(10) {
        0..=3 => s.push('Z'),
        4 => s.push('z'),
        5 => {}
        6 => s.push_str(&format!("+{:02}{:02}", r.range(0, 25), r.range(0, 61))),
        _ => s.push_str(&format!(
            "{}{}:{}",
            r.pick(&["+", "-", "+", "\u{2212}"]),
            num(r, 0, 25, 2),
            num(r, 0, 61, 2)
        )),
    }
    if r.chance(3) {
        s.push_str(r.pick(&[" ", "Z", "x", "0", "\n"]));
    }
    s
}

fn float_text(r: &mut Rng) -> String {
    if r.chance(10) {
        let words = [
            "inf",
            "Inf",
            "INF",
            "+inf",
            "-Inf",
            "infinity",
            "-Infinity",
            "INFINITY",
            "infinit",
            "infx",
            "nan",
            "NaN",
            "+nan",
            "-nan",
            "NAN",
            "in",
            "",
            " 1",
            "1 ",
            "0x",
            "0x1",
            "0x.p1",
            "0x1p",
            "1e",
            "e1",
            ".",
            "-",
            "1_",
            "_1",
            "1__0",
            "0_1",
            "0x_1p0",
            "0b1",
            "0o7",
            "1e308",
            "1.8e308",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "4e-324",
            "2e-324",
            "3e-324",
            "1e-400",
            "0x1p-1074",
            "0x1p-1075",
            "0x1.8p-1074",
            "0x1p1024",
            "0x1.fffffffffffff8p1023",
            "0x1.fffffffffffff7p1023",
            "+0",
            "-0",
            "00",
            "1_000.5",
            "1_000e1_0",
            "0x1_0p0",
            ".5_0",
            "5._0",
        ];
        return r.pick(&words).to_string();
    }
    let mut s = r.pick(&["", "", "", "-", "+"]).to_string();
    let hex = r.chance(15);
    if hex {
        s.push_str(r.pick(&["0x", "0X"]));
    }
    let digit_set: &[u8] = if hex {
        b"0123456789abcdefABCDEF"
    } else {
        b"0123456789"
    };
    let mantissa = |r: &mut Rng, n: usize, s: &mut String| {
        for _ in 0..n {
            if r.chance(3) {
                s.push('_');
            }
            s.push(char::from(digit_set[r.below(digit_set.len())]));
        }
    };
    let n = if r.chance(10) {
        r.range(17, 40) as usize
    } else {
        r.range(0, 6) as usize
    };
    mantissa(r, n, &mut s);
    if r.chance(50) {
        s.push('.');
        let n = r.range(0, 8) as usize;
        mantissa(r, n, &mut s);
    }
    if r.chance(40) {
        s.push_str(if hex {
            r.pick(&["p", "P", "p", "e"])
        } else {
            r.pick(&["e", "E", "e", "p"])
        });
        s.push_str(r.pick(&["", "", "-", "+"]));
        let e = match r.below(8) {
            0 => r.range(300, 330),
            1 => r.range(1000, 1100),
            2 => r.range(1, 99_999_999),
            _ => r.range(0, 30),
        };
        s.push_str(&e.to_string());
    }
    s
}

fn yaml_scalar(r: &mut Rng) -> String {
    if r.chance(30) {
        let words = [
            "yes",
            "Yes",
            "YES",
            "yEs",
            "no",
            "No",
            "NO",
            "y",
            "Y",
            "n",
            "N",
            "on",
            "On",
            "ON",
            "off",
            "Off",
            "OFF",
            "oN",
            "true",
            "True",
            "TRUE",
            "tRue",
            "false",
            "False",
            "FALSE",
            "null",
            "Null",
            "NULL",
            "nUll",
            "~",
            ".inf",
            ".Inf",
            ".INF",
            "+.inf",
            "-.inf",
            "-.Inf",
            ".nan",
            ".NaN",
            ".NAN",
            ".nAn",
            ".infinity",
            ".Infinity",
            "2001-12-14",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14 21:59:43.10",
            "2001-12-14T21:59:43Z",
            "2001-1-2",
            "1.2.3",
            "v1",
            "1e",
            "e3",
            "0x",
            "0o",
            "0b",
            "1_",
            "1__0",
            "0b101",
            "-0b101",
            "0o17",
            "0O17",
            "0x1F",
            "0X1F",
            "-0x1F",
            "+0x1F",
            "0x_1F",
            "010",
            "-010",
            "08",
            "09.5",
            "0.",
            "-.5",
            "+.5",
            ".5",
            "._5",
            "5.",
            "1e3",
            "1E3",
            "1e+3",
            "1.5e-3",
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "1e400",
            "-1e400",
            "0x8000000000000000",
            "0xFFFFFFFFFFFFFFFF",
            "0x10000000000000000",
            "1_000",
            "1_000.5",
            "0.1_5",
            "+",
            "+1",
            "+0",
            "-0",
            "0",
            "00",
            "0.0",
            "-0.0",
            "1:30",
            "1:30:00",
            "190:20:30",
            "0:0",
            "60:00",
            "12e",
            "123abc",
            "0xg",
            "1.5h",
            ".5e3",
            ".5_0",
            "100m",
            "4Gi",
            "1e3m",
            "+-1",
            "--1",
            "0x1p3",
            "1e0_1",
            "Infinity",
            "NaN",
            "inf",
        ];
        return r.pick(&words).to_string();
    }
    let mut s = r.pick(&["", "", "", "-", "+"]).to_string();
    let prefix = r.pick(&["", "", "", "", "0x", "0X", "0o", "0b", "0", "."]);
    s.push_str(prefix);
    let set: &[u8] = match prefix {
        "0x" | "0X" => b"0123456789abcdefABCDEF",
        "0b" => b"0121",
        _ => b"0123456789",
    };
    let n = if r.chance(10) {
        r.range(18, 22) as usize
    } else {
        r.range(0, 5) as usize
    };
    for _ in 0..n {
        if r.chance(4) {
            s.push('_');
        }
        s.push(char::from(set[r.below(set.len())]));
    }
    if prefix != "." && r.chance(30) {
        s.push('.');
        s.push_str(&r.digits_between(0, 3));
    }
    if r.chance(20) {
        s.push_str(r.pick(&["e", "E", "e+", "e-", "E-"]));
        s.push_str(&r.digits_between(0, 3));
    }
    if r.chance(5) {
        s.push(':');
        s.push_str(&r.digits(2));
    }
    // A lone sign would be read as the start of a sequence or as nothing by YAML itself.
    if s.is_empty() || s == "-" || s == "+" {
        s.push('1');
    }
    s
}

// ------------------------------------------------------------------------------------------
// The engine's answers, in the Go program's formats.

fn stamp(t: Option<DateTime<Utc>>) -> String {
    match t {
        None => "zero".into(),
        Some(t) => format!("{}.{:09}", t.timestamp(), t.timestamp_subsec_nanos()),
    }
}

fn engine_cron(spec: &str, instants: &[(i64, u32)]) -> String {
    match CronSchedule::parse(spec) {
        Err(e) => format!("err:{}", e.message),
        Ok(s) => {
            let next: Vec<String> = instants
                .iter()
                .map(|(secs, nanos)| {
                    let t = DateTime::from_timestamp(*secs, *nanos);
                    stamp(t.and_then(|t| s.next_after(t)))
                })
                .collect();
            format!("ok:{}", next.join(" "))
        }
    }
}

fn engine_duration(s: &str) -> String {
    match GoDuration::parse(s) {
        Ok(d) => format!("ok:{}", d.0),
        Err(e) => format!("err:{e}"),
    }
}

fn engine_time(s: &str) -> String {
    match fleet_policy::input::rfc3339::parse(s) {
        Ok(t) => format!(
            "ok:{}.{:09}@{}",
            t.timestamp(),
            t.timestamp_subsec_nanos(),
            t.offset().local_minus_utc()
        ),
        Err(e) => format!("err:{e}"),
    }
}

fn engine_float(s: &str) -> String {
    match fleet_policy::input::go_float::parse_float(s) {
        Ok(f) if f.is_nan() => "ok:nan".into(),
        Ok(f) => format!("ok:{:016x}", f.to_bits()),
        Err(fleet_policy::input::go_float::FloatError::Range(f)) => {
            format!("err:range:{:016x}", f.to_bits())
        }
        Err(fleet_policy::input::go_float::FloatError::Syntax) => "err:syntax".into(),
    }
}

/// The engine's typing of a plain scalar in Go's vocabulary.
fn engine_yaml_type(s: &str) -> String {
    match resolve(s, true) {
        Resolved::Null => "null:".into(),
        Resolved::Bool(b) => format!("bool:{b}"),
        Resolved::Int(i) => format!("int:{i}"),
        Resolved::Float(f) if f.is_nan() => "float:nan".into(),
        Resolved::Float(f) => format!("float:{:016x}", f.to_bits()),
        Resolved::Str(t) => format!("str:{t}"),
    }
}

/// Go's typed answer with NaN payloads folded (Go's NaN has a different payload than Rust's).
fn go_yaml_type(t: &str) -> String {
    match t.strip_prefix("float:") {
        Some(bits) => match u64::from_str_radix(bits, 16) {
            Ok(b) if f64::from_bits(b).is_nan() => "float:nan".into(),
            _ => t.to_string(),
        },
        None => t.to_string(),
    }
}

/// Numbers compare by value (Go writes 1000 where serde_json keeps 1000.0).
fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (a, b) {
        (J::Number(x), J::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
            (Some(p), Some(q), _, _) => p == q,
            (_, _, Some(p), Some(q)) => p == q,
            // The exact bits were compared with go-yaml's typed value already; serde_json's
            // default float reading may be one unit in the last place off.
            _ => match (x.as_f64(), y.as_f64()) {
                (Some(p), Some(q)) => {
                    p == q || (p - q).abs() <= p.abs().max(q.abs()) * 4.0 * f64::EPSILON
                }
                _ => false,
            },
        },
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_json(v, w))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// A hand-written block document whose keys are followed by spaces, tabs or both (go-yaml
/// takes a tab after a colon as a space; yaml-rust2 does not), with plain, quoted, literal,
/// empty and nested values, comments, and now and then a tab go-yaml refuses (before a
/// sequence entry, as indentation).
fn tabbed_document(r: &mut Rng) -> String {
    fn sep(r: &mut Rng) -> &'static str {
        r.pick(&[" ", "\t", "\t\t", " \t", "\t ", "  "])
    }
    fn value(r: &mut Rng) -> &'static str {
        r.pick(&[
            "x",
            "1",
            "2.0",
            "true",
            "on",
            "\"q\"",
            "'s'",
            "null",
            "~",
            "[]",
            "{}",
            "a b",
            "-1",
            "0x1F",
            "1e3",
            "x # c",
            "\"a\\tb\"",
        ])
    }
    let mut doc = String::new();
    for i in 0..1 + r.below(4) {
        let line = match r.below(9) {
            0..=3 => format!("k{i}:{}{}\n", sep(r), value(r)),
            4 => format!(
                "k{i}:{}\n  p:{}{}\n  m:{}{}\n",
                r.pick(&["", "\t", " \t# c"]),
                sep(r),
                value(r),
                sep(r),
                value(r)
            ),
            5 => format!(
                "k{i}:\n- a:{}{}\n  b:{}{}\n-{}{}\n",
                sep(r),
                value(r),
                sep(r),
                value(r),
                r.pick(&[" ", "  "]),
                value(r)
            ),
            6 => format!("k{i}:{}|\n  text\n", sep(r)),
            7 => format!("k{i}:{}- x\n", sep(r)),
            _ => format!(
                "{}k{i}:{}{}\n",
                r.pick(&["\t", " \t", ""]),
                sep(r),
                value(r)
            ),
        };
        doc.push_str(&line);
    }
    doc
}

/// A small document of mappings with merge keys (`<<`): explicit keys before and after them,
/// a merged mapping, a list of them, an alias to an anchored one, a quoted `"<<"` (an ordinary
/// key), nested merges, and values a merge refuses (a scalar, a list with a scalar).
fn merge_document(r: &mut Rng) -> String {
    fn entries(r: &mut Rng, depth: usize, anchors: &mut Vec<String>) -> String {
        let n = 1 + r.below(4);
        let mut parts = Vec::new();
        for _ in 0..n {
            let part = match r.below(10) {
                0..=4 => format!("{}: {}", r.pick(&["a", "b", "c"]), r.below(4)),
                5 if depth < 2 => format!("<<: {{{}}}", entries(r, depth + 1, anchors)),
                6 if depth < 2 => {
                    let maps: Vec<String> = (0..1 + r.below(3))
                        .map(|_| format!("{{{}}}", entries(r, depth + 1, anchors)))
                        .collect();
                    format!("<<: [{}]", maps.join(", "))
                }
                7 if !anchors.is_empty() => {
                    let name = anchors[r.below(anchors.len())].clone();
                    if r.chance(30) {
                        format!("<<: [*{name}, {{c: 9}}]")
                    } else {
                        format!("<<: *{name}")
                    }
                }
                8 => format!("\"<<\": {}", r.below(4)),
                _ => match r.below(3) {
                    0 => "<<: 5".to_string(),
                    1 => "<<: [{a: 1}, 2]".to_string(),
                    _ => format!("{}: {{b: 1}}", r.pick(&["a", "c"])),
                },
            };
            parts.push(part);
        }
        parts.join(", ")
    }
    let mut anchors = Vec::new();
    let mut doc = String::new();
    for i in 0..1 + r.below(3) {
        let body = entries(r, 0, &mut anchors);
        doc.push_str(&format!("m{i}: &x{i} {{{body}}}\n"));
        anchors.push(format!("x{i}"));
    }
    if r.chance(50) {
        // Block style too: the line reader leaves a block merge key to yaml-rust2.
        doc.push_str("blk:\n  a: 1\n  <<: *x0\n  b: 2\n");
    }
    doc
}

/// Compares sigs.k8s.io/yaml's JSON of a whole document with the engine's reading of it as
/// a manifest's text, or that both refuse it.
fn document_agrees(doc: &str, go: &str) -> Result<(), Diff> {
    let ours = fleet_policy::input::documents::read_to_json(doc);
    match (go.strip_prefix("ok:"), ours) {
        (Some(go_json), Ok(ours)) => json_agrees(go_json, &ours),
        (None, Err(_)) => Ok(()),
        (Some(go_json), Err(e)) => Err(Diff::Mismatch(format!("Go {go_json}, ours refuses: {e}"))),
        (None, Ok(_))
            if go.contains("cannot start any token")
                && doc
                    .lines()
                    .any(|l| l.trim_start_matches(' ').starts_with('\t')) =>
        {
            Err(Diff::Known(
                "go-yaml refuses a tab where a line's indentation ends; yaml-rust2 reads it",
            ))
        }
        (None, Ok(ours)) => Err(Diff::Mismatch(format!("Go {go}, ours {ours}"))),
    }
}

/// Compares one YAML answer: the type go-yaml gives, then the JSON sigs.k8s.io/yaml writes.
fn yaml_agrees(s: &str, go: &str) -> Result<(), Diff> {
    let Some(rest) = go.strip_prefix("ok:") else {
        return Err(Diff::Mismatch(format!("Go could not read it: {go}")));
    };
    let (go_type, go_json) = rest.split_once('|').unwrap_or((rest, ""));
    let ours_type = engine_yaml_type(s);
    let go_type = go_yaml_type(go_type);
    if ours_type != go_type {
        // go-yaml's uint64 (2^63 ≤ n < 2^64) is the engine's nearest float: no field of the
        // modelled kinds takes such a number, and both read it as a number.
        let as_float = go_type
            .strip_prefix("uint:")
            .and_then(|u| u.parse::<u64>().ok())
            .map(|u| format!("float:{:016x}", (u as f64).to_bits()));
        if as_float.as_deref() == Some(ours_type.as_str()) {
            return Err(Diff::Known("go-yaml uint64 read as the nearest float"));
        }
        return Err(Diff::Mismatch(format!(
            "type: Go {go_type}, ours {ours_type}"
        )));
    }
    if go_json.starts_with("err:") {
        // NaN and ±Inf have no JSON: kubectl refuses the whole document. The engine types the
        // scalar the same (checked above) and keeps it as text.
        return if ours_type == "float:nan"
            || ours_type.starts_with("float:7ff")
            || ours_type.starts_with("float:fff")
        {
            Err(Diff::Known(
                "NaN/Inf: sigs.k8s.io/yaml refuses the document",
            ))
        } else {
            Err(Diff::Mismatch(format!("JSON: Go {go_json}")))
        };
    }
    let ours = fleet_policy::input::documents::yaml_to_json(&format!("v: {s}\n"))
        .map_err(|e| Diff::Mismatch(format!("JSON: Go {go_json}, ours refuses: {e}")))?;
    json_agrees(go_json, &ours)
}

/// Compares the JSON sigs.k8s.io/yaml wrote with the engine's conversion of the same text.
fn json_agrees(go_json: &str, ours: &serde_json::Value) -> Result<(), Diff> {
    let go_v: serde_json::Value = serde_json::from_str(go_json)
        .map_err(|e| Diff::Mismatch(format!("Go JSON {go_json}: {e}")))?;
    if same_json(&go_v, ours) {
        Ok(())
    } else {
        Err(Diff::Mismatch(format!("JSON: Go {go_json}, ours {ours}")))
    }
}

/// A scalar with an explicit tag: go-yaml's own tags (which it resolves, or fails on), tags it
/// does not know, plain and quoted texts, base64 texts (valid or not) and timestamps.
fn tagged_scalar(r: &mut Rng) -> String {
    let tag = r.pick(&[
        "!!str",
        "!!int",
        "!!int",
        "!!float",
        "!!float",
        "!!bool",
        "!!null",
        "!!timestamp",
        "!!timestamp",
        "!!binary",
        "!!binary",
        "!!seq",
        "!!merge",
        "!foo",
        "!!foo",
        "!",
        "!<tag:yaml.org,2002:int>",
        "!<tag:yaml.org,2002:binary>",
    ]);
    let text = if tag.contains("binary") {
        const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let n = r.below(13);
        let mut t: String = (0..n).map(|_| char::from(B64[r.below(64)])).collect();
        // Padding to a whole quantum mostly; sometimes none, too much or a stray byte.
        match r.below(10) {
            0 => {}
            1 => t.push_str("=="),
            2 => t.insert(r.below(t.len() + 1), ['%', '-', '_', '.'][r.below(4)]),
            _ => t.push_str(&"=".repeat((4 - t.len() % 4) % 4)),
        }
        t
    } else if tag.contains("timestamp") || r.chance(15) {
        if r.chance(30) {
            format!(
                "{:04}-{}-{}",
                r.range(1, 9999),
                r.range(0, 14),
                r.range(0, 33)
            )
        } else {
            rfc3339_text(r)
        }
    } else {
        yaml_scalar(r)
    };
    // One line (the tests here are about typing, not about folding); quoted texts are typed
    // by the tag alone, plain ones must stay plain scalars.
    let text = text.replace(
        |c: char| c.is_control() || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}'),
        " ",
    );
    let plain_safe = !text.is_empty()
        && !text.contains([' ', '#', '\t'])
        && !text.starts_with([
            '%', '@', '`', '!', '&', '*', '|', '>', '\'', '"', '[', '{', ',',
        ]);
    if r.chance(25) || !plain_safe && (!text.is_empty() || r.chance(50)) {
        format!("{tag} '{}'", text.replace('\'', "''"))
    } else {
        format!("{tag} {text}")
    }
}

/// Compares a tagged scalar: go-yaml's error text, or the JSON sigs.k8s.io/yaml writes.
fn tagged_agrees(s: &str, go: &str) -> Result<(), Diff> {
    let ours = fleet_policy::input::documents::yaml_to_json(&format!("v: {s}\n"));
    if let Some(message) = go.strip_prefix("err:") {
        let message = message.strip_prefix("yaml: ").unwrap_or(message);
        return match ours {
            Err(e) if e.ends_with(message) => Ok(()),
            Err(e) => Err(Diff::Mismatch(format!("Go refuses: {message}; ours: {e}"))),
            Ok(v) => Err(Diff::Mismatch(format!("Go refuses: {message}; ours {v}"))),
        };
    }
    let go_json = go.find("|{\"v\":").map_or("", |i| &go[i + 1..]);
    if go_json.is_empty() {
        return if go.contains("|err:json: unsupported value") {
            Err(Diff::Known(
                "NaN/Inf: sigs.k8s.io/yaml refuses the document",
            ))
        } else {
            Err(Diff::Mismatch(format!("unexpected Go answer {go}")))
        };
    }
    let ours = match ours {
        Ok(v) => v,
        Err(e) => {
            // Go 1.19 (Debian's) has no range check on zone offsets; later Go, which
            // Kubernetes is built with, refuses past 24h/60m as the engine does.
            let body = s.trim_end_matches('\'');
            let past_24h = body
                .get(body.len().saturating_sub(6)..)
                .filter(|z| z.starts_with(['+', '-']) && z.as_bytes().get(3) == Some(&b':'))
                .is_some_and(|z| {
                    z[1..3].parse::<u32>().is_ok_and(|h| h > 24)
                        || z[4..6].parse::<u32>().is_ok_and(|m| m > 60)
                });
            return if past_24h && e.contains("as a !!timestamp") {
                Err(Diff::Known("Go 1.19 accepts zone offsets past 24h/60m"))
            } else {
                Err(Diff::Mismatch(format!("Go {go_json}, ours refuses: {e}")))
            };
        }
    };
    json_agrees(go_json, &ours)
}

/// How an answer differs from Go's.
enum Diff {
    /// A difference: the test fails.
    Mismatch(String),
    /// A documented difference (counted and printed, not failed): the reason.
    Known(&'static str),
}

// ------------------------------------------------------------------------------------------

/// Builds the Go program into the target dir; `None` (with the reason) without Go.
fn build_oracle() -> Result<PathBuf, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go_oracle/main.go");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("go-oracle");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let bin = dir.join("oracle");
    let gopath = std::env::var("ORACLE_GOPATH").unwrap_or_else(|_| "/usr/share/gocode".into());
    // GOPATH mode against Debian's packaged sources: no module download, no network.
    let out = Command::new("go")
        .arg("build")
        .arg("-o")
        .arg(&bin)
        .arg(&src)
        .env("GOPATH", &gopath)
        .env("GO111MODULE", "off")
        .env("GOFLAGS", "")
        .env("GOCACHE", dir.join("cache"))
        .env("GOTOOLCHAIN", "local")
        .output()
        .map_err(|e| format!("cannot run `go` ({e}): the Go toolchain is not installed"))?;
    if !out.status.success() {
        return Err(format!(
            "go build failed (are golang-github-robfig-cron-dev and golang-k8s-sigs-yaml-dev installed under {gopath}?):\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(bin)
}

/// One generated input: the Go request and the engine's side of it.
struct Case {
    kind: &'static str,
    args: Vec<String>,
}

fn generate(r: &mut Rng) -> Case {
    match r.below(100) {
        0..=39 => {
            let spec = cron_spec(r);
            let mut args = vec![spec];
            for _ in 0..3 {
                let (s, n) = instant(r);
                args.push(format!("{s}.{n:09}"));
            }
            Case { kind: "cron", args }
        }
        40..=54 => Case {
            kind: "dur",
            args: vec![duration_text(r)],
        },
        55..=69 => Case {
            kind: "time",
            args: vec![rfc3339_text(r)],
        },
        70..=84 => Case {
            kind: "float",
            args: vec![float_text(r)],
        },
        85..=91 => Case {
            kind: "ytag",
            args: vec![tagged_scalar(r)],
        },
        92..=95 => Case {
            kind: "ydoc",
            args: vec![if r.chance(50) {
                tabbed_document(r)
            } else {
                merge_document(r)
            }],
        },
        _ => Case {
            kind: "yaml",
            args: vec![yaml_scalar(r)],
        },
    }
}

fn fold_nan(answer: &str) -> String {
    match answer
        .strip_prefix("ok:")
        .map(|b| u64::from_str_radix(b, 16))
    {
        Some(Ok(b)) if f64::from_bits(b).is_nan() => "ok:nan".into(),
        _ => answer.to_string(),
    }
}

fn check(case: &Case, go: &str) -> Result<(), Diff> {
    let a = &case.args;
    let ours = match case.kind {
        "cron" => {
            let instants: Vec<(i64, u32)> = a[1..]
                .iter()
                .map(|x| {
                    let (s, n) = x.split_once('.').unwrap_or((x, "0"));
                    (s.parse().unwrap_or(0), n.parse().unwrap_or(0))
                })
                .collect();
            engine_cron(&a[0], &instants)
        }
        "dur" => engine_duration(&a[0]),
        "time" => engine_time(&a[0]),
        "float" => engine_float(&a[0]),
        "ytag" => return tagged_agrees(&a[0], go),
        "ydoc" => return document_agrees(&a[0], go),
        _ => return yaml_agrees(&a[0], go),
    };
    // Go's answers have their newlines escaped to keep one answer per line; NaN payloads
    // differ between Go and Rust and carry no meaning.
    let go = if case.kind == "float" {
        fold_nan(go)
    } else {
        go.to_string()
    };
    let ours = ours.replace('\n', "\\n");
    if ours == go {
        return Ok(());
    }
    if case.kind == "time" {
        // Go 1.19 (Debian's) has no range check on zone offsets; Go 1.20 and later, which
        // Kubernetes is built with, refuse past 24:60 as the engine does.
        if ours.contains("time zone offset") && !go.contains("time zone offset") {
            return Err(Diff::Known("Go 1.19 accepts zone offsets past 24h/60m"));
        }
        // chrono keeps offsets under 24h: a 24:xx offset is applied to the instant, which
        // must be the same.
        if let (Some((gi, go_off)), Some((oi, 0))) =
            (instant_and_offset(&go), instant_and_offset(&ours))
        {
            if gi == oi && go_off.abs() >= 86_400 {
                return Err(Diff::Known("offset of 24h or more kept as UTC"));
            }
        }
    }
    Err(Diff::Mismatch(format!("Go {go:?}, ours {ours:?}")))
}

/// "ok:<instant>@<offset>" split.
fn instant_and_offset(answer: &str) -> Option<(&str, i64)> {
    let (i, off) = answer.strip_prefix("ok:")?.split_once('@')?;
    Some((i, off.parse().ok()?))
}

fn main() -> ExitCode {
    let started = Instant::now();
    let cases: usize = std::env::var("ORACLE_CASES")
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(100_000);
    let seed: u64 = std::env::var("ORACLE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x0f1e_e707_ac1e);
    let bin = match build_oracle() {
        Ok(b) => b,
        Err(e) => {
            if std::env::var_os("CI").is_some() {
                eprintln!("go oracle: FAILED: {e}\n(CI is set: .ci/setup.sh installs golang-go, golang-github-robfig-cron-dev and golang-k8s-sigs-yaml-dev)");
                return ExitCode::FAILURE;
            }
            println!("go oracle: SKIPPED, not compared against Go: {e}\n  install golang-go golang-github-robfig-cron-dev golang-k8s-sigs-yaml-dev (make setup does) to run it");
            return ExitCode::SUCCESS;
        }
    };
    let mut child = match Command::new(&bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("go oracle: cannot start {}: {e}", bin.display());
            return ExitCode::FAILURE;
        }
    };
    let mut rng = Rng(seed);
    let all: Vec<Case> = (0..cases).map(|_| generate(&mut rng)).collect();
    let requests: Vec<String> = all
        .iter()
        .map(|c| {
            let mut v = vec![c.kind.to_string()];
            v.extend(c.args.iter().cloned());
            serde_json::to_string(&v).unwrap_or_default()
        })
        .collect();
    let Some(stdin) = child.stdin.take() else {
        eprintln!("go oracle: no stdin");
        return ExitCode::FAILURE;
    };
    // Written from a thread while the answers are read: neither pipe may fill up.
    let writer = std::thread::spawn(move || {
        let mut w = BufWriter::new(stdin);
        for r in requests {
            if writeln!(w, "{r}").is_err() {
                break;
            }
        }
    });
    let Some(stdout) = child.stdout.take() else {
        eprintln!("go oracle: no stdout");
        return ExitCode::FAILURE;
    };
    // Per kind: inputs, answers that differ, inputs Go accepted (both paths must be reached).
    let mut per_kind: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut known: BTreeMap<&str, usize> = BTreeMap::new();
    let mut shown: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut answered = 0usize;
    // Lines read as bytes: a `!!binary` value may decode to bytes that are not UTF-8.
    for (case, line) in all.iter().zip(BufReader::new(stdout).split(b'\n')) {
        let Ok(line) = line else { break };
        let go = String::from_utf8_lossy(&line);
        answered += 1;
        let entry = per_kind.entry(case.kind).or_default();
        entry.0 += 1;
        if go.starts_with("ok:") {
            entry.2 += 1;
        }
        if let Err(diff) = check(case, &go) {
            let e = match diff {
                Diff::Known(why) => {
                    *known.entry(why).or_default() += 1;
                    continue;
                }
                Diff::Mismatch(e) => e,
            };
            entry.1 += 1;
            let list = shown.entry(case.kind).or_default();
            if list.len() < 12 {
                list.push(format!("{} {:?}: {e}", case.kind, case.args));
            }
        }
    }
    let _ = writer.join();
    let _ = child.wait();
    let mismatches: usize = per_kind.values().map(|v| v.1).sum();
    for lines in shown.values() {
        for l in lines {
            println!("  MISMATCH {l}");
        }
    }
    let summary: Vec<String> = per_kind
        .iter()
        .map(|(k, (n, bad, ok))| format!("{k} {n} ({ok} accepted by Go, {bad} differ)"))
        .collect();
    println!(
        "go oracle: {answered} cases compared with Go in {:.1}s (seed {seed}): {}",
        started.elapsed().as_secs_f64(),
        summary.join(", ")
    );
    for (why, n) in &known {
        println!("  known difference, {n} cases: {why}");
    }
    if answered != cases {
        eprintln!(
            "go oracle: Go answered {answered} of {cases} requests; it stopped at {} {:?}",
            all[answered].kind, all[answered].args
        );
        return ExitCode::FAILURE;
    }
    if mismatches > 0 {
        eprintln!("go oracle: {mismatches} answers differ from Go");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
