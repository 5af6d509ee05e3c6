//! The disruption timeline: allowed disruptions per reason as stepped lines over the horizon,
//! with each scheduled budget's active windows shaded.

use super::TimeAxis;
use chrono::{DateTime, Utc};
use yew::prelude::*;

/// One series: a reason and its (from, value) steps; `None` = unlimited.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Reason name.
    pub name: String,
    /// Steps in time order.
    pub steps: Vec<(DateTime<Utc>, Option<i64>)>,
}

/// One shaded window.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// Label (budget index and value).
    pub label: String,
    /// Start.
    pub start: DateTime<Utc>,
    /// End (None = past the horizon).
    pub end: Option<DateTime<Utc>>,
    /// Row (budget) for stacking the labels.
    pub row: usize,
}

/// Props of [`StepChart`].
#[derive(Properties, PartialEq)]
pub struct StepProps {
    /// Horizon start (the evaluation instant).
    pub start: DateTime<Utc>,
    /// Horizon end.
    pub end: DateTime<Utc>,
    /// Series per reason.
    pub series: Vec<Series>,
    /// Budget windows.
    pub windows: Vec<Window>,
    /// Accessible title.
    pub title: String,
}

const W: f64 = 720.0;
const H: f64 = 220.0;
const LEFT: f64 = 44.0;
const RIGHT: f64 = 10.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 36.0;

/// The stepped chart.
#[function_component(StepChart)]
pub fn step_chart(p: &StepProps) -> Html {
    let axis = TimeAxis {
        start: p.start,
        end: p.end,
        x0: LEFT,
        x1: W - RIGHT,
    };
    let finite_max = p
        .series
        .iter()
        .flat_map(|s| s.steps.iter().filter_map(|(_, v)| *v))
        .max()
        .unwrap_or(0)
        .max(1);
    let has_unlimited = p
        .series
        .iter()
        .any(|s| s.steps.iter().any(|(_, v)| v.is_none()));
    // Unlimited is drawn on a band above the largest finite value.
    let top_value = if has_unlimited {
        finite_max as f64 * 1.25 + 1.0
    } else {
        finite_max as f64
    };
    let y = |v: Option<i64>| -> f64 {
        let v = v.map(|v| v as f64).unwrap_or(top_value);
        TOP + (1.0 - v / top_value) * (H - TOP - BOTTOM)
    };
    let path = |s: &Series, offset: f64| -> String {
        let mut d = String::new();
        for (k, (t, v)) in s.steps.iter().enumerate() {
            let x = axis.x(*t);
            let yy = y(*v) + offset;
            if k == 0 {
                d.push_str(&format!("M{x:.1},{yy:.1}"));
            } else {
                d.push_str(&format!(" H{x:.1} V{yy:.1}"));
            }
        }
        d.push_str(&format!(" H{:.1}", axis.x1));
        d
    };
    let y_ticks: Vec<i64> = {
        let step = ((finite_max as f64) / 4.0).ceil().max(1.0) as i64;
        (0..=finite_max).step_by(step as usize).collect()
    };
    html! {
        <svg class="chart steps" viewBox={format!("0 0 {W} {H}")} role="img" aria-label={p.title.clone()} preserveAspectRatio="none">
            <title>{ p.title.clone() }</title>
            { for p.windows.iter().map(|w| {
                let x0 = axis.x(w.start);
                let x1 = w.end.map(|e| axis.x(e)).unwrap_or(axis.x1);
                html! { <g class="window">
                    <rect x={format!("{x0:.1}")} y={format!("{TOP}")} width={format!("{:.1}", (x1 - x0).max(1.0))} height={format!("{:.1}", H - TOP - BOTTOM)}>
                        <title>{ w.label.clone() }</title>
                    </rect>
                </g> }
            }) }
            { for y_ticks.iter().map(|v| html! {
                <g class="ytick"><line x1={format!("{LEFT}")} x2={format!("{}", W - RIGHT)} y1={format!("{:.1}", y(Some(*v)))} y2={format!("{:.1}", y(Some(*v)))} />
                <text x={format!("{}", LEFT - 6.0)} y={format!("{:.1}", y(Some(*v)) + 4.0)} text-anchor="end">{ v }</text></g>
            }) }
            if has_unlimited {
                <text class="unlimited" x={format!("{}", LEFT - 6.0)} y={format!("{:.1}", y(None) + 4.0)} text-anchor="end">{ "∞" }</text>
            }
            { for axis.ticks().into_iter().map(|t| html! {
                <g class="xtick"><line x1={format!("{:.1}", axis.x(t))} x2={format!("{:.1}", axis.x(t))} y1={format!("{}", H - BOTTOM)} y2={format!("{}", H - BOTTOM + 4.0)} />
                <text x={format!("{:.1}", axis.x(t))} y={format!("{}", H - BOTTOM + 16.0)} text-anchor={axis.anchor(axis.x(t))}>{ axis.label(t) }</text></g>
            }) }
            { for p.series.iter().enumerate().map(|(k, s)| html! {
                <path class={classes!("series", format!("series-{k}"))} d={path(s, k as f64 * 2.0 - 2.0)}><title>{ s.name.clone() }</title></path>
            }) }
            <line class="now" x1={format!("{LEFT}")} x2={format!("{LEFT}")} y1={format!("{TOP}")} y2={format!("{}", H - BOTTOM)} />
            <g class="legend">
                { for p.series.iter().enumerate().map(|(k, s)| html! {
                    <g transform={format!("translate({:.0},{})", LEFT + k as f64 * 130.0, H - 6.0)}>
                        <line class={classes!("series", format!("series-{k}"))} x1="0" x2="18" y1="-4" y2="-4" />
                        <text x="22" y="0">{ s.name.clone() }</text>
                    </g>
                }) }
            </g>
        </svg>
    }
}
