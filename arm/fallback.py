"""The flow's robustness net: what to keep on the CPU when a partition cannot be lowered as proposed.

The partitioner proposes from support rules; two things can still go wrong after it, and neither may end a
compile in an internal error (the model's content is never the user's fault):

* a delegated partition fails to lower (an op's emitter or Vela rejects what its support rule accepted):
  the backend raises ``LoweringError`` naming the nodes, and the flow lowers again with those nodes on the
  CPU. When Vela refuses a partition, the Ethos-U backend first finds the nodes it refuses by compiling
  parts of the partition (arm.ethosu.vela_refusals) and names only those, each with Vela's reason, so the
  rest is partitioned again and stays on the NPU; only when no part is refused alone does the whole
  partition stay on the CPU;
* an op kept whole for the delegate (``ops_to_not_decompose``: linear, matmul, ...) ends up on the CPU,
  where ExecuTorch has no kernel for it undecomposed: the flow lowers again with that operator decomposed.

Each retry moves at least one node or operator to the CPU, so the loop ends; the reasons are reported
like any support rule's.
"""

from __future__ import annotations

import dataclasses

import torch


class LoweringError(RuntimeError):
    """A delegate could not lower some of its nodes; they must stay on the CPU.

    ``reason`` says why for all of them, unless ``reasons`` gives a node its own.
    """

    def __init__(self, nodes: tuple[str, ...], reason: str, reasons: dict[str, str] | None = None):
        super().__init__(reason)
        self.nodes = nodes
        self.reason = reason
        self.reasons = dict(reasons or {})

    def reason_for(self, node: str) -> str:
        return self.reasons.get(node, self.reason)


@dataclasses.dataclass
class FallbackPlan:
    """What earlier attempts learned: edge node name -> reason, and ATen operator -> reason."""

    cpu_nodes: dict[str, str] = dataclasses.field(default_factory=dict)
    decomposed: dict[torch._ops.OpOverload, str] = dataclasses.field(default_factory=dict)

    def is_empty(self) -> bool:
        return not self.cpu_nodes and not self.decomposed


def lowering_error_in(error: BaseException) -> LoweringError | None:
    """The LoweringError that caused ``error`` (executorch may wrap it), if any."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, LoweringError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
