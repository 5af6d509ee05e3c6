//! Property tests of the disruption engine (issue 4 invariants), plus a differential check of
//! the robfig-compatible schedule evaluator against the `cron` crate through the dialect
//! translation of spec §4, inside the crate's year range.

use chrono::{DateTime, Duration, TimeZone, Utc};
use fleet_policy::disruption::budget::{evaluate, nodes_value, Reason, RuntimeBudget, UNBOUNDED};
use fleet_policy::disruption::schedule::CronSchedule;
use fleet_policy::disruption::timeline::timeline;
use fleet_policy::disruption::BudgetOptions;
use fleet_policy::input::duration::GoDuration;
use fleet_policy::Source;
use proptest::prelude::*;
use std::str::FromStr;

/// One field item in robfig syntax within `[lo, hi]`.
fn item(lo: u32, hi: u32) -> impl Strategy<Value = String> {
    prop_oneof![
        Just("*".to_string()),
        Just("?".to_string()),
        (1u32..=(hi - lo + 1)).prop_map(|k| format!("*/{k}")),
        (lo..=hi).prop_map(|a| a.to_string()),
        (lo..=hi, lo..=hi).prop_map(|(a, b)| format!("{}-{}", a.min(b), a.max(b))),
        (lo..=hi, lo..=hi, 1u32..5).prop_map(|(a, b, k)| format!("{}-{}/{k}", a.min(b), a.max(b))),
        (lo..=hi, 1u32..5).prop_map(|(a, k)| format!("{a}/{k}")),
    ]
}

fn field(lo: u32, hi: u32) -> impl Strategy<Value = String> {
    prop::collection::vec(item(lo, hi), 1..3).prop_map(|v| v.join(","))
}

/// The same schedule in the `cron` crate's dialect (spec §4): a seconds field, days of the
/// week 1–7 with 1 = Sunday, and two expressions whose firings are unioned when robfig's OR
/// day rule applies. `None` for `@every`.
fn cron_crate_dialect(s: &CronSchedule) -> Option<Vec<String>> {
    const STAR: u64 = 1 << 63;
    let [minute, hour, dom, month, dow] = s.field_bits()?;
    let list = |bits: u64, lo: u32, hi: u32, shift: u32| -> String {
        let items: Vec<String> = (lo..=hi)
            .filter(|v| bits & (1u64 << v) != 0)
            .map(|v| (v + shift).to_string())
            .collect();
        items.join(",")
    };
    let fields = [
        list(minute, 0, 59, 0),
        list(hour, 0, 23, 0),
        list(dom, 1, 31, 0),
        list(month, 1, 12, 0),
        list(dow, 0, 6, 1),
    ];
    if fields.iter().any(String::is_empty) {
        return Some(Vec::new());
    }
    let [mi, h, d, mo, w] = &fields;
    Some(if (dom | dow) & STAR != 0 {
        vec![format!("0 {mi} {h} {d} {mo} {w}")]
    } else {
        vec![
            format!("0 {mi} {h} {d} {mo} ?"),
            format!("0 {mi} {h} ? {mo} {w}"),
        ]
    })
}

fn schedule() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (field(0, 59), field(0, 23), field(1, 31), field(1, 12), field(0, 6))
            .prop_map(|(a, b, c, d, e)| format!("{a} {b} {c} {d} {e}")),
        1 => prop::sample::select(vec!["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"])
            .prop_map(str::to_string),
    ]
}

fn instant(from_year: i32, to_year: i32) -> impl Strategy<Value = DateTime<Utc>> {
    let lo = Utc
        .with_ymd_and_hms(from_year, 1, 1, 0, 0, 0)
        .single()
        .map_or(0, |t| t.timestamp());
    let hi = Utc
        .with_ymd_and_hms(to_year, 1, 1, 0, 0, 0)
        .single()
        .map_or(1, |t| t.timestamp());
    // Whole minutes half the time, so instants land exactly on firings too.
    (lo..hi, any::<bool>()).prop_map(|(s, round)| {
        let s = if round { s - s.rem_euclid(60) } else { s };
        Utc.timestamp_opt(s, 0).single().unwrap_or_default()
    })
}

