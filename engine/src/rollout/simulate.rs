//! Azure update runs on a virtual clock (rollout.md A.3, A.4): stages one after another,
//! groups in parallel, members one at a time picked by maintenance-window bucket at every
//! pick, after-stage waits, user skips, stop/start, and what-if failures and pendings with
//! the exact state propagation of R-AZ-40 … R-AZ-46.

use super::maintenance::{Bucket, Window};
use super::options::{
    AllSkippedRunState, AzureOptions, SiblingGroupsOnFailure, SkipTarget, TieBreak,
};
use super::plan::{MemberReason, State, Subject};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

/// One member of a planned Azure run.
#[derive(Debug, Clone, PartialEq)]
pub struct SimMember {
    /// Name (the report's copies share it).
    pub name: Rc<str>,
    /// Index into [`SimPlan::windows`]; `None` = no maintenance window configured.
    pub windows: Option<usize>,
    /// Update duration in seconds.
    pub duration: i64,
    /// Skipped when the group reaches it (already at target …).
    pub skip: Option<MemberReason>,
    /// Its operation is rejected when it starts (R-AZ-38): it fails at once.
    pub reject: Option<MemberReason>,
}

/// One group.
#[derive(Debug, Clone, PartialEq)]
pub struct SimGroup {
    /// Name (the report's copies share it).
    pub name: Rc<str>,
    /// Members in flight at once (1 unless the preview `maxConcurrency` is set).
    pub concurrency: usize,
    /// Indices into [`SimPlan::members`].
    pub members: Vec<usize>,
}

/// One stage.
#[derive(Debug, Clone, PartialEq)]
pub struct SimStage {
    /// Name (the report's copies share it).
    pub name: Rc<str>,
    /// `afterStageWaitInSeconds`.
    pub wait_seconds: i64,
    /// Groups, run in parallel.
    pub groups: Vec<SimGroup>,
}

/// A planned run, ready to simulate.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimPlan {
    /// Stages in order.
    pub stages: Vec<SimStage>,
    /// Every member of the run.
    pub members: Vec<SimMember>,
    /// Shared window lists (sorted, merged).
    pub windows: Vec<Vec<Window>>,
}

/// A user action or what-if on the clock (Unix seconds).
#[derive(Debug, Clone, PartialEq)]
pub enum SimEvent {
    /// `stop`.
    Stop(i64),
    /// `start` (resume).
    Start(i64),
    /// `skip` of a target.
    Skip(i64, SkipTarget, String),
    /// The member's operation fails (at `Some(t)` if running then, else at its end).
    Fail(Option<i64>, String),
    /// The member's window never opens.
    Pending(String),
}

/// One state change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// When (Unix seconds).
    pub at: i64,
    /// Subject kind.
    pub subject: Subject,
    /// Index: member index, flat group index, stage index (also for waits), 0 for the run.
    pub index: usize,
    /// New state.
    pub state: State,
}

/// A member's final state, start, end and reason.
pub type MemberOutcome = (State, Option<i64>, Option<i64>, Option<MemberReason>);

/// Result of a simulation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimResult {
    /// Per member: final state, start, end, reason.
    pub members: Vec<MemberOutcome>,
    /// Per flat group (stage-major order): final state.
    pub groups: Vec<State>,
    /// Per stage: final state, start, end.
    pub stages: Vec<(State, Option<i64>, Option<i64>)>,
    /// Per stage: after-stage wait state, start, end.
    pub waits: Vec<(State, Option<i64>, Option<i64>)>,
    /// Run state, start, end.
    pub run: (State, Option<i64>, Option<i64>),
    /// Every change in time order.
    pub timeline: Vec<Change>,
    /// Members in the order they started.
    pub start_order: Vec<usize>,
    /// The clock stopped at the horizon with work left.
    pub horizon_reached: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    User(usize),
    RunStart,
    MemberEnd(usize),
    GroupWake(usize),
    WaitEnd(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Halt {
    None,
    Failed,
    Stopping,
}

/// How many members of a group are in each state.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counts {
    /// NotStarted.
    pub not_started: usize,
    /// Pending.
    pub pending: usize,
    /// Running.
    pub running: usize,
    /// Completed.
    pub completed: usize,
    /// Skipped.
    pub skipped: usize,
    /// Failed.
    pub failed: usize,
}

impl Counts {
    /// Adds `d` members in state `s`.
    pub fn add(&mut self, s: State, d: isize) {
        let c = match s {
            State::NotStarted => &mut self.not_started,
            State::Pending => &mut self.pending,
            State::Running => &mut self.running,
            State::Completed => &mut self.completed,
            State::Skipped => &mut self.skipped,
            State::Failed => &mut self.failed,
            _ => return,
        };
        *c = c.saturating_add_signed(d);
    }
    /// All members.
    pub fn total(&self) -> usize {
        self.not_started + self.pending + self.running + self.completed + self.skipped + self.failed
    }
}

/// What a group's state depends on besides its members' counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct GroupFlags {
    /// Its stage has started.
    pub started: bool,
    /// The user skipped it.
    pub user_skipped: bool,
    /// A member failed somewhere in the run.
    pub halted_by_failure: bool,
    /// The run is stopping or stopped.
    pub halted_by_stop: bool,
}

