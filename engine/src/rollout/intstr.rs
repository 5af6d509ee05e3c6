//! Kubernetes `IntOrString` values (`maxUnavailable: 25%`, `maxConcurrency: 3`) and the
//! apimachinery scaling function both KubeFleet controllers use.

use crate::input::de::DeError;
use crate::input::from_node::{self, FromNode};
use crate::input::node::{Node, Resolved};
use serde::Serialize;
use std::fmt;

/// `intstr.IntOrString` as written: an integer or a string (which must end in `%` to scale).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum IntOrString {
    /// An integer.
    Int(i64),
    /// A string, normally a percentage such as `"25%"`.
    String(String),
}

impl FromNode for IntOrString {
    /// As serde's untagged form: an integer, else a string.
    fn from_node(node: &Node) -> Result<Self, DeError> {
        match node.resolve() {
            Some(Resolved::Int(i)) => Ok(IntOrString::Int(i)),
            Some(Resolved::Str(t)) => Ok(IntOrString::String(t.to_owned())),
            _ => Err(from_node::no_variant_matches(node, "IntOrString")),
        }
    }
}

impl fmt::Display for IntOrString {
    /// Formats like Go's `%+v` of an `*IntOrString` (its `String()` method).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntOrString::Int(i) => write!(f, "{i}"),
            IntOrString::String(s) => f.write_str(s),
        }
    }
}

/// Rounding of a percentage (`GetScaledValueFromIntOrPercent`'s `roundUp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// `math.Ceil` (RollingUpdate budgets).
    Up,
    /// `math.Floor` (staged `maxConcurrency`).
    Down,
}

impl IntOrString {
    /// `intstr.GetScaledValueFromIntOrPercent(v, total, roundUp)`; the error text is the
    /// apimachinery one ("invalid value for IntOrString: invalid type: string is not a percentage").
    pub fn scaled(&self, total: i64, rounding: Rounding) -> Result<i64, String> {
        match self {
            IntOrString::Int(i) => Ok(*i),
            IntOrString::String(s) => {
                let Some(num) = s.strip_suffix('%') else {
                    return Err(
                        "invalid value for IntOrString: invalid type: string is not a percentage"
                            .to_string(),
                    );
                };
                let v: i64 = go_atoi(num).ok_or_else(|| {
                    format!(
                        "invalid value for IntOrString: invalid value \"{s}\": strconv.Atoi: parsing \"{num}\": invalid syntax"
                    )
                })?;
                // Go computes this in float64; the values here are small enough to be exact.
                let product = v as f64 * total as f64 / 100.0;
                Ok(match rounding {
                    Rounding::Up => product.ceil() as i64,
                    Rounding::Down => product.floor() as i64,
                })
            }
        }
    }
}

/// `strconv.Atoi`: optional sign, then decimal digits only.
pub fn go_atoi(s: &str) -> Option<i64> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}
