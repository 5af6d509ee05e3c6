//! SVG charts. They place engine-provided instants and values on axes; nothing else.

pub mod gantt;
pub mod steps;

use chrono::{DateTime, Duration, DurationRound, Utc};

/// A linear time axis mapping `[start, end]` onto `[x0, x1]` pixels.
#[derive(Debug, Clone, Copy)]
pub struct TimeAxis {
    /// Left instant.
    pub start: DateTime<Utc>,
    /// Right instant.
    pub end: DateTime<Utc>,
    /// Left pixel.
    pub x0: f64,
    /// Right pixel.
    pub x1: f64,
}

impl TimeAxis {
    /// The x of an instant (clamped to the axis).
    pub fn x(&self, t: DateTime<Utc>) -> f64 {
        let span = (self.end - self.start).num_seconds().max(1) as f64;
        let off = (t - self.start).num_seconds() as f64;
        self.x0 + (off / span).clamp(0.0, 1.0) * (self.x1 - self.x0)
    }

    /// Tick instants: whole days, or whole hours when the axis is short.
    pub fn ticks(&self) -> Vec<DateTime<Utc>> {
        let span = self.end - self.start;
        let step = if span > Duration::days(20) {
            Duration::days(7)
        } else if span > Duration::days(2) {
            Duration::days(1)
        } else if span > Duration::hours(12) {
            Duration::hours(3)
        } else {
            Duration::hours(1)
        };
        let mut t = self.start.duration_trunc(step).unwrap_or(self.start);
        if t < self.start {
            t += step;
        }
        let mut out = Vec::new();
        while t <= self.end && out.len() < 60 {
            out.push(t);
            t += step;
        }
        out
    }

    /// How a tick label at `x` is anchored: a label centred on a tick near either edge would
    /// be cut by the chart's box ("12:0"), so those align to the inside.
    pub fn anchor(&self, x: f64) -> &'static str {
        const HALF_LABEL: f64 = 22.0;
        if x + HALF_LABEL > self.x1.max(self.x0) + 6.0 {
            "end"
        } else if x - HALF_LABEL < self.x0.min(self.x1) - 6.0 {
            "start"
        } else {
            "middle"
        }
    }

    /// Tick label.
    pub fn label(&self, t: DateTime<Utc>) -> String {
        if self.end - self.start > Duration::days(2) {
            t.format("%a %d").to_string()
        } else {
            t.format("%H:%M").to_string()
        }
    }
}