/// Group state (R-AZ-41, R-AZ-42) from its members' state counts.
pub fn group_state(c: &Counts, f: GroupFlags, opts: &AzureOptions) -> State {
    let c_total = c.total();
    let (not_started, pending, running, completed, skipped, failed) = (
        c.not_started,
        c.pending,
        c.running,
        c.completed,
        c.skipped,
        c.failed,
    );
    let (started, user_skipped, halted_by_failure, halted_by_stop) = (
        f.started,
        f.user_skipped,
        f.halted_by_failure,
        f.halted_by_stop,
    );
    if user_skipped || (c_total > 0 && skipped == c_total) || c_total == 0 && started {
        return State::Skipped;
    }
    if !started {
        return State::NotStarted;
    }
    if failed > 0 {
        return State::Failed;
    }
    if not_started + pending + running == 0 {
        return if completed > 0 {
            State::Completed
        } else {
            State::Skipped
        };
    }
    if running > 0 {
        return State::Running;
    }
    if halted_by_failure {
        return match opts.sibling_groups_on_failure {
            SiblingGroupsOnFailure::Stopped => State::Stopped,
            SiblingGroupsOnFailure::Failed => State::Failed,
        };
    }
    if halted_by_stop {
        return State::Stopped;
    }
    if not_started == 0 && pending > 0 {
        return State::Pending;
    }
    State::Running
}

/// Stage state from its groups (R-AZ-43); `wait` is the after-stage wait's state (None = no wait).
pub fn stage_state(
    groups: &[State],
    started: bool,
    user_skipped: bool,
    wait: Option<State>,
) -> State {
    if user_skipped {
        return State::Skipped;
    }
    if !started {
        return State::NotStarted;
    }
    if groups.contains(&State::Failed) {
        return State::Failed;
    }
    if groups.iter().all(|g| g.is_terminal()) {
        if groups.contains(&State::Stopped) {
            return State::Stopped;
        }
        if groups.iter().all(|g| *g == State::Skipped) && wait != Some(State::Running) {
            return State::Skipped;
        }
        return match wait {
            Some(State::Running) | Some(State::NotStarted) => State::Running,
            _ => State::Completed,
        };
    }
    if groups.contains(&State::Running) {
        return State::Running;
    }
    if groups
        .iter()
        .filter(|g| !g.is_terminal())
        .all(|g| *g == State::Pending)
    {
        return State::Pending;
    }
    State::Running
}

/// Run state from its stages (R-AZ-44, R-AZ-46).
pub fn run_state(
    stages: &[State],
    started: bool,
    stopping: bool,
    any_running: bool,
    opts: &AzureOptions,
) -> State {
    if !started {
        return State::NotStarted;
    }
    if stages.contains(&State::Failed) {
        return State::Failed;
    }
    if stages.iter().all(|s| s.is_terminal()) {
        if stages.contains(&State::Stopped) {
            return State::Stopped;
        }
        if !stages.is_empty() && stages.iter().all(|s| *s == State::Skipped) {
            return match opts.all_stages_skipped_run_state {
                AllSkippedRunState::Skipped => State::Skipped,
                AllSkippedRunState::Completed => State::Completed,
            };
        }
        return State::Completed;
    }
    if stopping {
        return if any_running {
            State::Stopping
        } else {
            State::Stopped
        };
    }
    if stages.contains(&State::Stopped) {
        return State::Stopped;
    }
    match stages.iter().find(|s| !s.is_terminal()) {
        Some(State::Pending) => State::Pending,
        _ => State::Running,
    }
}

/// A waiting member's place in the pick order (bucket, then the tie-breaks).
type OrderKey = (u8, i64, usize);

struct Sim<'a> {
    plan: &'a SimPlan,
    opts: &'a AzureOptions,
    horizon_end: i64,
    events: &'a [SimEvent],
    // flat groups
    g_stage: Vec<usize>,
    g_first: Vec<usize>,
    m_group: Vec<usize>,
    m_state: Vec<State>,
    m_start: Vec<Option<i64>>,
    m_end: Vec<Option<i64>>,
    m_planned_end: Vec<Option<i64>>,
    m_reason: Vec<Option<MemberReason>>,
    m_fail: Vec<Option<Option<i64>>>,
    m_pending: Vec<bool>,
    /// Per member: its window list (copied out of the plan so the pick loop stays in cache).
    m_windows: Vec<Option<usize>>,
    /// Per member: skipped when reached.
    m_skip: Vec<bool>,
    /// Per member: the bucket last computed and the instant until which it holds.
    m_bucket: Vec<(Bucket, i64)>,
    /// Per pick: the candidates' keys and buckets at the pick's instant.
    scratch: Vec<((u8, i64, usize), Bucket)>,
    g_counts: Vec<Counts>,
    g_state: Vec<State>,
    g_user_skipped: Vec<bool>,
    g_wake: Vec<Option<i64>>,
    g_frozen: Vec<bool>,
    g_frozen_pos: Vec<Option<usize>>,
    g_cands: Vec<Vec<usize>>,
    /// Per group (buckets re-evaluated at each pick): candidates whose bucket may let them
    /// start or whose window opens within 4 h, checked at every pick.
    g_awake: Vec<Vec<usize>>,
    /// Per group: candidates in bucket 4 (closed), by the instant their bucket can change,
    /// with their next window start (`i64::MAX` = none); left alone until then.
    g_dormant: Vec<BinaryHeap<Reverse<(i64, i64, usize)>>>,
    /// Per member: position in its group (the order in which a walk marks members).
    m_pos: Vec<usize>,
    /// Per pick: the awake candidates with their keys and buckets.
    live: Vec<((u8, i64, usize), Bucket, usize)>,
    /// Buffers reused by every pick (a pick ran at every member's end: two allocations each).
    spare: Vec<usize>,
    marked: Vec<usize>,
    g_quiet_until: Vec<i64>,
    m_ptr: Vec<usize>,
    s_state: Vec<State>,
    s_started: Vec<bool>,
    s_user_skipped: Vec<bool>,
    s_start: Vec<Option<i64>>,
    s_end: Vec<Option<i64>>,
    w_state: Vec<State>,
    w_start: Vec<Option<i64>>,
    w_end: Vec<Option<i64>>,
    w_skip_requested: Vec<bool>,
    run: State,
    run_started: bool,
    run_start: Option<i64>,
    run_end: Option<i64>,
    current: usize,
    halt: Halt,
    running_total: usize,
    queue: BinaryHeap<Reverse<(i64, u64, Ev)>>,
    seq: u64,
    timeline: Vec<Change>,
    start_order: Vec<usize>,
    horizon_reached: bool,
}

