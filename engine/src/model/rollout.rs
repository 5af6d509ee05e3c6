//! Rollout manifests: Azure update runs and strategies, KubeFleet staged update strategies/runs.
