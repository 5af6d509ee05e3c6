//! Cron schedules exactly as Karpenter evaluates them: robfig/cron v3.0.1 `ParseStandard`
//! over `"TZ=UTC " + schedule` (spec/disruption.md §2), and the budget window built on it
//! (§3.1, §3.7).
//!
//! Why not the `cron` crate at run time: its dialect differs (seconds field, day-of-week 1–7,
//! AND instead of robfig's OR day rule, no `@annually`/`@midnight`) and, decisively, it only
//! knows the years 1970–2100, while Karpenter's own tests evaluate the year 1000 and robfig's
//! five-year search horizon reaches past 2100. The field semantics below are robfig's
//! (`parser.go`, `spec.go`) and the error strings are robfig's; the property tests translate
//! [`CronSchedule::field_bits`] into the crate's dialect (spec §4) to cross-check every firing
//! against the crate inside its year range.

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Timelike, Utc};

use crate::input::duration::GoDuration;

/// robfig's "star bit": set when a field item is `*`/`?` without a step > 1.
const STAR_BIT: u64 = 1 << 63;
const MINUTES_PER_DAY: i64 = 1440;

struct Bounds {
    min: u32,
    max: u32,
    names: &'static [(&'static str, u32)],
}

const MINUTES: Bounds = Bounds {
    min: 0,
    max: 59,
    names: &[],
};
const HOURS: Bounds = Bounds {
    min: 0,
    max: 23,
    names: &[],
};
const DOM: Bounds = Bounds {
    min: 1,
    max: 31,
    names: &[],
};
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("apr", 4),
        ("may", 5),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("oct", 10),
        ("nov", 11),
        ("dec", 12),
    ],
};
const DOW: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &[
        ("sun", 0),
        ("mon", 1),
        ("tue", 2),
        ("wed", 3),
        ("thu", 4),
        ("fri", 5),
        ("sat", 6),
    ],
};

/// A schedule string that robfig's `ParseStandard` rejects. `message` is robfig's own text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleError {
    /// robfig/cron's error text, e.g. `end of range (7) above maximum (6): 7`.
    pub message: String,
}

impl std::fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn err<T>(message: String) -> Result<T, ScheduleError> {
    Err(ScheduleError { message })
}

/// A parsed schedule: either a five-field spec (or macro) or robfig's `@every` interval.
#[derive(Debug, Clone, PartialEq)]
pub struct CronSchedule {
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Spec(Spec),
    /// `@every <duration>`: robfig's ConstantDelaySchedule (delay rounded down to seconds,
    /// at least 1s). The CRD pattern keeps it out; the runtime parser accepts it.
    Every(Duration),
}

#[derive(Debug, Clone, PartialEq)]
struct Spec {
    minute: u64,
    hour: u64,
    dom: u64,
    month: u64,
    dow: u64,
    /// First and last firing minute within a firing day, and the largest gap in minutes
    /// between consecutive firings of one day (0 with a single firing per day).
    day_first: u32,
    day_last: u32,
    intra_day_max_gap: i64,
    /// No firing at all, ever: robfig returns the zero time, Karpenter reads "active".
    never_fires: bool,
    /// Fires only on 29 February: gaps reach 8 years, so robfig's 5-year horizon matters.
    sparse: bool,
}

impl CronSchedule {
    /// Parse as Karpenter does: `cron.ParseStandard("TZ=UTC " + schedule)`.
    pub fn parse(schedule: &str) -> Result<Self, ScheduleError> {
        // The "TZ=UTC " prefix is consumed by robfig, which then trims the rest.
        let spec = schedule.trim();
        if spec.starts_with('@') {
            return parse_descriptor(spec);
        }
        let fields: Vec<&str> = spec.split_whitespace().collect();
        if fields.len() != 5 {
            return err(format!(
                "expected exactly 5 fields, found {}: [{}]",
                fields.len(),
                fields.join(" ")
            ));
        }
        let (minute, hour, dom, month, dow) = match fields.as_slice() {
            [mi, h, d, mo, w] => (
                get_field(mi, &MINUTES)?,
                get_field(h, &HOURS)?,
                get_field(d, &DOM)?,
                get_field(mo, &MONTHS)?,
                get_field(w, &DOW)?,
            ),
            _ => return err("expected exactly 5 fields".to_string()),
        };
        Ok(Self {
            kind: Kind::Spec(Spec::new(minute, hour, dom, month, dow)),
        })
    }