/// Simulates `plan` starting at `start`.
pub fn simulate(
    plan: &SimPlan,
    start: i64,
    events: &[SimEvent],
    opts: &AzureOptions,
    horizon_end: i64,
) -> SimResult {
    let mut g_stage = Vec::new();
    let mut g_first = Vec::new();
    let mut m_group = vec![usize::MAX; plan.members.len()];
    for (si, s) in plan.stages.iter().enumerate() {
        g_first.push(g_stage.len());
        for g in &s.groups {
            for &m in &g.members {
                if let Some(slot) = m_group.get_mut(m) {
                    *slot = g_stage.len();
                }
            }
            g_stage.push(si);
        }
    }
    let ng = g_stage.len();
    let ns = plan.stages.len();
    let nm = plan.members.len();
    let mut g_counts = vec![Counts::default(); ng];
    for (gi, c) in g_counts.iter_mut().enumerate() {
        c.not_started = flat_group(plan, &g_stage, &g_first, gi).map_or(0, |g| g.members.len());
    }
    // Every group's members, in plan order: the candidates, and at first all awake.
    let g_cands: Vec<_> = (0..ng)
        .map(|gi| {
            flat_group(plan, &g_stage, &g_first, gi)
                .map(|g| g.members.clone())
                .unwrap_or_default()
        })
        .collect();
    let mut sim = Sim {
        plan,
        opts,
        horizon_end,
        events,
        g_stage,
        g_first,
        m_group,
        m_state: vec![State::NotStarted; nm],
        m_start: vec![None; nm],
        m_end: vec![None; nm],
        m_planned_end: vec![None; nm],
        m_reason: vec![None; nm],
        m_fail: vec![None; nm],
        m_pending: vec![false; nm],
        m_windows: plan.members.iter().map(|m| m.windows).collect(),
        m_skip: plan.members.iter().map(|m| m.skip.is_some()).collect(),
        m_bucket: vec![(Bucket::NoWindow, i64::MIN); nm],
        scratch: Vec::new(),
        g_counts,
        g_state: vec![State::NotStarted; ng],
        g_user_skipped: vec![false; ng],
        g_wake: vec![None; ng],
        g_frozen: vec![false; ng],
        g_frozen_pos: vec![None; nm],
        g_awake: g_cands.clone(),
        g_cands,
        g_dormant: vec![BinaryHeap::new(); ng],
        m_pos: {
            let mut pos = vec![0; nm];
            for g in plan.stages.iter().flat_map(|s| &s.groups) {
                for (k, &m) in g.members.iter().enumerate() {
                    if let Some(slot) = pos.get_mut(m) {
                        *slot = k;
                    }
                }
            }
            pos
        },
        live: Vec::new(),
        spare: Vec::new(),
        marked: Vec::new(),
        g_quiet_until: vec![i64::MIN; ng],
        m_ptr: vec![0; nm],
        s_state: vec![State::NotStarted; ns],
        s_started: vec![false; ns],
        s_user_skipped: vec![false; ns],
        s_start: vec![None; ns],
        s_end: vec![None; ns],
        w_state: vec![State::NotStarted; ns],
        w_start: vec![None; ns],
        w_end: vec![None; ns],
        w_skip_requested: vec![false; ns],
        run: State::NotStarted,
        run_started: false,
        run_start: None,
        run_end: None,
        current: 0,
        halt: Halt::None,
        running_total: 0,
        queue: BinaryHeap::new(),
        seq: 0,
        // A member usually changes state two or three times (Pending, Running, Completed).
        timeline: Vec::with_capacity(3 * nm + 4 * ng + 4 * ns + 4),
        start_order: Vec::with_capacity(nm),
        horizon_reached: false,
    };
    // What-ifs that are properties of a member, not instants.
    for e in events {
        match e {
            SimEvent::Fail(at, name) => {
                if let Some(m) = sim.member_index(name) {
                    sim.m_fail[m] = Some(*at);
                }
            }
            SimEvent::Pending(name) => {
                if let Some(m) = sim.member_index(name) {
                    sim.m_pending[m] = true;
                }
            }
            _ => {}
        }
    }
    // User actions first, so that a skip at the start instant applies before the first pick.
    for (i, e) in events.iter().enumerate() {
        let t = match e {
            SimEvent::Stop(t) | SimEvent::Start(t) | SimEvent::Skip(t, _, _) => *t,
            SimEvent::Fail(Some(t), _) => *t,
            _ => continue,
        };
        sim.push(t.max(start), Ev::User(i));
    }
    sim.push(start, Ev::RunStart);
    sim.run_loop();
    let groups = sim.g_state.clone();
    SimResult {
        members: (0..nm)
            .map(|m| {
                (
                    sim.m_state[m],
                    sim.m_start[m],
                    sim.m_end[m],
                    sim.m_reason[m].clone(),
                )
            })
            .collect(),
        groups,
        stages: (0..ns)
            .map(|s| (sim.s_state[s], sim.s_start[s], sim.s_end[s]))
            .collect(),
        waits: (0..ns)
            .map(|s| (sim.w_state[s], sim.w_start[s], sim.w_end[s]))
            .collect(),
        run: (sim.run, sim.run_start, sim.run_end),
        timeline: sim.timeline,
        start_order: sim.start_order,
        horizon_reached: sim.horizon_reached,
    }
}

