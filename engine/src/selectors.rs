//! Kubernetes label selectors (`metav1.LabelSelector`), shared by placement, staged update
//! runs and anything else that selects by labels.
use crate::sorted_map::SortedMap;
use fleet_policy_derive::FromNode;
use serde::Serialize;
use std::fmt;

/// `metav1.LabelSelector` as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, FromNode, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelSelector {
    /// `matchLabels`: each entry is `key In [value]`.
    #[serde(default, skip_serializing_if = "SortedMap::is_empty")]
    pub match_labels: SortedMap<String, String>,
    /// `matchExpressions`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One `matchExpressions` entry as written (the operator is checked by [`LabelSelector::compile`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, FromNode, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelSelectorRequirement {
    /// Label key.
    pub key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    pub operator: String,
    /// Values for `In`/`NotIn`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// A label selector operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Operator {
    /// Key present and value in the list.
    In,
    /// Key absent, or value not in the list.
    NotIn,
    /// Key present.
    Exists,
    /// Key absent.
    DoesNotExist,
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operator::In => "In",
            Operator::NotIn => "NotIn",
            Operator::Exists => "Exists",
            Operator::DoesNotExist => "DoesNotExist",
        })
    }
}

/// Where a compiled requirement came from in the selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase", tag = "field", content = "index")]
pub enum RequirementSource {
    /// From `matchLabels` (the requirement is `key In [value]`).
    MatchLabels,
    /// From `matchExpressions[i]`.
    MatchExpressions(usize),
}

/// A checked requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Requirement {
    /// Label key.
    pub key: String,
    /// Operator.
    pub operator: Operator,
    /// Values (sorted as written).
    pub values: Vec<String>,
    /// Where it was written.
    pub source: RequirementSource,
}

/// A selector that was checked and can be matched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Selector {
    /// All requirements; every one must hold.
    pub requirements: Vec<Requirement>,
}

/// Why a selector is invalid, with the field inside the selector (`matchExpressions[1].operator`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectorError {
    /// Path inside the selector.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

/// The first requirement a set of labels fails, with what was observed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelMismatch {
    /// The failed requirement.
    pub requirement: Requirement,
    /// The label's value on the object, if it has the key.
    pub observed: Option<String>,
}

impl LabelSelector {
    /// Checks the selector as `metav1.LabelSelectorAsSelector` does.
    pub fn compile(&self) -> Result<Selector, SelectorError> {
        let mut requirements = Vec::new();
        for (k, v) in &self.match_labels {
            check_key(k).map_err(|m| SelectorError {
                field: format!("matchLabels[\"{k}\"]"),
                message: m,
            })?;
            check_value(v).map_err(|m| SelectorError {
                field: format!("matchLabels[\"{k}\"]"),
                message: m,
            })?;
            requirements.push(Requirement {
                key: k.clone(),
                operator: Operator::In,
                values: vec![v.clone()],
                source: RequirementSource::MatchLabels,
            });
        }
        for (i, e) in self.match_expressions.iter().enumerate() {
            let field = |f: &str| format!("matchExpressions[{i}].{f}");
            check_key(&e.key).map_err(|m| SelectorError {
                field: field("key"),
                message: m,
            })?;
            let operator = match e.operator.as_str() {
                "In" => Operator::In,
                "NotIn" => Operator::NotIn,
                "Exists" => Operator::Exists,
                "DoesNotExist" => Operator::DoesNotExist,
                other => {
                    return Err(SelectorError {
                        field: field("operator"),
                        message: format!(
                            "\"{other}\" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)"
                        ),
                    })
                }
            };
            match operator {
                Operator::In | Operator::NotIn if e.values.is_empty() => {
                    return Err(SelectorError {
                        field: field("values"),
                        message: format!(
                            "for 'in', 'notin' operators, values set can't be empty (operator {operator})"
                        ),
                    })
                }
                Operator::Exists | Operator::DoesNotExist if !e.values.is_empty() => {
                    return Err(SelectorError {
                        field: field("values"),
                        message: format!(
                            "values set must be empty for exists and does not exist (operator {operator})"
                        ),
                    })
                }
                _ => {}
            }
            for (j, v) in e.values.iter().enumerate() {
                check_value(v).map_err(|m| SelectorError {
                    field: format!("matchExpressions[{i}].values[{j}]"),
                    message: m,
                })?;
            }
            requirements.push(Requirement {
                key: e.key.clone(),
                operator,
                values: e.values.clone(),
                source: RequirementSource::MatchExpressions(i),
            });
        }
        Ok(Selector { requirements })
    }
}

impl Requirement {
    /// Whether labels (looked up by `get`) satisfy this requirement.
    pub fn matches<'a>(&self, get: impl Fn(&str) -> Option<&'a str>) -> bool {
        let observed = get(&self.key);
        match self.operator {
            Operator::In => observed.is_some_and(|v| self.values.iter().any(|x| x == v)),
            Operator::NotIn => observed.is_none_or(|v| !self.values.iter().any(|x| x == v)),
            Operator::Exists => observed.is_some(),
            Operator::DoesNotExist => observed.is_none(),
        }
    }
}