    /// robfig `Schedule.Next(x)`: the first firing strictly after `x`, searching to the end
    /// of the year `year(x) + 5`; `None` stands for Go's zero time (no firing found).
    pub fn next_after(&self, x: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match &self.kind {
            Kind::Spec(spec) => spec.next_after(x),
            Kind::Every(delay) => {
                let nanos = i64::from(x.timestamp_subsec_nanos());
                x.checked_add_signed(*delay)?
                    .checked_sub_signed(Duration::nanoseconds(nanos))
            }
        }
    }

    /// True when the schedule can never fire (robfig then answers the zero time, which
    /// Karpenter treats as "always active": spec §2.7).
    pub fn never_fires(&self) -> bool {
        matches!(&self.kind, Kind::Spec(s) if s.never_fires)
    }

    /// True for `@every` schedules.
    pub fn is_interval(&self) -> bool {
        matches!(self.kind, Kind::Every(_))
    }

    /// The matching sets of a five-field schedule, robfig's `SpecSchedule` bits: minute,
    /// hour, day of month, month, day of week (bit n = value n; bit 63 = the field was `*`
    /// or `?`). `None` for `@every`.
    pub fn field_bits(&self) -> Option<[u64; 5]> {
        match &self.kind {
            Kind::Spec(s) => Some([s.minute, s.hour, s.dom, s.month, s.dow]),
            Kind::Every(_) => None,
        }
    }
}

fn parse_descriptor(spec: &str) -> Result<CronSchedule, ScheduleError> {
    let all = |b: &Bounds| bits(b.min, b.max, 1) | STAR_BIT;
    let (minute, hour, dom, month, dow) = match spec {
        "@yearly" | "@annually" => (1, 1, 1 << 1, 1 << 1, all(&DOW)),
        "@monthly" => (1, 1, 1 << 1, all(&MONTHS), all(&DOW)),
        "@weekly" => (1, 1, all(&DOM), all(&MONTHS), 1),
        "@daily" | "@midnight" => (1, 1, all(&DOM), all(&MONTHS), all(&DOW)),
        "@hourly" => (1, all(&HOURS), all(&DOM), all(&MONTHS), all(&DOW)),
        _ => {
            if let Some(rest) = spec.strip_prefix("@every ") {
                return match GoDuration::parse(rest) {
                    Ok(d) => {
                        // robfig `Every`: at least one second, truncated to whole seconds.
                        let secs = d.seconds().max(1);
                        Ok(CronSchedule {
                            kind: Kind::Every(Duration::seconds(secs)),
                        })
                    }
                    Err(e) => err(format!("failed to parse duration {spec}: {e}")),
                };
            }
            return err(format!("unrecognized descriptor: {spec}"));
        }
    };
    Ok(CronSchedule {
        kind: Kind::Spec(Spec::new(minute, hour, dom, month, dow)),
    })
}

fn bits(min: u32, max: u32, step: u32) -> u64 {
    if step == 1 {
        // All bits from min to max (max ≤ 59 here).
        return (!(u64::MAX << (max + 1))) & (u64::MAX << min);
    }
    let mut b = 0u64;
    let mut i = min;
    while i <= max {
        b |= 1u64 << i;
        i += step;
    }
    b
}

/// robfig `getField`: comma-separated items; empty items are dropped (`strings.FieldsFunc`).
fn get_field(field: &str, r: &Bounds) -> Result<u64, ScheduleError> {
    let mut acc = 0u64;
    for expr in field.split(',').filter(|e| !e.is_empty()) {
        acc |= get_range(expr, r)?;
    }
    Ok(acc)
}

