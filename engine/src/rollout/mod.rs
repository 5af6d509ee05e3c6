//! Rollouts: Azure Fleet update runs, KubeFleet RollingUpdate and staged update runs.
//!
//! Every rollout becomes one normalised plan ([`plan::Rollout`], rollout.md Part C): stages in
//! sequence, groups in parallel, members under a concurrency limit, waits and approval gates,
//! simulated on a virtual clock that starts at the options' `at` (or `start`). What-ifs and the
//! spec's assumption switches are [`RolloutOptions`] fields; the assumptions used are listed in
//! each rollout.

pub mod assumptions;
pub mod azure;
pub mod channels;
pub mod intstr;
pub mod kubefleet;
pub mod maintenance;
pub mod name_index;
pub mod node_image;
pub mod options;
pub mod plan;
pub mod report;
pub mod rolling;
pub mod simulate;
pub mod snapshots;
pub mod staged;
pub mod table;

use crate::input::duration::GoDuration;
use crate::input::kinds::KindInfo;
use crate::input::{Diagnostic, Document, FieldPath, Input, Severity};
use chrono::{DateTime, TimeZone, Utc};

pub use options::RolloutOptions;
pub use report::RolloutReport;

const KF: &[&str] = &[
    "placement.kubernetes-fleet.io/v1",
    "placement.kubernetes-fleet.io/v1beta1",
];
const AZ: &[&str] = &[crate::model::rollout::AZURE_API_VERSION];

/// Kinds the rollout engine reads.
pub const KINDS: &[KindInfo] = &[
    KindInfo {
        kind: "ClusterStagedUpdateStrategy",
        api_versions: KF,
    },
    KindInfo {
        kind: "ClusterStagedUpdateRun",
        api_versions: KF,
    },
    KindInfo {
        kind: "ClusterResourceBinding",
        api_versions: KF,
    },
    KindInfo {
        kind: "ClusterApprovalRequest",
        api_versions: KF,
    },
    KindInfo {
        kind: "ClusterResourceSnapshot",
        api_versions: KF,
    },
    KindInfo {
        kind: "ClusterResourcePlacement",
        api_versions: KF,
    },
    KindInfo {
        kind: "MemberCluster",
        api_versions: &[
            "cluster.kubernetes-fleet.io/v1",
            "cluster.kubernetes-fleet.io/v1beta1",
        ],
    },
    KindInfo {
        kind: "UpdateRun",
        api_versions: AZ,
    },
    KindInfo {
        kind: "FleetUpdateStrategy",
        api_versions: AZ,
    },
    KindInfo {
        kind: "FleetMember",
        api_versions: AZ,
    },
    KindInfo {
        kind: "AutoUpgradeProfile",
        api_versions: AZ,
    },
    KindInfo {
        kind: "AvailableVersions",
        api_versions: AZ,
    },
];

/// Kinds whose presence makes [`applies`] true.
const ROLLOUT_KINDS: &[&str] = &[
    "ClusterStagedUpdateStrategy",
    "ClusterStagedUpdateRun",
    "ClusterResourceBinding",
    "UpdateRun",
    "FleetUpdateStrategy",
    "FleetMember",
    "AutoUpgradeProfile",
];

/// Whether the input holds anything this engine evaluates: a rollout kind, or a
/// ClusterResourcePlacement (every one has a rollout strategy: RollingUpdate by default).
pub fn applies(input: &Input) -> bool {
    input
        .documents
        .iter()
        .any(|d| ROLLOUT_KINDS.contains(&d.kind.as_str()) || d.kind == "ClusterResourcePlacement")
}

