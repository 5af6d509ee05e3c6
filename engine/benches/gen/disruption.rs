//! The disruption benchmark's input, shared by the native criterion bench and the wasm bench
//! under Node: one NodePool with 10 budgets (5 with cron windows), N nodes and their pods.

use chrono::{DateTime, Utc};
use std::fmt::Write;

const BUDGETS: &str = r#"
    - {nodes: "10%"}
    - {nodes: "50", reasons: [Drifted]}
    - {nodes: "20%", reasons: [Empty, Drifted]}
    - {nodes: "100"}
    - {nodes: "5%", reasons: [Underutilized]}
    - {nodes: "0", schedule: "0 9 * * 1-5", duration: 8h}
    - {nodes: "1", schedule: "0 2 * * *", duration: 2h}
    - {nodes: "3", schedule: "0 4 * * *", duration: 4h, reasons: [Drifted]}
    - {nodes: "0", schedule: "@daily", duration: 10m, reasons: [Underutilized]}
    - {nodes: "25%", schedule: "30 6 * * SUN", duration: 6h}
"#;

pub fn at() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2024-03-06T12:00:00Z")
        .map(|d| d.to_utc())
        .unwrap_or_default()
}

pub fn fleet(nodes: usize, pods_per_node: usize) -> String {
    let mut t = format!(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: default}}\nspec:\n  template:\n    spec:\n      expireAfter: 720h\n  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: 1m\n    budgets:{BUDGETS}"
    );
    for i in 0..nodes {
        let _ = write!(
            t,
            "---\napiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata: {{name: nc-{i}, creationTimestamp: \"2024-03-01T00:00:00Z\", labels: {{karpenter.sh/nodepool: default}}}}\nstatus:\n  nodeName: node-{i}\n  lastPodEventTime: \"2024-03-06T11:00:00Z\"\n  conditions:\n  - {{type: Initialized, status: \"True\", lastTransitionTime: \"2024-03-01T00:05:00Z\"}}\n  - {{type: Drifted, status: \"{}\", lastTransitionTime: \"2024-03-05T00:00:00Z\"}}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i}\n  labels: {{karpenter.sh/nodepool: default, karpenter.sh/initialized: \"true\", node.kubernetes.io/instance-type: D4s, karpenter.sh/capacity-type: spot, topology.kubernetes.io/zone: z1}}\nstatus:\n  conditions:\n  - {{type: Ready, status: \"{}\"}}\n",
            if i % 7 == 0 { "True" } else { "False" },
            if i % 50 == 0 { "False" } else { "True" },
        );
        for j in 0..pods_per_node {
            let _ = write!(
                t,
                "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p-{i}-{j}, namespace: default, labels: {{app: a{j}}}}}\nspec: {{nodeName: node-{i}, priority: {j}}}\nstatus: {{phase: Running, startTime: \"2024-03-06T11:00:00Z\"}}\n"
            );
        }
    }
    t
}

/// The 10 scheduled budgets of the timeline bench: (nodes, schedule, duration).
pub const SCHEDULED: [(&str, &str, &str); 10] = [
    ("0", "0 9 * * 1-5", "8h"),
    ("1", "0 2 * * *", "2h"),
    ("3", "0 4 * * *", "4h"),
    ("0", "@daily", "10m"),
    ("25%", "30 6 * * SUN", "6h"),
    ("2", "*/15 * * * *", "5m"),
    ("10%", "0 */6 * * *", "6h"),
    ("0", "0 0 1 * 1", "1h"),
    ("5", "0 22 * * 5", "48h"),
    ("1", "@hourly", "15m"),
];
