//! Cluster affinity: required terms (Filter, placement.md §4.1) and preferred terms with
//! property sorters (Score, §5.1–5.2).

use super::fleet::Fleet;
use super::index::{Cell, Threshold};
use super::properties::{Column, PropertyRef};
use super::report::{TermMismatch, TermOutcome};
use super::CycleError;
use crate::input::quantity::Quantity;
use crate::model::placement::{ClusterSelectorTerm, PreferredClusterSelector};
use crate::selectors::{LabelSelector, Operator, Selector};
use std::cmp::Ordering;

/// A requirement with its key and values as fleet label ids (a value no cluster has cannot
/// match, so it is left out).
#[derive(Debug, Clone)]
pub struct IdRequirement {
    key: Option<u32>,
    operator: Operator,
    values: Vec<u32>,
}

impl IdRequirement {
    #[inline]
    fn matches(&self, fleet: &Fleet, i: usize) -> bool {
        self.matches_value(self.key.and_then(|k| fleet.index.label(i, k)))
    }

    /// `ok[i] &= matches(i)` for every cluster: over a dense column through a table of the
    /// fleet's value ids, one lookup per cluster and no branch on the value.
    fn and_into(&self, fleet: &Fleet, ok: &mut [bool]) {
        let column = self.key.and_then(|k| fleet.index.label_column(k));
        match column.filter(|c| c.len() == ok.len()) {
            Some(column) => {
                let table: Vec<bool> = (0..fleet.index.value_count())
                    .map(|v| self.matches_value(u32::try_from(v).ok()))
                    .collect();
                let missing = self.matches_value(None);
                for (o, v) in ok.iter_mut().zip(column) {
                    *o &= v.map_or(missing, |v| {
                        table.get(v as usize).copied().unwrap_or(missing)
                    });
                }
            }
            None => {
                for (i, o) in ok.iter_mut().enumerate() {
                    *o = *o && self.matches(fleet, i);
                }
            }
        }
    }

    #[inline]
    fn matches_value(&self, observed: Option<u32>) -> bool {
        match self.operator {
            Operator::In => observed.is_some_and(|v| self.values.contains(&v)),
            Operator::NotIn => observed.is_none_or(|v| !self.values.contains(&v)),
            Operator::Exists => observed.is_some(),
            Operator::DoesNotExist => observed.is_none(),
        }
    }
}

/// A label selector compiled once; an invalid one is an error only when evaluated.
#[derive(Debug, Clone)]
pub enum CompiledSelector {
    /// Valid: the selector (for explanations) and its requirements as label ids.
    Ok(Selector, Vec<IdRequirement>),
    /// `LabelSelectorAsSelector` would fail with this message.
    Invalid(String),
}

impl CompiledSelector {
    fn new(s: &LabelSelector, fleet: &Fleet) -> Self {
        match s.compile() {
            Ok(s) => {
                let ids = s
                    .requirements
                    .iter()
                    .map(|r| IdRequirement {
                        key: fleet.index.key_id(&r.key),
                        operator: r.operator,
                        values: r
                            .values
                            .iter()
                            .filter_map(|v| fleet.index.value_id(v))
                            .collect(),
                    })
                    .collect();
                CompiledSelector::Ok(s, ids)
            }
            Err(e) => CompiledSelector::Invalid(format!("{}: {}", e.field, e.message)),
        }
    }

    /// `Ok(None)` on match, else the position of the first failed requirement and the
    /// cluster's value of its key (a label value id).
    fn check(&self, fleet: &Fleet, i: usize) -> Result<Option<(usize, Option<u32>)>, CycleError> {
        match self {
            CompiledSelector::Ok(_, ids) => {
                Ok(ids.iter().position(|r| !r.matches(fleet, i)).map(|pos| {
                    let observed = ids
                        .get(pos)
                        .and_then(|id| id.key)
                        .and_then(|k| fleet.index.label(i, k));
                    (pos, observed)
                }))
            }
            CompiledSelector::Invalid(m) => {
                Err(CycleError::InvalidLabelSelector { message: m.clone() })
            }
        }
    }