/// Unix seconds → UTC instant (clamped to chrono's range).
pub(crate) fn ts(t: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(t, 0)
        .single()
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// [`ts`] for the many nearby instants of one report: the date of the last day converted is
/// kept (turning a day number into a calendar date was a visible part of building a report).
#[derive(Default)]
pub(crate) struct Clock {
    last: std::cell::Cell<Option<(i64, Option<chrono::NaiveDate>)>>,
}

impl Clock {
    /// What [`ts`] gives for `t` (the same arithmetic as chrono's `DateTime::from_timestamp`).
    pub fn at(&self, t: i64) -> DateTime<Utc> {
        let day = t.div_euclid(86_400);
        let date = match self.last.get() {
            Some((d, date)) if d == day => date,
            _ => {
                let date = i32::try_from(day)
                    .ok()
                    .and_then(|d| d.checked_add(719_163))
                    .and_then(chrono::NaiveDate::from_num_days_from_ce_opt);
                self.last.set(Some((day, date)));
                date
            }
        };
        let secs = u32::try_from(t.rem_euclid(86_400)).unwrap_or(0);
        date.and_then(|d| {
            chrono::NaiveTime::from_num_seconds_from_midnight_opt(secs, 0).map(|tm| d.and_time(tm))
        })
        .map_or(DateTime::<Utc>::MIN_UTC, |dt| dt.and_utc())
    }
}

/// Collects diagnostics and layered findings while reading and planning.
#[derive(Default)]
pub(crate) struct Ctx {
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    pub findings: Vec<report::LayeredFinding>,
}

impl Ctx {
    /// An error at a field, with the layer that refuses it.
    pub fn layered(&mut self, doc: &Document, path: &str, layer: staged::Layer, message: String) {
        let fp: FieldPath = path.into();
        let d = doc.diagnostic(Severity::Error, &fp, message);
        self.findings.push(report::LayeredFinding {
            layer,
            diagnostic: d.clone(),
        });
        self.errors.push(d);
    }

    /// A warning at a field.
    pub fn warn(&mut self, doc: &Document, path: &str, message: &str) {
        let fp: FieldPath = path.into();
        self.warnings
            .push(doc.diagnostic(Severity::Warning, &fp, message));
    }

    /// A run whose recorded status shows it under way or ended is still simulated from its
    /// start (the record is not read): a warning at `path` says so.
    pub fn recorded_status_not_read(&mut self, doc: &Document, path: &str) {
        self.warn(
            doc,
            path,
            "the run's recorded status is not read: the run is simulated from its start",
        );
    }
}

/// Every kind the rollout readers take.
const READ_KINDS: [&str; 12] = [
    "ClusterApprovalRequest",
    "FleetMember",
    "FleetUpdateStrategy",
    "AvailableVersions",
    "UpdateRun",
    "AutoUpgradeProfile",
    "MemberCluster",
    "ClusterResourcePlacement",
    "ClusterStagedUpdateStrategy",
    "ClusterResourceBinding",
    "ClusterStagedUpdateRun",
    "ClusterResourceSnapshot",
];

/// The documents of [`READ_KINDS`], one list per kind in input order, sorted out in one pass
/// over the input (the readers then touch only their own kinds' documents).
pub(crate) struct Docs<'a>([Vec<&'a Document>; READ_KINDS.len()]);

impl<'a> Docs<'a> {
    fn of(input: &'a Input) -> Self {
        Docs(input.of_kinds(READ_KINDS))
    }

    /// The documents of `kind` (one of [`READ_KINDS`]; none for another), in input order.
    pub(crate) fn of_kind(&self, kind: &str) -> impl Iterator<Item = &'a Document> + '_ {
        debug_assert!(READ_KINDS.contains(&kind), "{kind} is not sorted out");
        let list = READ_KINDS
            .iter()
            .position(|k| *k == kind)
            .and_then(|i| self.0.get(i))
            .map_or(&[][..], Vec::as_slice);
        list.iter().copied()
    }
}

/// Plans and simulates every rollout in the input. KubeFleet rollouts reach the clusters of
/// the ClusterResourceBindings in the input or, without them, the clusters `placements` (the
/// placement engine's result for the same input) decided.
pub fn rollout(
    input: &Input,
    options: &RolloutOptions,
    placements: &[crate::placement::PlacementResult],
) -> RolloutReport {
    let mut ctx = Ctx::default();
    let options = &check_options(options, &mut ctx);
    let docs = Docs::of(input);
    let az = azure::read(&docs, &mut ctx);
    let kf = kubefleet::read(&docs, placements, options, &mut ctx);
    let mut rollouts = azure::rollouts(&docs, &az, options, &mut ctx);
    rollouts.extend(kubefleet::rollouts(&docs, &kf, options, &mut ctx));
    members_named_in_options(options, &rollouts, &mut ctx);
    // Results must not depend on document order.
    rollouts.sort_by(|a, b| (a.system, &a.kind, &a.name).cmp(&(b.system, &b.kind, &b.name)));
    if let Some(t) = options.observe {
        for r in &mut rollouts {
            observe(r, t);
        }
    }
    RolloutReport {
        rollouts,
        findings: ctx.findings,
        errors: ctx.errors,
        warnings: ctx.warnings,
        notices: Vec::new(),
    }
}

