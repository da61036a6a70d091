"""Graph passes the Arm flow runs on edge programs before partitioning."""

from arm.passes.fold_constants import FoldConstantsPass
from arm.passes.int64_to_int32 import NarrowInt64Pass
from arm.passes.remove_identity_clones import RemoveIdentityClonesPass

# What the flow hands to_edge_transform_and_lower as transform_passes, in order. Folding comes before
# narrowing, so int64 tables (arange positions, masks) become constants that narrow in place.
# Partitioners may not change the graph they are given: every rewrite the partition relies on is here.
EDGE_TRANSFORM_PASSES = (RemoveIdentityClonesPass(), FoldConstantsPass(), NarrowInt64Pass())
