//! Azure Kubernetes Fleet Manager: update runs, update strategies, fleet members and
//! auto-upgrade profiles read from the input, validated (rollout.md A.2), planned (A.3.1) and
//! handed to the simulation ([`super::simulate`]).

use super::channels::{self, Channel, ChannelSkipReason, MemberAction};
use super::maintenance::{self, Window};
use super::name_index::NameIndex;
use super::node_image::{self, ImageCatalogue, MemberPools, NodeImageSelection, PoolView};
use super::options::{EmptyGroups, RolloutOptions, SkipTarget, UngroupedMembers, WhatIf};
use super::plan::{
    Excluded, Group, Member, MemberReason, Rollout, Stage, State, Subject, System, TimelineEntry,
    UpgradeSummary, Wait, WaitKind,
};
use super::simulate::{self, SimEvent, SimGroup, SimMember, SimPlan, SimStage};
use super::staged::Layer;
use super::{ts, Ctx};
use crate::input::duration::GoDuration;
use crate::input::node::Value;
use crate::input::Document;
use crate::input::{FromNode, Node};
use crate::model::rollout::{
    AgentPoolProfile, ArmResource, AutoUpgradeProfileProperties, AvailableVersionsProperties,
    ConcreteWindow, FleetMemberProperties, FleetUpdateStrategyProperties, GroupField,
    MaintenanceWindow, UpdateRunProperties, UpdateRunStrategy,
};
use crate::sorted_map::SortedMap;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::rc::Rc;

/// Name of the cluster-upgrade maintenance configuration (R-AZ-32).
pub const AUTO_UPGRADE_SCHEDULE: &str = "aksManagedAutoUpgradeSchedule";
/// Name of the node-OS maintenance configuration (R-AZ-32).
pub const NODE_OS_SCHEDULE: &str = "aksManagedNodeOSUpgradeSchedule";
/// Annotation overriding a member's simulated update duration.
pub const DURATION_ANNOTATION: &str = "fleet-policy.dev/update-duration";

/// A FleetMember as the plan reads it: strings borrowed from the document when the common
/// shape was read in place ([`read_member`]), owned when it went through the decoder.
struct FleetMember<'a> {
    name: Cow<'a, str>,
    group: Option<Cow<'a, str>>,
    kubernetes_version: Option<Cow<'a, str>>,
    location: Option<Cow<'a, str>>,
    agent_pool_profiles: Vec<AgentPoolProfile>,
    /// The first configuration named [`AUTO_UPGRADE_SCHEDULE`] / [`NODE_OS_SCHEDULE`]: its
    /// position in `maintenanceConfigurations` and its window in [`AzureInput::windows`].
    configs: [Option<(usize, usize)>; 2],
    maintenance_windows: Vec<ConcreteWindow>,
    duration: Option<Cow<'a, str>>,
    doc: &'a Document,
}

impl FleetMember<'_> {
    /// The configuration a run with this schedule name uses.
    fn config(&self, schedule: &str) -> Option<(usize, usize)> {
        match schedule {
            AUTO_UPGRADE_SCHEDULE => self.configs[0],
            NODE_OS_SCHEDULE => self.configs[1],
            _ => None,
        }
    }
}

/// The Azure documents of an input, decoded.
pub(crate) struct AzureInput<'a> {
    members: Vec<FleetMember<'a>>,
    strategies: SortedMap<String, UpdateRunStrategy>,
    versions: Option<AvailableVersionsProperties>,
    /// Every distinct maintenance window of the members (fleets repeat a few schedules).
    windows: Vec<MaintenanceWindow>,
}

/// The distinct maintenance windows, each decoded once: a window node whose content (spans
/// aside) was seen before is not decoded again, and equal decoded windows share one index
/// (so that a window's expansion, and its error, happen once as before).
#[derive(Default)]
struct WindowStore {
    windows: Vec<MaintenanceWindow>,
    by_value: FxHashMap<MaintenanceWindow, usize>,
    /// The window index of each distinct node seen, by its [`encode_content`].
    by_node: FxHashMap<Box<[u8]>, usize>,
    scratch: Vec<u8>,
}

impl WindowStore {
    /// The index of a decoded window.
    fn intern(&mut self, w: MaintenanceWindow) -> usize {
        if let Some(&i) = self.by_value.get(&w) {
            return i;
        }
        self.windows.push(w.clone());
        let i = self.windows.len() - 1;
        self.by_value.insert(w, i);
        i
    }

    /// The index of the window a `maintenanceWindow` node decodes to; `None` when it does not
    /// decode (the caller then decodes the whole document for the error).
    fn intern_node(&mut self, node: &Node) -> Option<usize> {
        let mut key = std::mem::take(&mut self.scratch);
        key.clear();
        encode_content(node, &mut key);
        let found = match self.by_node.get(key.as_slice()) {
            Some(&i) => Some(i),
            None => MaintenanceWindow::from_node(node).ok().map(|w| {
                let i = self.intern(w);
                self.by_node.insert(key.as_slice().into(), i);
                i
            }),
        };
        self.scratch = key;
        found
    }
}

/// Writes what decoding reads of a node — its values, not where they were written — as bytes
/// that tell apart any two different contents (every text and list is prefixed by its length).
fn encode_content(node: &Node, out: &mut Vec<u8>) {
    let len = |out: &mut Vec<u8>, n: usize| out.extend_from_slice(&(n as u64).to_le_bytes());
    let scalar = |out: &mut Vec<u8>, n: &Node, text: &str| {
        out.push(if n.is_plain() { 1 } else { 2 });
        len(out, text.len());
        out.extend_from_slice(text.as_bytes());
    };
    match &node.value {
        Value::Null => out.push(0),
        Value::Scalar(s) => scalar(out, node, s),
        Value::Seq(items) => {
            out.push(3);
            len(out, items.len());
            items.iter().for_each(|n| encode_content(n, out));
        }
        Value::Map(entries) => {
            out.push(4);
            len(out, entries.len());
            // Keys and most values are scalars: written here, not by a call each (the calls
            // were most of the cost of reading a member's window).
            for n in entries.iter().flat_map(|(k, v)| [k, v]) {
                match &n.value {
                    Value::Scalar(s) => scalar(out, n, s),
                    _ => encode_content(n, out),
                }
            }
        }
    }
}

/// Marks a field seen; `None` when it was already (a duplicate field is the decoder's error).
fn once(seen: &mut bool) -> Option<()> {
    (!std::mem::replace(seen, true)).then_some(())
}