/// The simulated durations of the options (and KubeFleet's stuck threshold) must be Go
/// durations of zero or more (as the annotation's): a bad one is an error, and the default is
/// used in its place; the options in force, which the assumptions then report.
fn check_options(options: &RolloutOptions, ctx: &mut Ctx) -> RolloutOptions {
    let mut used = options.clone();
    let mut refuse = |what: String, text: &str| {
        let bad = GoDuration::parse_non_negative(text).err();
        if let Some(why) = &bad {
            ctx.errors.push(Diagnostic::of_options(
                Severity::Error,
                format!("{what}: {why}; the default is used"),
            ));
        }
        bad.is_some()
    };
    if let Some(d) = &options.default_duration {
        if refuse("defaultDuration".to_string(), d) {
            used.default_duration = None;
        }
    }
    used.durations = (options.durations.iter())
        .filter(|(name, d)| !refuse(format!("durations[{name:?}]"), d))
        .map(|(name, d)| (name.clone(), d.clone()))
        .collect();
    if refuse(
        "kubefleet.stuckThreshold".to_string(),
        &options.kubefleet.stuck_threshold,
    ) {
        used.kubefleet.stuck_threshold = options::KubeFleetOptions::default().stuck_threshold;
    }
    used
}

/// The errors of the options alone, for `evaluate` when no rollout is evaluated.
pub(crate) fn option_errors(options: &RolloutOptions) -> Vec<Diagnostic> {
    let mut ctx = Ctx::default();
    check_options(options, &mut ctx);
    ctx.errors
}

/// The members the options name (`durations`, `fail`, `pending`, `skip`) that no rollout
/// reaches: most often a misspelt name, which would otherwise change nothing without a word.
fn members_named_in_options(options: &RolloutOptions, rollouts: &[plan::Rollout], ctx: &mut Ctx) {
    let reached: std::collections::HashSet<&str> = rollouts
        .iter()
        .flat_map(|r| &r.stages)
        .flat_map(|s| &s.groups)
        .flat_map(|g| &g.members)
        .map(|m| &*m.cluster)
        .collect();
    let named = options
        .durations
        .keys()
        .map(|n| ("durations", n))
        .chain(options.fail.iter().map(|n| ("fail", n)))
        .chain(options.pending.iter().map(|n| ("pending", n)))
        .chain(options.skip.iter().map(|n| ("skip", n)));
    for (option, name) in named {
        if !reached.contains(name.as_str()) {
            ctx.warnings.push(Diagnostic::of_options(
                Severity::Warning,
                format!("{option} names {name:?}, which no rollout reaches"),
            ));
        }
    }
}

/// A warning at a member's `fleet-policy.dev/update-duration` annotation whose value is no Go
/// duration of zero or more (`why`, from [`GoDuration::parse_non_negative`]): the default is
/// used in its place.
pub(crate) fn bad_duration_annotation(doc: &Document, why: &str) -> Diagnostic {
    let path = FieldPath::parse("metadata.annotations").key(azure::DURATION_ANNOTATION);
    doc.diagnostic(
        Severity::Warning,
        &path,
        format!("invalid update duration: {why}; the default is used"),
    )
}

/// Rewrites every state to the one in force at `t` (the last timeline entry at or before it).
pub fn observe(r: &mut plan::Rollout, t: DateTime<Utc>) {
    use crate::sorted_map::SortedMap;
    use plan::{State, Subject};
    // A repeated key's last (latest) entry wins.
    let last: SortedMap<(Subject, &str, Option<&str>), State> = SortedMap::from_entries(
        r.timeline
            .iter()
            .filter(|e| e.at <= t)
            .map(|e| ((e.subject, &*e.name, e.stage.as_deref()), e.state))
            .collect(),
    );
    let get = |s: Subject, n: &str, st: Option<&str>| {
        last.find(&(s, n, st)).copied().unwrap_or(State::NotStarted)
    };
    let run_state = get(Subject::Run, &r.name, None);
    // In place: `last` borrows the timeline, a field apart from the stages.
    for stage in &mut r.stages {
        let sname = stage.name.clone();
        stage.state = get(Subject::Stage, &sname, None);
        for g in &mut stage.groups {
            let gs = last
                .find(&(Subject::Group, &*g.name, Some(&*sname)))
                .copied();
            for m in &mut g.members {
                m.state = get(Subject::Member, &m.cluster, Some(&sname));
            }
            g.state = gs.unwrap_or_else(|| {
                if stage.state == State::NotStarted {
                    State::NotStarted
                } else {
                    stage.state
                }
            });
        }
        for w in &mut stage.waits {
            w.state = get(Subject::Wait, &w.name, Some(&sname));
        }
    }
    r.state = run_state;
}

#[cfg(test)]
mod tests;
