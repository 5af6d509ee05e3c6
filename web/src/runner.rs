//! Runs the engine for the root: keeps what was read of each editor (only an editor whose
//! text changed is read again), the facts of the fleet, and the last evaluation that had
//! results (shown, labelled stale, while the input has errors that leave nothing to show).

use crate::evaluation::{self, Evaluation, Parsed};
use crate::state::{State, View};
use crate::views::placement::Facts;
use crate::views::Shared;
use std::rc::Rc;

/// What the result pane shows after one evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// The newest evaluation.
    pub current: Shared<Evaluation>,
    /// The evaluation whose results are shown (`current`, or the last one with results).
    pub shown: Shared<Evaluation>,
    /// Key labels/properties per cluster (of the shown results).
    pub facts: Rc<Facts>,
    /// Evaluations so far (the page exposes it as `data-eval-seq`).
    pub seq: u64,
    /// The model revision evaluated.
    pub rev: u64,
}

/// The engine's caches.
#[derive(Debug, Default)]
pub struct Runner {
    parsed: Parsed,
    /// Every label/property of every cluster, for the fleet text it was read from (typing in
    /// the policy editor does not re-read a large fleet).
    fleet_facts: (String, Rc<Facts>),
    last: Option<Shown>,
    seq: u64,
}

fn has_results(e: &Evaluation) -> bool {
    let r = &e.report;
    !(r.placements.is_empty() && r.node_pools.is_empty() && r.rollouts.is_empty())
}

impl Runner {
    /// The input both editors hold, as last read.
    pub fn input(&self) -> &fleet_policy::Input {
        &self.parsed.input
    }

    /// Evaluates `state` (model revision `rev`).
    pub fn run(&mut self, state: &State, rev: u64) -> Shown {
        let eval = Rc::new(evaluation::evaluate(state, &mut self.parsed));
        let facts = if state.view == View::Placement && !eval.report.placements.is_empty() {
            if self.fleet_facts.0 != state.fleet {
                self.fleet_facts = (
                    state.fleet.clone(),
                    Rc::new(crate::locate::all_facts(&self.parsed.input)),
                );
            }
            Rc::new(crate::locate::facts(&self.fleet_facts.1, &state.policy))
        } else {
            Rc::default()
        };
        self.seq += 1;
        let mut next = Shown {
            current: Shared(eval.clone()),
            shown: Shared(eval.clone()),
            facts,
            seq: self.seq,
            rev,
        };
        if let Some(last) = &self.last {
            if !eval.report.errors.is_empty() && !has_results(&eval) && has_results(&last.shown) {
                next.shown = last.shown.clone();
                next.facts = last.facts.clone();
            }
        }
        self.last = Some(next.clone());
        next
    }
}
