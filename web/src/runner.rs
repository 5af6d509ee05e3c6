//! Runs the engine for the root: keeps what was read of each editor (only an editor whose
//! text changed is read again), the facts of the fleet, and the last evaluation that had
//! results (shown, labelled stale, while the input has errors that leave nothing to show).

use crate::evaluation::{self, Evaluation};
use crate::model::{EditJournal, Unchanged, Which};
use crate::state::{State, View};
use crate::views::placement::Facts;
use crate::views::Shared;
use fleet_policy::session::Session;
use std::collections::BTreeMap;
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
    /// Where each editor (fleet, policy) was edited since the session read it.
    journals: [EditJournal; 2],
    facts: FactCache,
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

    /// An editor's text is now `text`; `unchanged` is what the edit left of the text before.
    pub fn edited(&mut self, which: Which, text: &Rc<str>, unchanged: Option<Unchanged>) {
        self.journals[which as usize].edited(text, unchanged);
    }

    /// Evaluates `state` (model revision `rev`).
    pub fn run(&mut self, state: &State, rev: u64) -> Shown {
        if trap_requested() {
            panic!("a trap asked for by the test hook");
        }
        let [fleet, policy] = &mut self.journals;
        let known = [fleet.read(&state.fleet), policy.read(&state.policy)];
        let eval = evaluation::evaluate(state, &mut self.session, &known);
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

    /// The key labels/properties per cluster (those whose key the policy mentions).
    fn facts(&mut self, state: &State) -> Rc<Facts> {
        self.facts.update(&self.session, &state.policy)
    }
}

/// One MemberCluster document's facts: every one, and those shown.
#[derive(Debug)]
struct DocFacts {
    name: Rc<str>,
    all: Vec<(String, String)>,
    shown: Rc<[(String, String)]>,
}

/// The facts of the fleet's clusters, kept per document (by the session's document id): an
/// edit in one item of a 10,000-cluster dump reads that item's facts, not the fleet's.
#[derive(Debug, Default)]
struct FactCache {
    /// The session's MemberCluster generation these are for.
    members: u64,
    /// The MemberCluster documents in document order: session id, facts (None: no name, or
    /// not in the Fleet editor).
    docs: Vec<(u64, Option<DocFacts>)>,
    /// Ids below this were given before the last read.
    next_id: u64,
    /// Every fact key with the number of documents that have it.
    keys: BTreeMap<String, usize>,
    /// The keys the policy mentions.
    mentioned: Vec<String>,
    shown: Rc<Facts>,
}

impl FactCache {
    fn update(&mut self, session: &Session, policy: &str) -> Rc<Facts> {
        let members = session.members_generation();
        let changed = members != self.members;
        if changed {
            self.read(session);
            self.members = members;
        }
        let mentioned: Vec<String> = self
            .keys
            .keys()
            .filter(|k| policy.contains(k.as_str()))
            .cloned()
            .collect();
        if mentioned != self.mentioned {
            self.mentioned = mentioned;
            for (_, d) in &mut self.docs {
                if let Some(d) = d {
                    d.shown = shown_of(&d.all, &self.mentioned);
                }
            }
        } else if !changed {
            return self.shown.clone();
        }
        // The engine uses the first MemberCluster of a name. Built in one pass of shared
        // names and lists (a dump is already in name order), not inserted one by one.
        let shown = Facts::first_wins(
            self.docs
                .iter()
                .filter_map(|(_, d)| d.as_ref())
                .map(|d| (d.name.clone(), d.shown.clone()))
                .collect(),
        );
        if !same_facts(&self.shown, &shown) {
            self.shown = Rc::new(shown);
        }
        self.shown.clone()
    }

    /// Reads the facts of the MemberCluster documents read again since, and forgets those of
    /// documents no longer there. Kept documents are in the order they were in and read ones
    /// have new ids (`Session::document_ids`), so one walk pairs them up: no lookup by id.
    fn read(&mut self, session: &Session) {
        let mut old = std::mem::take(&mut self.docs).into_iter();
        let mut gone = Vec::new();
        let docs = session.input().documents.iter();
        let mut next_id = self.next_id;
        for (d, &id) in docs.zip(session.document_ids()) {
            next_id = next_id.max(id + 1);
            if d.kind != "MemberCluster" {
                continue;
            }
            let mut kept = None;
            if id < self.next_id {
                for (was, facts) in old.by_ref() {
                    if was == id {
                        kept = Some(facts);
                        break;
                    }
                    gone.push(facts);
                }
            }
            let facts = kept.unwrap_or_else(|| {
                crate::locate::cluster_facts(d).map(|(name, all)| {
                    for (k, _) in &all {
                        *self.keys.entry(k.clone()).or_default() += 1;
                    }
                    let shown = shown_of(&all, &self.mentioned);
                    DocFacts {
                        name: name.into(),
                        all,
                        shown,
                    }
                })
            });
            self.docs.push((id, facts));
        }
        self.next_id = next_id;
        for d in gone.into_iter().chain(old.map(|(_, d)| d)).flatten() {
            for (k, _) in &d.all {
                if let Some(n) = self.keys.get_mut(k) {
                    *n -= 1;
                    if *n == 0 {
                        self.keys.remove(k);
                    }
                }
            }
        }
    }
}

/// Whether two facts maps are equal, comparing shared names and lists by address first
/// (`Rc`'s own `==` compares the contents of unsized values: 10,000 names per keystroke).
fn same_facts(a: &Facts, b: &Facts) -> bool {
    a.len() == b.len()
        && a.iter().zip(b.iter()).all(|((an, af), (bn, bf))| {
            (Rc::ptr_eq(an, bn) || an == bn) && (Rc::ptr_eq(af, bf) || af == bf)
        })
}

/// The facts of `all` whose key is one of `keys`.
fn shown_of(all: &[(String, String)], keys: &[String]) -> Rc<[(String, String)]> {
    all.iter()
        .filter(|(k, _)| keys.contains(k))
        .cloned()
        .collect()
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
