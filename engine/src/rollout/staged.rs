//! KubeFleet `ClusterStagedUpdateStrategy` / `ClusterStagedUpdateRun` (rollout.md B.1–B.4):
//! CRD validation, run initialisation (stage membership, sorting, run-start failures),
//! `maxConcurrency`, and execution on a virtual clock (sliding window, before/after-stage
//! tasks, stuck-not-failed, preemption, stop/resume, deletion stage).

use super::intstr::{IntOrString, Rounding};
use super::name_index::NameIndex;
use super::plan::State;
use crate::input::duration::GoDuration;
use crate::model::rollout::{StageConfig, StageTask};
use crate::selectors::LabelSelector;
use crate::sorted_map::SortedMap;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::rc::Rc;

/// Name of the deletion stage.
pub const DELETE_STAGE: &str = "kubernetes-fleet.io/deleteStage";

/// Which layer refuses an object (rollout.md B.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layer {
    /// CRD schema / CEL at admission.
    Crd,
    /// The fleet webhook.
    Webhook,
    /// The controller when the run initialises.
    ControllerInit,
    /// This engine (stricter than or outside the reference system).
    Engine,
}

/// One validation finding: field path (relative to the document) and message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Layer.
    pub layer: Layer,
    /// Field path.
    pub path: String,
    /// Message (the reference system's words where known).
    pub message: String,
}

fn crd(path: String, message: String) -> Finding {
    Finding {
        layer: Layer::Crd,
        path,
        message,
    }
}

/// `^(?:(?:0|[1-9][0-9]*)(\.[0-9]+)?(?:s|m|h))+$` (the CRD pattern of `waitTime`).
pub fn wait_time_pattern_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if b.is_empty() {
        return false;
    }
    while i < b.len() {
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(c) if c.is_ascii_digit() => {
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            _ => return false,
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            let s0 = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == s0 {
                return false;
            }
        }
        match b.get(i) {
            Some(b's' | b'm' | b'h') => i += 1,
            _ => return false,
        }
    }
    true
}

fn max_concurrency_pattern_ok(s: &str) -> bool {
    // ^(100|[1-9][0-9]?)%$
    let Some(n) = s.strip_suffix('%') else {
        return false;
    };
    n == "100"
        || (!n.is_empty()
            && n.len() <= 2
            && n.bytes().all(|c| c.is_ascii_digit())
            && !n.starts_with('0'))
}

const WAIT_PATTERN: &str = "^(?:(?:0|[1-9][0-9]*)(\\.[0-9]+)?(?:s|m|h))+$";

/// CRD/CEL validation of a `ClusterStagedUpdateStrategy.spec` (R-KF-1 … R-KF-5), plus the
/// engine's duplicate-name check (R-KF-7) when `reject_duplicates`.
pub fn validate_strategy(stages: &[StageConfig], reject_duplicates: bool) -> Vec<Finding> {
    let mut f = Vec::new();
    if stages.is_empty() {
        f.push(crd(
            "spec.stages".into(),
            "spec.stages: Required value".into(),
        ));
    }
    if stages.len() > 31 {
        f.push(crd(
            "spec.stages".into(),
            format!(
                "spec.stages: Too many: {}: must have at most 31 items",
                stages.len()
            ),
        ));
    }
    for (i, s) in stages.iter().enumerate() {
        let p = format!("spec.stages[{i}]");
        if s.name.len() > 63 {
            f.push(crd(
                format!("{p}.name"),
                format!("{p}.name: Too long: may not be longer than 63"),
            ));
        }
        if s.name.is_empty()
            || !s
                .name
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        {
            f.push(crd(
                format!("{p}.name"),
                format!(
                    "{p}.name: Invalid value: \"{}\": {p}.name in body should match '^[a-z0-9]+$'",
                    s.name
                ),
            ));
        }
        // A repeat of an earlier stage's name (a linear scan: at most 31 stages are valid).
        if reject_duplicates && stages.iter().take(i).any(|t| t.name == s.name) {
            f.push(Finding {
                layer: Layer::Engine,
                path: format!("{p}.name"),
                message: format!(
                    "duplicate stage name \"{}\" (KubeFleet does not enforce unique stage names; this engine does, option kubefleet.rejectDuplicateStageNames)",
                    s.name
                ),
            });
        }
        match &s.max_concurrency {
            Some(IntOrString::Int(v)) if *v < 1 => f.push(crd(
                format!("{p}.maxConcurrency"),
                format!("{p}.maxConcurrency: Invalid value: {v}: maxConcurrency must be at least 1"),
            )),
            Some(IntOrString::String(v)) if !max_concurrency_pattern_ok(v) => f.push(crd(
                format!("{p}.maxConcurrency"),
                format!(
                    "{p}.maxConcurrency: Invalid value: \"{v}\": {p}.maxConcurrency in body should match '^(100|[1-9][0-9]?)%$'"
                ),
            )),
            _ => {}
        }
        if s.before_stage_tasks.len() > 1 {
            f.push(crd(
                format!("{p}.beforeStageTasks"),
                format!(
                    "{p}.beforeStageTasks: Too many: {}: must have at most 1 items",
                    s.before_stage_tasks.len()
                ),
            ));
        }
        if s.after_stage_tasks.len() > 2 {
            f.push(crd(
                format!("{p}.afterStageTasks"),
                format!(
                    "{p}.afterStageTasks: Too many: {}: must have at most 2 items",
                    s.after_stage_tasks.len()
                ),
            ));
        }
        for (j, t) in s.before_stage_tasks.iter().enumerate() {
            let tp = format!("{p}.beforeStageTasks[{j}]");
            match t.task_type.as_str() {
                "Approval" => {
                    if t.wait_time.is_some() {
                        f.push(crd(
                            tp.clone(),
                            format!("{tp}: Invalid value: \"object\": AfterStageTaskType is Approval, waitTime is not allowed"),
                        ));
                    }
                }
                "TimedWait" => f.push(crd(
                    tp.clone(),
                    format!(
                        "{tp}: Invalid value: \"object\": BeforeStageTaskType cannot be TimedWait"
                    ),
                )),
                other => f.push(crd(
                    format!("{tp}.type"),
                    format!(
                        "{tp}.type: Unsupported value: \"{other}\": supported values: \"Approval\""
                    ),
                )),
            }
        }
        for (j, t) in s.after_stage_tasks.iter().enumerate() {
            let tp = format!("{p}.afterStageTasks[{j}]");
            match t.task_type.as_str() {
                "Approval" => {
                    if t.wait_time.is_some() {
                        f.push(crd(
                            tp.clone(),
                            format!("{tp}: Invalid value: \"object\": AfterStageTaskType is Approval, waitTime is not allowed"),
                        ));
                    }
                }
                "TimedWait" => {
                    if t.wait_time.is_none() {
                        f.push(crd(
                            tp.clone(),
                            format!("{tp}: Invalid value: \"object\": AfterStageTaskType is TimedWait, waitTime is required"),
                        ));
                    }
                }
                other => f.push(crd(
                    format!("{tp}.type"),
                    format!("{tp}.type: Unsupported value: \"{other}\": supported values: \"TimedWait\", \"Approval\""),
                )),
            }
            if let Some(w) = &t.wait_time {
                if !wait_time_pattern_ok(w) {
                    f.push(crd(
                        format!("{tp}.waitTime"),
                        format!("{tp}.waitTime: Invalid value: \"{w}\": {tp}.waitTime in body should match '{WAIT_PATTERN}'"),
                    ));
                }
            }
        }
        if let Some(sel) = &s.label_selector {
            if let Err(e) = sel.compile() {
                f.push(crd(
                    format!("{p}.labelSelector.{}", e.field),
                    format!("{p}.labelSelector.{}: {}", e.field, e.message),
                ));
            }
        }
    }
    f
}

