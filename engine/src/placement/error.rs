//! Errors that abort a scheduling cycle (placement.md §3.2, §10.10): the scheduler writes no
//! bindings and no status, and retries.

use serde::Serialize;
use std::fmt;

/// Why a scheduling cycle aborted.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    rename_all = "camelCase",
    tag = "type",
    rename_all_fields = "camelCase"
)]
pub enum CycleError {
    /// A `resources.kubernetes-fleet.io/` name that is not `<capacityType>-<resource>`.
    InvalidResourcePropertyName {
        /// The name after the prefix.
        name: String,
    },
    /// A resource property with an unknown capacity type.
    InvalidCapacityType {
        /// The capacity type.
        capacity_type: String,
        /// The name after the prefix.
        name: String,
    },
    /// A cluster publishes a property value that is not a quantity.
    PropertyNotAQuantity {
        /// Cluster name.
        cluster: String,
        /// Property name.
        property: String,
        /// Value as published.
        value: String,
        /// Parse error.
        error: String,
    },
    /// A property selector expression with other than one value.
    TooManyValues {
        /// Number of values.
        count: usize,
    },
    /// A property selector value that is not a quantity.
    ExpectedValueNotAQuantity {
        /// Value and parse error.
        message: String,
    },
    /// An unknown property selector operator.
    InvalidPropertyOperator {
        /// As written.
        operator: String,
    },
    /// A label selector `LabelSelectorAsSelector` rejects.
    InvalidLabelSelector {
        /// Why.
        message: String,
    },
    /// An unknown sort order.
    InvalidSortOrder {
        /// As written.
        sort_order: String,
    },
    /// Min/max of a sorter property are missing although a cluster has a value.
    ExtremesUnavailable {
        /// Cluster name.
        cluster: String,
    },
    /// The interpolation sanity check failed (infinite bounds, or a value outside them after
    /// the float conversion).
    InterpolationOutOfRange {
        /// Cluster name.
        cluster: String,
        /// Observed value.
        observed: f64,
        /// Minimum.
        min: f64,
        /// Maximum.
        max: f64,
    },
    /// A PickN policy without `numberOfClusters`.
    MissingNumberOfClusters,
    /// A `placementType` the scheduler does not know.
    UnknownPlacementType {
        /// As written.
        placement_type: String,
    },
}

impl fmt::Display for CycleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CycleError::InvalidResourcePropertyName { name } => {
                write!(f, "invalid resource property name: {name}")
            }
            CycleError::InvalidCapacityType { capacity_type, name } => {
                write!(f, "invalid capacity type {capacity_type} in resource property name {name}")
            }
            CycleError::PropertyNotAQuantity {
                cluster,
                property,
                value,
                error,
            } => write!(
                f,
                "value {value} of property {property} from cluster {cluster} is not a valid quantity: {error}"
            ),
            CycleError::TooManyValues { .. } => {
                f.write_str("more than one value in the property selector expression")
            }
            CycleError::ExpectedValueNotAQuantity { message } => write!(
                f,
                "value specified in property selector {message} is not a valid resource quantity"
            ),
            CycleError::InvalidPropertyOperator { operator } => {
                write!(f, "invalid operator: {operator}")
            }
            CycleError::InvalidLabelSelector { message } => {
                write!(f, "failed to parse label selector: {message}")
            }
            CycleError::InvalidSortOrder { sort_order } => write!(
                f,
                "cannot interpolate weight as sort order {sort_order} is invalid"
            ),
            CycleError::ExtremesUnavailable { cluster } => write!(
                f,
                "extremums of a sorter property are not available, yet a reading can be found from cluster {cluster}"
            ),
            CycleError::InterpolationOutOfRange {
                observed, min, max, ..
            } => write!(
                f,
                "cannot interpolate weight, observed value {}, observed min {}, observed max {}",
                GoFloat(*observed),
                GoFloat(*min),
                GoFloat(*max)
            ),
            CycleError::MissingNumberOfClusters => {
                f.write_str("the number of clusters is not specified for a PickN policy")
            }
            CycleError::UnknownPlacementType { placement_type } => {
                write!(f, "unknown placement type {placement_type}")
            }
        }
    }
}

/// A float as Go's `%v` writes it (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest
/// digits that read back to the same value, in exponent form (`1e+06`, `1e-05`) when the
/// exponent is below -4 or at least 6 — where Rust's `{}` writes all the digits out.
pub struct GoFloat(pub f64);

impl fmt::Display for GoFloat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v.is_nan() {
            return f.write_str("NaN");
        }
        if v.is_infinite() {
            return f.write_str(if v > 0.0 { "+Inf" } else { "-Inf" });
        }
        // Rust's `{:e}` gives the same shortest digits: `d.ddde[-]x`.
        let sci = format!("{v:e}");
        let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        if (-4..6).contains(&exp) {
            write!(f, "{v}")
        } else {
            let sign = if exp < 0 { '-' } else { '+' };
            write!(f, "{mantissa}e{sign}{:02}", exp.unsigned_abs())
        }
    }
}

#[cfg(test)]
mod go_float_tests {
    use super::GoFloat;

    /// Values and what Go's `fmt.Sprintf("%v", x)` prints for them.
    #[test]
    fn go_v_formatting() {
        for (x, go) in [
            (0.0, "0"),
            (-0.0, "-0"),
            (1.0, "1"),
            (0.93, "0.93"),
            (123456.0, "123456"),
            (1e6, "1e+06"),
            (1234567.0, "1.234567e+06"),
            (1e21, "1e+21"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (1.5e300, "1.5e+300"),
            (f64::INFINITY, "+Inf"),
        ] {
            assert_eq!(GoFloat(x).to_string(), go, "{x}");
        }
    }
}
