//! AKS planned-maintenance windows: the schedule forms users write (daily, weekly, absolute
//! monthly, relative monthly; start time, duration, UTC offset, start/end date, not-allowed
//! dates) expanded into concrete UTC windows, and the four priority buckets of R-AZ-30.

use crate::model::rollout::{MaintenanceWindow, Schedule};
use chrono::format::{self, Item, Numeric, Pad, Parsed};
use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, TimeZone, Utc, Weekday};

/// A concrete window `[start, end)` in Unix seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Window {
    /// Opens (inclusive).
    pub start: i64,
    /// Closes (exclusive).
    pub end: i64,
}

/// R-AZ-30 bucket of a member at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bucket {
    /// 1: a window is open now.
    Open,
    /// 2: the next window opens within 4 hours (the value is its start).
    OpensSoon(i64),
    /// 3: no window configured.
    NoWindow,
    /// 4: closed, next opening more than 4 hours away (or never, `None`).
    Closed(Option<i64>),
}

impl Bucket {
    /// 1–4.
    pub fn number(self) -> u8 {
        match self {
            Bucket::Open => 1,
            Bucket::OpensSoon(_) => 2,
            Bucket::NoWindow => 3,
            Bucket::Closed(_) => 4,
        }
    }

    /// Whether a member in this bucket may start now (R-AZ-35, R-AZ-36).
    pub fn can_start(self) -> bool {
        matches!(self, Bucket::Open | Bucket::NoWindow)
    }

    /// The next window opening, for buckets 2 and 4.
    pub fn next_start(self) -> Option<i64> {
        match self {
            Bucket::OpensSoon(s) => Some(s),
            Bucket::Closed(s) => s,
            _ => None,
        }
    }
}

/// Four hours in seconds (R-AZ-30).
pub const FOUR_HOURS: i64 = 4 * 3600;

/// The bucket at `t` for sorted, non-overlapping `windows` (`None` = no window configured).
pub fn bucket(windows: Option<&[Window]>, t: i64, boundary_inclusive: bool) -> Bucket {
    let Some(windows) = windows else {
        return Bucket::NoWindow;
    };
    // First window that has not closed yet.
    let i = windows.partition_point(|w| w.end <= t);
    let Some(w) = windows.get(i) else {
        return Bucket::Closed(None);
    };
    if w.start <= t {
        return Bucket::Open;
    }
    let soon = if boundary_inclusive {
        w.start <= t + FOUR_HOURS
    } else {
        w.start < t + FOUR_HOURS
    };
    if soon {
        Bucket::OpensSoon(w.start)
    } else {
        Bucket::Closed(Some(w.start))
    }
}

/// Sorts windows and merges overlapping or touching ones.
pub fn normalise(mut windows: Vec<Window>) -> Vec<Window> {
    windows.retain(|w| w.end > w.start);
    windows.sort_unstable();
    let mut out: Vec<Window> = Vec::with_capacity(windows.len());
    for w in windows {
        match out.last_mut() {
            Some(last) if w.start <= last.end => last.end = last.end.max(w.end),
            _ => out.push(w),
        }
    }
    out
}

/// Parses `YYYY-MM-DD`.
pub fn parse_date(s: &str) -> Result<NaiveDate, String> {
    ymd(s).ok_or_else(|| format!("invalid date \"{s}\", expected YYYY-MM-DD"))
}

// The formats as chrono's items, spelled out rather than parsed from a strftime string at
// each call: `%Y-%m-%d` and `%H:%M` (a test checks them against chrono's own parse).
const YMD: &[Item<'static>] = &[
    Item::Numeric(Numeric::Year, Pad::Zero),
    Item::Literal("-"),
    Item::Numeric(Numeric::Month, Pad::Zero),
    Item::Literal("-"),
    Item::Numeric(Numeric::Day, Pad::Zero),
];
const HM: &[Item<'static>] = &[
    Item::Numeric(Numeric::Hour, Pad::Zero),
    Item::Literal(":"),
    Item::Numeric(Numeric::Minute, Pad::Zero),
];