/// Run-initialisation checks of the after-stage tasks (R-KF-8, R-KF-9, `validateAfterStageTask`).
pub fn validate_after_stage_tasks(tasks: &[StageTask]) -> Result<(), String> {
    if tasks.len() == 2 && tasks[0].task_type == tasks[1].task_type {
        return Err(format!(
            "afterStageTasks cannot have two tasks of the same type: {}",
            tasks[0].task_type
        ));
    }
    for (i, t) in tasks.iter().enumerate() {
        if t.task_type == "TimedWait" {
            let d = t.wait_time.as_deref().map(GoDuration::parse);
            match d {
                Some(Ok(d)) if d.0 > 0 => {}
                _ => {
                    return Err(format!("task {i} of type TimedWait has wait duration <= 0"));
                }
            }
        }
    }
    Ok(())
}

/// `spec.state` transition check (R-KF-6); `None` means unset (defaults to Initialize).
/// Returns the resulting state.
pub fn validate_state_transition(from: Option<&str>, to: Option<&str>) -> Result<String, Finding> {
    let to = to.unwrap_or("Initialize");
    if !matches!(to, "Initialize" | "Run" | "Stop") {
        return Err(crd(
            "spec.state".into(),
            format!("spec.state: Unsupported value: \"{to}\": supported values: \"Initialize\", \"Run\", \"Stop\""),
        ));
    }
    if let Some(from) = from {
        let ok = from == to
            || matches!(
                (from, to),
                ("Initialize", "Run") | ("Run", "Stop") | ("Stop", "Run")
            );
        if !ok {
            return Err(crd(
                "spec".into(),
                format!("invalid state transition: cannot transition from {from} to {to}"),
            ));
        }
    }
    Ok(to.to_string())
}

/// `calculateMaxConcurrencyValue` (R-KF-33): percent of the stage's cluster count rounded
/// down, minimum 1; integers as is; absent = 1.
pub fn max_concurrency(value: Option<&IntOrString>, cluster_count: usize) -> Result<i64, String> {
    let Some(v) = value else { return Ok(1) };
    let n = v.scaled(cluster_count as i64, Rounding::Down)?;
    Ok(if n == 0 { 1 } else { n })
}

/// A MemberCluster as stage computation sees it, borrowed from its document (stage
/// selectors and the sorting label read the labels in place: no per-cluster map).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClusterView<'a> {
    /// Name.
    pub name: &'a str,
    /// `metadata.labels` as written.
    pub labels: Labels<'a>,
}

/// A document's `metadata.labels` mapping, read in place. Lookups see what
/// [`crate::input::Document::labels`] collected into a map would: string entries only, the
/// last of a repeated key.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Labels<'a>(pub &'a [(crate::input::Node, crate::input::Node)]);

impl<'a> Labels<'a> {
    /// The labels of a document.
    pub fn of(doc: &'a crate::input::Document) -> Self {
        Labels(doc.labels_map())
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&'a str> {
        self.0
            .iter()
            .rev()
            .filter_map(|(k, v)| Some((k.as_scalar()?, v.as_scalar()?)))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }
}

