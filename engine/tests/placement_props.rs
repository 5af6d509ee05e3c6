//! Property tests of the placement engine on random fleets and policies, written as YAML text
//! and run through the public API.

use fleet_policy::{place, PlaceOptions, Source};
use proptest::prelude::*;
use std::fmt::Write;

const REGIONS: [&str; 3] = ["east", "west", "central"];

#[derive(Debug, Clone)]
struct Cluster {
    region: usize,
    prod: bool,
    node_count: Option<u32>,
    cost: Option<u32>,
    tainted: bool,
    /// 0 healthy, 1 left, 2 no heartbeat, 3 unhealthy recently (still eligible), 4 a status without agent status (the agent never connected).
    health: u8,
}

#[derive(Debug, Clone)]
struct Policy {
    pick_n: Option<i32>,
    /// Required: region In [..] (term 1), node-count Ge v (term 2).
    req_regions: Option<Vec<usize>>,
    req_nodes: Option<u32>,
    preferred: Vec<(i32, Option<bool>)>,
    spread: Vec<bool>,
    tolerate: bool,
}

fn cluster() -> impl Strategy<Value = Cluster> {
    (
        0..3usize,
        any::<bool>(),
        proptest::option::of(0..12u32),
        proptest::option::of(1..500u32),
        prop::bool::weighted(0.2),
        prop::sample::select(vec![0u8, 0, 0, 0, 1, 2, 3, 4]),
    )
        .prop_map(
            |(region, prod, node_count, cost, tainted, health)| Cluster {
                region,
                prod,
                node_count,
                cost,
                tainted,
                health,
            },
        )
}

fn policy() -> impl Strategy<Value = Policy> {
    (
        proptest::option::of(0..10i32),
        proptest::option::of(prop::collection::vec(0..3usize, 1..3)),
        proptest::option::of(0..10u32),
        prop::collection::vec((-100..=100i32, proptest::option::of(any::<bool>())), 0..3),
        prop::collection::vec(any::<bool>(), 0..3),
        any::<bool>(),
    )
        .prop_map(
            |(pick_n, req_regions, req_nodes, preferred, spread, tolerate)| Policy {
                pick_n,
                req_regions,
                req_nodes,
                preferred,
                spread,
                tolerate,
            },
        )
}

fn cluster_doc(i: usize, c: &Cluster) -> String {
    let mut y = format!(
        "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata:\n  name: c{i:02}\n  labels: {{region: {}, env: {}}}\n",
        REGIONS[c.region],
        if c.prod { "prod" } else { "dev" }
    );
    if c.health == 1 {
        y.push_str("  deletionTimestamp: \"2026-01-01T11:00:00Z\"\n");
    }
    if c.tainted {
        y.push_str("spec:\n  taints: [{key: gpu, value: \"true\", effect: NoSchedule}]\n");
    }
    y.push_str("status:\n  properties:\n");
    if let Some(n) = c.node_count {
        let _ = writeln!(y, "    kubernetes-fleet.io/node-count: {{value: \"{n}\"}}");
    }
    if let Some(cost) = c.cost {
        let _ = writeln!(
            y,
            "    kubernetes.azure.com/per-cpu-core-cost: {{value: \"{}.{:03}\"}}",
            cost / 1000,
            cost % 1000
        );
    }
    if y.ends_with("properties:\n") {
        y.push_str("    {}\n");
    }
    let hb = if c.health == 2 {
        "2025-12-31T00:00:00Z"
    } else {
        "2026-01-01T11:59:00Z"
    };
    let healthy = if c.health == 3 { "False" } else { "True" };
    if c.health != 4 {
        let _ = write!(
            y,
            "  agentStatus:\n  - type: MemberAgent\n    lastReceivedHeartbeat: \"{hb}\"\n    conditions:\n    - {{type: Joined, status: \"True\", lastTransitionTime: \"2025-01-01T00:00:00Z\", reason: J}}\n    - {{type: Healthy, status: \"{healthy}\", lastTransitionTime: \"2026-01-01T11:58:00Z\", reason: H}}\n"
        );
    }
    y.replace("  properties:\n    {}\n", "  properties: {}\n")
}

