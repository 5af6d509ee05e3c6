//! Compare: what changed between a pinned result and the current one. It diffs two engine
//! reports (names, counts, orders, states); it never re-derives a decision.

use crate::json::{arr, compact, s};
use serde_json::Value;
use std::collections::BTreeSet;

/// One change, in words, with the area it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// "placement web-app", "NodePool default", "rollout upgrade".
    pub area: String,
    /// What changed.
    pub text: String,
}

fn names(list: &[Value], key: &str) -> Vec<String> {
    list.iter().map(|v| s(v, key).to_string()).collect()
}

fn by_name<'a>(list: &'a [Value], name: &str) -> Option<&'a Value> {
    list.iter().find(|v| s(v, "name") == name)
}

fn set_diff(area: &str, what: &str, before: &[String], after: &[String], out: &mut Vec<Change>) {
    let b: BTreeSet<&String> = before.iter().collect();
    let a: BTreeSet<&String> = after.iter().collect();
    let added: Vec<&str> = a.difference(&b).map(|x| x.as_str()).collect();
    let removed: Vec<&str> = b.difference(&a).map(|x| x.as_str()).collect();
    if !added.is_empty() {
        out.push(Change {
            area: area.into(),
            text: format!("{what}: + {}", added.join(", ")),
        });
    }
    if !removed.is_empty() {
        out.push(Change {
            area: area.into(),
            text: format!("{what}: − {}", removed.join(", ")),
        });
    }
    if added.is_empty() && removed.is_empty() && before != after {
        out.push(Change {
            area: area.into(),
            text: format!("{what} order: {} → {}", before.join(", "), after.join(", ")),
        });
    }
    if before.len() != after.len() {
        out.push(Change {
            area: area.into(),
            text: format!("{what} count: {} → {}", before.len(), after.len()),
        });
    }
}

fn field_diff(area: &str, what: &str, before: &Value, after: &Value, out: &mut Vec<Change>) {
    if before != after {
        out.push(Change {
            area: area.into(),
            text: format!("{what}: {} → {}", compact(before), compact(after)),
        });
    }
}

/// The changes from `pinned` to `current` (both `EvaluateReport` JSON).
pub fn diff(pinned: &Value, current: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    // Placements.
    let (pb, pa) = (arr(pinned, "placements"), arr(current, "placements"));
    for name in union(&names(pb, "name"), &names(pa, "name")) {
        let area = format!("placement {name}");
        match (by_name(pb, &name), by_name(pa, &name)) {
            (Some(b), Some(a)) => {
                set_diff(
                    &area,
                    "picked",
                    &names(arr(b, "picked"), "cluster"),
                    &names(arr(a, "picked"), "cluster"),
                    &mut out,
                );
                set_diff(
                    &area,
                    "filtered",
                    &names(arr(b, "filtered"), "cluster"),
                    &names(arr(a, "filtered"), "cluster"),
                    &mut out,
                );
                for c in arr(a, "picked").iter().chain(arr(a, "notPicked")) {
                    let cl = s(c, "cluster");
                    let old = arr(b, "picked")
                        .iter()
                        .chain(arr(b, "notPicked"))
                        .find(|o| s(o, "cluster") == cl);
                    if let Some(o) = old {
                        for k in ["affinityScore", "topologySpreadScore"] {
                            field_diff(&area, &format!("{cl} {k}"), &o[k], &c[k], &mut out);
                        }
                    }
                }
                field_diff(
                    &area,
                    "Scheduled",
                    &b["condition"]["message"],
                    &a["condition"]["message"],
                    &mut out,
                );
            }
            (None, Some(_)) => out.push(Change {
                area,
                text: "new placement".into(),
            }),
            (Some(_), None) => out.push(Change {
                area,
                text: "placement removed".into(),
            }),
            (None, None) => {}
        }
    }
    // NodePools.
    let (nb, na) = (arr(pinned, "nodePools"), arr(current, "nodePools"));
    for name in union(&names(nb, "name"), &names(na, "name")) {
        let area = format!("NodePool {name}");
        match (by_name(nb, &name), by_name(na, &name)) {
            (Some(b), Some(a)) => {
                for r in ["Drifted", "Empty", "Underutilized"] {
                    field_diff(
                        &area,
                        &format!("allowed {r}"),
                        &b["allowedDisruptions"][r],
                        &a["allowedDisruptions"][r],
                        &mut out,
                    );
                }
                field_diff(
                    &area,
                    "next change",
                    &b["nextChange"],
                    &a["nextChange"],
                    &mut out,
                );
            }
            (None, Some(_)) => out.push(Change {
                area,
                text: "new NodePool".into(),
            }),
            (Some(_), None) => out.push(Change {
                area,
                text: "NodePool removed".into(),
            }),
            (None, None) => {}
        }
    }
    // Rollouts.
    let (rb, ra) = (arr(pinned, "rollouts"), arr(current, "rollouts"));
    for name in union(&names(rb, "name"), &names(ra, "name")) {
        let area = format!("rollout {name}");
        match (by_name(rb, &name), by_name(ra, &name)) {
            (Some(b), Some(a)) => {
                field_diff(&area, "state", &b["state"], &a["state"], &mut out);
                field_diff(&area, "end", &b["end"], &a["end"], &mut out);
                set_diff(
                    &area,
                    "member order",
                    &member_order(b),
                    &member_order(a),
                    &mut out,
                );
                for (m, st) in member_states(a) {
                    if let Some((_, old)) = member_states(b).into_iter().find(|(n, _)| *n == m) {
                        if old != st {
                            out.push(Change {
                                area: area.clone(),
                                text: format!("{m}: {old} → {st}"),
                            });
                        }
                    }
                }
            }
            (None, Some(_)) => out.push(Change {
                area,
                text: "new rollout".into(),
            }),
            (Some(_), None) => out.push(Change {
                area,
                text: "rollout removed".into(),
            }),
            (None, None) => {}
        }
    }
    // Problems.
    let (eb, ea) = (arr(pinned, "errors").len(), arr(current, "errors").len());
    if eb != ea {
        out.push(Change {
            area: "input".into(),
            text: format!("errors: {eb} → {ea}"),
        });
    }
    out
}

fn members(r: &Value) -> impl Iterator<Item = &Value> {
    arr(r, "stages")
        .iter()
        .flat_map(|st| arr(st, "groups"))
        .flat_map(|g| arr(g, "members"))
}

fn member_order(r: &Value) -> Vec<String> {
    let mut ms: Vec<(&str, &str)> = members(r)
        .filter(|m| !s(m, "start").is_empty())
        .map(|m| (s(m, "start"), s(m, "cluster")))
        .collect();
    // Start instants are RFC 3339 UTC from the engine: string order is time order.
    ms.sort();
    ms.into_iter().map(|(_, c)| c.to_string()).collect()
}

fn member_states(r: &Value) -> Vec<(String, String)> {
    members(r)
        .map(|m| (s(m, "cluster").to_string(), s(m, "state").to_string()))
        .collect()
}

fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out: Vec<String> = a.to_vec();
    for x in b {
        if !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}