    fn matches(&self, fleet: &Fleet, i: usize) -> Result<bool, CycleError> {
        match self {
            CompiledSelector::Ok(_, ids) => Ok(ids.iter().all(|r| r.matches(fleet, i))),
            CompiledSelector::Invalid(m) => {
                Err(CycleError::InvalidLabelSelector { message: m.clone() })
            }
        }
    }
}

/// A property selector operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropertyOperator {
    /// Greater than.
    Gt,
    /// Greater than or equal.
    Ge,
    /// Less than.
    Lt,
    /// Less than or equal.
    Le,
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
}

impl PropertyOperator {
    /// Parses an operator as written.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "Gt" => Self::Gt,
            "Ge" => Self::Ge,
            "Lt" => Self::Lt,
            "Le" => Self::Le,
            "Eq" => Self::Eq,
            "Ne" => Self::Ne,
            _ => return None,
        })
    }

    fn holds(self, ord: Ordering) -> bool {
        match self {
            Self::Gt => ord == Ordering::Greater,
            Self::Ge => ord != Ordering::Less,
            Self::Lt => ord == Ordering::Less,
            Self::Le => ord != Ordering::Greater,
            Self::Eq => ord == Ordering::Equal,
            Self::Ne => ord != Ordering::Equal,
        }
    }
}

#[derive(Debug, Clone)]
struct PropertyExpression {
    name: String,
    property: PropertyRef,
    column: Column,
    /// Where the expected value falls among the fleet's values of the property.
    threshold: Option<Threshold>,
    operator_text: String,
    operator: Option<PropertyOperator>,
    value_count: usize,
    expected: Option<Result<Quantity, String>>,
}

impl PropertyExpression {
    /// The expected value and the operator, or the error that aborts the cycle when the
    /// expression cannot be evaluated (checked in this order by KubeFleet).
    fn checked(&self) -> Result<(&Quantity, PropertyOperator), CycleError> {
        let expected = match &self.expected {
            None => {
                return Err(CycleError::TooManyValues {
                    count: self.value_count,
                })
            }
            Some(Err(m)) => {
                return Err(CycleError::ExpectedValueNotAQuantity { message: m.clone() })
            }
            Some(Ok(q)) => q,
        };
        let Some(op) = self.operator else {
            return Err(CycleError::InvalidPropertyOperator {
                operator: self.operator_text.clone(),
            });
        };
        Ok((expected, op))
    }
}

/// A required term, compiled.
#[derive(Debug, Clone)]
struct RequiredTerm {
    label: Option<CompiledSelector>,
    expressions: Vec<PropertyExpression>,
}

/// The required terms of a policy (ORed).
#[derive(Debug, Clone, Default)]
pub struct RequiredAffinity {
    terms: Vec<RequiredTerm>,
    /// The same terms on integers alone, when no evaluation can fail (the usual case): the
    /// Filter step over a large fleet then does no error bookkeeping per cluster.
    fast: Option<Vec<FastTerm>>,
}

/// A required term that cannot fail to evaluate: label requirements and property
/// comparisons as ids, thresholds and operators.
#[derive(Debug, Clone)]
struct FastTerm {
    labels: Vec<IdRequirement>,
    /// Property id (`None`: no cluster publishes it, so the term never matches), where the
    /// expected value falls among its ranks, and the operator.
    expressions: Vec<(Option<u32>, Threshold, PropertyOperator)>,
}

impl FastTerm {
    /// `term` on integers, or `None` when evaluating it could fail on some cluster (an
    /// invalid selector or property name, a bad expected value or operator, a published
    /// value that is not a quantity).
    fn new(term: &RequiredTerm, fleet: &Fleet) -> Option<FastTerm> {
        let labels = match &term.label {
            None => Vec::new(),
            Some(CompiledSelector::Ok(_, ids)) => ids.clone(),
            Some(CompiledSelector::Invalid(_)) => return None,
        };
        let mut expressions = Vec::with_capacity(term.expressions.len());
        for e in &term.expressions {
            if matches!(e.property, PropertyRef::Invalid(_)) {
                return None;
            }
            let (_, op) = e.checked().ok()?;
            match e.column.id {
                None => expressions.push((None, Threshold::default(), op)),
                Some(id) => {
                    if fleet.index.has_unparsable(id) {
                        return None;
                    }
                    expressions.push((Some(id), e.threshold?, op));
                }
            }
        }
        Some(FastTerm {
            labels,
            expressions,
        })
    }

