"""What one side of the comparison hands to the side-neutral analysis.

Both sides (our flow and ExecuTorch's Arm backend) are measured the same way: the wall time from
torch.export to the .pte bytes, and then the same analysis of what they produced, so no number in the
table depends on which flow reports it.
"""

from __future__ import annotations

import dataclasses

import torch

# Stage names both sides time, in order; their sum is the side's compile time.
STAGES = ("export", "quantize", "re-export", "lower", "serialize")


@dataclasses.dataclass
class CompiledProgram:
    """One side's output for one model and target.

    Attributes:
        pte: the .pte bytes.
        stage_seconds: wall time of each of ``STAGES``.
        tosa_flatbuffers: the TOSA graph of each delegated partition, in partition order.
        vela_summaries: Vela's summary CSV of each partition (same order).
        quantized_module: the converted pt2e module, the torch-side reference of the integer delegate.
        cpu_reasons: why the flow left each non-q/dq node on the CPU, where the flow says so.
        vela_per_layer: Vela's per-layer CSV of each partition (same order), for ``--dump-dir``.
        cpu_seconds: CPU seconds (user + system, all threads of the process) of the same span as
            ``stage_seconds``; other work on a shared machine inflates them far less than wall time.
    """

    pte: bytes
    stage_seconds: dict[str, float]
    tosa_flatbuffers: list[bytes]
    vela_summaries: list[str]
    quantized_module: torch.fx.GraphModule
    cpu_reasons: tuple[str, ...] = ()
    vela_per_layer: list[str] = dataclasses.field(default_factory=list)
    cpu_seconds: float | None = None

    @property
    def seconds(self) -> float:
        return sum(self.stage_seconds.values())
