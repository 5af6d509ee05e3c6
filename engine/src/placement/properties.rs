//! Property names and how a value is looked up on a cluster (placement.md §2.2).

use super::fleet::{Fleet, FleetCluster};
use super::index::{Cell, Space, UNPARSABLE};
use super::CycleError;
use crate::input::documents::Document;
use crate::input::node::{FieldPath, Node};
use crate::input::quantity::Quantity;

/// Prefix of resource properties (`resources.kubernetes-fleet.io/available-cpu`).
pub const RESOURCE_PREFIX: &str = "resources.kubernetes-fleet.io/";

/// Which `status.resourceUsage` map a resource property reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapacityType {
    /// `total-…` → `capacity`.
    Total,
    /// `allocatable-…` → `allocatable`.
    Allocatable,
    /// `available-…` → `available`.
    Available,
}

impl CapacityType {
    /// Every capacity type, in the order KubeFleet lists them.
    pub const ALL: [CapacityType; 3] = [
        CapacityType::Total,
        CapacityType::Allocatable,
        CapacityType::Available,
    ];

    /// The `status.resourceUsage` field it reads.
    pub fn field(self) -> &'static str {
        match self {
            CapacityType::Total => "capacity",
            CapacityType::Allocatable => "allocatable",
            CapacityType::Available => "available",
        }
    }

    /// The property name of `resource` (`resources.kubernetes-fleet.io/available-cpu`).
    pub fn property_name(self, resource: &str) -> String {
        let kind = match self {
            CapacityType::Total => "total",
            CapacityType::Allocatable => "allocatable",
            CapacityType::Available => "available",
        };
        format!("{RESOURCE_PREFIX}{kind}-{resource}")
    }
}

/// A property name, resolved once per policy.
#[derive(Debug, Clone, PartialEq)]
pub enum PropertyRef {
    /// A resource property.
    Resource {
        /// The map read.
        capacity: CapacityType,
        /// The resource name (`cpu`, `memory`).
        resource: String,
    },
    /// A name under the resource prefix the scheduler cannot read: every lookup is an error.
    Invalid(CycleError),
    /// Any other name: looked up in `status.properties`.
    NonResource(String),
}

impl PropertyRef {
    /// Resolves a property name as `retrievePropertyValueFrom` does.
    pub fn parse(name: &str) -> PropertyRef {
        let Some(rest) = name.strip_prefix(RESOURCE_PREFIX) else {
            return PropertyRef::NonResource(name.to_string());
        };
        let segs: Vec<&str> = rest.split('-').collect();
        let (cn, tn) = match segs.as_slice() {
            [cn, tn] if !cn.is_empty() && !tn.is_empty() => (*cn, *tn),
            _ => {
                return PropertyRef::Invalid(CycleError::InvalidResourcePropertyName {
                    name: rest.to_string(),
                })
            }
        };
        let capacity = match cn {
            "total" => CapacityType::Total,
            "allocatable" => CapacityType::Allocatable,
            "available" => CapacityType::Available,
            _ => {
                return PropertyRef::Invalid(CycleError::InvalidCapacityType {
                    capacity_type: cn.to_string(),
                    name: rest.to_string(),
                })
            }
        };
        PropertyRef::Resource {
            capacity,
            resource: tn.to_string(),
        }
    }

    /// Where a MemberCluster publishes it: `status.resourceUsage.<field>.<resource>` or
    /// `status.properties[name].value` (an unreadable resource name: `status.resourceUsage`).
    pub fn cluster_path(&self) -> FieldPath {
        let usage = FieldPath::root().key("status").key("resourceUsage");
        match self {
            PropertyRef::Resource { capacity, resource } => {
                usage.key(capacity.field()).key(resource)
            }
            PropertyRef::Invalid(_) => usage,
            PropertyRef::NonResource(name) => FieldPath::root()
                .key("status")
                .key("properties")
                .key(name)
                .key("value"),
        }
    }

