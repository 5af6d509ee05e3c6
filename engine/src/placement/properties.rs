//! Property names and how a value is looked up on a cluster (placement.md §2.2).

use super::fleet::FleetCluster;
use super::CycleError;
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

    /// The value on a cluster: `Ok(None)` when the cluster does not publish it.
    pub fn lookup<'a>(
        &self,
        cluster: &'a FleetCluster,
    ) -> Result<Option<&'a Quantity>, CycleError> {
        match self {
            PropertyRef::Resource { capacity, resource } => Ok(match capacity {
                CapacityType::Total => cluster.capacity.get(resource),
                CapacityType::Allocatable => cluster.allocatable.get(resource),
                CapacityType::Available => cluster.available.get(resource),
            }),
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
