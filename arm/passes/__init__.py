"""Graph passes the Arm flow runs on edge programs before partitioning."""

from arm.passes.remove_identity_clones import RemoveIdentityClonesPass

# What the flow hands to_edge_transform_and_lower as transform_passes, in order.
EDGE_TRANSFORM_PASSES = (RemoveIdentityClonesPass(),)