    /// `ok[i] &= passes(i)` for every cluster, requirement by requirement over the columns.
    fn and_into(&self, fleet: &Fleet, ok: &mut [bool]) {
        for r in &self.labels {
            r.and_into(fleet, ok);
        }
        for &(id, threshold, op) in &self.expressions {
            let holds = |rank: Option<u32>| rank.is_some_and(|r| op.holds(threshold.compare(r)));
            let Some(id) = id else {
                // No cluster publishes the property: the term never matches.
                ok.fill(false);
                continue;
            };
            match fleet.index.rank_column(id).filter(|c| c.len() == ok.len()) {
                Some(column) => {
                    for (o, rank) in ok.iter_mut().zip(column) {
                        *o &= holds(rank);
                    }
                }
                None => {
                    for (i, o) in ok.iter_mut().enumerate() {
                        *o = *o && holds(fleet.index.cell(i, id).map(|c| c.rank));
                    }
                }
            }
        }
    }

    fn passes(&self, fleet: &Fleet, i: usize) -> bool {
        self.labels.iter().all(|r| r.matches(fleet, i))
            && self.expressions.iter().all(|&(id, threshold, op)| {
                id.and_then(|id| fleet.index.cell(i, id))
                    .is_some_and(|c| op.holds(threshold.compare(c.rank)))
            })
    }
}

impl RequiredAffinity {
    /// Compiles the terms against the fleet; the property sorter of a required term is
    /// ignored (as the scheduler does; the webhook rejects it).
    pub fn new(terms: &[ClusterSelectorTerm], fleet: &Fleet) -> Self {
        let terms: Vec<RequiredTerm> = terms
            .iter()
            .map(|t| RequiredTerm {
                label: t
                    .label_selector
                    .as_ref()
                    .map(|s| CompiledSelector::new(s, fleet)),
                expressions: t
                    .property_selector
                    .iter()
                    .flat_map(|p| p.match_expressions.iter())
                    .map(|e| {
                        let property = PropertyRef::parse(&e.name);
                        let column = Column::new(property.clone(), fleet);
                        let expected = match e.values.as_slice() {
                            [v] => Some(Quantity::parse(v).map_err(|err| format!("{v}: {err}"))),
                            _ => None,
                        };
                        let threshold = match (&expected, column.id) {
                            (Some(Ok(q)), Some(id)) => Some(fleet.index.threshold(id, q)),
                            _ => None,
                        };
                        PropertyExpression {
                            name: e.name.clone(),
                            property,
                            column,
                            threshold,
                            operator_text: e.operator.clone(),
                            operator: PropertyOperator::parse(&e.operator),
                            value_count: e.values.len(),
                            expected,
                        }
                    })
                    .collect(),
            })
            .collect();
        let fast = terms.iter().map(|t| FastTerm::new(t, fleet)).collect();
        RequiredAffinity { terms, fast }
    }

    /// Whether the Filter step is skipped (no terms).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Does some term match? Errors abort the cycle. Allocation-free: explanations are
    /// built by [`RequiredAffinity::explain`] only for clusters that fail.
    pub fn passes(&self, fleet: &Fleet, i: usize) -> Result<bool, CycleError> {
        if let Some(fast) = &self.fast {
            return Ok(fast.is_empty() || fast.iter().any(|t| t.passes(fleet, i)));
        }
        for term in &self.terms {
            if term_passes(term, fleet, i)? {
                return Ok(true);
            }
        }
        Ok(self.terms.is_empty())
    }