/// robfig `getRange`, including its quirks (`*-5` is `*`; `N/step` means `N-max/step`).
fn get_range(expr: &str, r: &Bounds) -> Result<u64, ScheduleError> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let range = range_and_step.first().copied().unwrap_or("");
    let low_and_high: Vec<&str> = range.split('-').collect();
    let single = low_and_high.len() == 1;
    let low = low_and_high.first().copied().unwrap_or("");
    let mut extra = 0u64;
    let (start, mut end): (u64, u64);
    if low == "*" || low == "?" {
        start = u64::from(r.min);
        end = u64::from(r.max);
        extra = STAR_BIT;
    } else {
        start = parse_int_or_name(low, r)?;
        end = match low_and_high.as_slice() {
            [_] => start,
            [_, high] => parse_int_or_name(high, r)?,
            _ => return err(format!("too many hyphens: {expr}")),
        };
    }
    let step = match range_and_step.as_slice() {
        [_] => 1,
        [_, step] => {
            let step = must_parse_int(step)?;
            if single {
                end = u64::from(r.max);
            }
            if step > 1 {
                extra = 0;
            }
            step
        }
        _ => return err(format!("too many slashes: {expr}")),
    };
    if start < u64::from(r.min) {
        return err(format!(
            "beginning of range ({start}) below minimum ({}): {expr}",
            r.min
        ));
    }
    if end > u64::from(r.max) {
        return err(format!(
            "end of range ({end}) above maximum ({}): {expr}",
            r.max
        ));
    }
    if start > end {
        return err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return err(format!("step of range should be a positive number: {expr}"));
    }
    // Bounded by the checks above: start ≤ end ≤ 59; a step beyond the range sets one bit.
    let step = u32::try_from(step).unwrap_or(u32::MAX).min(64);
    Ok(bits(start as u32, end as u32, step) | extra)
}

fn parse_int_or_name(expr: &str, r: &Bounds) -> Result<u64, ScheduleError> {
    // robfig looks the name up after Go's `strings.ToLower`, whose simple case mapping turns
    // two non-ASCII letters into ASCII ones: U+0130 (İ) → i and U+212A (Kelvin sign) → k, so
    // `FRİ` is Friday for Karpenter. Every other non-ASCII letter stays non-ASCII and matches
    // no name (the names are ASCII).
    let folded: String = expr
        .chars()
        .map(|c| match c {
            '\u{130}' => 'i',
            '\u{212A}' => 'k',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    if let Some((_, v)) = r.names.iter().find(|(n, _)| *n == folded) {
        return Ok(u64::from(*v));
    }
    must_parse_int(expr)
}

/// robfig `mustParseInt` over Go's `strconv.Atoi`.
fn must_parse_int(expr: &str) -> Result<u64, ScheduleError> {
    match go_atoi(expr) {
        Ok(n) if n < 0 => err(format!("negative number ({n}) not allowed: {expr}")),
        Ok(n) => Ok(n.unsigned_abs()),
        Err(e) => err(format!("failed to parse int from {expr}: {e}")),
    }
}

/// Go's `strconv.Atoi`: optional sign, decimal digits; the error text is Go's.
pub fn go_atoi(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            go_quote(s)
        ));
    }
    s.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing {}: value out of range", go_quote(s)))
}

/// Go's `strconv.Quote` for the strings that appear in error messages.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 {
                29
            } else {
                28
            }
        }
    }
}