/// A computed stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComputedStage {
    /// Stage name.
    pub name: String,
    /// Clusters in update order (each name made once; the report shares it).
    pub clusters: Vec<Rc<str>>,
}

/// How [`compute_stages`]'s error for scheduled clusters in no stage begins.
pub const NOT_PLACED: &str = "some clusters are not placed in any stage";

/// Go's `strconv.Atoi` error for a text it refuses (label values are plain ASCII, so Go's
/// quoting is plain double quotes).
fn atoi_error(v: &str) -> String {
    let body = v.strip_prefix(['+', '-']).unwrap_or(v);
    let why = if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
        "value out of range"
    } else {
        "invalid syntax"
    };
    format!("strconv.Atoi: parsing \"{v}\": {why}")
}

/// `computeRunStageStatus` (R-KF-20 … R-KF-26). `selected` are the scheduled clusters,
/// `to_delete` the clusters of Unscheduled bindings, both in byte order without repeats.
pub fn compute_stages(
    stages: &[StageConfig],
    clusters: &[ClusterView<'_>],
    selected: &[&str],
    to_delete: &[&str],
) -> Result<(Vec<ComputedStage>, Vec<Rc<str>>), String> {
    let mut out = Vec::new();
    let mut sorted: Vec<&ClusterView<'_>> = clusters.iter().collect();
    sorted.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    sorted.dedup_by(|a, b| a.name == b.name);
    // The scheduled clusters, once (both lists are in byte order: one merge, no lookups).
    let mut wanted = selected.iter().peekable();
    sorted.retain(|c| {
        while wanted
            .next_if(|s| s.as_bytes() < c.name.as_bytes())
            .is_some()
        {}
        wanted.peek().is_some_and(|s| **s == c.name)
    });
    // The selectors, compiled in stage order up to the first invalid one (whose error comes
    // after every earlier stage is computed).
    let mut selectors = Vec::with_capacity(stages.len());
    let mut invalid = None;
    for s in stages {
        match s.label_selector.as_ref().map(compile).transpose() {
            Ok(sel) => selectors.push(sel),
            Err(e) => {
                invalid = Some(e);
                break;
            }
        }
    }
    // Each cluster against every stage in one visit (its labels are read while they are in
    // cache), with its sorting label for each stage it matches. A cluster matching a second
    // stage is the error the stage-by-stage walk meets first: the one with the earliest second
    // stage, then the first in name order.
    let mut matched: Vec<Vec<(&ClusterView<'_>, Option<&str>)>> = vec![Vec::new(); selectors.len()];
    let mut seen = vec![false; sorted.len()];
    let mut twice: Option<(usize, &ClusterView<'_>)> = None;
    // The label keys the selectors read, each read once per cluster (stages usually select on
    // one or two keys): `slots` holds the position in `keys` of each requirement's key.
    let mut keys: Vec<&str> = Vec::new();
    let slots: Vec<Vec<usize>> = selectors
        .iter()
        .map(|sel| {
            sel.iter()
                .flat_map(|s| &s.requirements)
                .map(|r| match keys.iter().position(|k| *k == r.key) {
                    Some(i) => i,
                    None => {
                        keys.push(&r.key);
                        keys.len() - 1
                    }
                })
                .collect()
        })
        .collect();
    let mut values: Vec<Option<&str>> = vec![None; keys.len()];
    for (c, placed) in sorted.iter().zip(seen.iter_mut()) {
        for (v, k) in values.iter_mut().zip(&keys) {
            *v = c.labels.get(k);
        }
        let stages_of = selectors.iter().zip(&slots).zip(matched.iter_mut());
        for (si, ((sel, slots), list)) in stages_of.enumerate() {
            let Some(sel) = sel else { continue };
            let value = |i: &usize| values.get(*i).copied().flatten();
            if !(sel.requirements.iter().zip(slots)).all(|(r, i)| r.matches(|_| value(i))) {
                continue;
            }
            if std::mem::replace(placed, true) {
                if twice.is_none_or(|(ts, _)| si < ts) {
                    twice = Some((si, *c));
                }
                break;
            }
            let key = stages.get(si).and_then(|s| s.sorting_label_key.as_deref());
            list.push((*c, key.map(|k| c.labels.get(k).unwrap_or(""))));
        }
    }
    for (si, (s, matched)) in stages.iter().zip(matched).enumerate() {
        if let Some((_, c)) = twice.filter(|(ts, _)| *ts == si) {
            return Err(format!(
                "cluster `{}` appears in more than one stages",
                c.name
            ));
        }
        let names = match &s.sorting_label_key {
            None => matched.iter().map(|(c, _)| Rc::from(c.name)).collect(),
            Some(key) => {
                // `matched` is in name order: its positions break ties as the names would,
                // without comparing them.
                let mut keyed = Vec::with_capacity(matched.len());
                for (i, (c, v)) in matched.iter().enumerate() {
                    let v = v.unwrap_or("");
                    let n = super::intstr::go_atoi(v).ok_or_else(|| {
                        format!(
                            "the sorting label `{key}:{v}` on cluster `{}` is not valid: {}",
                            c.name,
                            atoi_error(v)
                        )
                    })?;
                    keyed.push((n, i));
                }
                keyed.sort_unstable();
                keyed
                    .into_iter()
                    .filter_map(|(_, i)| matched.get(i))
                    .map(|(c, _)| Rc::from(c.name))
                    .collect()
            }
        };
        out.push(ComputedStage {
            name: s.name.clone(),
            clusters: names,
        });
    }
    if let Some(e) = invalid {
        return Err(e);
    }
    // Scheduled clusters in no stage (or without a MemberCluster), in name order. Each placed
    // cluster is a distinct scheduled one: when as many are placed, none is missing.
    if seen.iter().filter(|p| **p).count() != selected.len() {
        let mut placed = sorted.iter().zip(&seen).peekable();
        let missing: Vec<&str> = selected
            .iter()
            .copied()
            .filter(|name| {
                while placed
                    .next_if(|(c, _)| c.name.as_bytes() < name.as_bytes())
                    .is_some()
                {}
                !placed
                    .peek()
                    .is_some_and(|(c, done)| c.name == *name && **done)
            })
            .collect();
        let shown: Vec<&str> = missing.iter().take(10).copied().collect();
        return Err(format!(
            "{NOT_PLACED}, total {}, showing up to 10: {}",
            missing.len(),
            shown.join(", ")
        ));
    }
    let deletion = to_delete.iter().map(|s| Rc::from(*s)).collect();
    Ok((out, deletion))
}

fn compile(sel: &LabelSelector) -> Result<crate::selectors::Selector, String> {
    sel.compile()
        .map_err(|e| format!("invalid label selector {}: {}", e.field, e.message))
}

/// A stage ready to execute.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecStage {
    /// Name (the report's copies share it).
    pub name: Rc<str>,
    /// Clusters in order.
    pub clusters: Vec<Rc<str>>,
    /// Resolved maxConcurrency.
    pub concurrency: usize,
    /// A before-stage Approval.
    pub before_approval: bool,
    /// After-stage TimedWait in seconds.
    pub after_wait: Option<i64>,
    /// An after-stage Approval.
    pub after_approval: bool,
    /// The deletion stage (all at once, no tasks).
    pub deletion: bool,
}

/// A KubeFleet what-if on the clock (Unix seconds).
#[derive(Debug, Clone, PartialEq)]
pub enum KfEvent {
    /// Approve a request.
    Approve(i64, String),
    /// `state: Stop`.
    Stop(i64),
    /// `state: Run` again.
    Start(i64),
    /// Binding `Applied`/`Available` condition set to `ok`.
    Condition(i64, String, bool),
    /// Binding changed under the run: the cluster fails (R-KF-36/39).
    Preempt(i64, String),
}

/// Which object a [`KfChange`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KfSubject {
    /// Cluster `(stage, position)`.
    Cluster(usize, usize),
    /// Stage.
    Stage(usize),
    /// Wait `(stage, wait index)`: 0 before-approval, 1 timed wait, 2 after-approval.
    Wait(usize, usize),
    /// The run.
    Run,
}

/// A state change.
#[derive(Debug, Clone, PartialEq)]
pub struct KfChange {
    /// When.
    pub at: i64,
    /// What.
    pub subject: KfSubject,
    /// New state.
    pub state: State,
    /// KubeFleet condition reason.
    pub reason: Option<&'static str>,
}

/// A state with its start and end.
pub type Timed = (State, Option<i64>, Option<i64>);
/// A state, its condition reason, start and end.
pub type TimedWithReason = (State, Option<&'static str>, Option<i64>, Option<i64>);

/// Execution result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KfResult {
    /// Per stage, per cluster: state, start, end.
    pub clusters: Vec<Vec<Timed>>,
    /// Per stage: state, reason, start, end.
    pub stages: Vec<TimedWithReason>,
    /// Per stage: [before-approval, timed wait, after-approval] state, start, end.
    pub waits: Vec<[Timed; 3]>,
    /// Run state, reason, start, end.
    pub run: TimedWithReason,
    /// Changes in time order.
    pub timeline: Vec<KfChange>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum KEv {
    User(usize),
    Start,
    ClusterEnd(usize, usize),
    StuckCheck(usize, usize),
    TaskDone(usize),
}

/// Parameters of an execution.
pub struct ExecParams<'a> {
    /// Run name (approval request names).
    pub run_name: &'a str,
    /// Start instant.
    pub start: i64,
    /// Duration per cluster (seconds).
    pub duration: &'a dyn Fn(&str) -> i64,
    /// What-ifs.
    pub events: &'a [KfEvent],
    /// Approve every request when created.
    pub approve_all: bool,
    /// Stuck threshold (seconds).
    pub stuck_threshold: i64,
    /// Clock limit.
    pub horizon_end: i64,
}

struct Exec<'a> {
    stages: &'a [ExecStage],
    p: &'a ExecParams<'a>,
    c_state: Vec<Vec<State>>,
    c_start: Vec<Vec<Option<i64>>>,
    c_end: Vec<Vec<Option<i64>>>,
    c_planned: Vec<Vec<Option<i64>>>,
    c_stalled: Vec<Vec<bool>>,
    c_preempt_pending: Vec<Vec<bool>>,
    s_state: Vec<(State, Option<&'static str>)>,
    s_start: Vec<Option<i64>>,
    s_end: Vec<Option<i64>>,
    waits: Vec<[Timed; 3]>,
    run: (State, Option<&'static str>),
    run_start: Option<i64>,
    run_end: Option<i64>,
    current: usize,
    stopping: bool,
    failed: bool,
    approvals: SortedMap<String, i64>,
    queue: BinaryHeap<Reverse<(i64, u64, KEv)>>,
    seq: u64,
    timeline: Vec<KfChange>,
    cluster_index: NameIndex<'a, (usize, usize)>,
    /// Per stage: next cluster to start (clusters start strictly in order).
    next_idx: Vec<usize>,
    /// Per stage: clusters in flight.
    inflight: Vec<usize>,
    /// Per stage: clusters succeeded.
    done: Vec<usize>,
    /// Per stage: latest success.
    last_done: Vec<Option<i64>>,
    /// In-flight clusters of every stage, sorted by start time (stuck detection). A sorted
    /// deque: at most the stages' concurrency, and the earliest starts (the ones that finish
    /// first) leave from the front cheaply.
    inflight_set: VecDeque<(i64, usize, usize)>,
}

/// Executes a staged run (R-KF-30 … R-KF-39).
pub fn execute(stages: &[ExecStage], p: &ExecParams<'_>) -> KfResult {
    let n = stages.len();
    // Only what-ifs that name a cluster need the name index.
    let named = p
        .events
        .iter()
        .any(|e| matches!(e, KfEvent::Condition(..) | KfEvent::Preempt(..)));
    let cluster_index = NameIndex::first_wins(
        stages
            .iter()
            .enumerate()
            .filter(|_| named)
            .flat_map(|(si, s)| {
                (s.clusters.iter().enumerate()).map(move |(ci, c)| (&**c, (si, ci)))
            }),
    );
    let mut ex = Exec {
        stages,
        p,
        c_state: stages
            .iter()
            .map(|s| vec![State::NotStarted; s.clusters.len()])
            .collect(),
        c_start: stages
            .iter()
            .map(|s| vec![None; s.clusters.len()])
            .collect(),
        c_end: stages
            .iter()
            .map(|s| vec![None; s.clusters.len()])
            .collect(),
        c_planned: stages
            .iter()
            .map(|s| vec![None; s.clusters.len()])
            .collect(),
        c_stalled: stages
            .iter()
            .map(|s| vec![false; s.clusters.len()])
            .collect(),
        c_preempt_pending: stages
            .iter()
            .map(|s| vec![false; s.clusters.len()])
            .collect(),
        s_state: vec![(State::NotStarted, None); n],
        s_start: vec![None; n],
        s_end: vec![None; n],
        waits: vec![[(State::NotStarted, None, None); 3]; n],
        run: (State::NotStarted, None),
        run_start: None,
        run_end: None,
        current: 0,
        stopping: false,
        failed: false,
        approvals: SortedMap::new(),
        queue: BinaryHeap::new(),
        seq: 0,
        // Each cluster starts and ends once in a plain run; stages and waits add a few.
        timeline: Vec::with_capacity(
            2 * stages.iter().map(|s| s.clusters.len()).sum::<usize>() + 8 * n + 4,
        ),
        cluster_index,
        next_idx: vec![0; n],
        inflight: vec![0; n],
        done: vec![0; n],
        last_done: vec![None; n],
        inflight_set: VecDeque::new(),
    };
    for e in p.events {
        if let KfEvent::Approve(t, name) = e {
            let v = ex.approvals.get_or_insert_with(name.clone(), || *t);
            *v = (*v).min(*t);
        }
    }
    ex.push(p.start, KEv::Start);
    for (i, e) in p.events.iter().enumerate() {
        let t = match e {
            KfEvent::Approve(t, _)
            | KfEvent::Stop(t)
            | KfEvent::Start(t)
            | KfEvent::Condition(t, _, _)
            | KfEvent::Preempt(t, _) => *t,
        };
        ex.push(t.max(p.start), KEv::User(i));
    }
    ex.run_loop();
    KfResult {
        clusters: (0..n)
            .map(|s| {
                (0..stages[s].clusters.len())
                    .map(|c| (ex.c_state[s][c], ex.c_start[s][c], ex.c_end[s][c]))
                    .collect()
            })
            .collect(),
        stages: (0..n)
            .map(|s| (ex.s_state[s].0, ex.s_state[s].1, ex.s_start[s], ex.s_end[s]))
            .collect(),
        waits: ex.waits.clone(),
        run: (ex.run.0, ex.run.1, ex.run_start, ex.run_end),
        timeline: ex.timeline,
    }
}

impl<'a> Exec<'a> {
    fn push(&mut self, t: i64, e: KEv) {
        self.seq += 1;
        self.queue.push(Reverse((t, self.seq, e)));
    }

    fn set_cluster(&mut self, s: usize, c: usize, st: State, t: i64) {
        let old = self.c_state[s][c];
        if old != st {
            if old == State::Running {
                self.inflight[s] = self.inflight[s].saturating_sub(1);
                if let Some(start) = self.c_start[s][c] {
                    // The earliest start usually ends first: it leaves from the front.
                    let key = (start, s, c);
                    if self.inflight_set.front() == Some(&key) {
                        self.inflight_set.pop_front();
                    } else if let Ok(i) = self.inflight_set.binary_search(&key) {
                        self.inflight_set.remove(i);
                    }
                }
            }
            match st {
                State::Running => {
                    self.inflight[s] += 1;
                    if let Some(start) = self.c_start[s][c] {
                        // The clock only moves forward: a start usually goes at the back.
                        let key = (start, s, c);
                        if self.inflight_set.back().is_none_or(|b| *b < key) {
                            self.inflight_set.push_back(key);
                        } else if let Err(i) = self.inflight_set.binary_search(&key) {
                            self.inflight_set.insert(i, key);
                        }
                    }
                }
                State::Completed => {
                    self.done[s] += 1;
                    self.last_done[s] = Some(self.last_done[s].map_or(t, |x| x.max(t)));
                }
                _ => {}
            }
            self.c_state[s][c] = st;
            self.timeline.push(KfChange {
                at: t,
                subject: KfSubject::Cluster(s, c),
                state: st,
                reason: None,
            });
        }
    }

    fn set_stage(&mut self, s: usize, st: State, reason: &'static str, t: i64) {
        if self.s_state[s] != (st, Some(reason)) {
            self.s_state[s] = (st, Some(reason));
            self.timeline.push(KfChange {
                at: t,
                subject: KfSubject::Stage(s),
                state: st,
                reason: Some(reason),
            });
            if matches!(st, State::Completed | State::Skipped | State::Failed) {
                self.s_end[s] = Some(t);
            }
        }
    }

    fn set_wait(&mut self, s: usize, w: usize, st: State, t: i64) {
        let slot = &mut self.waits[s][w];
        if slot.0 == st {
            return;
        }
        slot.0 = st;
        if st == State::Running {
            slot.1 = Some(t);
        } else if st.is_terminal() {
            slot.2 = Some(t);
        }
        self.timeline.push(KfChange {
            at: t,
            subject: KfSubject::Wait(s, w),
            state: st,
            reason: None,
        });
    }

    fn set_run(&mut self, st: State, reason: &'static str, t: i64) {
        if self.run != (st, Some(reason)) {
            self.run = (st, Some(reason));
            self.timeline.push(KfChange {
                at: t,
                subject: KfSubject::Run,
                state: st,
                reason: Some(reason),
            });
            if matches!(st, State::Completed | State::Failed) {
                self.run_end = Some(t);
            }
        }
    }

    fn request_name(&self, s: usize, before: bool) -> String {
        let which = if before { "before" } else { "after" };
        format!("{}-{which}-{}", self.p.run_name, self.stages[s].name)
    }

    fn approved_at(&self, name: &str, created: i64) -> Option<i64> {
        if self.p.approve_all {
            return Some(created);
        }
        self.approvals.get(name).map(|t| (*t).max(created))
    }

    fn run_loop(&mut self) {
        let mut steps = 0u64;
        while let Some(Reverse((t, _, e))) = self.queue.pop() {
            if t > self.p.horizon_end {
                break;
            }
            steps += 1;
            if steps > 20_000_000 {
                break;
            }
            if self.failed {
                continue;
            }
            match e {
                KEv::Start => {
                    self.run_start = Some(t);
                    self.set_run(State::Running, "UpdateRunStarted", t);
                    self.enter_stage(0, t);
                }
                KEv::User(i) => self.on_user(i, t),
                KEv::ClusterEnd(s, c) => {
                    if self.c_state[s][c] == State::Running
                        && self.c_planned[s][c] == Some(t)
                        && !self.c_stalled[s][c]
                    {
                        self.c_end[s][c] = Some(t);
                        self.set_cluster(s, c, State::Completed, t);
                        self.advance(t);
                    }
                }
                KEv::StuckCheck(s, c) => {
                    if self.c_state[s][c] == State::Running {
                        self.update_stuck(t);
                    }
                }
                KEv::TaskDone(s) => {
                    if s == self.current {
                        self.advance(t);
                    }
                }
            }
        }
    }

    fn on_user(&mut self, i: usize, t: i64) {
        let Some(e) = self.p.events.get(i) else {
            return;
        };
        match e {
            KfEvent::Approve(_, _) => {
                let s = self.current;
                self.advance(t);
                let _ = s;
            }
            KfEvent::Stop(_) => {
                if self.run_start.is_some()
                    && !matches!(self.run.0, State::Completed | State::Failed)
                {
                    self.stopping = true;
                    self.update_stop(t);
                }
            }
            KfEvent::Start(_) => {
                if self.stopping {
                    self.stopping = false;
                    self.set_run(State::Running, "UpdateRunStarted", t);
                    if let Some(s) = self.stages.get(self.current) {
                        let _ = s;
                        self.set_stage(self.current, State::Running, "StageUpdatingStarted", t);
                    }
                    self.advance(t);
                }
            }
            KfEvent::Condition(_, name, ok) => {
                if let Some((s, c)) = self.cluster_index.get(name.as_str()) {
                    if *ok {
                        if self.c_stalled[s][c] {
                            self.c_stalled[s][c] = false;
                            if self.c_state[s][c] == State::Running {
                                let end = self.c_planned[s][c].unwrap_or(t).max(t);
                                self.c_planned[s][c] = Some(end);
                                self.push(end, KEv::ClusterEnd(s, c));
                            }
                        }
                    } else if self.c_state[s][c] != State::Completed {
                        self.c_stalled[s][c] = true;
                    }
                }
            }
            KfEvent::Preempt(_, name) => {
                if let Some((s, c)) = self.cluster_index.get(name.as_str()) {
                    match self.c_state[s][c] {
                        State::Running => self.fail_cluster(s, c, t),
                        State::NotStarted => self.c_preempt_pending[s][c] = true,
                        _ => {}
                    }
                }
            }
        }
    }

    fn fail_cluster(&mut self, s: usize, c: usize, t: i64) {
        self.c_end[s][c] = Some(t);
        self.set_cluster(s, c, State::Failed, t);
        self.set_stage(s, State::Failed, "StageUpdatingFailed", t);
        self.set_run(State::Failed, "UpdateRunFailed", t);
        self.failed = true;
    }

    /// Clusters of stage `s` running now (kept by [`Exec::set_cluster`], not counted).
    fn in_flight(&self, s: usize) -> usize {
        self.inflight.get(s).copied().unwrap_or(0)
    }

    fn update_stop(&mut self, t: i64) {
        let s = self.current;
        if self.in_flight(s) > 0 {
            self.set_run(State::Stopping, "UpdateRunStopping", t);
            if s < self.stages.len() {
                self.set_stage(s, State::Stopping, "StageUpdatingStopping", t);
            }
        } else {
            self.set_run(State::Stopped, "UpdateRunStopped", t);
            if s < self.stages.len() && !self.s_state[s].0.is_terminal() {
                self.set_stage(s, State::Stopped, "StageUpdatingStopped", t);
            }
        }
    }

    fn update_stuck(&mut self, t: i64) {
        if self.failed || self.stopping {
            return;
        }
        let stuck = self
            .inflight_set
            .front()
            .is_some_and(|(start, _, _)| t - start >= self.p.stuck_threshold);
        if stuck {
            self.set_run(State::Stuck, "UpdateRunStuck", t);
        } else if self.run.0 == State::Stuck {
            self.set_run(State::Running, "UpdateRunStarted", t);
        }
    }

    fn enter_stage(&mut self, s: usize, t: i64) {
        self.current = s;
        if s >= self.stages.len() {
            self.set_run(State::Completed, "UpdateRunSucceeded", t);
            return;
        }
        self.s_start[s] = Some(t);
        let st = &self.stages[s];
        if st.clusters.is_empty() && !st.deletion {
            // R-KF-24: skipped entirely, tasks included.
            for w in 0..3 {
                let has = match w {
                    0 => st.before_approval,
                    1 => st.after_wait.is_some(),
                    _ => st.after_approval,
                };
                if has {
                    self.set_wait(s, w, State::Skipped, t);
                }
            }
            self.set_stage(s, State::Skipped, "StageUpdatingSkippedNoClusters", t);
            self.enter_stage(s + 1, t);
            return;
        }
        if st.before_approval {
            self.set_wait(s, 0, State::Running, t);
        }
        self.advance(t);
    }

    /// Drives the current stage as far as it can go at `t`.
    fn advance(&mut self, t: i64) {
        loop {
            if self.failed {
                return;
            }
            let s = self.current;
            let Some(st) = self.stages.get(s) else { return };
            if self.stopping {
                self.update_stop(t);
                return;
            }
            // Before-stage approval gate.
            if st.before_approval && self.waits[s][0].0 != State::Completed {
                let name = self.request_name(s, true);
                let created = self.waits[s][0].1.unwrap_or(t);
                match self.approved_at(&name, created) {
                    Some(at) if at <= t => self.set_wait(s, 0, State::Completed, t),
                    _ => {
                        self.set_stage(s, State::Waiting, "StageUpdatingWaiting", t);
                        self.set_run(State::Waiting, "UpdateRunWaiting", t);
                        return;
                    }
                }
            }
            // Start clusters in order while slots are free (sliding window, R-KF-34).
            let n = st.clusters.len();
            let cap = if st.deletion {
                usize::MAX
            } else {
                st.concurrency.max(1)
            };
            let mut in_flight = self.in_flight(s);
            let mut started_any = false;
            while self.next_idx[s] < n && in_flight < cap {
                let c = self.next_idx[s];
                self.next_idx[s] += 1;
                if self.c_state[s][c] == State::NotStarted {
                    self.c_start[s][c] = Some(t);
                    self.set_cluster(s, c, State::Running, t);
                    started_any = true;
                    in_flight += 1;
                    if self.c_preempt_pending[s][c] {
                        self.fail_cluster(s, c, t);
                        return;
                    }
                    let end = t + (self.p.duration)(&st.clusters[c]).max(0);
                    self.c_planned[s][c] = Some(end);
                    self.push(end, KEv::ClusterEnd(s, c));
                    self.push(t + self.p.stuck_threshold, KEv::StuckCheck(s, c));
                }
            }
            let all_done = self.done[s] == n;
            if !all_done {
                if started_any || self.s_state[s].0 != State::Running {
                    self.set_stage(s, State::Running, "StageUpdatingStarted", t);
                }
                self.update_stuck(t);
                if self.run.0 != State::Stuck {
                    self.set_run(State::Running, "UpdateRunStarted", t);
                }
                return;
            }
            // After-stage tasks run in parallel (R-KF-37).
            let last_done = self.last_done[s].unwrap_or(t);
            let mut waiting = false;
            if let Some(w) = st.after_wait {
                if self.waits[s][1].0 != State::Completed {
                    if self.waits[s][1].0 == State::NotStarted {
                        self.set_wait(s, 1, State::Running, last_done);
                        self.push(last_done + w, KEv::TaskDone(s));
                    }
                    if last_done + w <= t {
                        self.set_wait(s, 1, State::Completed, t);
                    } else {
                        waiting = true;
                    }
                }
            }
            if st.after_approval && self.waits[s][2].0 != State::Completed {
                if self.waits[s][2].0 == State::NotStarted {
                    self.set_wait(s, 2, State::Running, last_done);
                }
                let name = self.request_name(s, false);
                match self.approved_at(&name, last_done) {
                    Some(at) if at <= t => self.set_wait(s, 2, State::Completed, t),
                    Some(at) => {
                        self.push(at, KEv::TaskDone(s));
                        waiting = true;
                    }
                    None => waiting = true,
                }
            }
            if waiting {
                self.set_stage(s, State::Waiting, "StageUpdatingWaiting", t);
                self.set_run(State::Waiting, "UpdateRunWaiting", t);
                return;
            }
            self.set_stage(s, State::Completed, "StageUpdatingSucceeded", t);
            self.current = s + 1;
            if s + 1 >= self.stages.len() {
                self.set_run(State::Completed, "UpdateRunSucceeded", t);
                return;
            }
            self.s_start[s + 1] = Some(t);
            let next = &self.stages[s + 1];
            if next.clusters.is_empty() && !next.deletion {
                self.enter_stage(s + 1, t);
                return;
            }
            if next.before_approval {
                self.set_wait(s + 1, 0, State::Running, t);
            }
        }
    }
}

/// The KubeFleet conditions behind a neutral state (rollout.md B.4 mapping table):
/// `Started`/`Succeeded` for clusters, `Progressing`/`Succeeded` and the reason for stages and
/// runs (`Initialized` too for runs). Values are "True", "False" or "Unknown".
pub fn conditions(subject: super::plan::Subject, state: State) -> BTreeMap<&'static str, String> {
    use super::plan::Subject as S;
    let mut m = BTreeMap::new();
    let mut put = |k: &'static str, v: &str| {
        m.insert(k, v.to_string());
    };
    match subject {
        S::Member => match state {
            State::Running => put("Started", "True"),
            State::Completed => {
                put("Started", "True");
                put("Succeeded", "True");
            }
            State::Failed => {
                put("Started", "True");
                put("Succeeded", "False");
            }
            _ => {}
        },
        S::Stage | S::Group | S::Wait => {
            let (p, s, r) = match state {
                State::Waiting => (Some("False"), None, Some("StageUpdatingWaiting")),
                State::Running | State::Stuck => (Some("True"), None, Some("StageUpdatingStarted")),
                State::Completed => (Some("False"), Some("True"), Some("StageUpdatingSucceeded")),
                State::Skipped => (
                    Some("False"),
                    Some("True"),
                    Some("StageUpdatingSkippedNoClusters"),
                ),
                State::Failed => (Some("False"), Some("False"), Some("StageUpdatingFailed")),
                State::Stopping => (Some("Unknown"), None, Some("StageUpdatingStopping")),
                State::Stopped => (Some("False"), None, Some("StageUpdatingStopped")),
                _ => (None, None, None),
            };
            if let Some(p) = p {
                put("Progressing", p);
            }
            if let Some(s) = s {
                put("Succeeded", s);
            }
            if let Some(r) = r {
                put("reason", r);
            }
        }
        S::Run => {
            let (i, p, s, r) = match state {
                State::InitFailed => (
                    Some("False"),
                    None,
                    None,
                    Some("UpdateRunInitializedFailed"),
                ),
                State::NotStarted => (
                    Some("True"),
                    None,
                    None,
                    Some("UpdateRunInitializeSucceeded"),
                ),
                State::Running => (Some("True"), Some("True"), None, Some("UpdateRunStarted")),
                State::Waiting => (Some("True"), Some("False"), None, Some("UpdateRunWaiting")),
                State::Stuck => (Some("True"), Some("False"), None, Some("UpdateRunStuck")),
                State::Stopping => (
                    Some("True"),
                    Some("Unknown"),
                    None,
                    Some("UpdateRunStopping"),
                ),
                State::Stopped => (Some("True"), Some("False"), None, Some("UpdateRunStopped")),
                State::Completed => (
                    Some("True"),
                    Some("False"),
                    Some("True"),
                    Some("UpdateRunSucceeded"),
                ),
                State::Failed => (
                    Some("True"),
                    Some("False"),
                    Some("False"),
                    Some("UpdateRunFailed"),
                ),
                _ => (None, None, None, None),
            };
            if let Some(i) = i {
                put("Initialized", i);
            }
            if let Some(p) = p {
                put("Progressing", p);
            }
            if let Some(s) = s {
                put("Succeeded", s);
            }
            if let Some(r) = r {
                put("reason", r);
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::validate_strategy;
    use crate::model::rollout::StageConfig;

    #[test]
    fn each_repeat_of_a_stage_name_is_reported_once_when_rejected() {
        let stages: Vec<StageConfig> = ["a", "b", "a", "c", "a", "b"]
            .into_iter()
            .map(|n| StageConfig {
                name: n.into(),
                ..StageConfig::default()
            })
            .collect();
        let dup_paths = |reject| {
            validate_strategy(&stages, reject)
                .into_iter()
                .filter(|f| f.message.starts_with("duplicate stage name"))
                .map(|f| f.path)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            dup_paths(true),
            [
                "spec.stages[2].name",
                "spec.stages[4].name",
                "spec.stages[5].name"
            ]
        );
        assert!(dup_paths(false).is_empty());
    }
}