    /// [`RequiredAffinity::passes`] for every cluster at once (by position), when no
    /// evaluation can fail; `None` otherwise (then ask per cluster, for the errors). Term by
    /// term over the fleet's columns: a 10k-cluster Filter step is then a few passes over
    /// contiguous integers instead of a walk of the terms per cluster.
    pub fn passes_all(&self, fleet: &Fleet) -> Option<Vec<bool>> {
        let fast = self.fast.as_ref()?;
        let mut any = vec![fast.is_empty(); fleet.len()];
        let mut ok = vec![true; fleet.len()];
        for term in fast {
            ok.fill(true);
            term.and_into(fleet, &mut ok);
            for (a, &o) in any.iter_mut().zip(&ok) {
                *a |= o;
            }
        }
        Some(any)
    }

    /// Why each term fails for cluster `c` (only called for clusters that failed).
    pub fn explain(&self, fleet: &Fleet, c: usize) -> Vec<TermMismatch> {
        let mut misses = Vec::new();
        self.misses(fleet, c, &mut misses);
        misses
            .iter()
            .filter_map(|&(term, miss)| self.describe(fleet, term, miss))
            .collect()
    }

    /// Why each term fails for cluster `c`, as ids (terms that match or cannot be evaluated
    /// are left out, as in [`RequiredAffinity::explain`]); replaces the contents of `out`.
    pub fn misses(&self, fleet: &Fleet, c: usize, out: &mut Vec<(usize, Miss)>) {
        out.clear();
        for (i, t) in self.terms.iter().enumerate() {
            if let Ok(Some(m)) = term_miss(t, fleet, c) {
                out.push((i, m));
            }
        }
    }

    /// The explanation of one [`Miss`] of term `term`.
    pub fn describe(&self, fleet: &Fleet, term: usize, miss: Miss) -> Option<TermMismatch> {
        let t = self.terms.get(term)?;
        Some(match miss {
            Miss::Label { pos, observed } => {
                let Some(CompiledSelector::Ok(s, _)) = &t.label else {
                    return None;
                };
                TermMismatch::Label {
                    term,
                    mismatch: crate::selectors::LabelMismatch {
                        requirement: s.requirements.get(pos)?.clone(),
                        observed: observed
                            .and_then(|v| fleet.index.value_name(v))
                            .map(str::to_string),
                    },
                }
            }
            Miss::PropertyMissing { expression } => TermMismatch::PropertyMissing {
                term,
                expression,
                name: t.expressions.get(expression)?.name.clone(),
            },
            Miss::Property { expression, text } => {
                let e = t.expressions.get(expression)?;
                let (expected, _) = e.checked().ok()?;
                TermMismatch::Property {
                    term,
                    expression,
                    name: e.name.clone(),
                    operator: e.operator_text.clone(),
                    required: expected.as_str().to_string(),
                    observed: e
                        .column
                        .id
                        .and_then(|id| fleet.index.text_at(id, text))
                        .unwrap_or_default()
                        .to_string(),
                }
            }
        })
    }
}

/// Why one required term fails for a cluster, in fleet ids: what a [`TermMismatch`] is made
/// of. Equal misses give equal explanations, so the many filtered clusters of a fleet that
/// fail alike can share one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Miss {
    /// Requirement `pos` of the label selector failed; the cluster's value of its key.
    Label {
        /// Position of the requirement.
        pos: usize,
        /// Label value id.
        observed: Option<u32>,
    },
    /// The cluster does not publish the property of this expression.
    PropertyMissing {
        /// Index of the expression.
        expression: usize,
    },
    /// The value (text number `text` of the property) fails the comparison.
    Property {
        /// Index of the expression.
        expression: usize,
        /// [`super::index::Cell::text`] of the observed value.
        text: u32,
    },
}