/// Reads a FleetMember in place when it has the common shape — `apiVersion`, `kind`,
/// `metadata` (`name`, `labels`, `annotations`), `properties` (`group` as one string,
/// `clusterResourceId`) and `cluster` (`kubernetesVersion`, `location`,
/// `maintenanceConfigurations`), every field once and of the type the decoder wants.
/// Then the decoder would accept the document and read the same values; anything else
/// (`None`) goes through the decoder, for its errors and its rarer fields and aliases.
fn read_member<'a>(doc: &'a Document, store: &mut WindowStore) -> Option<FleetMember<'a>> {
    use crate::input::from_node::str_of;
    let mut seen = [false; 5];
    let (mut meta, mut props, mut cluster) = (None, None, None);
    for (k, v) in doc.root.as_map()? {
        let i = match k.as_scalar()? {
            "apiVersion" | "kind" => {
                str_of(v).ok()?;
                usize::from(k.as_scalar() == Some("kind"))
            }
            "metadata" => {
                meta = Some(v.as_map()?);
                2
            }
            "properties" => {
                props = Some(v.as_map()?);
                3
            }
            "cluster" => {
                cluster = Some(v.as_map()?);
                4
            }
            _ => return None,
        };
        once(&mut seen[i])?;
    }
    // apiVersion, kind and properties are required.
    if !(seen[0] && seen[1] && seen[3]) {
        return None;
    }
    let mut name = "";
    let mut duration = None;
    let mut seen = [false; 3];
    for (k, v) in meta.unwrap_or_default() {
        match k.as_scalar()? {
            "name" => {
                once(&mut seen[0])?;
                name = str_of(v).ok()?;
            }
            // String maps: a repeated key keeps its last value.
            "annotations" => {
                once(&mut seen[1])?;
                for (ak, av) in v.as_map()? {
                    let (key, value) = (ak.as_scalar()?, str_of(av).ok()?);
                    if key == DURATION_ANNOTATION {
                        duration = Some(Cow::Borrowed(value));
                    }
                }
            }
            "labels" => {
                once(&mut seen[2])?;
                for (lk, lv) in v.as_map()? {
                    lk.as_scalar()?;
                    str_of(lv).ok()?;
                }
            }
            _ => return None,
        }
    }
    let mut group = None;
    let mut seen = [false; 2];
    for (k, v) in props.unwrap_or_default() {
        match k.as_scalar()? {
            "group" => {
                once(&mut seen[0])?;
                group = Some(Cow::Borrowed(str_of(v).ok()?));
            }
            "clusterResourceId" => {
                once(&mut seen[1])?;
                str_of(v).ok()?;
            }
            _ => return None,
        }
    }
    let mut kubernetes_version = None;
    let mut location = None;
    let mut configs = [None; 2];
    let mut seen = [false; 3];
    for (k, v) in cluster.unwrap_or_default() {
        match k.as_scalar()? {
            "kubernetesVersion" => {
                once(&mut seen[0])?;
                kubernetes_version = Some(Cow::Borrowed(str_of(v).ok()?));
            }
            "location" => {
                once(&mut seen[1])?;
                location = Some(Cow::Borrowed(str_of(v).ok()?));
            }
            "maintenanceConfigurations" => {
                once(&mut seen[2])?;
                for (i, item) in v.as_seq()?.iter().enumerate() {
                    let (mut cname, mut window) = (None, None);
                    for (ck, cv) in item.as_map()? {
                        match ck.as_scalar()? {
                            "name" if cname.is_none() => cname = Some(str_of(cv).ok()?),
                            "properties" if window.is_none() => match cv.as_map()? {
                                [(pk, pv)] if pk.as_scalar() == Some("maintenanceWindow") => {
                                    window = Some(pv)
                                }
                                _ => return None,
                            },
                            _ => return None,
                        }
                    }
                    let (cname, window) = (cname?, store.intern_node(window?)?);
                    let slot = match cname {
                        AUTO_UPGRADE_SCHEDULE => &mut configs[0],
                        NODE_OS_SCHEDULE => &mut configs[1],
                        _ => continue,
                    };
                    slot.get_or_insert((i, window));
                }
            }
            _ => return None,
        }
    }
    Some(FleetMember {
        name: Cow::Borrowed(name),
        group,
        kubernetes_version,
        location,
        agent_pool_profiles: Vec::new(),
        configs,
        maintenance_windows: Vec::new(),
        duration,
        doc,
    })
}

/// A decoded FleetMember (any shape the decoder accepts); `None` after reporting a list of
/// groups.
fn decoded_member<'a>(
    doc: &'a Document,
    r: ArmResource<FleetMemberProperties>,
    store: &mut WindowStore,
    ctx: &mut Ctx,
) -> Option<FleetMember<'a>> {
    let name = r.resource_name();
    let group = match r.properties.group {
        None => None,
        Some(GroupField::One(g)) => Some(g),
        Some(GroupField::Many(gs)) if gs.len() == 1 => gs.into_iter().next(),
        Some(GroupField::Many(gs)) => {
            ctx.layered(
                doc,
                "properties.group",
                Layer::Engine,
                format!(
                    "a member belongs to at most one group (properties.group is a single string), found {} groups: {}",
                    gs.len(),
                    gs.join(", ")
                ),
            );
            return None;
        }
    };
    let facts = r.cluster.unwrap_or_default();
    let mut configs = [None; 2];
    for (i, c) in facts.maintenance_configurations.into_iter().enumerate() {
        let slot = match c.name.as_str() {
            AUTO_UPGRADE_SCHEDULE => &mut configs[0],
            NODE_OS_SCHEDULE => &mut configs[1],
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some((i, store.intern(c.properties.maintenance_window)));
        }
    }
    Some(FleetMember {
        name: Cow::Owned(name),
        group: group.map(Cow::Owned),
        kubernetes_version: facts.kubernetes_version.map(Cow::Owned),
        location: facts.location.map(Cow::Owned),
        agent_pool_profiles: facts.agent_pool_profiles,
        configs,
        maintenance_windows: facts.maintenance_windows,
        duration: r
            .metadata
            .annotations
            .get(DURATION_ANNOTATION)
            .map(|d| Cow::Owned(d.clone())),
        doc,
    })
}

fn name_ok(n: &str) -> bool {
    let b = n.as_bytes();
    !b.is_empty()
        && b.len() <= 50
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b.first().is_some_and(|c| *c != b'-')
        && b.last().is_some_and(|c| *c != b'-')
}

/// Reads FleetMember, FleetUpdateStrategy and AvailableVersions documents.
pub(crate) fn read<'a>(input: &super::Docs<'a>, ctx: &mut Ctx) -> AzureInput<'a> {
    let docs = input.of_kind("FleetMember");
    // Sized once: a member is large, and fleets have thousands.
    let n = docs.size_hint().0;
    let mut members: Vec<FleetMember<'a>> = Vec::with_capacity(n);
    // Member positions by name.
    let mut by_name: FxHashMap<String, usize> =
        FxHashMap::with_capacity_and_hasher(n, Default::default());
    let mut store = WindowStore::default();
    for doc in docs {
        let member = match read_member(doc, &mut store) {
            Some(m) => m,
            None => match doc.decode() {
                Ok(r) => match decoded_member(doc, r, &mut store, ctx) {
                    Some(m) => m,
                    None => continue,
                },
                Err(d) => {
                    ctx.errors.push(d);
                    continue;
                }
            },
        };
        let name = &member.name;
        let group = &member.group;
        let prev = by_name.get(&**name).and_then(|&i| members.get(i));
        if let Some(prev) = prev {
            let msg = if prev.group != *group {
                format!(
                    "member \"{name}\" is listed twice with different groups; a member belongs to at most one group"
                )
            } else {
                format!("member \"{name}\" is listed twice")
            };
            ctx.layered(doc, "metadata.name", Layer::Engine, msg);
            continue;
        }
        by_name.insert(name.to_string(), members.len());
        members.push(member);
    }
    members.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let mut strategies = SortedMap::new();
    for doc in input.of_kind("FleetUpdateStrategy") {
        match doc.decode::<ArmResource<FleetUpdateStrategyProperties>>() {
            Ok(r) => {
                let name = r.resource_name();
                if !strategies.contains_key(name.as_str()) {
                    validate_strategy(&r.properties.strategy, "properties.strategy", doc, ctx);
                    strategies.insert(name, r.properties.strategy);
                } else {
                    ctx.layered(
                        doc,
                        "metadata.name",
                        Layer::Engine,
                        format!("FleetUpdateStrategy \"{name}\" is defined twice"),
                    );
                }
            }
            Err(d) => ctx.errors.push(d),
        }
    }
    let mut versions: Option<AvailableVersionsProperties> = None;
    for doc in input.of_kind("AvailableVersions") {
        match doc.decode::<ArmResource<AvailableVersionsProperties>>() {
            Ok(r) => {
                if versions.is_some() {
                    ctx.warn(
                        doc,
                        "",
                        "more than one AvailableVersions document; the first one is used",
                    );
                } else {
                    versions = Some(r.properties);
                }
            }
            Err(d) => ctx.errors.push(d),
        }
    }
    AzureInput {
        members,
        strategies,
        versions,
        windows: store.windows,
    }
}