fn flat_group<'p>(
    plan: &'p SimPlan,
    g_stage: &[usize],
    g_first: &[usize],
    gi: usize,
) -> Option<&'p SimGroup> {
    let si = *g_stage.get(gi)?;
    let first = *g_first.get(si)?;
    plan.stages.get(si)?.groups.get(gi - first)
}

impl<'a> Sim<'a> {
    /// Among waiting members `(order key, bucket, member)`: the startable one with the lowest
    /// key, and the earliest window start of those that cannot start now.
    fn best_startable(
        &self,
        members: impl Iterator<Item = (OrderKey, Bucket, usize)>,
    ) -> (Option<(OrderKey, usize)>, i64) {
        let mut best: Option<(OrderKey, usize)> = None;
        let mut min_next = i64::MAX;
        for (k, b, m) in members {
            if !matches!(self.m_state[m], State::NotStarted | State::Pending) {
                continue;
            }
            if b.can_start() && !self.m_skip[m] {
                if best.is_none_or(|(bk, _)| k < bk) {
                    best = Some((k, m));
                }
            } else if let Some(n) = b.next_start() {
                min_next = min_next.min(n);
            }
        }
        (best, min_next)
    }

    fn member_index(&self, name: &str) -> Option<usize> {
        self.plan.members.iter().position(|m| *m.name == *name)
    }