/// `clusterRequirement.Matches` without building an explanation, on the fleet index.
fn term_passes(term: &RequiredTerm, fleet: &Fleet, i: usize) -> Result<bool, CycleError> {
    if let Some(sel) = &term.label {
        if !sel.matches(fleet, i)? {
            return Ok(false);
        }
    }
    for e in &term.expressions {
        let Some(observed) = e.column.cell(fleet, i)? else {
            return Ok(false);
        };
        let (expected, op) = e.checked()?;
        let ord = match e.threshold {
            Some(t) => t.compare(observed.rank),
            // Not reached (a published value implies an indexed property); exact anyway.
            None => match fleet.clusters.get(i).map(|c| e.property.lookup(c)) {
                Some(Ok(Some(q))) => q.cmp_exact(expected),
                _ => return Ok(false),
            },
        };
        if !op.holds(ord) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `clusterRequirement.Matches`: `Ok(None)` on match, else the first failed part.
fn term_miss(term: &RequiredTerm, fleet: &Fleet, c: usize) -> Result<Option<Miss>, CycleError> {
    if let Some(sel) = &term.label {
        if let Some((pos, observed)) = sel.check(fleet, c)? {
            return Ok(Some(Miss::Label { pos, observed }));
        }
    }
    for (i, e) in term.expressions.iter().enumerate() {
        let Some(observed) = e.column.cell(fleet, c)? else {
            return Ok(Some(Miss::PropertyMissing { expression: i }));
        };
        let (_, op) = e.checked()?;
        let Some(t) = e.threshold else {
            // Not reached: a published value implies an indexed property.
            continue;
        };
        if !op.holds(t.compare(observed.rank)) {
            return Ok(Some(Miss::Property {
                expression: i,
                text: observed.text,
            }));
        }
    }
    Ok(None)
}

/// `Ascending` or `Descending`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOrder {
    /// Smaller values score higher.
    Ascending,
    /// Larger values score higher.
    Descending,
}

#[derive(Debug, Clone)]
struct Sorter {
    property: Column,
    order_text: String,
    order: Option<SortOrder>,
    /// Index into the min/max table.
    slot: usize,
}

#[derive(Debug, Clone)]
struct PreferredTerm {
    weight: i32,
    label: Option<CompiledSelector>,
    sorter: Option<Sorter>,
}

/// The preferred terms of a policy, with the min/max of every sorter property.
#[derive(Debug, Clone, Default)]
pub struct PreferredAffinity {
    terms: Vec<PreferredTerm>,
    /// Property names of the sorters, one slot per distinct name.
    slots: Vec<Column>,
}

/// Min and max of a sorter property over the whole fleet, as floats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Extremes {
    /// Observed minimum.
    pub min: f64,
    /// Observed maximum.
    pub max: f64,
}

impl PreferredAffinity {
    /// Compiles the terms; the property selector of a preferred term is ignored (as the
    /// scheduler does; the webhook rejects it).
    pub fn new(terms: &[PreferredClusterSelector], fleet: &Fleet) -> Self {
        let mut slots: Vec<Column> = Vec::new();
        // The property name of each slot (a linear scan: a placement has a few terms).
        let mut slot_names: Vec<&str> = Vec::new();
        let terms = terms
            .iter()
            .map(|t| PreferredTerm {
                weight: t.weight,
                label: t
                    .preference
                    .label_selector
                    .as_ref()
                    .map(|s| CompiledSelector::new(s, fleet)),
                sorter: t.preference.property_sorter.as_ref().map(|s| {
                    let column = Column::new(PropertyRef::parse(&s.name), fleet);
                    let slot = match slot_names.iter().position(|n| *n == s.name) {
                        Some(slot) => slot,
                        None => {
                            slot_names.push(&s.name);
                            slots.push(column.clone());
                            slots.len() - 1
                        }
                    };
                    Sorter {
                        property: column,
                        order_text: s.sort_order.clone(),
                        order: match s.sort_order.as_str() {
                            "Ascending" => Some(SortOrder::Ascending),
                            "Descending" => Some(SortOrder::Descending),
                            _ => None,
                        },
                        slot,
                    }
                }),
            })
            .collect();
        PreferredAffinity { terms, slots }
    }