fn policy_doc(p: &Policy) -> String {
    let mut y = String::from("apiVersion: placement.kubernetes-fleet.io/v1\nkind: ClusterResourcePlacement\nmetadata:\n  name: crp\nspec:\n  policy:\n");
    match p.pick_n {
        Some(n) => {
            let _ = writeln!(y, "    placementType: PickN\n    numberOfClusters: {n}");
        }
        None => y.push_str("    placementType: PickAll\n"),
    }
    let mut terms = Vec::new();
    if let Some(r) = &p.req_regions {
        let list: Vec<&str> = r.iter().map(|&i| REGIONS[i]).collect();
        terms.push(format!("{{labelSelector: {{matchExpressions: [{{key: region, operator: In, values: [{}]}}]}}}}", list.join(", ")));
    }
    if let Some(v) = p.req_nodes {
        terms.push(format!("{{propertySelector: {{matchExpressions: [{{name: kubernetes-fleet.io/node-count, operator: Ge, values: [\"{v}\"]}}]}}}}"));
    }
    let preferred: Vec<String> = if p.pick_n.is_some() {
        p.preferred
            .iter()
            .map(|(w, sorter)| match sorter {
                None => format!("{{weight: {w}, preference: {{labelSelector: {{matchLabels: {{env: prod}}}}}}}}"),
                Some(asc) => format!(
                    "{{weight: {w}, preference: {{propertySorter: {{name: kubernetes.azure.com/per-cpu-core-cost, sortOrder: {}}}}}}}",
                    if *asc { "Ascending" } else { "Descending" }
                ),
            })
            .collect()
    } else {
        Vec::new()
    };
    if !terms.is_empty() || !preferred.is_empty() {
        y.push_str("    affinity:\n      clusterAffinity:\n");
        if !terms.is_empty() {
            let _ = writeln!(y, "        requiredDuringSchedulingIgnoredDuringExecution: {{clusterSelectorTerms: [{}]}}", terms.join(", "));
        }
        if !preferred.is_empty() {
            let _ = writeln!(
                y,
                "        preferredDuringSchedulingIgnoredDuringExecution: [{}]",
                preferred.join(", ")
            );
        }
    }
    if p.pick_n.is_some() && !p.spread.is_empty() {
        let list: Vec<String> = p
            .spread
            .iter()
            .enumerate()
            .map(|(i, dns)| {
                format!(
                    "{{maxSkew: 1, topologyKey: {}, whenUnsatisfiable: {}}}",
                    if i == 0 { "region" } else { "env" },
                    if *dns {
                        "DoNotSchedule"
                    } else {
                        "ScheduleAnyway"
                    }
                )
            })
            .collect();
        let _ = writeln!(y, "    topologySpreadConstraints: [{}]", list.join(", "));
    }
    if p.tolerate {
        y.push_str("    tolerations: [{key: gpu, operator: Exists}]\n");
    }
    y
}

fn feasible(c: &Cluster, p: &Policy) -> bool {
    let region_ok = p.req_regions.as_ref().is_none_or(|r| r.contains(&c.region));
    let nodes_ok = p
        .req_nodes
        .is_none_or(|v| c.node_count.is_some_and(|n| n >= v));
    // Required terms are ORed; no terms means no requirement.
    let affinity_ok = match (p.req_regions.is_some(), p.req_nodes.is_some()) {
        (false, false) => true,
        (true, false) => region_ok,
        (false, true) => nodes_ok,
        (true, true) => region_ok || nodes_ok,
    };
    // 4: a status without agent status is a cluster whose agent never connected.
    let eligible = matches!(c.health, 0 | 3);
    affinity_ok && eligible && (!c.tainted || p.tolerate)
}

fn at() -> PlaceOptions {
    PlaceOptions::at(
        chrono::DateTime::parse_from_rfc3339("2026-01-01T12:00:00Z")
            .map(|t| t.to_utc())
            .unwrap_or_default(),
    )
}

