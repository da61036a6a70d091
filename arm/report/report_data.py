"""What a report holds, as plain data: the page renders it, tests read it, nothing else is stored.

Every number comes from a measurement made while the report was built (Vela's CSVs, the flow's timers,
the per-layer comparison); the page only draws it.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any


@dataclasses.dataclass(frozen=True)
class Header:
    model: str
    target: str
    vela_config: dict[str, str]  # accelerator, system config, memory mode, extra flags (Ethos-U only)
    stage_seconds: dict[str, float]  # flow stage -> wall seconds, in flow order
    pte_bytes: int
    arena_bytes: dict[str, int]  # what a device must provide, by name (CPU planned memory, NPU scratch ...)
    versions: dict[str, str]


@dataclasses.dataclass(frozen=True)
class PlacedNode:
    """One call_function of the partitioned edge graph and where it runs."""

    name: str  # edge node name
    op: str  # e.g. aten.convolution.default
    kind: str  # "compute", "quantize" or "dequantize"
    layer: str | None  # the node of the quantized torch graph it comes from
    partition: int | None  # delegate index in program order; None on the CPU
    backend: str  # delegate id (EthosUBackend, ...) or "CPU"
    reason: str | None  # for CPU nodes: why the support rule kept it there


@dataclasses.dataclass(frozen=True)
class VelaLayer:
    """One row of Vela's per-operator CSV, tied back to the edge node whose tensor it writes."""

    partition: int
    operator: str  # Vela's name for the operator (Conv2D, DepthwiseConv2D, Transpose, ...)
    tensor: str  # Vela's row name: the TOSA output tensor, or "#<id>" for an operator Vela added
    node: str | None  # edge node, None for operators Vela added
    layer: str | None
    cycles: int  # the operator's cycles (Vela's "Op Cycles")
    compute_cycles: int  # Vela's "NPU" column
    sram_cycles: int
    dram_cycles: int
    on_chip_flash_cycles: int
    off_chip_flash_cycles: int
    macs: int
    staging_bytes: int


@dataclasses.dataclass(frozen=True)
class PartitionCost:
    partition: int
    total_cycles: int
    compute_cycles: int
    macs: int
    sram_bytes: int  # traffic from Vela's summary CSV
    flash_bytes: int  # on- and off-chip flash traffic
    inference_ms: float
    share: float  # of all partitions' cycles


@dataclasses.dataclass(frozen=True)
class CpuCost:
    """The CPU side of a model measured on Corstone-300 (runtime/README.md), where it has been."""

    instructions: int
    planned_bytes: int
    arena_bytes: int
    source: str


@dataclasses.dataclass(frozen=True)
class LayerError:
    """How far one quantized layer's output is from the float model's, over the samples run.

    SQNR is 10 log10(sum f^2 / sum (x - f)^2) over every element of every sample; cosine is the
    cosine similarity of the flattened outputs; LSB is |delegate int - quantized torch int| on the
    layer's own int grid. ``drop_db`` is how much SQNR this layer loses against the worst of the layers
    feeding it (the model input's quantization for the first ones): the layer where accuracy is lost
    has the largest drop, whatever came before it.
    """

    layer: str
    op: str
    depth: int
    partition: int | None
    where: str  # "partition k", "CPU", or "not in the program" (folded or removed on the way to the .pte)
    sqnr_quantized_db: float
    cosine_quantized: float
    sqnr_delegate_db: float | None
    cosine_delegate: float | None
    lsb_max: int | None
    lsb_mean: float | None
    drop_db: float


@dataclasses.dataclass
class Report:
    header: Header
    placement: list[PlacedNode]
    vela_layers: list[VelaLayer]
    partitions: list[PartitionCost]
    errors: list[LayerError]
    error_samples: int
    error_reference: str  # what ran the delegate's layers, e.g. "TOSA reference model"
    cpu_cost: CpuCost | None = None
    notes: list[str] = dataclasses.field(default_factory=list)

    def top_layers(self, count: int = 10) -> list[VelaLayer]:
        """The ``count`` operators with the most cycles, most first (ties in graph order)."""
        return sorted(self.vela_layers, key=lambda layer: -layer.cycles)[:count]

    def worst_layer(self) -> LayerError | None:
        """The layer that loses the most accuracy (largest SQNR drop)."""
        return max(self.errors, key=lambda error: error.drop_db, default=None)

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["top_layers"] = [self.vela_layers.index(layer) for layer in self.top_layers()]
        worst = self.worst_layer()
        data["worst_layer"] = worst.layer if worst else None
        return json.dumps(_finite(data), sort_keys=True, separators=(",", ":"))


# SQNR of an exact match is infinite; JSON has no infinity, and a chart needs a finite top.
SQNR_CAP_DB = 120.0


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return SQNR_CAP_DB if value > 0 else -SQNR_CAP_DB
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value