/// A `YYYY-MM-DD` date.
fn ymd(s: &str) -> Option<NaiveDate> {
    let mut parsed = Parsed::new();
    format::parse(&mut parsed, s, YMD.iter()).ok()?;
    parsed.to_naive_date().ok()
}

/// An `HH:MM` time.
fn hm(s: &str) -> Option<NaiveTime> {
    let mut parsed = Parsed::new();
    format::parse(&mut parsed, s, HM.iter()).ok()?;
    parsed.to_naive_time().ok()
}

fn parse_offset(s: &str) -> Result<i64, String> {
    let bad = || format!("invalid utcOffset \"{s}\", expected +HH:MM or -HH:MM");
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'+') => (1, &s[1..]),
        Some(b'-') => (-1, &s[1..]),
        _ => return Err(bad()),
    };
    let (h, m) = rest.split_once(':').ok_or_else(bad)?;
    let h: i64 = h.parse().map_err(|_| bad())?;
    let m: i64 = m.parse().map_err(|_| bad())?;
    if (0..=14).contains(&h) && (0..60).contains(&m) {
        Ok(sign * (h * 3600 + m * 60))
    } else {
        Err(bad())
    }
}

/// Parses a weekday name (`Monday`).
pub fn parse_weekday(s: &str) -> Result<Weekday, String> {
    Ok(match s {
        "Monday" => Weekday::Mon,
        "Tuesday" => Weekday::Tue,
        "Wednesday" => Weekday::Wed,
        "Thursday" => Weekday::Thu,
        "Friday" => Weekday::Fri,
        "Saturday" => Weekday::Sat,
        "Sunday" => Weekday::Sun,
        _ => {
            return Err(format!(
                "invalid dayOfWeek \"{s}\", expected one of Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday"
            ))
        }
    })
}

enum Recurrence {
    Daily(i64),
    Weekly(i64, Weekday),
    AbsoluteMonthly(i64, u32),
    RelativeMonthly(i64, Option<u32>, Weekday),
}

/// A checked maintenance window, ready to expand.
pub struct CompiledWindow {
    recurrence: Recurrence,
    start_time: NaiveTime,
    duration: i64,
    offset: i64,
    start_date: Option<NaiveDate>,
    end_date: Option<NaiveDate>,
    not_allowed: Vec<(NaiveDate, NaiveDate)>,
}

/// Checks a `maintenanceWindow`; errors name the field (relative to `maintenanceWindow`).
pub fn compile(w: &MaintenanceWindow) -> Result<CompiledWindow, (String, String)> {
    let recurrence = compile_schedule(&w.schedule)?;
    if !(4..=24).contains(&w.duration_hours) {
        return Err((
            "durationHours".into(),
            format!(
                "durationHours must be between 4 and 24, got {}",
                w.duration_hours
            ),
        ));
    }
    let start_time = hm(&w.start_time).ok_or_else(|| {
        (
            "startTime".to_string(),
            format!("invalid startTime \"{}\", expected HH:MM", w.start_time),
        )
    })?;
    let offset = match &w.utc_offset {
        Some(o) => parse_offset(o).map_err(|m| ("utcOffset".to_string(), m))?,
        None => 0,
    };
    let start_date = w
        .start_date
        .as_deref()
        .map(parse_date)
        .transpose()
        .map_err(|m| ("startDate".to_string(), m))?;
    let end_date = w
        .end_date
        .as_deref()
        .map(parse_date)
        .transpose()
        .map_err(|m| ("endDate".to_string(), m))?;
    let mut not_allowed = Vec::new();
    for (i, d) in w.not_allowed_dates.iter().enumerate() {
        let s = parse_date(&d.start).map_err(|m| (format!("notAllowedDates[{i}].start"), m))?;
        let e = parse_date(&d.end).map_err(|m| (format!("notAllowedDates[{i}].end"), m))?;
        not_allowed.push((s, e));
    }
    Ok(CompiledWindow {
        recurrence,
        start_time,
        duration: w.duration_hours * 3600,
        offset,
        start_date,
        end_date,
        not_allowed,
    })
}

fn positive(v: i64, field: &str) -> Result<i64, (String, String)> {
    if v >= 1 {
        Ok(v)
    } else {
        Err((
            field.to_string(),
            format!("{field} must be at least 1, got {v}"),
        ))
    }
}

