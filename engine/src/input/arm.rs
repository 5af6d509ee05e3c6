//! Azure resources as `az … -o json` (or `az rest`, the portal's JSON view) prints them:
//! recognised by their ARM `type`, in the flattened shape `az` prints (the resource's
//! properties at the top level) or the REST shape (under `properties`), single objects or
//! arrays. Fleet resources become documents of our own Azure kinds (the same nodes, so errors
//! point into the user's JSON); an AKS cluster (`az aks show/list`) and its maintenance
//! configurations (`az aks maintenanceconfiguration list/show`) become the `cluster` facts of
//! the fleet member whose `clusterResourceId` names them, joined case-insensitively as ARM
//! ids are.

use super::diagnostics::Span;
use super::node::{FieldPath, Node, PathSeg, Value};

/// What an ARM `type` is to the engine.
pub(crate) enum ArmKind {
    /// A fleet resource, read as our kind of this name.
    Fleet(&'static str),
    /// `Microsoft.ContainerService/managedClusters`.
    ManagedCluster,
    /// `Microsoft.ContainerService/managedClusters/maintenanceConfigurations`.
    MaintenanceConfiguration,
    /// Another ARM type (the fleet itself, a resource group…): listed as ignored.
    Other,
}

/// The ARM type of a manifest-less object, if it has one (`a/b`).
pub(crate) fn arm_type(root: &Node) -> Option<&str> {
    root.get("type")
        .and_then(Node::as_scalar)
        .filter(|t| t.contains('/'))
}

/// Classifies an ARM type (case-insensitively, as ARM compares them).
pub(crate) fn classify(arm_type: &str) -> ArmKind {
    let t = arm_type.to_ascii_lowercase();
    match t.as_str() {
        "microsoft.containerservice/fleets/members" => ArmKind::Fleet("FleetMember"),
        "microsoft.containerservice/fleets/updateruns" => ArmKind::Fleet("UpdateRun"),
        "microsoft.containerservice/fleets/updatestrategies" => {
            ArmKind::Fleet("FleetUpdateStrategy")
        }
        "microsoft.containerservice/fleets/autoupgradeprofiles" => {
            ArmKind::Fleet("AutoUpgradeProfile")
        }
        "microsoft.containerservice/managedclusters" => ArmKind::ManagedCluster,
        "microsoft.containerservice/managedclusters/maintenanceconfigurations" => {
            ArmKind::MaintenanceConfiguration
        }
        _ => ArmKind::Other,
    }
}

/// Keys of an ARM resource's envelope (not properties); of these, our kinds keep `name`,
/// `id`, `type`, `eTag` and `systemData`.
const ENVELOPE: &[&str] = &[
    "id",
    "name",
    "type",
    "eTag",
    "etag",
    "systemData",
    "resourceGroup",
    "location",
    "tags",
    "kind",
    "properties",
];

fn scalar(text: &str, span: Span) -> Node {
    Node::scalar(text, false, span)
}

fn entry(key: &str, value: Node) -> (Node, Node) {
    (scalar(key, value.span()), value)
}

/// A fleet resource as a document of our kind `kind`: `apiVersion`/`kind` added,
/// `metadata.name` from ARM's `name`, the envelope kept, the properties from `properties`
/// (REST shape) or from the top-level fields (`az`'s flattened shape).
/// How an Azure resource was written, for the paths its diagnostics show: ARM's `name` (read
/// as `metadata.name`) and, in `az`'s flattened shape, each property without the `properties.`
/// the engine reads it under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArmShape {
    Rest,
    Flattened,
}

impl ArmShape {
    /// The path as written in a resource of this shape.
    pub(crate) fn shown(self, path: &FieldPath) -> String {
        let skip = match path.0.first() {
            Some(PathSeg::Key(k)) if k == "metadata" => 1,
            Some(PathSeg::Key(k)) if k == "properties" && self == ArmShape::Flattened => 1,
            _ => 0,
        };
        FieldPath(path.0[skip..].to_vec()).to_string()
    }
}

pub(crate) fn fleet_document(root: Node, kind: &str) -> (Node, ArmShape) {
    let span = root.span();
    let Value::Map(entries) = root.value else {
        return (root, ArmShape::Rest);
    };
    let mut out: Vec<(Node, Node)> = vec![
        entry(
            "apiVersion",
            scalar(crate::model::rollout::AZURE_API_VERSION, span),
        ),
        entry("kind", scalar(kind, span)),
    ];
    let mut properties: Option<(Node, Node)> = None;
    let mut flattened: Vec<(Node, Node)> = Vec::new();
    for (k, v) in entries {
        match k.as_scalar() {
            Some("name") => {
                let at = v.span();
                out.push(entry(
                    "metadata",
                    Node::new(Value::Map(Box::new([(k, v)])), at),
                ));
            }
            Some("etag") => out.push((scalar("eTag", k.span()), v)),
            Some("id" | "type" | "eTag" | "systemData") => out.push((k, v)),
            Some("properties") => properties = Some((k, v)),
            Some(key) if ENVELOPE.contains(&key) => {}
            // `az`'s flattened properties; null ones are absent fields.
            _ if v.is_null() => {}
            _ => flattened.push((k, strip_nulls(v))),
        }
    }
    let shape = match properties {
        Some((k, v)) if !v.is_null() => {
            out.push((k, strip_nulls(v)));
            ArmShape::Rest
        }
        _ => {
            out.push(entry(
                "properties",
                Node::new(Value::Map(flattened.into()), span),
            ));
            ArmShape::Flattened
        }
    };
    (Node::new(Value::Map(out.into()), span), shape)
}