impl Selector {
    /// Whether labels satisfy every requirement.
    pub fn matches(&self, labels: &SortedMap<String, String>) -> bool {
        self.first_mismatch(labels).is_none()
    }

    /// The first requirement (matchLabels first, then matchExpressions in order) the labels
    /// fail, or `None` when they match.
    pub fn first_mismatch(&self, labels: &SortedMap<String, String>) -> Option<LabelMismatch> {
        let get = |k: &str| labels.get(k).map(String::as_str);
        self.requirements
            .iter()
            .find(|r| !r.matches(get))
            .map(|r| LabelMismatch {
                requirement: r.clone(),
                observed: labels.get(&r.key).cloned(),
            })
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.operator {
            Operator::Exists => write!(f, "{} Exists", self.key),
            Operator::DoesNotExist => write!(f, "{} DoesNotExist", self.key),
            op => write!(f, "{} {} [{}]", self.key, op, self.values.join(", ")),
        }
    }
}

impl fmt::Display for LabelMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.observed {
            Some(v) => write!(
                f,
                "label {}={} does not satisfy {}",
                self.requirement.key, v, self.requirement
            ),
            None => write!(
                f,
                "label {} is absent, required {}",
                self.requirement.key, self.requirement
            ),
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'
}

/// A qualified name without a prefix (apimachinery's name part): 1-63 characters,
/// alphanumerics and `-`, `_`, `.` inside.
pub(crate) fn check_name_part(name: &str, what: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("{what} must be non-empty"));
    }
    if name.len() > 63 {
        return Err(format!("{what} must be no more than 63 characters"));
    }
    let ok_ends = name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric());
    if !ok_ends || !name.chars().all(is_name_char) {
        return Err(format!(
            "{what} \"{name}\" must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
        ));
    }
    Ok(())
}

/// Checks a label key: an optional DNS-subdomain prefix and `/`, then a name of at most 63
/// characters.
pub fn check_key(key: &str) -> Result<(), String> {
    match key.split_once('/') {
        Some((prefix, name)) => {
            if prefix.is_empty() || prefix.len() > 253 {
                return Err(format!(
                    "prefix of key \"{key}\" must be a DNS subdomain of 1 to 253 characters"
                ));
            }
            if !is_dns_subdomain(prefix) {
                return Err(format!(
                    "prefix of key \"{key}\" must be a lowercase DNS subdomain"
                ));
            }
            check_name_part(name, "name part of key")
        }
        None => check_name_part(key, "key"),
    }
}

/// Whether `name` is a lowercase DNS-1123 subdomain (dot-separated labels of `a-z`, `0-9`
/// and inner `-`), of at most 253 characters.
pub(crate) fn is_dns_subdomain(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|l| {
            !l.is_empty()
                && l.bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        })
}

/// Checks a label value: empty, or at most 63 name characters starting and ending with an
/// alphanumeric character.
pub fn check_value(value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Ok(());
    }
    check_name_part(value, "value")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> SortedMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn expr(key: &str, op: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn operators_follow_kubernetes_semantics() {
        let sel = LabelSelector {
            match_labels: labels(&[("env", "prod")]),
            match_expressions: vec![
                expr("region", "In", &["east", "west"]),
                expr("tier", "NotIn", &["canary"]),
                expr("owner", "Exists", &[]),
                expr("legacy", "DoesNotExist", &[]),
            ],
        }
        .compile()
        .unwrap_or_default();
        assert_eq!(sel.requirements.len(), 5);
        let good = labels(&[("env", "prod"), ("region", "east"), ("owner", "x")]);
        assert!(sel.matches(&good));
        let mut bad = good.clone();
        bad.insert("tier".into(), "canary".into());
        let m = sel.first_mismatch(&bad).map(|m| m.to_string());
        assert_eq!(
            m.as_deref(),
            Some("label tier=canary does not satisfy tier NotIn [canary]")
        );
        let bad = labels(&[("env", "prod"), ("owner", "x")]);
        let m = sel.first_mismatch(&bad);
        assert_eq!(
            m.as_ref().map(|m| m.requirement.source),
            Some(RequirementSource::MatchExpressions(0))
        );
        assert_eq!(
            m.map(|m| m.to_string()).as_deref(),
            Some("label region is absent, required region In [east, west]")
        );
    }

    #[test]
    fn empty_selector_matches_everything() {
        let sel = LabelSelector::default().compile().unwrap_or_default();
        assert!(sel.matches(&SortedMap::new()));
    }

    #[test]
    fn invalid_selectors_are_rejected_with_the_field() {
        let e = LabelSelector {
            match_expressions: vec![expr("a", "In", &["x"]), expr("b", "NotExists", &[])],
            ..Default::default()
        }
        .compile()
        .err();
        assert_eq!(
            e.as_ref().map(|e| e.field.as_str()),
            Some("matchExpressions[1].operator")
        );
        let e = LabelSelector {
            match_expressions: vec![expr("a", "In", &[])],
            ..Default::default()
        }
        .compile()
        .err();
        assert_eq!(
            e.map(|e| e.field),
            Some("matchExpressions[0].values".to_string())
        );
        assert!(check_key("kubernetes-fleet.io/node-count").is_ok());
        assert!(check_key("-bad").is_err());
        assert!(check_value("has space").is_err());
    }
}