/// R-AZ-1, 2, 3, 7, 11. Returns whether the strategy is usable.
fn validate_strategy(s: &UpdateRunStrategy, base: &str, doc: &Document, ctx: &mut Ctx) -> bool {
    let before = ctx.errors.len();
    if s.stages.is_empty() {
        ctx.layered(
            doc,
            &format!("{base}.stages"),
            Layer::Engine,
            "strategy.stages must have at least 1 stage".to_string(),
        );
    }
    // Earlier stages and groups are scanned for a repeated name (strategies are small). The
    // message names the latest one.
    let groups: Vec<(usize, usize, &str)> = s
        .stages
        .iter()
        .enumerate()
        .flat_map(|(i, st)| {
            (st.groups.iter().enumerate()).map(move |(j, g)| (i, j, g.name.as_str()))
        })
        .collect();
    let mut group_pos = 0;
    for (i, st) in s.stages.iter().enumerate() {
        let p = format!("{base}.stages[{i}]");
        if !name_ok(&st.name) {
            ctx.layered(doc, &format!("{p}.name"), Layer::Engine, format!(
                "stage name \"{}\" must be 1-50 characters of lower-case letters, digits and '-', starting and ending with a letter or digit",
                st.name
            ));
        }
        let earlier = s.stages.get(..i).unwrap_or_default();
        if let Some(prev) = earlier.iter().rposition(|e| e.name == st.name) {
            ctx.layered(doc, &format!("{p}.name"), Layer::Engine, format!(
                "duplicate stage name \"{}\" (also stages[{prev}]); stage names must be unique within a strategy",
                st.name
            ));
        }
        if st.before_gates.is_some()
            || st.after_gates.is_some()
            || st
                .groups
                .iter()
                .any(|g| g.before_gates.is_some() || g.after_gates.is_some())
        {
            ctx.warn(doc, &p, "approval gates (preview) are not modelled: the simulation treats them as approved at once");
        }
        if st.groups.is_empty() {
            ctx.layered(
                doc,
                &format!("{p}.groups"),
                Layer::Engine,
                format!("stage \"{}\" must have at least 1 group", st.name),
            );
        }
        match st.after_stage_wait_in_seconds {
            Some(w) if !(0..=2_147_483_647).contains(&w) => ctx.layered(
                doc,
                &format!("{p}.afterStageWaitInSeconds"),
                Layer::Engine,
                format!("afterStageWaitInSeconds must be between 0 and 2147483647, got {w}"),
            ),
            Some(w) if w > 86_400 => ctx.warn(
                doc,
                &format!("{p}.afterStageWaitInSeconds"),
                &format!("afterStageWaitInSeconds {w} is more than a day"),
            ),
            _ => {}
        }
        for (j, g) in st.groups.iter().enumerate() {
            let gp = format!("{p}.groups[{j}].name");
            if !name_ok(&g.name) {
                ctx.layered(doc, &gp, Layer::Engine, format!(
                    "group name \"{}\" must be 1-50 characters of lower-case letters, digits and '-', starting and ending with a letter or digit",
                    g.name
                ));
            }
            let earlier = groups.get(..group_pos).unwrap_or_default();
            group_pos += 1;
            if let Some(&(pi, pj, _)) = earlier.iter().rev().find(|e| e.2 == g.name) {
                ctx.layered(doc, &gp, Layer::Engine, format!(
                    "duplicate group name \"{}\" (also stages[{pi}].groups[{pj}]); a group may appear only once in the whole strategy",
                    g.name
                ));
            }
            if let Some(mc) = &g.max_concurrency {
                let percent =
                    matches!(mc, super::intstr::IntOrString::String(s) if s.ends_with('%'));
                if group_concurrency(mc, 100).is_none_or(|v| v < 1 || (percent && v > 100)) {
                    ctx.layered(doc, &format!("{p}.groups[{j}].maxConcurrency"), Layer::Engine, format!(
                        "maxConcurrency \"{mc}\" must be an integer >= 1 or a percentage \"1%\"..\"100%\""
                    ));
                }
            }
        }
    }
    ctx.errors.len() == before
}

/// A group's `maxConcurrency` over `members`: ARM types it as a string, a fixed count (`"3"`,
/// as `az` prints it) or a percentage (`"25%"`, rounded down); an integer is a count too.
fn group_concurrency(mc: &super::intstr::IntOrString, members: i64) -> Option<i64> {
    if let super::intstr::IntOrString::String(s) = mc {
        if let Ok(count) = s.parse() {
            return Some(count);
        }
    }
    mc.scaled(members, super::intstr::Rounding::Down).ok()
}

/// What a run upgrades.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UpgradeType {
    Full,
    ControlPlaneOnly,
    NodeImageOnly,
}

struct RunSpec<'s> {
    name: String,
    kind: &'static str,
    upgrade: UpgradeType,
    target: Option<String>,
    selection: NodeImageSelection,
    /// `None`: the default one-by-one order.
    strategy: Option<&'s UpdateRunStrategy>,
    /// Channel decisions that skip members regardless of their versions.
    channel_skips: SortedMap<String, MemberReason>,
    /// Members whose operation the engine knows AKS rejects (manual runs only).
    check_rejections: bool,
}

/// Plans and simulates every UpdateRun and AutoUpgradeProfile.
pub(crate) fn rollouts(
    input: &super::Docs<'_>,
    az: &AzureInput<'_>,
    opts: &RolloutOptions,
    ctx: &mut Ctx,
) -> Vec<Rollout> {
    let mut out = Vec::new();
    for doc in input.of_kind("UpdateRun") {
        let r: ArmResource<UpdateRunProperties> = match doc.decode() {
            Ok(r) => r,
            Err(d) => {
                ctx.errors.push(d);
                continue;
            }
        };
        // The service's record of a run under way or ended is not read: the run is simulated.
        let recorded = doc.root.locate(&"properties.status.status.state".into());
        if recorded.as_scalar().is_some_and(|s| s != "NotStarted") {
            ctx.recorded_status_not_read(doc, "properties.status");
        }
        if let Some(spec) = run_spec(doc, &r, az, ctx) {
            if let Some(ro) = plan_run(doc, &spec, az, opts, ctx) {
                out.push(ro);
            }
        }
    }
    for doc in input.of_kind("AutoUpgradeProfile") {
        let r: ArmResource<AutoUpgradeProfileProperties> = match doc.decode() {
            Ok(r) => r,
            Err(d) => {
                ctx.errors.push(d);
                continue;
            }
        };
        if let Some(spec) = profile_spec(doc, &r, az, ctx) {
            if let Some(ro) = plan_run(doc, &spec, az, opts, ctx) {
                out.push(ro);
            }
        }
    }
    out
}

fn strategy_by_id<'s>(
    id: &str,
    path: &str,
    doc: &Document,
    az: &'s AzureInput<'_>,
    ctx: &mut Ctx,
) -> Option<&'s UpdateRunStrategy> {
    let name = id.rsplit('/').next().unwrap_or(id);
    match az.strategies.get(name) {
        Some(s) => Some(s),
        None => {
            ctx.layered(
                doc,
                path,
                Layer::Engine,
                format!("FleetUpdateStrategy \"{name}\" (from {id}) is not in the input"),
            );
            None
        }
    }
}