/// A field of an ARM object: at the top level (`az`'s flattened shape) or under
/// `properties` (the REST shape).
fn field<'n>(root: &'n Node, key: &str) -> Option<&'n Node> {
    root.get(key)
        .or_else(|| root.get("properties").and_then(|p| p.get(key)))
        .filter(|v| !v.is_null())
}

/// `node` without null-valued mapping entries, at any depth. ARM's null is an unset field:
/// `az` prints every property of its API version, set or not (`schedule: {daily: null,
/// weekly: {…}}`), so a newer `az` prints properties this engine does not know, as null,
/// in resources that do not use them. Sequence items stay, so indexes in errors hold.
fn strip_nulls(mut node: Node) -> Node {
    match &mut node.value {
        Value::Map(entries) => {
            *entries = Vec::from(std::mem::take(entries))
                .into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect();
        }
        Value::Seq(items) => {
            *items = Vec::from(std::mem::take(items))
                .into_iter()
                .map(strip_nulls)
                .collect();
        }
        _ => {}
    }
    node
}

/// An AKS cluster's facts, in the shape of a member's `cluster` extension (without its
/// maintenance configurations, joined later): the running control-plane version, the
/// region, and each node pool's name, image and version.
pub(crate) fn cluster_facts(root: &Node) -> Node {
    let mut out = Vec::new();
    if let Some(v) =
        field(root, "currentKubernetesVersion").or_else(|| field(root, "kubernetesVersion"))
    {
        out.push(entry("kubernetesVersion", v.clone()));
    }
    if let Some(v) = field(root, "location") {
        out.push(entry("location", v.clone()));
    }
    if let Some(pools) = field(root, "agentPoolProfiles").and_then(Node::as_seq) {
        let pools = pools
            .iter()
            .map(|p| {
                let mut e = Vec::new();
                for key in ["name", "nodeImageVersion"] {
                    if let Some(v) = p.get(key).filter(|v| !v.is_null()) {
                        e.push(entry(key, v.clone()));
                    }
                }
                if let Some(v) = p
                    .get("currentOrchestratorVersion")
                    .or_else(|| p.get("orchestratorVersion"))
                    .filter(|v| !v.is_null())
                {
                    e.push(entry("orchestratorVersion", v.clone()));
                }
                Node::new(Value::Map(e.into()), p.span())
            })
            .collect();
        out.push(entry(
            "agentPoolProfiles",
            Node::new(Value::Seq(pools), root.span()),
        ));
    }
    Node::new(Value::Map(out.into()), root.span())
}

/// A maintenance configuration in the shape of the `cluster` extension's
/// `maintenanceConfigurations` items: `{name, properties: {maintenanceWindow}}`; `None`
/// without a `maintenanceWindow` (the older `timeInWeek` form is not modelled).
pub(crate) fn maintenance_configuration(root: &Node) -> Option<Node> {
    let name = root.get("name")?.clone();
    let window = strip_nulls(field(root, "maintenanceWindow")?.clone());
    let at = window.span();
    let props = Node::new(
        Value::Map(Box::new([entry("maintenanceWindow", window)])),
        at,
    );
    Some(Node::new(
        Value::Map(Box::new([entry("name", name), entry("properties", props)])),
        root.span(),
    ))
}

/// The managed cluster a maintenance configuration's id belongs to (lower case).
pub(crate) fn parent_cluster_id(config_id: &str) -> Option<String> {
    let lower = config_id.to_ascii_lowercase();
    lower
        .find("/maintenanceconfigurations/")
        .map(|i| lower[..i].to_string())
}

/// Adds the joined `cluster` facts to a FleetMember document root (when it has none).
pub(crate) fn attach(member: &mut Node, facts: Option<&Node>, configs: &[Node]) {
    let span = member.span();
    let Value::Map(entries) = &mut member.value else {
        return;
    };
    if entries
        .iter()
        .any(|(k, _)| k.as_scalar() == Some("cluster"))
    {
        return;
    }
    let mut cluster = facts
        .cloned()
        .unwrap_or(Node::new(Value::Map(Box::default()), span));
    if let Value::Map(e) = &mut cluster.value {
        if !configs.is_empty() {
            super::node::push(
                e,
                entry(
                    "maintenanceConfigurations",
                    Node::new(Value::Seq(configs.into()), span),
                ),
            );
        }
    }
    super::node::push(entries, entry("cluster", cluster));
}