fn run(docs: &[String]) -> fleet_policy::PlacementReport {
    place(&[Source::new("props.yaml", docs.join("---\n"))], &at())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Placement → rollout is one pipeline: every CRP's rollout reaches exactly the clusters
    /// its placement picked, in `rollout` and in `evaluate` alike.
    #[test]
    fn rollout_targets_are_the_placement_picks(clusters in prop::collection::vec(cluster(), 0..14), p in policy(), strategy in any::<bool>()) {
        let mut docs: Vec<String> = clusters.iter().enumerate().map(|(i, c)| cluster_doc(i, c)).collect();
        let mut crp = policy_doc(&p);
        if strategy {
            crp.push_str("  strategy:\n    type: RollingUpdate\n    rollingUpdate: {maxUnavailable: 2}\n");
        }
        docs.push(crp);
        let sources = [Source::new("props.yaml", docs.join("---\n"))];
        let t = at().at;
        let evaluated = fleet_policy::evaluate(&sources, &fleet_policy::EvaluateOptions::at(t));
        let rolled = fleet_policy::rollout(&sources, &fleet_policy::RolloutOptions::at(t));
        prop_assert_eq!(evaluated.placements.len(), 1);
        let mut picked: Vec<String> = evaluated.placements[0].picked.iter().map(|c| c.cluster.to_string()).collect();
        picked.sort();
        for rollouts in [&evaluated.rollouts, &rolled.rollouts] {
            prop_assert_eq!(rollouts.len(), 1);
            let members: Vec<String> = rollouts[0].stages.iter().flat_map(|s| &s.groups).flat_map(|g| &g.members).map(|m| m.cluster.to_string()).collect();
            prop_assert_eq!(&members, &picked);
        }
    }

    #[test]
    fn picks_are_feasible_and_counts_follow_the_type(clusters in prop::collection::vec(cluster(), 0..14), p in policy()) {
        let mut docs: Vec<String> = clusters.iter().enumerate().map(|(i, c)| cluster_doc(i, c)).collect();
        docs.push(policy_doc(&p));
        let report = run(&docs);
        prop_assert_eq!(report.placements.len(), 1);
        let r = &report.placements[0];
        prop_assert!(r.cycle_error.is_none(), "{:?}", r.cycle_error);
        let feasible_names: Vec<String> = clusters.iter().enumerate().filter(|(_, c)| feasible(c, &p)).map(|(i, _)| format!("c{i:02}")).collect();
        for pk in &r.picked {
            prop_assert!(feasible_names.contains(&pk.cluster.to_string()), "{} picked but not feasible", pk.cluster);
        }
        let has_dns = p.spread.iter().any(|d| *d);
        match p.pick_n {
            None => {
                let picked: Vec<String> = r.picked.iter().map(|x| x.cluster.to_string()).collect();
                prop_assert_eq!(picked, feasible_names);
            }
            Some(n) if !has_dns => {
                prop_assert_eq!(r.picked.len(), (n.max(0) as usize).min(feasible_names.len()));
            }
            Some(n) => {
                prop_assert!(r.picked.len() <= (n.max(0) as usize).min(feasible_names.len()));
            }
        }
        let weight_sum: i32 = p.preferred.iter().map(|(w, _)| w.abs()).sum();
        let k = p.spread.len() as i32;
        for s in r.picked.iter().chain(&r.not_picked) {
            prop_assert!(s.affinity_score.abs() <= weight_sum);
            prop_assert!(s.topology_spread_score >= -1000 * k && s.topology_spread_score <= k);
        }
        // Condition count = selected clusters.
        let expected_msg = format!("found {} cluster(s)", r.picked.len());
        prop_assert!(r.condition.message.contains(&expected_msg), "{}", r.condition.message);
    }

    #[test]
    fn shuffling_documents_changes_nothing(clusters in prop::collection::vec(cluster(), 1..10), p in policy(), seed in any::<u64>()) {
        let mut docs: Vec<String> = clusters.iter().enumerate().map(|(i, c)| cluster_doc(i, c)).collect();
        docs.push(policy_doc(&p));
        let base = run(&docs);
        // Fisher–Yates with a seeded xorshift.
        let mut s = seed | 1;
        for i in (1..docs.len()).rev() {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            docs.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let shuffled = run(&docs);
        prop_assert_eq!(&base.placements, &shuffled.placements);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
        let _ = place(&[Source::new("x.yaml", text)], &at());
    }

    #[test]
    fn arbitrary_quantities_never_panic(text in "[-+0-9.eEinumkKMGTP]{0,24}") {
        if let Ok(q) = fleet_policy::input::quantity::Quantity::parse(&text) {
            let _ = q.as_approximate_f64();
            let _ = q.cmp_exact(&q);
        }
    }

    #[test]
    fn mangled_policies_never_panic(clusters in prop::collection::vec(cluster(), 0..6), p in policy(), cut in 0usize..2000, junk in "[ a-zA-Z:{}\\[\\],\"-]{0,12}") {
        let mut docs: Vec<String> = clusters.iter().enumerate().map(|(i, c)| cluster_doc(i, c)).collect();
        let mut pd = policy_doc(&p);
        let at_cut = pd.char_indices().map(|(i, _)| i).nth(cut % pd.len().max(1)).unwrap_or(0);
        pd.insert_str(at_cut, &junk);
        docs.push(pd);
        let _ = run(&docs);
    }
}