fn budget() -> impl Strategy<Value = RuntimeBudget> {
    let nodes = prop_oneof![
        (0u32..30).prop_map(|n| n.to_string()),
        (0u32..=100).prop_map(|p| format!("{p}%"))
    ];
    let reasons = prop_oneof![
        Just(None),
        prop::sample::subsequence(vec!["Drifted", "Empty", "Underutilized"], 0..=3)
            .prop_map(|v| Some(v.into_iter().map(str::to_string).collect::<Vec<_>>())),
    ];
    let sched = prop_oneof![
        Just(None),
        (schedule(), 0u32..3000).prop_map(|(s, m)| Some((s, format!("{m}m"))))
    ];
    (nodes, reasons, sched).prop_map(|(n, r, s)| match s {
        None => RuntimeBudget::new(Some(&n), None, None, r),
        Some((s, d)) => RuntimeBudget::new(Some(&n), Some(&s), Some(&d), r),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// 0 ≤ allowed ≤ unbounded, and allowed never exceeds what the least permissive active
    /// budget gives.
    #[test]
    fn allowed_is_bounded(bs in prop::collection::vec(budget(), 0..6), total in 0i64..200, dis in 0i64..20, t in instant(2000, 2040)) {
        let e = evaluate(&bs, t, total, dis);
        for r in Reason::ALL {
            let a = e.allowed.get(r);
            prop_assert!((0..=UNBOUNDED).contains(&a));
            for (b, v) in bs.iter().zip(&e.budgets) {
                if v.active && b.applies_to(r) {
                    prop_assert!(a <= (v.value - dis).max(0));
                }
            }
        }
    }

    /// Adding a budget never raises allowed.
    #[test]
    fn adding_a_budget_never_raises(bs in prop::collection::vec(budget(), 0..5), extra in budget(), total in 0i64..200, dis in 0i64..20, t in instant(2000, 2040)) {
        let before = evaluate(&bs, t, total, dis);
        let mut more = bs.clone();
        more.push(extra);
        let after = evaluate(&more, t, total, dis);
        for r in Reason::ALL {
            prop_assert!(after.allowed.get(r) <= before.allowed.get(r));
        }
    }

    /// The timeline's value at any instant equals a direct evaluation at that instant.
    #[test]
    fn timeline_matches_direct_evaluation(bs in prop::collection::vec(budget(), 1..5), total in 0i64..100, dis in 0i64..5, t in instant(2000, 2040), probes in prop::collection::vec(0i64..(7 * 24 * 3600), 1..8)) {
        let end = t + Duration::days(7);
        let tl = timeline(&bs, t, end, total, dis);
        prop_assert!(!tl.is_empty());
        for w in tl.windows(2) {
            prop_assert!(w[0].at < w[1].at);
        }
        for p in probes {
            let at = t + Duration::seconds(p);
            let point = tl.iter().rev().find(|x| x.at <= at);
            prop_assert!(point.is_some());
            let direct = evaluate(&bs, at, total, dis);
            if let Some(point) = point {
                prop_assert_eq!(point.allowed_disruptions, direct.allowed, "at {}", at);
            }
        }
    }

    /// Inside the `cron` crate's year range, every next firing agrees with the crate's,
    /// through the dialect translation (seconds field, dow + 1, OR split into two schedules).
    #[test]
    fn next_firing_agrees_with_the_cron_crate(s in schedule(), t in instant(1971, 2090)) {
        let ours = CronSchedule::parse(&s);
        prop_assert!(ours.is_ok(), "{} did not parse: {:?}", s, ours);
        if let Ok(ours) = ours {
            let exprs = cron_crate_dialect(&ours);
            prop_assert!(exprs.is_some(), "{} has no field bits", s);
            let exprs = exprs.unwrap_or_default();
            // Every half of the translation must parse: a rejected half silently dropped
            // would compare against fewer firings than ours.
            let parsed: Vec<_> = exprs.iter().map(|e| (e, cron::Schedule::from_str(e))).collect();
            for (e, p) in &parsed {
                prop_assert!(p.is_ok(), "{} -> {} rejected by the cron crate: {:?}", s, e, p);
            }
            let theirs = parsed
                .iter()
                .filter_map(|(_, c)| c.as_ref().ok())
                .filter_map(|c| c.after(&t).next())
                .min();
            let year_limit = t.checked_add_signed(Duration::seconds(1)).map_or(0, |x| chrono::Datelike::year(&x) + 5);
            let theirs = theirs.filter(|f| chrono::Datelike::year(f) <= year_limit);
            prop_assert_eq!(ours.next_after(t), theirs, "{} after {} ({:?})", s, t, exprs);
        }
    }

    /// No panic on any schedule, duration or nodes string, alone or through the full API.
    #[test]
    fn no_panic_on_any_string(sched in ".{0,40}", dur in ".{0,20}", nodes in ".{0,12}", t in instant(1, 9000)) {
        let _ = CronSchedule::parse(&sched).map(|c| c.next_after(t));
        let _ = GoDuration::parse(&dur);
        let _ = nodes_value(&nodes, 37);
        let b = RuntimeBudget::new(Some(&nodes), Some(&sched), Some(&dur), None);
        let _ = evaluate(std::slice::from_ref(&b), t, 10, 1);
        let _ = timeline(std::slice::from_ref(&b), t, t + Duration::days(7), 10, 1);
        let yaml = format!(
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: p}}\nspec:\n  disruption:\n    consolidateAfter: 0s\n    budgets:\n    - {{nodes: {}, schedule: {}, duration: {}}}\n",
            serde_json::Value::String(nodes.clone()),
            serde_json::Value::String(sched.clone()),
            serde_json::Value::String(dur.clone()),
        );
        let r = fleet_policy::budgets(&[Source::new("p.yaml", yaml)], &BudgetOptions::at(t));
        prop_assert!(r.node_pools.len() <= 1);
    }
}

#[test]
fn sparse_schedule_follows_robfig_horizon() {
    // "0 0 29 2 *" is active from 2096-02-29 to the end of 2098 (spec §2.7).
    let s = CronSchedule::parse("0 0 29 2 *").unwrap_or_else(|e| panic!("{e}"));
    let b = RuntimeBudget::new(Some("0"), Some("0 0 29 2 *"), Some("1h"), None);
    let at = |y, m, d| {
        Utc.with_ymd_and_hms(y, m, d, 0, 0, 0)
            .single()
            .unwrap_or_default()
    };
    assert!(b.is_active(at(2097, 6, 1)).unwrap_or(false));
    assert!(b.is_active(at(2098, 12, 31)).unwrap_or(false));
    assert!(!b.is_active(at(2099, 6, 1)).unwrap_or(true));
    assert_eq!(s.next_after(at(2096, 3, 1)), None);
    let tl = timeline(
        std::slice::from_ref(&b),
        at(2096, 2, 28),
        at(2100, 1, 1),
        10,
        0,
    );
    let changes: Vec<String> = tl.iter().map(|p| p.at.to_rfc3339()).collect();
    assert_eq!(
        changes,
        vec![
            "2096-02-28T00:00:00+00:00",
            "2096-02-29T00:00:00+00:00",
            "2099-01-01T00:59:59+00:00"
        ]
    );
}