    fn group(&self, gi: usize) -> Option<&'a SimGroup> {
        flat_group(self.plan, &self.g_stage, &self.g_first, gi)
    }

    fn push(&mut self, t: i64, ev: Ev) {
        self.seq += 1;
        self.queue.push(Reverse((t, self.seq, ev)));
    }

    fn record(&mut self, at: i64, subject: Subject, index: usize, state: State) {
        self.timeline.push(Change {
            at,
            subject,
            index,
            state,
        });
    }

    fn set_member(&mut self, m: usize, s: State, t: i64) {
        let old = self.m_state[m];
        if old == s {
            return;
        }
        if let Some(&g) = self.m_group.get(m) {
            if let Some(c) = self.g_counts.get_mut(g) {
                c.add(old, -1);
                c.add(s, 1);
            }
        }
        if s == State::Running {
            self.running_total += 1;
        }
        if old == State::Running {
            self.running_total = self.running_total.saturating_sub(1);
        }
        self.m_state[m] = s;
        self.record(t, Subject::Member, m, s);
    }

    fn run_loop(&mut self) {
        let mut steps: u64 = 0;
        while let Some(Reverse((t, _, ev))) = self.queue.pop() {
            if t > self.horizon_end {
                self.horizon_reached = true;
                break;
            }
            steps += 1;
            if steps > 50_000_000 {
                self.horizon_reached = true;
                break;
            }
            match ev {
                Ev::RunStart => self.on_run_start(t),
                Ev::User(i) => self.on_user(i, t),
                Ev::MemberEnd(m) => self.on_member_end(m, t),
                Ev::GroupWake(g) => {
                    if self.g_wake[g] == Some(t) {
                        self.g_wake[g] = None;
                        self.pick(g, t);
                    }
                }
                Ev::WaitEnd(s) => {
                    if self.w_state[s] == State::Running && self.w_end[s].is_none() {
                        self.w_state[s] = State::Completed;
                        self.w_end[s] = Some(t);
                        self.record(t, Subject::Wait, s, State::Completed);
                    }
                }
            }
            self.refresh(t);
        }
    }

    fn on_run_start(&mut self, t: i64) {
        self.run_started = true;
        self.run_start = Some(t);
        self.enter_stage(0, t);
    }

    fn enter_stage(&mut self, si: usize, t: i64) {
        self.current = si;
        let Some(stage) = self.plan.stages.get(si) else {
            return;
        };
        self.s_started[si] = true;
        self.s_start[si] = Some(t);
        let first = self.g_first.get(si).copied().unwrap_or(0);
        for gi in first..first + stage.groups.len() {
            if !self.g_user_skipped[gi] {
                self.pick(gi, t);
            }
        }
    }

    fn on_user(&mut self, i: usize, t: i64) {
        let Some(e) = self.events.get(i) else { return };
        match e.clone() {
            SimEvent::Stop(_) => {
                if self.run_started && !self.run.is_terminal() && self.halt == Halt::None {
                    self.halt = Halt::Stopping;
                }
            }
            SimEvent::Start(_) => {
                if self.halt == Halt::Stopping {
                    self.halt = Halt::None;
                    let si = self.current;
                    if let Some(stage) = self.plan.stages.get(si) {
                        let first = self.g_first.get(si).copied().unwrap_or(0);
                        for gi in first..first + stage.groups.len() {
                            if !self.g_user_skipped[gi] {
                                self.pick(gi, t);
                            }
                        }
                    }
                }
            }
            SimEvent::Skip(_, target, name) => self.on_skip(target, &name, t),
            SimEvent::Fail(_, name) => {
                if let Some(m) = self.member_index(&name) {
                    if self.m_state[m] == State::Running {
                        self.m_planned_end[m] = Some(t);
                        self.on_member_end(m, t);
                    }
                }
            }
            SimEvent::Pending(_) => {}
        }
    }

    fn skip_member(&mut self, m: usize, t: i64) {
        if matches!(self.m_state[m], State::NotStarted | State::Pending) {
            self.m_reason[m] = Some(MemberReason::UserSkipped);
            self.set_member(m, State::Skipped, t);
        }
    }

    fn skip_group(&mut self, gi: usize, t: i64) {
        let Some(g) = self.group(gi) else { return };
        let started = self.g_counts[gi].not_started != g.members.len();
        if started && self.s_started[self.g_stage[gi]] {
            return;
        }
        self.g_user_skipped[gi] = true;
        for &m in &g.members {
            self.skip_member(m, t);
        }
    }

    fn on_skip(&mut self, target: SkipTarget, name: &str, t: i64) {
        match target {
            SkipTarget::Member => {
                if let Some(m) = self.member_index(name) {
                    self.skip_member(m, t);
                }
            }
            SkipTarget::Group => {
                if let Some(gi) = (0..self.g_stage.len())
                    .find(|&g| self.group(g).is_some_and(|x| *x.name == *name))
                {
                    self.skip_group(gi, t);
                }
            }
            SkipTarget::Stage => {
                if let Some(si) = self.plan.stages.iter().position(|s| *s.name == *name) {
                    if self.s_started[si] {
                        return;
                    }
                    self.s_user_skipped[si] = true;
                    let first = self.g_first[si];
                    for gi in first..first + self.plan.stages[si].groups.len() {
                        self.skip_group(gi, t);
                    }
                    if self.plan.stages[si].wait_seconds > 0 {
                        self.w_state[si] = State::Skipped;
                        self.record(t, Subject::Wait, si, State::Skipped);
                    }
                }
            }
            SkipTarget::AfterStageWait => {
                if let Some(si) = self.plan.stages.iter().position(|s| *s.name == *name) {
                    if self.w_state[si] == State::Running {
                        self.w_state[si] = State::Skipped;
                        self.w_end[si] = Some(t);
                        self.record(t, Subject::Wait, si, State::Skipped);
                    } else if self.w_state[si] == State::NotStarted {
                        self.w_skip_requested[si] = true;
                    }
                }
            }
        }
    }

    fn on_member_end(&mut self, m: usize, t: i64) {
        if self.m_state[m] != State::Running || self.m_planned_end[m] != Some(t) {
            return;
        }
        self.m_end[m] = Some(t);
        let failed = self.m_fail[m].is_some() || self.plan.members[m].reject.is_some();
        if failed {
            if self.m_reason[m].is_none() {
                self.m_reason[m] = Some(
                    self.plan.members[m]
                        .reject
                        .clone()
                        .unwrap_or(MemberReason::InjectedFailure),
                );
            }
            self.set_member(m, State::Failed, t);
            self.halt = Halt::Failed;
        } else {
            self.set_member(m, State::Completed, t);
        }
        if self.halt == Halt::None {
            let g = self.m_group[m];
            self.pick(g, t);
        }
    }

    /// Bucket at `t` using the member's window cursor (the clock never goes back).
    fn bucket_now(&mut self, m: usize, t: i64) -> Bucket {
        self.bucket_until(m, t).0
    }

    /// Bucket at `t` and the instant until which it holds (a window opens or closes, or comes
    /// within 4 h); cached per member for that long.
    fn bucket_until(&mut self, m: usize, t: i64) -> (Bucket, i64) {
        if self.m_pending[m] {
            return (Bucket::Closed(None), i64::MAX);
        }
        let Some(ws) = self.m_windows[m].and_then(|i| self.plan.windows.get(i)) else {
            return (Bucket::NoWindow, i64::MAX);
        };
        let cached = self.m_bucket[m];
        if t < cached.1 {
            return cached;
        }
        let p = &mut self.m_ptr[m];
        while ws.get(*p).is_some_and(|w| w.end <= t) {
            *p += 1;
        }
        let four = super::maintenance::FOUR_HOURS;
        let out = match ws.get(*p) {
            None => (Bucket::Closed(None), i64::MAX),
            Some(w) if w.start <= t => (Bucket::Open, w.end),
            Some(w) => {
                let soon = if self.opts.four_hour_boundary_inclusive {
                    w.start <= t.saturating_add(four)
                } else {
                    w.start < t.saturating_add(four)
                };
                if soon {
                    (Bucket::OpensSoon(w.start), w.start)
                } else if self.opts.four_hour_boundary_inclusive {
                    (Bucket::Closed(Some(w.start)), w.start.saturating_sub(four))
                } else {
                    (
                        Bucket::Closed(Some(w.start)),
                        w.start.saturating_sub(four).saturating_add(1),
                    )
                }
            }
        };
        self.m_bucket[m] = out;
        out
    }

    fn key(&self, m: usize, b: Bucket) -> (u8, i64, usize) {
        if let Some(pos) = self.g_frozen_pos.get(m).copied().flatten() {
            return (0, 0, pos);
        }
        let w = match (self.opts.tie_break, b) {
            (TieBreak::BucketWindowStartName, Bucket::OpensSoon(s)) => s,
            _ => 0,
        };
        // Members are indexed in name order inside a group, so the index is the name tie-break.
        (b.number(), w, m)
    }

    /// R-AZ-34/35: the group walks its candidates in bucket order; at-target members are
    /// skipped, closed-window ones become Pending, the first startable one runs.
    fn pick(&mut self, gi: usize, t: i64) {
        if self.halt != Halt::None || self.g_user_skipped[gi] {
            return;
        }
        let Some(group) = self.group(gi) else { return };
        // Nothing can become startable before the earliest window opening seen by the last
        // full walk (Pending is sticky, so there is nothing to mark either).
        if t < self.g_quiet_until[gi] {
            return;
        }
        let concurrency = group.concurrency.max(1);
        if self.opts.reevaluate_buckets_each_pick {
            self.pick_live(gi, t, concurrency);
            return;
        }
        let mut cands = std::mem::take(&mut self.g_cands[gi]);
        if !self.opts.reevaluate_buckets_each_pick && !self.g_frozen[gi] {
            let mut order: Vec<(u8, i64, usize)> = Vec::with_capacity(cands.len());
            for &m in &cands {
                let b = self.bucket_now(m, t);
                order.push(self.key(m, b));
            }
            order.sort_unstable();
            for (pos, k) in order.iter().enumerate() {
                if let Some(slot) = self.g_frozen_pos.get_mut(k.2) {
                    *slot = Some(pos);
                }
            }
            self.g_frozen[gi] = true;
        }
        // Buckets do not change during a pick (the clock stands still and a bucket does not
        // depend on member states), so each candidate's key is computed once.
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        if self.g_counts[gi].running < concurrency {
            for &m in &cands {
                let b = self.bucket_now(m, t);
                scratch.push((self.key(m, b), b));
            }
        }
        let mut min_next = i64::MAX;
        while self.g_counts[gi].running < concurrency {
            let best;
            (best, min_next) =
                self.best_startable(cands.iter().zip(&scratch).map(|(&m, &(k, b))| (k, b, m)));
            for (&m, &(k, _)) in cands.iter().zip(&scratch) {
                if !matches!(self.m_state[m], State::NotStarted | State::Pending) {
                    continue;
                }
                let before = best.is_none_or(|(bk, _)| k < bk);
                if !before {
                    continue;
                }
                if let Some(reason) = self.plan.members[m].skip.clone() {
                    self.m_reason[m] = Some(reason);
                    self.set_member(m, State::Skipped, t);
                } else if self.m_state[m] == State::NotStarted {
                    self.set_member(m, State::Pending, t);
                }
            }
            let Some((_, m)) = best else {
                self.g_quiet_until[gi] = min_next;
                break;
            };
            self.start_member(m, t);
        }
        self.scratch = scratch;
        cands.retain(|&m| matches!(self.m_state[m], State::NotStarted | State::Pending));
        self.sleep(gi, t, concurrency, min_next);
        self.g_cands[gi] = cands;
    }

    /// [`Sim::pick`] with buckets re-evaluated at each pick, without walking every candidate:
    /// a member in bucket 4 stays there until its window comes within 4 h, so it waits in the
    /// group's dormant heap until then and only contributes its window start meanwhile. The
    /// outcome (who starts, who is marked, in which order, when the group wakes) is the full
    /// walk's.
    fn pick_live(&mut self, gi: usize, t: i64, concurrency: usize) {
        if self.g_counts[gi].running >= concurrency {
            return;
        }
        let mut awake = std::mem::take(&mut self.g_awake[gi]);
        let mut dormant = std::mem::take(&mut self.g_dormant[gi]);
        while let Some(Reverse((until, _, m))) = dormant.peek().copied() {
            if until > t {
                break;
            }
            dormant.pop();
            awake.push(m);
        }
        let mut live = std::mem::take(&mut self.live);
        live.clear();
        let mut still = std::mem::take(&mut self.spare);
        still.clear();
        for m in awake.drain(..) {
            if !matches!(self.m_state[m], State::NotStarted | State::Pending) {
                continue;
            }
            let (b, until) = self.bucket_until(m, t);
            if let Bucket::Closed(next) = b {
                dormant.push(Reverse((until, next.unwrap_or(i64::MAX), m)));
            } else {
                live.push((self.key(m, b), b, m));
                still.push(m);
            }
        }
        let mut min_next = i64::MAX;
        let mut marked = std::mem::take(&mut self.marked);
        while self.g_counts[gi].running < concurrency {
            let best;
            (best, min_next) = self.best_startable(live.iter().copied());
            // Dormant members only add their window start (members that left the group's
            // walk since are dropped from the top).
            while let Some(Reverse((_, _, m))) = dormant.peek().copied() {
                if matches!(self.m_state[m], State::NotStarted | State::Pending) {
                    break;
                }
                dormant.pop();
            }
            if let Some(Reverse((_, next, _))) = dormant.peek() {
                min_next = min_next.min(*next);
            }
            let Some((bk, m)) = best else {
                // Everyone left is marked, in group order: dormant members too.
                if self.g_counts[gi].not_started > 0 {
                    self.mark_all(gi, t);
                }
                self.g_quiet_until[gi] = min_next;
                break;
            };
            // Bucket-4 keys come after every startable key, so only awake members precede.
            marked.clear();
            marked.extend(
                live.iter()
                    .filter(|(k, _, m)| {
                        k < &bk && matches!(self.m_state[*m], State::NotStarted | State::Pending)
                    })
                    .map(|(_, _, m)| *m),
            );
            marked.sort_by_key(|&m| self.m_pos[m]);
            for &x in &marked {
                self.mark(x, t);
            }
            self.start_member(m, t);
        }
        self.live = live;
        self.marked = marked;
        self.spare = awake;
        self.g_awake[gi] = still;
        self.g_dormant[gi] = dormant;
        self.sleep(gi, t, concurrency, min_next);
    }

    /// A walk passing over a member that cannot start: skipped if it is to be skipped, else
    /// Pending.
    fn mark(&mut self, m: usize, t: i64) {
        if let Some(reason) = self.plan.members[m].skip.clone() {
            self.m_reason[m] = Some(reason);
            self.set_member(m, State::Skipped, t);
        } else if self.m_state[m] == State::NotStarted {
            self.set_member(m, State::Pending, t);
        }
    }

    /// A walk that found nobody to start marks every waiting member, in group order.
    fn mark_all(&mut self, gi: usize, t: i64) {
        let mut cands = std::mem::take(&mut self.g_cands[gi]);
        cands.retain(|&m| matches!(self.m_state[m], State::NotStarted | State::Pending));
        for &m in &cands {
            self.mark(m, t);
        }
        self.g_cands[gi] = cands;
    }

    /// Starts member `m` at `t`.
    fn start_member(&mut self, m: usize, t: i64) {
        self.m_start[m] = Some(t);
        let d = self.plan.members[m].duration.max(0);
        let mut end = if self.plan.members[m].reject.is_some() {
            t
        } else {
            t + d
        };
        if let Some(Some(ft)) = self.m_fail[m] {
            if ft > t && ft < end {
                end = ft;
            }
        }
        self.m_planned_end[m] = Some(end);
        self.set_member(m, State::Running, t);
        self.start_order.push(m);
        self.push(end, Ev::MemberEnd(m));
    }

    /// Sleeps the group until the earliest window opening among its waiting members.
    fn sleep(&mut self, gi: usize, t: i64, concurrency: usize, min_next: i64) {
        if self.g_counts[gi].running < concurrency
            && min_next != i64::MAX
            && min_next > t
            && self.g_wake[gi].is_none_or(|w| w > min_next || w <= t)
        {
            self.g_wake[gi] = Some(min_next);
            self.push(min_next, Ev::GroupWake(gi));
        }
    }

    /// Recomputes the current stage's groups, the stage, and the run; advances stages.
    fn refresh(&mut self, t: i64) {
        loop {
            let si = self.current;
            let Some(stage) = self.plan.stages.get(si) else {
                break;
            };
            let first = self.g_first[si];
            let halted_failure = self.halt == Halt::Failed;
            let halted_stop = self.halt == Halt::Stopping;
            for gi in first..first + stage.groups.len() {
                let c = self.g_counts[gi];
                let s = group_state(
                    &c,
                    GroupFlags {
                        started: self.s_started[si],
                        user_skipped: self.g_user_skipped[gi],
                        halted_by_failure: halted_failure,
                        halted_by_stop: halted_stop,
                    },
                    self.opts,
                );
                if s != self.g_state[gi] {
                    self.g_state[gi] = s;
                    self.record(t, Subject::Group, gi, s);
                }
            }
            let gs = &self.g_state[first..first + stage.groups.len()];
            let all_terminal = gs.iter().all(|g| g.is_terminal());
            let all_skipped = gs.iter().all(|g| *g == State::Skipped);
            let failed = gs.contains(&State::Failed);
            let stopped = gs.contains(&State::Stopped);
            // The after-stage wait starts once every group is terminal, and not while the run
            // is stopping: only member operations in flight finish then (R-AZ-46); the wait
            // starts when the run is started again.
            if self.s_started[si]
                && all_terminal
                && !failed
                && !stopped
                && self.w_state[si] == State::NotStarted
            {
                let runs_wait =
                    stage.wait_seconds > 0 && (!all_skipped || self.opts.skipped_stage_runs_wait);
                if stage.wait_seconds > 0 && (!runs_wait || self.w_skip_requested[si]) {
                    self.w_state[si] = State::Skipped;
                    self.w_start[si] = Some(t);
                    self.w_end[si] = Some(t);
                    self.record(t, Subject::Wait, si, State::Skipped);
                } else if runs_wait && !halted_stop {
                    self.w_state[si] = State::Running;
                    self.w_start[si] = Some(t);
                    self.record(t, Subject::Wait, si, State::Running);
                    self.push(t + stage.wait_seconds, Ev::WaitEnd(si));
                }
            }
            let wait = if stage.wait_seconds > 0 || self.w_state[si] == State::Skipped {
                Some(self.w_state[si])
            } else {
                None
            };
            let mut ss = stage_state(
                &self.g_state[first..first + stage.groups.len()],
                self.s_started[si],
                self.s_user_skipped[si],
                wait,
            );
            // Its groups done and its wait held back by the stop: the stage is Stopped until
            // the run is started again (R-AZ-46).
            if halted_stop && all_terminal && !failed && wait == Some(State::NotStarted) {
                ss = State::Stopped;
            }
            if ss != self.s_state[si] {
                self.s_state[si] = ss;
                self.record(t, Subject::Stage, si, ss);
                if ss.is_terminal() && ss != State::Stopped {
                    self.s_end[si] = Some(t);
                }
            }
            // Advance when the stage finished and the run is not halted.
            if matches!(ss, State::Completed | State::Skipped)
                && self.halt == Halt::None
                && si + 1 < self.plan.stages.len()
            {
                self.enter_stage(si + 1, t);
                continue;
            }
            break;
        }
        // Stages skipped by the user before they started still show Skipped.
        for si in 0..self.plan.stages.len() {
            if self.s_user_skipped[si] && self.s_state[si] != State::Skipped {
                self.s_state[si] = State::Skipped;
                self.record(t, Subject::Stage, si, State::Skipped);
            }
        }
        if !self.run_started {
            return;
        }
        let rs = run_state(
            &self.s_state,
            self.run_started,
            self.halt == Halt::Stopping,
            self.running_total > 0,
            self.opts,
        );
        if rs != self.run {
            self.run = rs;
            self.record(t, Subject::Run, 0, rs);
            if rs.is_terminal() && rs != State::Stopped {
                self.run_end = Some(t);
            }
        }
    }
}

