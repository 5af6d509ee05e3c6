//! Times the input layer on a generated fleet: `cargo run --release --example parse_time -- 10000`.
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!(
            "---\napiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata:\n  name: member-{i:05}\n  labels:\n    region: r{}\n    env: e{}\nspec:\n  taints: []\nstatus:\n  properties:\n    kubernetes-fleet.io/node-count: {{value: \"{}\"}}\n    kubernetes.azure.com/per-cpu-core-cost: {{value: \"0.{:03}\"}}\n  resourceUsage:\n    capacity: {{cpu: \"{}\", memory: 32Gi}}\n    available: {{cpu: \"{}\", memory: 10Gi}}\n",
            i % 5, i % 3, i % 17 + 1, i % 997, i % 64 + 4, i % 8
        ));
    }
    let t = Instant::now();
    let input = fleet_policy::Input::parse_str(&text);
    println!(
        "{} bytes, {} documents, parse {:?}",
        text.len(),
        input.documents.len(),
        t.elapsed()
    );
}