impl Spec {
    fn new(minute: u64, hour: u64, dom: u64, month: u64, dow: u64) -> Self {
        let mut s = Spec {
            minute,
            hour,
            dom,
            month,
            dow,
            day_first: 0,
            day_last: 0,
            intra_day_max_gap: 0,
            never_fires: false,
            sparse: false,
        };
        let m = minute & !STAR_BIT;
        let h = hour & !STAR_BIT;
        if m == 0 || h == 0 || month & !STAR_BIT == 0 {
            s.never_fires = true;
            return s;
        }
        let (m_first, m_last) = (m.trailing_zeros(), 63 - m.leading_zeros());
        let (h_first, h_last) = (h.trailing_zeros(), 63 - h.leading_zeros());
        s.day_first = h_first * 60 + m_first;
        s.day_last = h_last * 60 + m_last;
        // Largest gap between consecutive firings inside one day.
        let mut gap = 0i64;
        let mut prev: Option<u32> = None;
        for v in 0..60u32 {
            if m & (1 << v) != 0 {
                if let Some(p) = prev {
                    gap = gap.max(i64::from(v - p));
                }
                prev = Some(v);
            }
        }
        let cross_hour = 60 - i64::from(m_last) + i64::from(m_first);
        let mut prev_h: Option<u32> = None;
        for v in 0..24u32 {
            if h & (1 << v) != 0 {
                if let Some(p) = prev_h {
                    gap = gap.max(i64::from(v - p - 1) * 60 + cross_hour);
                }
                prev_h = Some(v);
            }
        }
        s.intra_day_max_gap = gap;
        // Which (month, day) pairs can fire, in a common year and on 29 February?
        let mut fires_normally = false;
        let mut fires_feb29 = false;
        for mo in 1..=12u32 {
            if s.month & (1 << mo) == 0 {
                continue;
            }
            for day in 1..=days_in_month(2000, mo) {
                // Any weekday occurs on each day number in some year, so the day rule can
                // be met unless both its parts must hold and one cannot.
                let dom_ok = s.dom & (1 << day) != 0;
                let dow_any = s.dow & !STAR_BIT != 0;
                let ok = if (s.dom | s.dow) & STAR_BIT != 0 {
                    dom_ok && dow_any
                } else {
                    dom_ok || dow_any
                };
                if ok {
                    if mo == 2 && day == 29 {
                        fires_feb29 = true;
                    } else {
                        fires_normally = true;
                    }
                }
            }
        }
        s.never_fires = !fires_normally && !fires_feb29;
        s.sparse = !fires_normally && fires_feb29;
        s
    }

    fn day_matches(&self, date: NaiveDate) -> bool {
        let dom_match = self.dom & (1u64 << date.day()) != 0;
        let dow_match = self.dow & (1u64 << date.weekday().num_days_from_sunday()) != 0;
        if (self.dom | self.dow) & STAR_BIT != 0 {
            dom_match && dow_match
        } else {
            dom_match || dow_match
        }
    }

    /// First firing minute of a firing day at or after `minute_of_day`.
    fn first_in_day_from(&self, minute_of_day: u32) -> Option<u32> {
        let (h, mi) = (minute_of_day / 60, minute_of_day % 60);
        if h >= 24 {
            return None;
        }
        let minutes = self.minute & !STAR_BIT;
        let hours = self.hour & !STAR_BIT;
        if hours & (1u64 << h) != 0 {
            let rest = minutes & (u64::MAX << mi);
            if rest != 0 {
                return Some(h * 60 + rest.trailing_zeros());
            }
        }
        let later = hours & (u64::MAX << (h + 1));
        if later == 0 || minutes == 0 {
            return None;
        }
        Some(later.trailing_zeros() * 60 + minutes.trailing_zeros())
    }

    fn next_after(&self, x: DateTime<Utc>) -> Option<DateTime<Utc>> {
        if self.never_fires {
            return None;
        }
        // robfig: start at the upcoming second; give up after the year year(start) + 5.
        let nanos = i64::from(x.timestamp_subsec_nanos());
        let start = x
            .checked_sub_signed(Duration::nanoseconds(nanos))?
            .checked_add_signed(Duration::seconds(1))?;
        let year_limit = start.year().checked_add(5)?;
        let mut date = start.date_naive();
        let mut from = start.hour() * 60 + start.minute() + u32::from(start.second() != 0);
        loop {
            if date.year() > year_limit {
                return None;
            }
            if self.month & (1u64 << date.month()) == 0 {
                let (y, m) = if date.month() == 12 {
                    (date.year().checked_add(1)?, 1)
                } else {
                    (date.year(), date.month() + 1)
                };
                date = NaiveDate::from_ymd_opt(y, m, 1)?;
                from = 0;
                continue;
            }
            if self.day_matches(date) {
                if let Some(m) = self.first_in_day_from(from) {
                    let t = date.and_hms_opt(m / 60, m % 60, 0)?;
                    return Some(Utc.from_utc_datetime(&t));
                }
            }
            date = date.succ_opt()?;
            from = 0;
        }
    }