fn compile_schedule(s: &Schedule) -> Result<Recurrence, (String, String)> {
    let count = [
        s.daily.is_some(),
        s.weekly.is_some(),
        s.absolute_monthly.is_some(),
        s.relative_monthly.is_some(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    if count != 1 {
        return Err((
            "schedule".into(),
            "schedule must have exactly one of daily, weekly, absoluteMonthly, relativeMonthly"
                .into(),
        ));
    }
    if let Some(d) = &s.daily {
        return Ok(Recurrence::Daily(positive(
            d.interval_days,
            "schedule.daily.intervalDays",
        )?));
    }
    if let Some(w) = &s.weekly {
        let n = positive(w.interval_weeks, "schedule.weekly.intervalWeeks")?;
        let d = parse_weekday(&w.day_of_week)
            .map_err(|m| ("schedule.weekly.dayOfWeek".to_string(), m))?;
        return Ok(Recurrence::Weekly(n, d));
    }
    if let Some(a) = &s.absolute_monthly {
        let n = positive(a.interval_months, "schedule.absoluteMonthly.intervalMonths")?;
        if !(1..=31).contains(&a.day_of_month) {
            return Err((
                "schedule.absoluteMonthly.dayOfMonth".into(),
                format!(
                    "dayOfMonth must be between 1 and 31, got {}",
                    a.day_of_month
                ),
            ));
        }
        return Ok(Recurrence::AbsoluteMonthly(n, a.day_of_month as u32));
    }
    if let Some(r) = &s.relative_monthly {
        let n = positive(r.interval_months, "schedule.relativeMonthly.intervalMonths")?;
        let idx = match r.week_index.as_str() {
            "First" => Some(1),
            "Second" => Some(2),
            "Third" => Some(3),
            "Fourth" => Some(4),
            "Last" => None,
            other => {
                return Err((
                    "schedule.relativeMonthly.weekIndex".into(),
                    format!(
                    "invalid weekIndex \"{other}\", expected First, Second, Third, Fourth or Last"
                ),
                ))
            }
        };
        let d = parse_weekday(&r.day_of_week)
            .map_err(|m| ("schedule.relativeMonthly.dayOfWeek".to_string(), m))?;
        return Ok(Recurrence::RelativeMonthly(n, idx, d));
    }
    Err(("schedule".into(), "schedule is empty".into()))
}

fn days_in_month(year: i32, month: u32) -> u32 {
    let (ny, nm) = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    match (
        NaiveDate::from_ymd_opt(ny, nm, 1),
        NaiveDate::from_ymd_opt(year, month, 1),
    ) {
        (Some(a), Some(b)) => (a - b).num_days() as u32,
        _ => 30,
    }
}

fn months_between(a: NaiveDate, b: NaiveDate) -> i64 {
    (b.year() as i64 - a.year() as i64) * 12 + b.month() as i64 - a.month() as i64
}

impl CompiledWindow {
    fn occurs(&self, d: NaiveDate, anchor: NaiveDate) -> bool {
        match self.recurrence {
            Recurrence::Daily(n) => {
                let k = (d - anchor).num_days();
                k >= 0 && k % n == 0
            }
            Recurrence::Weekly(n, wd) => {
                if d.weekday() != wd {
                    return false;
                }
                // The first matching weekday on or after the anchor starts the cycle.
                let lead = (wd.num_days_from_monday() as i64
                    - anchor.weekday().num_days_from_monday() as i64)
                    .rem_euclid(7);
                let k = (d - anchor).num_days() - lead;
                k >= 0 && (k / 7) % n == 0
            }
            Recurrence::AbsoluteMonthly(n, day) => {
                let m = months_between(anchor, d);
                // A day past the month's end (31 in April) falls on the month's last day.
                let want = day.min(days_in_month(d.year(), d.month()));
                m >= 0 && m % n == 0 && d.day() == want
            }
            Recurrence::RelativeMonthly(n, idx, wd) => {
                let m = months_between(anchor, d);
                if m < 0 || m % n != 0 || d.weekday() != wd {
                    return false;
                }
                match idx {
                    Some(k) => (d.day() - 1) / 7 + 1 == k,
                    None => d.day() + 7 > days_in_month(d.year(), d.month()),
                }
            }
        }
    }

    /// Concrete windows whose local date lies in `[from, to]` (UTC instants are converted
    /// with the window's offset). Intervals count from `startDate`, else from `default_anchor`.
    pub fn expand(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        default_anchor: NaiveDate,
    ) -> Vec<Window> {
        let anchor = self.start_date.unwrap_or(default_anchor);
        let local_from = (from + Duration::seconds(self.offset)).date_naive() - Duration::days(1);
        let local_to = (to + Duration::seconds(self.offset)).date_naive();
        let mut out = Vec::new();
        // Weekday recurrences only occur on their weekday: the walk steps from one to the next.
        let weekday = match self.recurrence {
            Recurrence::Weekly(_, wd) | Recurrence::RelativeMonthly(_, _, wd) => Some(wd),
            _ => None,
        };
        let mut d = local_from.max(anchor);
        while d <= local_to {
            if self.end_date.is_some_and(|e| d > e) {
                break;
            }
            let allowed = !self.not_allowed.iter().any(|(s, e)| *s <= d && d <= *e);
            if allowed && self.occurs(d, anchor) {
                let local = d.and_time(self.start_time);
                let start = Utc.from_utc_datetime(&local).timestamp() - self.offset;
                out.push(Window {
                    start,
                    end: start + self.duration,
                });
            }
            let step = match weekday {
                Some(wd) => {
                    (wd.num_days_from_monday() + 6 - d.weekday().num_days_from_monday()) % 7 + 1
                }
                None => 1,
            };
            match d.checked_add_days(chrono::Days::new(u64::from(step))) {
                Some(n) => d = n,
                None => break,
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Dates and times in maintenance windows read as `%Y-%m-%d` / `%H:%M` do in chrono.
    #[test]
    fn date_and_time_formats_are_chronos() {
        use chrono::format::StrftimeItems;
        assert_eq!(
            StrftimeItems::new("%Y-%m-%d").parse().ok().as_deref(),
            Some(YMD)
        );
        assert_eq!(
            StrftimeItems::new("%H:%M").parse().ok().as_deref(),
            Some(HM)
        );
        for s in [
            "2024-02-29",
            "2023-02-29",
            "2024-1-5",
            "+2024-01-05",
            "2024-01-05 ",
            " 2024-01-05",
            "02024-01-05",
            "2024-13-01",
            "2024-01-05T",
            "",
            "12:30",
            "7:05",
            "24:00",
            "12:60",
            "12:30:00",
            " 12:30",
            "12 :30",
            "1230",
        ] {
            assert_eq!(
                ymd(s),
                NaiveDate::parse_from_str(s, "%Y-%m-%d").ok(),
                "{s:?}"
            );
            assert_eq!(hm(s), NaiveTime::parse_from_str(s, "%H:%M").ok(), "{s:?}");
        }
    }
    use crate::model::rollout::{
        AbsoluteMonthlySchedule, DailySchedule, DateSpan, RelativeMonthlySchedule, WeeklySchedule,
    };

    fn t(s: &str) -> i64 {
        DateTime::parse_from_rfc3339(s)
            .map(|d| d.timestamp())
            .unwrap_or(i64::MIN)
    }

    /// The walk stepping from weekday to weekday finds what a day-by-day walk finds.
    #[test]
    fn weekday_stepping_matches_the_day_by_day_walk() {
        let days = ["Monday", "Wednesday", "Sunday"];
        let mut schedules = Vec::new();
        for day in days {
            for n in 1..=3 {
                schedules.push(Schedule {
                    weekly: Some(WeeklySchedule {
                        interval_weeks: n,
                        day_of_week: day.into(),
                    }),
                    ..Schedule::default()
                });
            }
            for idx in ["First", "Third", "Last"] {
                schedules.push(Schedule {
                    relative_monthly: Some(RelativeMonthlySchedule {
                        interval_months: 2,
                        week_index: idx.into(),
                        day_of_week: day.into(),
                    }),
                    ..Schedule::default()
                });
            }
        }
        let mut found = 0;
        for schedule in schedules {
            for (start, end) in [("2025-06-01", None), ("2025-06-05", Some("2025-11-20"))] {
                for offset in ["+00:00", "-05:30", "+13:00"] {
                    let mut w = window(schedule.clone(), "23:30", Some(offset));
                    w.start_date = Some(start.into());
                    w.end_date = end.map(str::to_string);
                    w.not_allowed_dates = vec![DateSpan {
                        start: "2025-08-01".into(),
                        end: "2025-08-20".into(),
                    }];
                    let c = compile(&w).unwrap_or_else(|e| panic!("{e:?}"));
                    let (from, to) = (
                        DateTime::from_timestamp(t("2025-05-20T00:00:00Z"), 0).unwrap_or_default(),
                        DateTime::from_timestamp(t("2026-06-01T00:00:00Z"), 0).unwrap_or_default(),
                    );
                    let anchor = NaiveDate::from_ymd_opt(2025, 5, 20).unwrap_or_default();
                    // The day-by-day walk.
                    let a = c.start_date.unwrap_or(anchor);
                    let mut want = Vec::new();
                    let mut d = ((from + Duration::seconds(c.offset)).date_naive()
                        - Duration::days(1))
                    .max(a);
                    let last = (to + Duration::seconds(c.offset)).date_naive();
                    while d <= last && c.end_date.is_none_or(|e| d <= e) {
                        let allowed = !c.not_allowed.iter().any(|(s, e)| *s <= d && d <= *e);
                        if allowed && c.occurs(d, a) {
                            let start =
                                Utc.from_utc_datetime(&d.and_time(c.start_time)).timestamp()
                                    - c.offset;
                            want.push(Window {
                                start,
                                end: start + c.duration,
                            });
                        }
                        d = d.succ_opt().unwrap_or(NaiveDate::MAX);
                    }
                    found += want.len();
                    assert_eq!(c.expand(from, to, anchor), want, "{w:?}");
                }
            }
        }
        assert!(found > 1000, "{found}");
    }

    fn window(schedule: Schedule, start_time: &str, offset: Option<&str>) -> MaintenanceWindow {
        MaintenanceWindow {
            schedule,
            duration_hours: 4,
            utc_offset: offset.map(str::to_string),
            start_date: Some("2025-06-01".into()),
            end_date: None,
            start_time: start_time.into(),
            not_allowed_dates: Vec::new(),
        }
    }

    fn expand(w: &MaintenanceWindow, from: &str, to: &str) -> Vec<Window> {
        let c = compile(w).unwrap_or_else(|e| panic!("{e:?}"));
        let from = DateTime::parse_from_rfc3339(from)
            .map(|d| d.to_utc())
            .unwrap_or_default();
        let to = DateTime::parse_from_rfc3339(to)
            .map(|d| d.to_utc())
            .unwrap_or_default();
        normalise(c.expand(from, to, from.date_naive()))
    }

    #[test]
    fn weekly_with_offset_lands_in_utc() {
        let w = window(
            Schedule {
                weekly: Some(WeeklySchedule {
                    interval_weeks: 1,
                    day_of_week: "Tuesday".into(),
                }),
                ..Schedule::default()
            },
            "22:00",
            Some("+02:00"),
        );
        let got = expand(&w, "2025-06-01T00:00:00Z", "2025-06-16T00:00:00Z");
        // Tuesday 22:00 at +02:00 is Tuesday 20:00 UTC.
        assert_eq!(
            got,
            vec![
                Window {
                    start: t("2025-06-03T20:00:00Z"),
                    end: t("2025-06-04T00:00:00Z")
                },
                Window {
                    start: t("2025-06-10T20:00:00Z"),
                    end: t("2025-06-11T00:00:00Z")
                },
            ]
        );
    }

    #[test]
    fn every_other_week_counts_from_start_date() {
        let w = window(
            Schedule {
                weekly: Some(WeeklySchedule {
                    interval_weeks: 2,
                    day_of_week: "Monday".into(),
                }),
                ..Schedule::default()
            },
            "01:00",
            None,
        );
        let starts: Vec<i64> = expand(&w, "2025-06-01T00:00:00Z", "2025-06-30T00:00:00Z")
            .iter()
            .map(|w| w.start)
            .collect();
        assert_eq!(
            starts,
            vec![
                t("2025-06-02T01:00:00Z"),
                t("2025-06-16T01:00:00Z"),
                t("2025-06-30T01:00:00Z")
            ]
        );
    }

    #[test]
    fn monthly_forms_and_not_allowed_dates() {
        let mut w = window(
            Schedule {
                absolute_monthly: Some(AbsoluteMonthlySchedule {
                    interval_months: 1,
                    day_of_month: 31,
                }),
                ..Schedule::default()
            },
            "00:00",
            None,
        );
        let starts: Vec<i64> = expand(&w, "2025-06-01T00:00:00Z", "2025-08-31T12:00:00Z")
            .iter()
            .map(|w| w.start)
            .collect();
        // June has 30 days: the window falls on its last day.
        assert_eq!(
            starts,
            vec![
                t("2025-06-30T00:00:00Z"),
                t("2025-07-31T00:00:00Z"),
                t("2025-08-31T00:00:00Z")
            ]
        );
        w.not_allowed_dates = vec![DateSpan {
            start: "2025-07-01".into(),
            end: "2025-07-31".into(),
        }];
        assert_eq!(
            expand(&w, "2025-06-01T00:00:00Z", "2025-08-31T12:00:00Z").len(),
            2
        );

        let r = window(
            Schedule {
                relative_monthly: Some(RelativeMonthlySchedule {
                    interval_months: 1,
                    week_index: "Last".into(),
                    day_of_week: "Friday".into(),
                }),
                ..Schedule::default()
            },
            "10:00",
            None,
        );
        let starts: Vec<i64> = expand(&r, "2025-06-01T00:00:00Z", "2025-07-31T00:00:00Z")
            .iter()
            .map(|w| w.start)
            .collect();
        assert_eq!(
            starts,
            vec![t("2025-06-27T10:00:00Z"), t("2025-07-25T10:00:00Z")]
        );

        let d = window(
            Schedule {
                daily: Some(DailySchedule { interval_days: 3 }),
                ..Schedule::default()
            },
            "12:00",
            None,
        );
        let starts: Vec<i64> = expand(&d, "2025-06-01T00:00:00Z", "2025-06-08T00:00:00Z")
            .iter()
            .map(|w| w.start)
            .collect();
        assert_eq!(
            starts,
            vec![
                t("2025-06-01T12:00:00Z"),
                t("2025-06-04T12:00:00Z"),
                t("2025-06-07T12:00:00Z")
            ]
        );
    }

    #[test]
    fn buckets_and_the_four_hour_boundary() {
        let ws = [Window {
            start: 100_000,
            end: 110_000,
        }];
        assert_eq!(bucket(Some(&ws), 100_000, true), Bucket::Open);
        assert_eq!(
            bucket(Some(&ws), 100_000 - FOUR_HOURS, true),
            Bucket::OpensSoon(100_000)
        );
        assert_eq!(
            bucket(Some(&ws), 100_000 - FOUR_HOURS, false),
            Bucket::Closed(Some(100_000))
        );
        assert_eq!(bucket(Some(&ws), 110_000, true), Bucket::Closed(None));
        assert_eq!(bucket(None, 0, true), Bucket::NoWindow);
    }

    #[test]
    fn bad_schedules_name_the_field() {
        let mut w = window(Schedule::default(), "25:00", None);
        assert_eq!(compile(&w).err().map(|e| e.0), Some("schedule".to_string()));
        w.schedule.weekly = Some(WeeklySchedule {
            interval_weeks: 1,
            day_of_week: "Funday".into(),
        });
        assert_eq!(
            compile(&w).err().map(|e| e.0),
            Some("schedule.weekly.dayOfWeek".to_string())
        );
        w.schedule.weekly = Some(WeeklySchedule {
            interval_weeks: 1,
            day_of_week: "Monday".into(),
        });
        assert_eq!(
            compile(&w).err().map(|e| e.0),
            Some("startTime".to_string())
        );
    }
}