fn selection_of(
    sel: Option<&crate::model::rollout::NodeImageSelectionSpec>,
    doc: &Document,
    path: &str,
    ctx: &mut Ctx,
) -> Option<NodeImageSelection> {
    match sel.map(|s| s.selection_type.as_str()) {
        None | Some("Latest") => Some(NodeImageSelection::Latest),
        Some("Consistent") => Some(NodeImageSelection::Consistent),
        Some("Custom") => {
            ctx.layered(
                doc,
                path,
                Layer::Engine,
                "nodeImageSelection Custom (preview) is not supported by this engine".to_string(),
            );
            None
        }
        Some(other) => {
            ctx.layered(doc, path, Layer::Engine, format!(
                "unsupported nodeImageSelection.type \"{other}\": supported values: \"Latest\", \"Consistent\""
            ));
            None
        }
    }
}

fn run_spec<'s>(
    doc: &Document,
    r: &'s ArmResource<UpdateRunProperties>,
    az: &'s AzureInput<'_>,
    ctx: &mut Ctx,
) -> Option<RunSpec<'s>> {
    let before = ctx.errors.len();
    let p = &r.properties;
    // A run to create names one or the other. A run as ARM shows it (it has a
    // provisioningState) carries both: the strategy is the snapshot taken from the
    // referenced one when it was created, and it is the one the run follows.
    if p.strategy.is_some() && p.update_strategy_id.is_some() && p.provisioning_state.is_none() {
        ctx.layered(
            doc,
            "properties.updateStrategyId",
            Layer::Engine,
            "both strategy and updateStrategyId are set; a run uses one or the other".to_string(),
        );
    }
    let Some(mcu) = &p.managed_cluster_update else {
        ctx.layered(
            doc,
            "properties.managedClusterUpdate",
            Layer::Engine,
            "managedClusterUpdate.upgrade is required".to_string(),
        );
        return None;
    };
    let upgrade = match mcu.upgrade.upgrade_type.as_str() {
        "Full" => UpgradeType::Full,
        "ControlPlaneOnly" => UpgradeType::ControlPlaneOnly,
        "NodeImageOnly" => UpgradeType::NodeImageOnly,
        other => {
            ctx.layered(doc, "properties.managedClusterUpdate.upgrade.type", Layer::Engine, format!(
                "unsupported upgrade type \"{other}\": supported values: \"Full\", \"NodeImageOnly\", \"ControlPlaneOnly\""
            ));
            return None;
        }
    };
    let kv = mcu.upgrade.kubernetes_version.clone();
    match (upgrade, &kv) {
        (UpgradeType::NodeImageOnly, Some(_)) => ctx.layered(
            doc,
            "properties.managedClusterUpdate.upgrade.kubernetesVersion",
            Layer::Engine,
            "kubernetesVersion must not be set when upgrade.type is NodeImageOnly".to_string(),
        ),
        (UpgradeType::Full | UpgradeType::ControlPlaneOnly, None) => ctx.layered(
            doc,
            "properties.managedClusterUpdate.upgrade",
            Layer::Engine,
            format!(
                "kubernetesVersion is required when upgrade.type is {}",
                mcu.upgrade.upgrade_type
            ),
        ),
        (_, Some(v)) if channels::Version::parse(v).is_none() => ctx.layered(
            doc,
            "properties.managedClusterUpdate.upgrade.kubernetesVersion",
            Layer::Engine,
            format!("kubernetesVersion \"{v}\" is not a version like 1.30.5"),
        ),
        _ => {}
    }
    let selection = selection_of(
        mcu.node_image_selection.as_ref(),
        doc,
        "properties.managedClusterUpdate.nodeImageSelection.type",
        ctx,
    );
    let strategy = match (&p.strategy, &p.update_strategy_id) {
        (Some(s), _) => {
            validate_strategy(s, "properties.strategy", doc, ctx);
            Some(s)
        }
        (None, Some(id)) => strategy_by_id(id, "properties.updateStrategyId", doc, az, ctx),
        (None, None) => None,
    };
    if ctx.errors.len() != before {
        return None;
    }
    Some(RunSpec {
        name: r.resource_name(),
        kind: "UpdateRun",
        upgrade,
        target: kv,
        selection: selection?,
        strategy,
        channel_skips: SortedMap::new(),
        check_rejections: true,
    })
}

fn profile_spec<'s>(
    doc: &Document,
    r: &ArmResource<AutoUpgradeProfileProperties>,
    az: &'s AzureInput<'_>,
    ctx: &mut Ctx,
) -> Option<RunSpec<'s>> {
    let p = &r.properties;
    let channel = match p.channel.as_str() {
        "Stable" => Channel::Stable,
        "Rapid" => Channel::Rapid,
        "NodeImage" => Channel::NodeImage,
        other => {
            ctx.layered(doc, "properties.channel", Layer::Engine, format!(
                "unsupported channel \"{other}\": supported values: \"Stable\", \"Rapid\", \"NodeImage\""
            ));
            return None;
        }
    };
    if p.disabled {
        ctx.warn(
            doc,
            "properties.disabled",
            "the profile is disabled: it generates no update run",
        );
        return None;
    }
    let selection = selection_of(
        p.node_image_selection.as_ref(),
        doc,
        "properties.nodeImageSelection.type",
        ctx,
    )?;
    let strategy = match &p.update_strategy_id {
        Some(id) => Some(strategy_by_id(
            id,
            "properties.updateStrategyId",
            doc,
            az,
            ctx,
        )?),
        None => None,
    };
    let (available, preview) = match &az.versions {
        Some(v) => (
            v.kubernetes_versions.clone(),
            v.preview_kubernetes_versions.clone(),
        ),
        None if channel != Channel::NodeImage => {
            ctx.layered(doc, "properties.channel", Layer::Engine,
                "the channel's target needs the available Kubernetes versions: add an AvailableVersions document".to_string());
            return None;
        }
        None => (Vec::new(), Vec::new()),
    };
    let target = channels::target(channel, &available, &preview);
    if channel != Channel::NodeImage && target.is_none() {
        ctx.warn(
            doc,
            "properties.channel",
            "no available version qualifies as the channel's target; no update run is generated",
        );
        return None;
    }
    let mut channel_skips = Vec::new();
    for m in &az.members {
        let current = m
            .kubernetes_version
            .as_deref()
            .unwrap_or_default()
            .to_string();
        let reason = match channels::member_action(channel, target, &current) {
            MemberAction::Upgrade { .. } => continue,
            MemberAction::Skip { reason } | MemberAction::NotMoved { reason } => reason,
        };
        let t = target.map(|v| v.to_string()).unwrap_or_default();
        let r = match reason {
            // Left to the run, which is Full (R-AZ-62) and so checks the control plane and
            // every node pool against the target (R-AZ-37): a pool behind is upgraded.
            ChannelSkipReason::AlreadyAtTarget => continue,
            ChannelSkipReason::NewerThanTarget => {
                MemberReason::NewerThanTarget { current, target: t }
            }
            ChannelSkipReason::MinorVersionSkewTooLarge => {
                MemberReason::MinorVersionSkewTooLarge { current, target: t }
            }
            // Unknown versions are left to the run: nothing is known against them.
            ChannelSkipReason::UnknownVersion => continue,
        };
        channel_skips.push((m.name.to_string(), r));
    }
    Some(RunSpec {
        name: r.resource_name(),
        kind: "AutoUpgradeProfile",
        upgrade: if channel == Channel::NodeImage {
            UpgradeType::NodeImageOnly
        } else {
            UpgradeType::Full
        },
        target: target.map(|v| v.to_string()),
        selection,
        strategy,
        channel_skips: SortedMap::from_entries(channel_skips),
        check_rejections: false,
    })
}

/// Splits `AKSUbuntu-2204gen2containerd-202405.03.0` into type and version.
fn split_image(v: &str) -> (String, String) {
    match v.rsplit_once('-') {
        Some((t, ver)) if ver.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
            (t.to_string(), ver.to_string())
        }
        _ => (String::new(), v.to_string()),
    }
}

