//! Taints and tolerations (`tainttoleration/filtering.go`, placement.md §1.6, §4.3).

use crate::model::placement::{Taint, Toleration};

/// Whether one toleration tolerates one taint. The operator must already be defaulted
/// (`""` → `Equal`); any other operator tolerates nothing, as in the scheduler.
pub fn tolerates(t: &Toleration, taint: &Taint) -> bool {
    let effect_ok = t.effect.is_empty() || t.effect == taint.effect;
    match t.operator.as_deref() {
        Some("Exists") => (t.key.is_empty() || t.key == taint.key) && effect_ok,
        Some("Equal") => t.key == taint.key && t.value == taint.value && effect_ok,
        _ => false,
    }
}

/// The first taint (in list order) that no toleration tolerates.
pub fn first_untolerated<'a>(taints: &'a [Taint], tolerations: &[Toleration]) -> Option<&'a Taint> {
    taints
        .iter()
        .find(|taint| !tolerations.iter().any(|t| tolerates(t, taint)))
}

/// `%+v` of a `*Taint`, as the scheduler writes it into the reason.
pub fn go_format(taint: &Taint) -> String {
    format!(
        "&{{Key:{} Value:{} Effect:{}}}",
        taint.key, taint.value, taint.effect
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(k: &str, v: &str) -> Taint {
        Taint {
            key: k.into(),
            value: v.into(),
            effect: "NoSchedule".into(),
        }
    }

    fn tol(k: &str, op: &str, v: &str, e: &str) -> Toleration {
        Toleration {
            key: k.into(),
            operator: Some(op.into()),
            value: v.into(),
            effect: e.into(),
        }
    }

    #[test]
    fn matching_rules() {
        assert!(tolerates(&tol("", "Exists", "", ""), &taint("a", "b")));
        assert!(tolerates(
            &tol("a", "Exists", "", "NoSchedule"),
            &taint("a", "x")
        ));
        assert!(!tolerates(&tol("a", "Equal", "c", ""), &taint("a", "b")));
        assert!(tolerates(&tol("a", "Equal", "", ""), &taint("a", "")));
        assert!(!tolerates(&tol("a", "Bogus", "b", ""), &taint("a", "b")));
        assert_eq!(
            go_format(&taint("key2", "")),
            "&{Key:key2 Value: Effect:NoSchedule}"
        );
    }
}
