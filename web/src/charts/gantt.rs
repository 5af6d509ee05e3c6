//! The rollout Gantt chart: stages → groups → members (and waits/approvals) as bars on the
//! simulated clock, with a cursor at the observed instant.

use super::TimeAxis;
use chrono::{DateTime, Utc};
use yew::prelude::*;

/// One bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Start.
    pub start: DateTime<Utc>,
    /// End (None = open at the chart's end).
    pub end: Option<DateTime<Utc>>,
    /// CSS class (the state, or "wait"/"approval"/"window").
    pub class: String,
    /// Tooltip.
    pub title: String,
}

/// One row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 0 stage, 1 group, 2 member.
    pub level: u8,
    /// Label.
    pub label: String,
    /// Bars.
    pub bars: Vec<Bar>,
    /// The state at the observed instant.
    pub state: String,
}

/// Props of [`Gantt`].
#[derive(Properties, PartialEq)]
pub struct GanttProps {
    /// Left edge.
    pub start: DateTime<Utc>,
    /// Right edge.
    pub end: DateTime<Utc>,
    /// Rows top to bottom.
    pub rows: Vec<Row>,
    /// Observed instant.
    pub cursor: Option<DateTime<Utc>>,
    /// Accessible title.
    pub title: String,
}

const W: f64 = 760.0;
const LABEL: f64 = 170.0;
const ROW: f64 = 22.0;
const AXIS: f64 = 24.0;

/// The chart.
#[function_component(Gantt)]
pub fn gantt(p: &GanttProps) -> Html {
    let axis = TimeAxis {
        start: p.start,
        end: p.end,
        x0: LABEL,
        x1: W - 8.0,
    };
    let h = AXIS + ROW * p.rows.len() as f64 + 6.0;
    html! {
        <svg class="chart gantt" viewBox={format!("0 0 {W} {h}")} role="img" aria-label={p.title.clone()}>
            <title>{ p.title.clone() }</title>
            { for axis.ticks().into_iter().map(|t| html! {
                <g class="xtick">
                    <line x1={format!("{:.1}", axis.x(t))} x2={format!("{:.1}", axis.x(t))} y1={format!("{}", AXIS - 4.0)} y2={format!("{h}")} />
                    <text x={format!("{:.1}", axis.x(t))} y="14" text-anchor={axis.anchor(axis.x(t))}>{ axis.label(t) }</text>
                </g>
            }) }
            { for p.rows.iter().enumerate().map(|(k, r)| {
                let y = AXIS + ROW * k as f64;
                html! {
                    <g class={classes!("row", format!("level-{}", r.level))}>
                        <text class="row-label" x={format!("{}", 4.0 + 12.0 * r.level as f64)} y={format!("{:.1}", y + 15.0)}>{ r.label.clone() }</text>
                        { for r.bars.iter().map(|b| {
                            let x0 = axis.x(b.start);
                            let x1 = b.end.map(|e| axis.x(e)).unwrap_or(axis.x1);
                            let (top, height) = if b.class == "window" { (y + 2.0, ROW - 4.0) } else { (y + 4.0, ROW - 8.0) };
                            html! {
                                <rect class={classes!("bar", b.class.clone())} x={format!("{x0:.1}")} y={format!("{top:.1}")}
                                    width={format!("{:.1}", (x1 - x0).max(2.0))} height={format!("{height:.1}")}>
                                    <title>{ b.title.clone() }</title>
                                </rect>
                            }
                        }) }
                    </g>
                }
            }) }
            if let Some(c) = p.cursor {
                <line class="cursor" x1={format!("{:.1}", axis.x(c))} x2={format!("{:.1}", axis.x(c))} y1={format!("{}", AXIS - 6.0)} y2={format!("{h}")} />
            }
        </svg>
    }
}