    /// Whether the Score step is skipped (no terms).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// PreScore: min/max of every sorter property over ALL clusters (exact comparison; the
    /// first cluster in list order wins among equal values). `None` when no cluster has it.
    pub fn extremes(&self, fleet: &Fleet) -> Result<Vec<Option<Extremes>>, CycleError> {
        let mut out = Vec::with_capacity(self.slots.len());
        for prop in &self.slots {
            // Ranks order values exactly; among equal ones the first cluster's float is kept.
            let mut min: Option<Cell> = None;
            let mut max: Option<Cell> = None;
            for i in 0..fleet.len() {
                let Some(q) = prop.cell(fleet, i)? else {
                    continue;
                };
                if min.is_none_or(|m| q.rank < m.rank) {
                    min = Some(q);
                }
                if max.is_none_or(|m| q.rank > m.rank) {
                    max = Some(q);
                }
            }
            out.push(match (min, max) {
                (Some(a), Some(b)) => Some(Extremes {
                    min: a.approx,
                    max: b.approx,
                }),
                _ => None,
            });
        }
        Ok(out)
    }

    /// The affinity score of a candidate: each term rounded, then summed.
    pub fn score(
        &self,
        fleet: &Fleet,
        i: usize,
        extremes: &[Option<Extremes>],
    ) -> Result<i32, CycleError> {
        let mut total: i32 = 0;
        for t in &self.terms {
            total = total.wrapping_add(term_score(t, fleet, i, extremes)?.0);
        }
        Ok(total)
    }

    /// Per-term scores and what produced them.
    pub fn breakdown(
        &self,
        fleet: &Fleet,
        i: usize,
        extremes: &[Option<Extremes>],
    ) -> Vec<(i32, i32, TermOutcome)> {
        self.terms
            .iter()
            .map(|t| match term_score(t, fleet, i, extremes) {
                Ok((s, o)) => (t.weight, s, o),
                Err(_) => (t.weight, 0, TermOutcome::Error),
            })
            .collect()
    }
}

/// `clusterPreference.Scores` + `interpolateWeightFor`.
fn term_score(
    t: &PreferredTerm,
    fleet: &Fleet,
    i: usize,
    extremes: &[Option<Extremes>],
) -> Result<(i32, TermOutcome), CycleError> {
    if t.weight == 0 {
        // The Score step skips weight-0 terms.
        return Ok((0, TermOutcome::ZeroWeight));
    }
    if let Some(sel) = &t.label {
        if !sel.matches(fleet, i)? {
            return Ok((0, TermOutcome::LabelMismatch));
        }
    }
    let Some(sorter) = &t.sorter else {
        return Ok((t.weight, TermOutcome::FullWeight));
    };
    let Some(q) = sorter.property.cell(fleet, i)? else {
        return Ok((0, TermOutcome::PropertyMissing));
    };
    let cluster_name = || {
        fleet
            .clusters
            .get(i)
            .map(|c| c.name.clone())
            .unwrap_or_default()
    };
    let Some(Some(mm)) = extremes.get(sorter.slot) else {
        return Err(CycleError::ExtremesUnavailable {
            cluster: cluster_name(),
        });
    };
    let f = q.approx;
    let (min, max) = (mm.min, mm.max);
    if min.is_infinite() || max.is_infinite() || min > max || f < min || f > max {
        return Err(CycleError::InterpolationOutOfRange {
            cluster: cluster_name(),
            observed: f,
            min,
            max,
        });
    }
    let Some(order) = sorter.order else {
        return Err(CycleError::InvalidSortOrder {
            sort_order: sorter.order_text.clone(),
        });
    };
    if min == max {
        return Ok((0, TermOutcome::SingleValue { observed: f }));
    }
    let ratio = (f - min) / (max - min);
    let w = match order {
        SortOrder::Descending => ratio * f64::from(t.weight),
        SortOrder::Ascending => (1.0 - ratio) * f64::from(t.weight),
    };
    // Go's math.Round (halves away from zero) then int32(); f64::round is the same.
    let score = w.round() as i32;
    Ok((
        score,
        TermOutcome::Interpolated {
            observed: f,
            min,
            max,
            unrounded: w,
        },
    ))
}