fn pools_of(m: &FleetMember<'_>) -> MemberPools {
    MemberPools {
        name: m.name.to_string(),
        region: m.location.as_deref().unwrap_or_default().to_string(),
        node_pools: m
            .agent_pool_profiles
            .iter()
            .filter_map(|p| {
                let v = p.node_image_version.as_deref()?;
                let (t, ver) = match &p.image_type {
                    Some(t) => (
                        t.clone(),
                        v.strip_prefix(&format!("{t}-")).unwrap_or(v).to_string(),
                    ),
                    None => split_image(v),
                };
                Some(PoolView {
                    name: p.name.clone(),
                    image_type: t,
                    current: ver,
                })
            })
            .collect(),
    }
}

struct WindowTable<'w> {
    lists: Vec<Vec<Window>>,
    /// The distinct windows of the members ([`AzureInput::windows`]).
    windows: &'w [MaintenanceWindow],
    /// Per distinct window: its expansion, once it was asked for (`Some(None)`: it does not
    /// compile, reported at the first member that uses it).
    by_config: Vec<Option<Option<usize>>>,
}

fn member_windows(
    m: &FleetMember<'_>,
    schedule: &str,
    table: &mut WindowTable<'_>,
    from: i64,
    to: i64,
    ctx: &mut Ctx,
) -> Option<usize> {
    if let Some((i, wi)) = m.config(schedule) {
        if let Some(idx) = table.by_config.get(wi).copied().flatten() {
            return idx;
        }
        let w = table.windows.get(wi)?;
        let idx = match maintenance::compile(w) {
            Ok(c) => {
                let anchor = ts(from).date_naive();
                let list = maintenance::normalise(c.expand(ts(from), ts(to), anchor));
                table.lists.push(list);
                Some(table.lists.len() - 1)
            }
            Err((field, msg)) => {
                ctx.layered(m.doc, &format!("cluster.maintenanceConfigurations[{i}].properties.maintenanceWindow.{field}"), Layer::Engine, msg);
                None
            }
        };
        if let Some(slot) = table.by_config.get_mut(wi) {
            *slot = Some(idx);
        }
        return idx;
    }
    let mut list = Vec::new();
    let mut any = false;
    for (i, w) in m.maintenance_windows.iter().enumerate() {
        if w.schedule.as_deref().is_some_and(|s| s != schedule) {
            continue;
        }
        any = true;
        let parse = |s: &str, f: &str, ctx: &mut Ctx| match crate::input::rfc3339::parse(s) {
            Ok(t) => Some(t.timestamp()),
            Err(_) => {
                ctx.layered(
                    m.doc,
                    &format!("cluster.maintenanceWindows[{i}].{f}"),
                    Layer::Engine,
                    format!("\"{s}\" is not an RFC 3339 time"),
                );
                None
            }
        };
        if let (Some(s), Some(e)) = (parse(&w.start, "start", ctx), parse(&w.end, "end", ctx)) {
            list.push(Window { start: s, end: e });
        }
    }
    if !any {
        return None;
    }
    table.lists.push(maintenance::normalise(list));
    Some(table.lists.len() - 1)
}

fn duration_of(
    name: &str,
    annotation: Option<&str>,
    opts: &RolloutOptions,
    default: i64,
    ctx_doc: Option<&Document>,
    ctx: &mut Ctx,
) -> i64 {
    let pick = opts
        .durations
        .get(name)
        .map(String::as_str)
        .or(annotation)
        .or(opts.default_duration.as_deref());
    // The options' durations were checked by `super::check_options`, which put the default
    // in place of a bad one: a value refused here is the annotation's, warned at it.
    match pick.map(GoDuration::parse_non_negative) {
        Some(Ok(d)) => d.seconds(),
        Some(Err(why)) => {
            if let Some(doc) = ctx_doc {
                ctx.warnings.push(super::bad_duration_annotation(doc, &why));
            }
            default
        }
        None => default,
    }
}

/// Parsed versions by their text (a fleet runs a few versions; parsing each member's was a
/// visible part of planning).
#[derive(Default)]
struct VersionCache<'m> {
    parsed: FxHashMap<&'m str, Option<channels::Version>>,
}

impl<'m> VersionCache<'m> {
    /// `channels::Version::parse(text)`, parsed once per distinct text.
    fn get(&mut self, text: &'m str) -> Option<channels::Version> {
        *self
            .parsed
            .entry(text)
            .or_insert_with(|| channels::Version::parse(text))
    }
}

fn reason_for_upgrade<'m>(
    spec: &RunSpec<'_>,
    target_version: Option<channels::Version>,
    m: &'m FleetMember<'_>,
    images: Option<&node_image::ImageSelectionResult>,
    versions: &mut VersionCache<'m>,
) -> (Option<MemberReason>, Option<MemberReason>) {
    if let Some(r) = spec.channel_skips.get(m.name.as_ref()) {
        return (Some(r.clone()), None);
    }
    let cp = m.kubernetes_version.as_deref();
    match spec.upgrade {
        UpgradeType::NodeImageOnly => {
            let pools = &m.agent_pool_profiles;
            let has_images = pools.iter().any(|p| p.node_image_version.is_some());
            let skip = match images {
                Some(sel) if has_images => !sel.members_upgrading.contains(m.name.as_ref()),
                _ => false,
            };
            (skip.then_some(MemberReason::NodeImagesAtSelection), None)
        }
        UpgradeType::Full | UpgradeType::ControlPlaneOnly => {
            let (Some(target), Some(cp)) = (spec.target.as_deref(), cp) else {
                return (None, None);
            };
            // A target without a patch (`1.30`) is met by any patch of it: AKS does not
            // upgrade a cluster at 1.30.x whose version is set to 1.30
            // (ManagedClusterProperties.kubernetesVersion).
            let meets = |v: &str| {
                v.strip_prefix(target)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
            };
            let pools_at_target = m
                .agent_pool_profiles
                .iter()
                .all(|p| meets(p.orchestrator_version.as_deref().unwrap_or(cp)));
            let at =
                meets(cp) && (spec.upgrade == UpgradeType::ControlPlaneOnly || pools_at_target);
            if at {
                return (
                    Some(MemberReason::AlreadyAtTarget {
                        target: target.to_string(),
                    }),
                    None,
                );
            }
            // Only node pools are behind a control plane at the target (`1.30.5` for a `1.30`
            // target): the upgrade moves the pools, nothing AKS rejects.
            if !spec.check_rejections || meets(cp) {
                return (None, None);
            }
            let parsed = versions.get(cp);
            let (Some(t), Some(c)) = (target_version, parsed) else {
                return (None, None);
            };
            if t < c {
                (
                    None,
                    Some(MemberReason::DowngradeRejected {
                        current: cp.to_string(),
                        target: target.to_string(),
                    }),
                )
            } else if t.major != c.major || t.minor > c.minor + 1 {
                (
                    None,
                    Some(MemberReason::MinorVersionSkipRejected {
                        current: cp.to_string(),
                        target: target.to_string(),
                    }),
                )
            } else {
                (None, None)
            }
        }
    }
}

/// The fleet an ARM resource belongs to, from its `id`
/// (`…/providers/Microsoft.ContainerService/fleets/{fleet}/{type}/{name}`): the fleet's id and
/// its name. `None` for a resource without such an id (one written by hand).
fn fleet_of(doc: &Document) -> Option<(&str, &str)> {
    let id = doc.root.get("id")?.as_scalar()?;
    let at = id.to_ascii_lowercase().find("/fleets/")? + "/fleets/".len();
    let name_len = id.get(at..)?.find('/')?;
    Some((id.get(..at + name_len)?, id.get(at..at + name_len)?))
}

