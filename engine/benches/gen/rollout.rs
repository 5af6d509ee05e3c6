//! The rollout benchmark's input, shared by the native criterion bench and the wasm bench
//! under Node: an Azure update run over 5,000 members (3 stages × 10 groups, weekly
//! maintenance windows) and a KubeFleet staged run over 5,000 clusters in 5 stages.

use fleet_policy::rollout::RolloutOptions;
use std::fmt::Write;

pub const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

pub fn azure_fleet() -> String {
    let mut y = String::new();
    for i in 0..5000 {
        let group = format!("g{}-{}", i % 3, (i / 3) % 10);
        let _ = write!(
            y,
            "apiVersion: azure.fleet-policy.dev/v1\nkind: FleetMember\nmetadata: {{name: aks-{i:04}}}\nproperties: {{group: {group}}}\n\
cluster:\n  kubernetesVersion: \"1.29.{}\"\n  maintenanceConfigurations:\n  - name: aksManagedAutoUpgradeSchedule\n    properties:\n      maintenanceWindow:\n        schedule: {{weekly: {{intervalWeeks: 1, dayOfWeek: {}}}}}\n        durationHours: 8\n        startTime: \"{:02}:00\"\n        utcOffset: \"+00:00\"\n---\n",
            i % 9,
            DAYS[i % 7],
            (i * 5) % 24
        );
    }
    y.push_str("apiVersion: azure.fleet-policy.dev/v1\nkind: UpdateRun\nmetadata: {name: big}\nproperties:\n  managedClusterUpdate:\n    upgrade: {type: Full, kubernetesVersion: \"1.30.5\"}\n  strategy:\n    stages:\n");
    for s in 0..3 {
        let _ = writeln!(
            y,
            "    - name: stage{s}\n      afterStageWaitInSeconds: 3600\n      groups:"
        );
        for g in 0..10 {
            let _ = writeln!(y, "      - name: g{s}-{g}\n        maxConcurrency: 4");
        }
    }
    y
}

pub fn staged_fleet() -> String {
    let mut y = String::new();
    for i in 0..5000 {
        let _ = write!(
            y,
            "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nmetadata: {{name: member-{i:04}, labels: {{ring: r{}, order: \"{}\"}}}}\n---\n\
apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourceBinding\nmetadata: {{name: app-member-{i:04}, labels: {{kubernetes-fleet.io/parent-CRP: app}}}}\nspec: {{state: Bound, targetCluster: member-{i:04}}}\n---\n",
            i % 5,
            (i * 7919) % 1000
        );
    }
    y.push_str("apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourcePlacement\nmetadata: {name: app}\nspec:\n  strategy: {type: External}\n---\n");
    y.push_str("apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterStagedUpdateStrategy\nmetadata: {name: rings}\nspec:\n  stages:\n");
    for s in 0..5 {
        let _ = writeln!(
            y,
            "  - name: ring{s}\n    labelSelector: {{matchLabels: {{ring: r{s}}}}}\n    sortingLabelKey: order\n    maxConcurrency: \"10%\"\n    beforeStageTasks: [{{type: Approval}}]\n    afterStageTasks: [{{type: TimedWait, waitTime: 1h}}]"
        );
    }
    y.push_str("---\napiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterStagedUpdateRun\nmetadata: {name: run}\nspec: {placementName: app, stagedRolloutStrategyName: rings, state: Run}\n");
    y
}

pub fn options(extra: &str) -> RolloutOptions {
    let v: serde_json::Value =
        match serde_json::from_str(&format!("{{\"at\": \"2025-06-02T00:00:00Z\"{extra}}}")) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        };
    match serde_json::from_value(v) {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    }
}
