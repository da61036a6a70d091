"""Reads a TOSA 1.0 flatbuffer: which operators it holds and the shapes of its inputs and outputs."""

from __future__ import annotations

import collections
import dataclasses

from tosa.Op import Op
from tosa.TosaGraph import TosaGraph

_OP_NAMES = {value: name for name, value in vars(Op).items() if not name.startswith("_")}


@dataclasses.dataclass(frozen=True)
class TosaSummary:
    op_counts: collections.Counter[str]
    input_shapes: tuple[tuple[int, ...], ...]
    output_shapes: tuple[tuple[int, ...], ...]


def summarize_tosa(flatbuffer: bytes) -> TosaSummary:
    """Operators of every block of the main region, and the main block's I/O shapes."""
    graph = TosaGraph.GetRootAs(flatbuffer, 0)
    region = graph.Regions(0)
    op_counts: collections.Counter[str] = collections.Counter()
    for b in range(region.BlocksLength()):
        block = region.Blocks(b)
        op_counts.update(_OP_NAMES[block.Operators(i).Op()] for i in range(block.OperatorsLength()))
    main = region.Blocks(0)
    tensors = (main.Tensors(i) for i in range(main.TensorsLength()))
    shapes = {t.Name().decode(): tuple(t.Shape(d) for d in range(t.ShapeLength())) for t in tensors}
    return TosaSummary(
        op_counts=op_counts,
        input_shapes=tuple(shapes[main.Inputs(i).decode()] for i in range(main.InputsLength())),
        output_shapes=tuple(shapes[main.Outputs(i).decode()] for i in range(main.OutputsLength())),
    )