fn plan_run(
    doc: &Document,
    spec: &RunSpec<'_>,
    az: &AzureInput<'_>,
    opts: &RolloutOptions,
    ctx: &mut Ctx,
) -> Option<Rollout> {
    let at = opts.at.timestamp();
    let start = opts.start.map_or(at, |s| s.timestamp());
    let horizon_end = start.max(at) + i64::from(opts.horizon_days) * 86_400;
    // Stages and groups.
    let default_strategy;
    let strategy: &UpdateRunStrategy = match spec.strategy {
        Some(s) => s,
        None => {
            default_strategy = UpdateRunStrategy {
                stages: vec![crate::model::rollout::UpdateStage {
                    name: "default".into(),
                    groups: vec![crate::model::rollout::UpdateGroup {
                        name: "default".into(),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
            };
            &default_strategy
        }
    };
    let group_index =
        NameIndex::first_wins(strategy.stages.iter().enumerate().flat_map(|(i, st)| {
            (st.groups.iter().enumerate()).map(move |(j, g)| (g.name.as_str(), (i, j)))
        }));
    let mut assigned: Vec<Vec<Vec<&FleetMember<'_>>>> = strategy
        .stages
        .iter()
        .map(|s| vec![Vec::new(); s.groups.len()])
        .collect();
    let mut excluded = Vec::new();
    let run_fleet = fleet_of(doc);
    for m in &az.members {
        if let (Some((run_id, run_name)), Some((id, name))) = (&run_fleet, fleet_of(m.doc)) {
            if !id.eq_ignore_ascii_case(run_id) {
                let reason = MemberReason::OtherFleet {
                    fleet: name.to_string(),
                    run_fleet: run_name.to_string(),
                };
                excluded.push(Excluded {
                    cluster: m.name.to_string(),
                    message: super::report::member_reason_text(&reason),
                    reason,
                });
                continue;
            }
        }
        let slot = if spec.strategy.is_none() {
            Some((0, 0))
        } else {
            m.group.as_deref().and_then(|g| group_index.get(g))
        };
        match slot {
            Some((i, j)) => {
                if let Some(v) = assigned.get_mut(i).and_then(|s| s.get_mut(j)) {
                    v.push(m);
                }
            }
            None => {
                let reason = MemberReason::GroupNotInStrategy {
                    group: m.group.as_deref().map(str::to_string),
                };
                if opts.azure.ungrouped_members == UngroupedMembers::Error {
                    ctx.layered(
                        m.doc,
                        "properties.group",
                        Layer::Engine,
                        format!(
                            "member \"{}\" is not in any group of run \"{}\": {}",
                            m.name,
                            spec.name,
                            super::report::member_reason_text(&reason)
                        ),
                    );
                }
                excluded.push(Excluded {
                    cluster: m.name.to_string(),
                    message: super::report::member_reason_text(&reason),
                    reason,
                });
            }
        }
    }
    if spec.strategy.is_some() {
        let mut bad = false;
        for (i, st) in strategy.stages.iter().enumerate() {
            for (j, g) in st.groups.iter().enumerate() {
                if assigned[i][j].is_empty() {
                    let msg = format!(
                        "group \"{}\" of stage \"{}\" matches no fleet member's group",
                        g.name, st.name
                    );
                    match opts.azure.empty_groups {
                        EmptyGroups::Error => {
                            bad = true;
                            ctx.layered(doc, "properties", Layer::Engine, msg);
                        }
                        EmptyGroups::Warning => ctx.warn(doc, "properties", &msg),
                    }
                }
            }
        }
        if bad {
            return None;
        }
    }
    // Node image selection over the run's members (Consistent is frozen at run start).
    let run_members: Vec<&FleetMember<'_>> = assigned.iter().flatten().flatten().copied().collect();
    let catalogue: Option<&ImageCatalogue> = az
        .versions
        .as_ref()
        .map(|v| &v.node_images)
        .filter(|c| !c.is_empty());
    let images = if spec.upgrade != UpgradeType::ControlPlaneOnly {
        catalogue.map(|c| {
            let pools: Vec<MemberPools> = run_members.iter().map(|m| pools_of(m)).collect();
            node_image::select(spec.selection, c, &pools)
        })
    } else {
        None
    };
    if spec.upgrade == UpgradeType::NodeImageOnly
        && images.is_none()
        && run_members
            .iter()
            .any(|m| !m.agent_pool_profiles.is_empty())
    {
        ctx.warn(doc, "", "no node image catalogue (AvailableVersions.properties.nodeImages): members are not checked for being at the selected image");
    }
    // The simulation plan.
    let schedule = if spec.upgrade == UpgradeType::NodeImageOnly {
        NODE_OS_SCHEDULE
    } else {
        AUTO_UPGRADE_SCHEDULE
    };
    let mut table = WindowTable {
        lists: Vec::new(),
        windows: &az.windows,
        by_config: vec![None; az.windows.len()],
    };
    let from = start.min(at) - 2 * 86_400;
    // Parsed once for every member's version checks.
    let target_version = spec.target.as_deref().and_then(channels::Version::parse);
    let mut versions = VersionCache::default();
    let mut plan = SimPlan::default();
    plan.members.reserve(run_members.len());
    for (i, st) in strategy.stages.iter().enumerate() {
        let mut groups = Vec::new();
        for (j, g) in st.groups.iter().enumerate() {
            let mut idxs = Vec::with_capacity(assigned[i][j].len());
            for m in &assigned[i][j] {
                let windows = member_windows(m, schedule, &mut table, from, horizon_end, ctx);
                let duration =
                    duration_of(&m.name, m.duration.as_deref(), opts, 3600, Some(m.doc), ctx);
                let (skip, reject) =
                    reason_for_upgrade(spec, target_version, m, images.as_ref(), &mut versions);
                idxs.push(plan.members.len());
                plan.members.push(SimMember {
                    name: Rc::from(m.name.as_ref()),
                    windows,
                    duration,
                    skip,
                    reject,
                });
            }
            let concurrency = match &g.max_concurrency {
                None => 1,
                Some(mc) => group_concurrency(mc, idxs.len() as i64).unwrap_or(1).max(1) as usize,
            };
            groups.push(SimGroup {
                name: Rc::from(g.name.as_str()),
                concurrency,
                members: idxs,
            });
        }
        plan.stages.push(SimStage {
            name: Rc::from(st.name.as_str()),
            wait_seconds: st.after_stage_wait_in_seconds.unwrap_or(0).max(0),
            groups,
        });
    }
    plan.windows = table.lists;
    // What-ifs.
    let mut events = Vec::new();
    for e in &opts.events {
        let t = |a: &Option<chrono::DateTime<chrono::Utc>>| a.map_or(start, |x| x.timestamp());
        match e {
            WhatIf::Stop { at } => events.push(SimEvent::Stop(t(at))),
            WhatIf::Start { at } => events.push(SimEvent::Start(t(at))),
            WhatIf::Skip {
                at,
                target_type,
                name,
            } => events.push(SimEvent::Skip(t(at), *target_type, name.clone())),
            WhatIf::Fail { at, member } => {
                events.push(SimEvent::Fail(at.map(|x| x.timestamp()), member.clone()))
            }
            WhatIf::Pending { member, .. } => events.push(SimEvent::Pending(member.clone())),
            _ => {}
        }
    }
    for m in &opts.fail {
        events.push(SimEvent::Fail(None, m.clone()));
    }
    for m in &opts.pending {
        events.push(SimEvent::Pending(m.clone()));
    }
    for m in &opts.skip {
        events.push(SimEvent::Skip(start, SkipTarget::Member, m.clone()));
    }
    let res = simulate::simulate(&plan, start, &events, &opts.azure, horizon_end);
    if res.horizon_reached {
        ctx.warn(doc, "", &format!(
            "the simulation stopped at the horizon ({} days after the start) with work left (option horizonDays)",
            opts.horizon_days
        ));
    }
    Some(assemble(spec, &plan, &res, at, excluded, images, opts))
}

fn assemble(
    spec: &RunSpec<'_>,
    plan: &SimPlan,
    res: &simulate::SimResult,
    at: i64,
    excluded: Vec<Excluded>,
    images: Option<node_image::ImageSelectionResult>,
    opts: &RolloutOptions,
) -> Rollout {
    let clock = super::Clock::default();
    let ts = |t: i64| clock.at(t);
    let mut start_pos = vec![usize::MAX; plan.members.len()];
    for (k, &m) in res.start_order.iter().enumerate() {
        if let Some(s) = start_pos.get_mut(m) {
            *s = k;
        }
    }
    // Each member's bucket at `at`, once (the sort below asks for it many times).
    let buckets: Vec<maintenance::Bucket> =
        plan.members
            .iter()
            .map(|member| {
                let w = member
                    .windows
                    .and_then(|i| plan.windows.get(i))
                    .map(Vec::as_slice);
                let pending = opts.pending.iter().any(|p| **p == *member.name)
                    || opts.events.iter().any(
                        |e| matches!(e, WhatIf::Pending { member: p, .. } if **p == *member.name),
                    );
                if pending {
                    maintenance::Bucket::Closed(None)
                } else {
                    maintenance::bucket(w, at, opts.azure.four_hour_boundary_inclusive)
                }
            })
            .collect();
    let bucket_at = |m: usize| {
        buckets
            .get(m)
            .copied()
            .unwrap_or(maintenance::Bucket::NoWindow)
    };
    let mut stages = Vec::new();
    let mut flat = 0usize;
    let mut group_names = Vec::new();
    for (si, st) in plan.stages.iter().enumerate() {
        let mut groups = Vec::new();
        for g in &st.groups {
            // Keys made once and unique (they end with the member), so an unstable sort of
            // the keys gives the stable sort's order.
            let mut keys: Vec<(u8, i64, usize)> = g
                .members
                .iter()
                .map(|&m| {
                    let b = bucket_at(m);
                    let w = match (opts.azure.tie_break, b) {
                        (
                            super::options::TieBreak::BucketWindowStartName,
                            maintenance::Bucket::OpensSoon(s),
                        ) => s,
                        _ => 0,
                    };
                    (b.number(), w, m)
                })
                .collect();
            keys.sort_unstable();
            let order: Vec<usize> = keys.into_iter().map(|k| k.2).collect();
            let attempt_order: Vec<Rc<str>> = order
                .iter()
                .map(|&m| plan.members[m].name.clone())
                .collect();
            let mut shown: Vec<(usize, usize, usize)> = order
                .iter()
                .enumerate()
                .map(|(pos, &m)| (start_pos[m], pos, m))
                .collect();
            shown.sort_unstable();
            let shown: Vec<usize> = shown.into_iter().map(|(_, _, m)| m).collect();
            let members = shown
                .iter()
                .map(|&m| {
                    let (state, s, e, reason) = &res.members[m];
                    let b = bucket_at(m);
                    Member {
                        cluster: plan.members[m].name.clone(),
                        start: s.map(ts),
                        end: e.map(ts),
                        state: *state,
                        bucket: Some(b.number()),
                        next_window_start: b.next_start().map(ts),
                        message: reason.as_ref().map(super::report::member_reason_text),
                        reason: reason.clone(),
                    }
                })
                .collect();
            groups.push(Group {
                name: g.name.clone(),
                state: res.groups.get(flat).copied().unwrap_or(State::NotStarted),
                concurrency: g.concurrency as u64,
                attempt_order,
                members,
            });
            group_names.push((g.name.clone(), st.name.clone()));
            flat += 1;
        }
        let (ws, wstart, wend) = res.waits[si];
        let waits = if st.wait_seconds > 0 || ws != State::NotStarted {
            vec![Wait {
                kind: WaitKind::AfterStageWait,
                placement: super::plan::Placement::After,
                name: st.name.to_string(),
                seconds: Some(st.wait_seconds),
                start: wstart.map(ts),
                end: wend.map(ts),
                state: ws,
            }]
        } else {
            Vec::new()
        };
        let (ss, sstart, send) = res.stages[si];
        stages.push(Stage {
            name: st.name.clone(),
            state: ss,
            reason: None,
            start: sstart.map(ts),
            end: send.map(ts),
            groups,
            waits,
            deletion: false,
        });
    }
    // Each member's stage name (shared by its timeline entries).
    let member_stage: Vec<Option<&Rc<str>>> = {
        let mut v = vec![None; plan.members.len()];
        for st in &plan.stages {
            for g in &st.groups {
                for &m in &g.members {
                    if let Some(x) = v.get_mut(m) {
                        *x = Some(&st.name);
                    }
                }
            }
        }
        v
    };
    let run_name: Rc<str> = Rc::from(spec.name.as_str());
    let timeline = res
        .timeline
        .iter()
        .map(|c| {
            let (name, stage) = match c.subject {
                Subject::Member => (
                    plan.members[c.index].name.clone(),
                    Some(member_stage[c.index].cloned().unwrap_or_default()),
                ),
                Subject::Group => {
                    let (g, s) = group_names.get(c.index).cloned().unwrap_or_default();
                    (g, Some(s))
                }
                Subject::Stage => (plan.stages[c.index].name.clone(), None),
                Subject::Wait => (
                    plan.stages[c.index].name.clone(),
                    Some(plan.stages[c.index].name.clone()),
                ),
                Subject::Run => (run_name.clone(), None),
            };
            let reason = match c.subject {
                Subject::Member if matches!(c.state, State::Skipped | State::Failed) => res.members
                    [c.index]
                    .3
                    .as_ref()
                    .map(|r| reason_tag(r).to_string()),
                _ => None,
            };
            TimelineEntry {
                at: ts(c.at),
                subject: c.subject,
                name,
                stage,
                state: c.state,
                reason,
            }
        })
        .collect();
    let upgrade = UpgradeSummary {
        upgrade_type: match spec.upgrade {
            UpgradeType::Full => "Full",
            UpgradeType::ControlPlaneOnly => "ControlPlaneOnly",
            UpgradeType::NodeImageOnly => "NodeImageOnly",
        }
        .to_string(),
        kubernetes_version: spec.target.clone(),
        node_image_selection: match spec.selection {
            NodeImageSelection::Latest => "Latest",
            NodeImageSelection::Consistent => "Consistent",
        }
        .to_string(),
        selected_node_image_versions: images.map(|i| i.selected).unwrap_or_default(),
    };
    Rollout {
        name: spec.name.clone(),
        kind: spec.kind.to_string(),
        system: System::AzureFleet,
        state: res.run.0,
        reason: None,
        message: None,
        start: res.run.1.map(ts),
        end: res.run.2.map(ts),
        upgrade: Some(upgrade),
        stages,
        excluded,
        timeline,
        assumptions: super::assumptions::azure(opts),
        targets: None,
    }
}

/// The serialised tag of a reason (`AlreadyAtTarget`).
pub fn reason_tag(r: &MemberReason) -> &'static str {
    match r {
        MemberReason::AlreadyAtTarget { .. } => "AlreadyAtTarget",
        MemberReason::NewerThanTarget { .. } => "NewerThanTarget",
        MemberReason::MinorVersionSkewTooLarge { .. } => "MinorVersionSkewTooLarge",
        MemberReason::NodeImagesAtSelection => "NodeImagesAtSelection",
        MemberReason::UserSkipped => "UserSkipped",
        MemberReason::MinorVersionSkipRejected { .. } => "MinorVersionSkipRejected",
        MemberReason::DowngradeRejected { .. } => "DowngradeRejected",
        MemberReason::InjectedFailure => "InjectedFailure",
        MemberReason::InjectedPending => "InjectedPending",
        MemberReason::BindingPreempted => "BindingPreempted",
        MemberReason::ApplyFailed => "ApplyFailed",
        MemberReason::GroupNotInStrategy { .. } => "GroupNotInStrategy",
        MemberReason::NoWindowWithinHorizon => "NoWindowWithinHorizon",
        MemberReason::OtherFleet { .. } => "OtherFleet",
    }
}

#[cfg(test)]
mod read_member_tests {
    use super::*;
    use crate::input::Input;

    /// What the plan reads of a member, windows resolved.
    type Summary = (
        String,
        Option<String>,
        Option<String>,
        Option<String>,
        Vec<Option<(usize, MaintenanceWindow)>>,
        Option<String>,
        usize,
        usize,
    );

    fn summary(m: &FleetMember<'_>, windows: &[MaintenanceWindow]) -> Summary {
        let s = |c: &Option<Cow<'_, str>>| c.as_deref().map(str::to_string);
        (
            m.name.to_string(),
            s(&m.group),
            s(&m.kubernetes_version),
            s(&m.location),
            m.configs
                .iter()
                .map(|c| c.map(|(i, w)| (i, windows[w].clone())))
                .collect(),
            s(&m.duration),
            m.agent_pool_profiles.len(),
            m.maintenance_windows.len(),
        )
    }

    const WINDOW: &str = "{schedule: {weekly: {intervalWeeks: 1, dayOfWeek: Monday}}, durationHours: 8, startTime: \"02:00\"}";

    /// Member documents: the common shape and its neighbours the decoder must handle.
    fn corpus() -> Vec<String> {
        let head = "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\n";
        let metas = [
            "metadata: {name: m1}\n",
            "metadata: {name: m1, annotations: {fleet-policy.dev/update-duration: 30m, x: y, fleet-policy.dev/update-duration: 45m}}\n",
            "metadata: {name: m1, labels: {a: b}}\n",
            "metadata: {name: m1, labels: {a: 1}}\n",
            "metadata: {name: m1, annotations: {fleet-policy.dev/update-duration: 1}}\n",
            "metadata: {name: m1, namespace: ns}\n",
            "metadata: {name: ~}\n",
            "metadata: ~\n",
            "name: arm\n",
            "",
        ];
        let props = [
            "properties: {group: g1}\n",
            "properties: {group: \"g1\", clusterResourceId: /x/y}\n",
            "properties: {group: [g1]}\n",
            "properties: {group: [g1, g2]}\n",
            "properties: {group: 12}\n",
            "properties: {group: g1, group: g2}\n",
            "properties: {group: g1, bogus: 1}\n",
            "properties: {}\n",
            "",
        ];
        let clusters = [
            String::new(),
            "cluster: {kubernetesVersion: \"1.29.4\", location: westeurope}\n".into(),
            "cluster: {kubernetesVersion: 1.29}\n".into(),
            "cluster: {currentKubernetesVersion: \"1.29.4\"}\n".into(),
            "cluster: {kubernetesVersion: \"1.29.4\", nodePools: [{name: p, nodeImageVersion: AKSUbuntu-2204-202405.03.0}]}\n".into(),
            format!("cluster:\n  kubernetesVersion: \"1.29.4\"\n  maintenanceConfigurations:\n  - {{name: other, properties: {{maintenanceWindow: {WINDOW}}}}}\n  - {{name: aksManagedAutoUpgradeSchedule, properties: {{maintenanceWindow: {WINDOW}}}}}\n  - {{name: aksManagedAutoUpgradeSchedule, properties: {{maintenanceWindow: {{schedule: {{daily: {{intervalDays: 1}}}}, durationHours: 4, startTime: \"01:00\"}}}}}}\n  - {{name: aksManagedNodeOSUpgradeSchedule, properties: {{maintenanceWindow: {WINDOW}}}}}\n"),
            "cluster: {maintenanceConfigurations: [{name: aksManagedAutoUpgradeSchedule, properties: {maintenanceWindow: {schedule: {weekly: {intervalWeeks: '1', dayOfWeek: Monday}}, durationHours: 8, startTime: \"02:00\"}}}]}\n".into(),
            "cluster: {maintenanceConfigurations: [{name: aksManagedAutoUpgradeSchedule, properties: {maintenanceWindow: {schedule: {weekly: {intervalWeeks: 1, dayOfWeek: Monday}}, durationHours: 8, startTime: \"02:00\", extra: 1}}}]}\n".into(),
            format!("cluster: {{maintenanceConfigurations: [{{name: aksManagedAutoUpgradeSchedule, properties: {{maintenanceWindow: {WINDOW}, other: 1}}}}]}}\n"),
            format!("cluster: {{maintenanceConfigurations: [{{properties: {{maintenanceWindow: {WINDOW}}}}}]}}\n"),
            "cluster: {maintenanceConfigurations: ~}\n".into(),
            "cluster: {maintenanceWindows: [{start: \"2025-06-03T00:00:00Z\", end: \"2025-06-03T04:00:00Z\"}]}\n".into(),
            "cluster: {kubernetesVersion: \"1.29.4\", kubernetesVersion: \"1.29.5\"}\n".into(),
        ];
        let mut out = Vec::new();
        for m in metas {
            for p in props {
                for c in &clusters {
                    out.push(format!("{head}{m}{p}{c}"));
                }
            }
        }
        out.push("kind: FleetMember\napiVersion: azure.fleet-policy.dev/v1\nmetadata: {name: m}\nproperties: {group: g}\nextra: 1\n".into());
        out.push("apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nkind: FleetMember\nmetadata: {name: m}\nproperties: {group: g}\n".into());
        out
    }

    /// Whenever the in-place reader takes a document, the decoder accepts it and reads the
    /// same member.
    #[test]
    fn read_member_agrees_with_the_decoder() {
        let docs = corpus();
        let mut fast_hits = 0;
        for text in &docs {
            let input = Input::parse_str(text);
            let Some(doc) = input.documents.first() else {
                continue;
            };
            let mut fast_store = WindowStore::default();
            let fast = read_member(doc, &mut fast_store);
            let mut full_store = WindowStore::default();
            let mut ctx = Ctx::default();
            let full = doc
                .decode::<ArmResource<FleetMemberProperties>>()
                .ok()
                .and_then(|r| decoded_member(doc, r, &mut full_store, &mut ctx));
            if let Some(f) = fast {
                fast_hits += 1;
                let Some(d) = full else {
                    panic!("read in place, but the decoder refuses:\n{text}");
                };
                assert_eq!(
                    summary(&f, &fast_store.windows),
                    summary(&d, &full_store.windows),
                    "{text}"
                );
            }
        }
        assert!(fast_hits >= 20, "{fast_hits} of {}", docs.len());
    }

    /// Equal windows written differently share one entry; a node seen again is not decoded.
    #[test]
    fn windows_are_interned_by_value() {
        let input = Input::parse_str(&format!(
            "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\na: {WINDOW}\nb: {{schedule: {{weekly: {{intervalWeeks: 1, dayOfWeek: 'Monday'}}}}, durationHours: 8, startTime: '02:00'}}\nc: {WINDOW}\n"
        ));
        let root = &input.documents.first().map(|d| &d.root);
        let mut store = WindowStore::default();
        let mut ids = Vec::new();
        for k in ["a", "b", "c"] {
            let node = root.and_then(|r| r.get(k));
            ids.push(node.and_then(|n| store.intern_node(n)));
        }
        assert_eq!(ids, vec![Some(0), Some(0), Some(0)]);
        assert_eq!(store.windows.len(), 1);
    }
}