    /// The value on a cluster: `Ok(None)` when the cluster does not publish it.
    pub fn lookup<'a>(
        &self,
        cluster: &'a FleetCluster,
    ) -> Result<Option<&'a Quantity>, CycleError> {
        match self {
            PropertyRef::Resource { capacity, resource } => Ok(match capacity {
                CapacityType::Total => &cluster.capacity,
                CapacityType::Allocatable => &cluster.allocatable,
                CapacityType::Available => &cluster.available,
            }
            .get(resource)
            .map(|v| &v.0)),
            PropertyRef::Invalid(e) => Err(e.clone()),
            PropertyRef::NonResource(name) => match cluster.properties.get(name) {
                None => Ok(None),
                Some(entry) => match &entry.parsed {
                    Ok(q) => Ok(Some(q)),
                    Err(e) => Err(CycleError::PropertyNotAQuantity {
                        cluster: cluster.name.clone(),
                        property: name.clone(),
                        value: entry.raw.clone(),
                        error: e.to_string(),
                    }),
                },
            },
        }
    }
}

/// A property resolved against a fleet's index: lookups read integers.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The property.
    pub property: PropertyRef,
    /// Its id in the fleet index (`None`: no cluster publishes it).
    pub id: Option<u32>,
}

impl Column {
    /// Resolves `property` in `fleet`.
    pub fn new(property: PropertyRef, fleet: &Fleet) -> Self {
        let id = match &property {
            PropertyRef::Resource { capacity, resource } => {
                fleet.index.property_id(Space::Usage(*capacity), resource)
            }
            PropertyRef::NonResource(name) => fleet.index.property_id(Space::Properties, name),
            PropertyRef::Invalid(_) => None,
        };
        Column { property, id }
    }

    /// [`PropertyRef::lookup`] on cluster `i`, as a rank and a float.
    pub fn cell(&self, fleet: &Fleet, i: usize) -> Result<Option<Cell>, CycleError> {
        if let PropertyRef::Invalid(e) = &self.property {
            return Err(e.clone());
        }
        let Some(id) = self.id else {
            return Ok(None);
        };
        match fleet.index.cell(i, id) {
            None => Ok(None),
            // Not a quantity: the error names the value, from the cluster itself.
            Some(c) if c.rank == UNPARSABLE => match fleet.clusters.get(i) {
                Some(cluster) => self.property.lookup(cluster).map(|_| None),
                None => Ok(None),
            },
            Some(c) => Ok(Some(c)),
        }
    }
}

/// A MemberCluster document's facts as written, by the names selectors and sorters use: its
/// name and (key, value) pairs, labels, then properties, then resource usage
/// (`resources.kubernetes-fleet.io/…`). None without a name.
pub fn document_facts(d: &Document) -> Option<(String, Vec<(String, String)>)> {
    let name = d.name.clone()?;
    let mut list = Vec::new();
    for (k, v) in d.labels() {
        list.push((k.to_string(), v.to_string()));
    }
    let status = d.root.get("status");
    if let Some(props) = status
        .and_then(|s| s.get("properties"))
        .and_then(Node::as_map)
    {
        for (k, v) in props {
            let (Some(k), Some(v)) = (k.as_str(), v.get("value").and_then(Node::as_scalar)) else {
                continue;
            };
            list.push((k.to_string(), v.to_string()));
        }
    }
    let usage = status.and_then(|s| s.get("resourceUsage"));
    for capacity in CapacityType::ALL {
        if let Some(res) = usage
            .and_then(|u| u.get(capacity.field()))
            .and_then(Node::as_map)
        {
            for (k, v) in res {
                let (Some(k), Some(v)) = (k.as_str(), v.as_scalar()) else {
                    continue;
                };
                list.push((capacity.property_name(k), v.to_string()));
            }
        }
    }
    Some((name, list))
}
