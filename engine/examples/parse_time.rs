//! Times the input layer on a generated fleet:
//! `cargo run --profile bench --no-default-features --example parse_time -- 10000 [FILE]`.
//! With FILE, times that file instead (e.g. a dumped benchmark input).
use fleet_policy::placement::{self, PlaceOptions};
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let text = match std::env::args().nth(2) {
        Some(path) => std::fs::read_to_string(path).unwrap_or_default(),
        None => generated(n),
    };
    for _ in 0..3 {
        let t = Instant::now();
        let input = fleet_policy::Input::parse_str(&text);
        let parsed = t.elapsed();
        let t = Instant::now();
        let prepared = placement::prepare(&input, &PlaceOptions::at(chrono::DateTime::UNIX_EPOCH));
        println!(
            "{} bytes, {} documents, parse {:?}, placement::prepare {:?} ({} clusters)",
            text.len(),
            input.documents.len(),
            parsed,
            t.elapsed(),
            prepared.fleet.clusters.len()
        );
    }
}

fn generated(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!(
            "---\napiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata:\n  name: member-{i:05}\n  labels:\n    region: r{}\n    env: e{}\nspec:\n  taints: []\nstatus:\n  properties:\n    kubernetes-fleet.io/node-count: {{value: \"{}\"}}\n    kubernetes.azure.com/per-cpu-core-cost: {{value: \"0.{:03}\"}}\n  resourceUsage:\n    capacity: {{cpu: \"{}\", memory: 32Gi}}\n    available: {{cpu: \"{}\", memory: 10Gi}}\n",
            i % 5, i % 3, i % 17 + 1, i % 997, i % 64 + 4, i % 8
        ));
    }
    text
}