/// `(stage, afterStageWaitInSeconds, [(group, [member])])`.
pub type StageSnapshot = (String, i64, Vec<(String, Vec<String>)>);

/// A snapshot of an Azure run for [`propagate`]: the plan with member states as observed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StatesInput {
    /// `(stage, afterStageWaitInSeconds, [(group, [member])])`.
    pub stages: Vec<StageSnapshot>,
    /// Observed member states (absent = NotStarted).
    pub member_states: std::collections::BTreeMap<String, State>,
    /// User skips applied.
    pub user_skips: Vec<(SkipTarget, String)>,
    /// Observed after-stage wait states.
    pub stage_waits: std::collections::BTreeMap<String, State>,
}

/// Propagated states (R-AZ-40 … R-AZ-45).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StatesOutput {
    /// Members after user skips.
    pub members: std::collections::BTreeMap<String, State>,
    /// Groups.
    pub groups: std::collections::BTreeMap<String, State>,
    /// Stages.
    pub stages: std::collections::BTreeMap<String, State>,
    /// After-stage waits (stages with a wait, or whose wait was skipped).
    pub stage_waits: std::collections::BTreeMap<String, State>,
    /// The run.
    pub run: State,
}

/// Propagates observed member states up to groups, stages and the run, with the same rules
/// the simulation uses. A stage counts as started when a member in it left NotStarted or every
/// earlier stage finished successfully.
pub fn propagate(input: &StatesInput, opts: &AzureOptions) -> StatesOutput {
    let mut out = StatesOutput::default();
    let skipped =
        |t: SkipTarget, n: &str| input.user_skips.iter().any(|(tt, nn)| *tt == t && nn == n);
    let failure = input.member_states.values().any(|s| *s == State::Failed);
    let mut stage_states: Vec<State> = Vec::new();
    let mut prev_ok = true;
    let n = input.stages.len();
    for (k, (sname, wait, groups)) in input.stages.iter().enumerate() {
        let stage_skipped = skipped(SkipTarget::Stage, sname);
        let mut member_state = |m: &String, group_skipped: bool| {
            let s = input
                .member_states
                .get(m)
                .copied()
                .unwrap_or(State::NotStarted);
            let s = if (stage_skipped || group_skipped || skipped(SkipTarget::Member, m))
                && matches!(s, State::NotStarted | State::Pending)
            {
                State::Skipped
            } else {
                s
            };
            out.members.insert(m.clone(), s);
            s
        };
        let mut states_of_groups = Vec::new();
        let mut touched = false;
        let mut group_members = Vec::new();
        for (gname, members) in groups {
            let gs = skipped(SkipTarget::Group, gname);
            let ms: Vec<State> = members.iter().map(|m| member_state(m, gs)).collect();
            touched |= ms
                .iter()
                .any(|s| *s != State::NotStarted && !(gs || stage_skipped));
            group_members.push((gname, gs, ms));
        }
        let started = touched || (prev_ok && !failure);
        for (gname, gs, ms) in group_members {
            let mut c = Counts::default();
            for s in &ms {
                c.add(*s, 1);
            }
            let st = group_state(
                &c,
                GroupFlags {
                    started,
                    user_skipped: gs || stage_skipped,
                    halted_by_failure: failure,
                    halted_by_stop: false,
                },
                opts,
            );
            out.groups.insert(gname.clone(), st);
            states_of_groups.push(st);
        }
        let all_terminal = states_of_groups.iter().all(|g| g.is_terminal());
        let all_skipped = states_of_groups.iter().all(|g| *g == State::Skipped);
        let wait_state = if *wait > 0 || input.stage_waits.contains_key(sname) {
            let observed = input.stage_waits.get(sname).copied();
            let st = if stage_skipped || skipped(SkipTarget::AfterStageWait, sname) {
                State::Skipped
            } else if let Some(o) = observed {
                o
            } else if !started || !all_terminal || states_of_groups.contains(&State::Failed) {
                State::NotStarted
            } else if all_skipped && !opts.skipped_stage_runs_wait {
                State::Skipped
            } else {
                // Evidence that the wait is over: the next stage has begun, or this is the last stage.
                let next_started = input.stages.get(k + 1).is_some_and(|(_, _, gs)| {
                    gs.iter().flat_map(|(_, ms)| ms).any(|m| {
                        input
                            .member_states
                            .get(m)
                            .is_some_and(|s| *s != State::NotStarted)
                    })
                });
                if next_started || k + 1 == n {
                    State::Completed
                } else {
                    State::Running
                }
            };
            out.stage_waits.insert(sname.clone(), st);
            Some(st)
        } else {
            None
        };
        let ss = stage_state(&states_of_groups, started, stage_skipped, wait_state);
        out.stages.insert(sname.clone(), ss);
        prev_ok = prev_ok && matches!(ss, State::Completed | State::Skipped);
        stage_states.push(ss);
    }
    let any_running = out.members.values().any(|s| *s == State::Running);
    out.run = run_state(&stage_states, true, false, any_running, opts);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str, windows: Option<usize>) -> SimMember {
        SimMember {
            name: name.into(),
            windows,
            duration: 3600,
            skip: None,
            reject: None,
        }
    }

    /// A closed-window member waits outside the walk (dormant) and still starts the moment
    /// its window opens; one opening soon is marked Pending before a no-window member starts.
    #[test]
    fn dormant_members_wake_when_their_window_opens() {
        let h = 3600;
        let plan = SimPlan {
            stages: vec![SimStage {
                name: "s".into(),
                wait_seconds: 0,
                groups: vec![SimGroup {
                    name: "g".into(),
                    concurrency: 1,
                    members: vec![0, 1, 2],
                }],
            }],
            members: vec![
                member("a", Some(0)),
                member("b", None),
                member("c", Some(1)),
            ],
            windows: vec![
                vec![Window {
                    start: 10 * h,
                    end: 14 * h,
                }],
                vec![Window {
                    start: 2 * h,
                    end: 6 * h,
                }],
            ],
        };
        let r = simulate(&plan, 0, &[], &AzureOptions::default(), 100 * h);
        let starts: Vec<Option<i64>> = r.members.iter().map(|m| m.1).collect();
        assert_eq!(starts, vec![Some(10 * h), Some(0), Some(2 * h)]);
        assert_eq!(r.start_order, vec![1, 2, 0]);
        // "c" (bucket 2) is marked Pending before "b" (bucket 3) starts; "a" only once the
        // walk finds nobody to start.
        let pending: Vec<(i64, usize)> = r
            .timeline
            .iter()
            .filter(|c| c.subject == Subject::Member && c.state == State::Pending)
            .map(|c| (c.at, c.index))
            .collect();
        assert_eq!(pending, vec![(0, 2), (h, 0)]);
        assert_eq!(r.run.0, State::Completed);
    }
}