    /// Last firing of the day of `f`.
    fn last_of_day(&self, f: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let t = f
            .date_naive()
            .and_hms_opt(self.day_last / 60, self.day_last % 60, 0)?;
        Some(Utc.from_utc_datetime(&t))
    }

    /// Largest gap in minutes between consecutive firings over one 400-year Gregorian
    /// cycle, which repeats exactly (weekdays included), so it is the largest gap ever.
    fn max_gap_ever(&self) -> i64 {
        // Per (month length, weekday of the 1st): first and last firing day, largest gap.
        let mut table = [[None::<(u32, u32, u32)>; 7]; 4];
        for (li, len) in (28..=31u32).enumerate() {
            for wd in 0..7u32 {
                let mut first = None;
                let mut last = None;
                let mut gap = 0u32;
                for day in 1..=len {
                    let dow = (wd + day - 1) % 7;
                    let dom_match = self.dom & (1u64 << day) != 0;
                    let dow_match = self.dow & (1u64 << dow) != 0;
                    let ok = if (self.dom | self.dow) & STAR_BIT != 0 {
                        dom_match && dow_match
                    } else {
                        dom_match || dow_match
                    };
                    if ok {
                        if let Some(l) = last {
                            gap = gap.max(day - l);
                        }
                        first.get_or_insert(day);
                        last = Some(day);
                    }
                }
                if let (Some(f), Some(l)) = (first, last) {
                    if let (Some(row), true) = (table.get_mut(li), wd < 7) {
                        if let Some(cell) = row.get_mut(wd as usize) {
                            *cell = Some((f, l, gap));
                        }
                    }
                }
            }
        }
        let mut max_days = 0i64;
        let mut first_day: Option<i64> = None;
        let mut last_day: Option<i64> = None;
        let mut day_index = 0i64; // days since 2000-01-01 (a Saturday)
        for year in 2000..2400i32 {
            for month in 1..=12u32 {
                let len = days_in_month(year, month);
                if self.month & (1u64 << month) != 0 {
                    let wd = ((day_index + 6) % 7) as usize;
                    let cell = table
                        .get((len - 28) as usize)
                        .and_then(|r| r.get(wd))
                        .copied()
                        .flatten();
                    if let Some((f, l, g)) = cell {
                        let f_abs = day_index + i64::from(f) - 1;
                        if let Some(prev) = last_day {
                            max_days = max_days.max(f_abs - prev);
                        }
                        first_day.get_or_insert(f_abs);
                        max_days = max_days.max(i64::from(g));
                        last_day = Some(day_index + i64::from(l) - 1);
                    }
                }
                day_index += i64::from(len);
            }
        }
        if let (Some(f), Some(l)) = (first_day, last_day) {
            max_days = max_days.max(f + day_index - l);
        }
        let cross = if max_days > 0 {
            max_days * MINUTES_PER_DAY + i64::from(self.day_first) - i64::from(self.day_last)
        } else {
            0
        };
        cross.max(self.intra_day_max_gap)
    }
}

/// A budget's schedule together with its duration: the windows `[f, f + D)` of spec §3.1,
/// evaluated exactly as Karpenter's `Budget.IsActive`.
#[derive(Debug, Clone, Copy)]
pub struct Window<'a> {
    /// The parsed schedule.
    pub schedule: &'a CronSchedule,
    /// The budget's duration (Go duration, may be zero or, at run time, negative).
    pub duration: Duration,
}

/// Where a merged window chain ends.
enum ChainEnd {
    At(DateTime<Utc>),
    /// The chain never breaks (checked over a full 400-year cycle).
    Never,
    /// Not decided before the search limit.
    Beyond,
    /// robfig found no next firing within its horizon after the chain's last firing.
    Quirk,
}

