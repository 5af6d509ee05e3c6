//! Runs the engine for the root: keeps what was read of each editor (only an editor whose
//! text changed is read again), the facts of the fleet, and the last evaluation that had
//! results (shown, labelled stale, while the input has errors that leave nothing to show).

use crate::evaluation::{self, Evaluation};
use crate::state::{State, View};
use crate::views::placement::Facts;
use crate::views::Shared;
use fleet_policy::session::Session;
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

impl Shown {
    /// Nothing evaluated yet.
    pub fn none() -> Shown {
        let nothing = Shared(Rc::new(Evaluation::default()));
        Shown {
            current: nothing.clone(),
            shown: nothing,
            facts: Rc::default(),
            seq: 0,
            rev: 0,
        }
    }
}

/// The engine's caches.
#[derive(Debug, Default)]
pub struct Runner {
    session: Session,
    /// Every label/property of every cluster, for the session's MemberCluster generation
    /// (typing in the policy editor does not re-read a large fleet).
    fleet_facts: (u64, Rc<Facts>),
    /// The facts shown: those whose key the policy mentions (kept while the keys are the same).
    facts: (Vec<String>, Rc<Facts>),
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
        self.session.input()
    }

    /// Evaluates `state` (model revision `rev`).
    pub fn run(&mut self, state: &State, rev: u64) -> Shown {
        if trap_requested() {
            panic!("a trap asked for by the test hook");
        }
        let eval = evaluation::evaluate(state, &mut self.session);
        // The same report at the same instant is the same evaluation: the views see the same
        // props and do not render again.
        let eval = match &self.last {
            Some(last)
                if Rc::ptr_eq(&last.current.report, &eval.report)
                    && (
                        last.current.at,
                        last.current.at_is_now,
                        last.current.at_is_snapshot,
                    ) == (eval.at, eval.at_is_now, eval.at_is_snapshot)
                    && last.current.snapshot == eval.snapshot
                    && last.current.observed_rollouts.is_none()
                    && eval.observed_rollouts.is_none() =>
            {
                last.current.0.clone()
            }
            _ => Rc::new(eval),
        };
        let facts = if state.view == View::Placement && !eval.report.placements.is_empty() {
            self.facts(state)
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

    /// The key labels/properties per cluster: the fleet's are read again only when a
    /// MemberCluster changed, and filtered again only when the keys the policy mentions did.
    fn facts(&mut self, state: &State) -> Rc<Facts> {
        // Read again only when a MemberCluster changed (not on blank space or a comment).
        let members = self.session.members_generation();
        if self.fleet_facts.0 != members {
            let all = crate::locate::all_facts(self.session.input());
            if *self.fleet_facts.1 != all {
                self.fleet_facts.1 = Rc::new(all);
                self.facts.0 = vec!["\u{0}".into()];
            }
            self.fleet_facts.0 = members;
        }
        let keys = crate::locate::mentioned_keys(&self.fleet_facts.1, &state.policy);
        if keys != self.facts.0 {
            self.facts = (
                keys.clone(),
                Rc::new(crate::locate::facts(&self.fleet_facts.1, &keys)),
            );
        }
        self.facts.1.clone()
    }
}

thread_local! {
    static TRAP_NEXT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn trap_requested() -> bool {
    TRAP_NEXT.with(|t| t.replace(false))
}

/// Test hook: the next evaluation traps (as a bug in the engine would), so that the browser
/// tests can check that the page restarts the module and the next edit evaluates.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn __test_trap_next_evaluation() {
    TRAP_NEXT.with(|t| t.set(true));
}
