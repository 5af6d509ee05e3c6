//! Karpenter manifests: NodePool, NodeClaim, Node, Pod.