impl Window<'_> {
    /// `Budget.IsActive`: the first firing strictly after `t − D` is not after `t`
    /// (a firing that robfig cannot find counts as active).
    pub fn is_active(&self, t: DateTime<Utc>) -> bool {
        let Some(check) = t.checked_sub_signed(self.duration) else {
            return false;
        };
        match self.schedule.next_after(check) {
            None => true,
            Some(f) => f <= t,
        }
    }

    fn is_sparse(&self) -> bool {
        match &self.schedule.kind {
            Kind::Spec(s) => s.sparse || self.duration > Duration::days(365 * 4),
            Kind::Every(_) => false,
        }
    }

    /// The first instant in `(t, limit]` at which [`Window::is_active`] differs from its value
    /// at `t`; `None` if it stays the same through `limit`. `@every` schedules are treated
    /// as constant (they only flicker below one second when the duration is fractional).
    pub fn next_change(&self, t: DateTime<Utc>, limit: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let Kind::Spec(spec) = &self.schedule.kind else {
            return None;
        };
        if spec.never_fires || t >= limit {
            return None;
        }
        let d = self.duration;
        let check = t.checked_sub_signed(d)?;
        // `IsActive(t)` is "next firing after t − D is not after t"; computed once here.
        let next = self.schedule.next_after(check);
        let active = next.is_none_or(|f| f <= t);
        if self.is_sparse() {
            return self.next_change_exact(t, limit, active);
        }
        if d <= Duration::zero() {
            // Never active: the next firing after t − D is always after t.
            return None;
        }
        match next {
            Some(f) if f <= t => match self.chain_end(spec, f, limit) {
                ChainEnd::At(e) if e <= limit => Some(e),
                ChainEnd::Quirk => self.next_change_exact(t, limit, active),
                _ => None,
            },
            Some(f) => (f <= limit).then_some(f),
            None => self.next_change_exact(t, limit, active),
        }
    }

    /// End of the merged chain of windows that starts with firing `f0`.
    fn chain_end(&self, spec: &Spec, f0: DateTime<Utc>, limit: DateTime<Utc>) -> ChainEnd {
        let d = self.duration;
        let jump = Duration::minutes(spec.intra_day_max_gap) <= d;
        let mut cur = f0;
        let mut days = 0u32;
        let mut checked_cycle = false;
        loop {
            if jump {
                // Every gap inside a day is covered: jump to the day's last firing.
                if let Some(last) = spec.last_of_day(cur) {
                    cur = cur.max(last);
                }
            }
            let Some(end) = cur.checked_add_signed(d) else {
                return ChainEnd::Never;
            };
            if end > limit {
                return ChainEnd::Beyond;
            }
            match self.schedule.next_after(cur) {
                None => return ChainEnd::Quirk,
                Some(n) if n > end => return ChainEnd::At(end),
                Some(n) => cur = n,
            }
            days += 1;
            if days >= 64 && !checked_cycle {
                checked_cycle = true;
                let gap = spec.max_gap_ever();
                if Duration::minutes(gap) <= d {
                    return ChainEnd::Never;
                }
            }
        }
    }

    /// Exact transition search over the only instants where `IsActive` can change: a firing,
    /// a firing plus D, and a robfig horizon step (a new year in `year(t − D + 1s)`).
    fn next_change_exact(
        &self,
        t: DateTime<Utc>,
        limit: DateTime<Utc>,
        active: bool,
    ) -> Option<DateTime<Utc>> {
        let d = self.duration;
        let mut u = t;
        for _ in 0..100_000 {
            let check = u.checked_sub_signed(d)?;
            let candidate = match self.schedule.next_after(check) {
                Some(f) => {
                    let after_d = f.checked_add_signed(d);
                    let mut c: Option<DateTime<Utc>> = None;
                    for x in [Some(f), after_d].into_iter().flatten() {
                        if x > u && c.is_none_or(|c| x < c) {
                            c = Some(x);
                        }
                    }
                    c?
                }
                None => {
                    let nanos = i64::from(check.timestamp_subsec_nanos());
                    let start = check
                        .checked_sub_signed(Duration::nanoseconds(nanos))?
                        .checked_add_signed(Duration::seconds(1))?;
                    let jan1 = NaiveDate::from_ymd_opt(start.year().checked_add(1)?, 1, 1)?
                        .and_hms_opt(0, 0, 0)?;
                    Utc.from_utc_datetime(&jan1)
                        .checked_sub_signed(Duration::seconds(1))?
                        .checked_add_signed(d)?
                }
            };
            if candidate > limit {
                return None;
            }
            if self.is_active(candidate) != active {
                return Some(candidate);
            }
            u = candidate;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .map(|d| d.with_timezone(&Utc))
            .unwrap_or_default()
    }

    fn parse(s: &str) -> Result<CronSchedule, String> {
        CronSchedule::parse(s).map_err(|e| e.message)
    }

    /// Names fold as Go's `strings.ToLower` folds them (robfig's lookup).
    #[test]
    fn names_fold_as_go_folds_them() {
        let fri = parse("0 9 * * fri");
        assert!(fri.is_ok());
        for s in ["0 9 * * FRİ", "0 9 * * Fri", "0 9 * * FRI"] {
            assert_eq!(parse(s), fri, "{s}");
        }
        // U+0131 (dotless ı) has no ASCII lowercase: "frı" is no name.
        assert!(parse("0 9 * * frı").is_err());
        assert_eq!(parse("0 0 1 DEC *"), parse("0 0 1 dec *"));
    }

    #[test]
    fn robfig_error_texts() {
        let cases = [
            ("0 0 * * 7", "end of range (7) above maximum (6): 7"),
            (
                "TZ=Europe/Paris 0 9 * * *",
                "expected exactly 5 fields, found 6: [TZ=Europe/Paris 0 9 * * *]",
            ),
            ("", "expected exactly 5 fields, found 0: []"),
            (
                "0 0 L * *",
                "failed to parse int from L: strconv.Atoi: parsing \"L\": invalid syntax",
            ),
            (
                "*/0 * * * *",
                "step of range should be a positive number: */0",
            ),
            ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
            ("@dailyx", "unrecognized descriptor: @dailyx"),
            ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
            ("1/2/3 * * * *", "too many slashes: 1/2/3"),
        ];
        for (s, want) in cases {
            assert_eq!(parse(s).err().as_deref(), Some(want), "{s}");
        }
        assert!(parse("@every 1h").is_ok_and(|s| s.is_interval()));
        assert!(parse("0 9 * jan-mar Mon-Fri").is_ok());
        // `*-5` is `*` in robfig (the range end is never read).
        assert_eq!(parse("*-5 * * * *"), parse("* * * * *"));
    }

    #[test]
    fn windows_merge_and_never_close() {
        let win = |s: &str, d: i64| {
            let sched = parse(s).unwrap_or_else(|e| panic!("{e}"));
            (sched, Duration::minutes(d))
        };
        let far = at("2500-01-01T00:00:00Z");
        let (s, d) = win("@daily", 48 * 60);
        let w = Window {
            schedule: &s,
            duration: d,
        };
        assert!(w.is_active(at("2024-01-07T00:00:00Z")));
        assert_eq!(w.next_change(at("2024-01-07T00:00:00Z"), far), None);
        let (s, d) = win("0 */6 * * *", 5 * 60);
        let w = Window {
            schedule: &s,
            duration: d,
        };
        assert_eq!(
            w.next_change(at("2024-03-05T05:30:00Z"), far),
            Some(at("2024-03-05T06:00:00Z"))
        );
        assert_eq!(
            w.next_change(at("2024-03-05T06:00:00Z"), far),
            Some(at("2024-03-05T11:00:00Z"))
        );
        let (s, d) = win("0 0 30 2 *", 60);
        assert!(s.never_fires());
        assert!(Window {
            schedule: &s,
            duration: d
        }
        .is_active(at("2024-01-10T12:00:00Z")));
        // Year 1000 (before the cron crate's range).
        let (s, d) = win("@yearly", 24 * 60);
        assert!(Window {
            schedule: &s,
            duration: d
        }
        .is_active(at("1000-01-01T12:00:00Z")));
    }

    #[test]
    fn basics() {
        let s = CronSchedule::parse("0 9 * * 1-5")
            .map_err(|e| e.message)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            s.next_after(at("2024-03-09T10:00:00Z")),
            Some(at("2024-03-11T09:00:00Z"))
        );
        let e = CronSchedule::parse("0 0 * * tue-mon")
            .err()
            .map(|e| e.message);
        assert_eq!(
            e.as_deref(),
            Some("beginning of range (2) beyond end of range (1): tue-mon")
        );
    }
}
