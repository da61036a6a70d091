"""Fuzzes Vela 5.2.0's U55 windows: random small TOSA graphs that widen windows of a tensor, on the NPU model
against the TOSA reference model, with and without arm/tosa/widened_window_copies.py.

Each graph takes an int8 x, cuts a window out of it (a SLICE at a random offset and size, or a CONCAT of two
windows, a roll), widens the window to int32 by a RESCALE with a scale from the shapes the lowering emits (1, a
plain fraction, the U55's unscaled 2^19), and adds, subtracts or multiplies it with another int32 operand: a
second window of x, a widened y on its own or on x's grid, or a computed int32 tensor; then narrows to int8.
Every graph is checked two ways:

- with the pass, the stream must equal the reference model bit for bit (anything else is a hole in the rule:
  a new op case);
- without it, the outcome is recorded beside the rule's prediction (``departs_on_u55``). A departure the rule
  did not predict is also a hole; a predicted departure that came out exact is the allocation hiding it
  (Vela's stream ignores the window's offset; see the pass).

A graph that departs is run once more as its control, the same operators on an input of the window's shape:
when the control departs too, the finding is not this family's (counted apart, "departs without a window"; session 9
found ADD/SUBs of two different 16-bit operand scales there, now kept apart by arm/tosa/unequal_add_sub_scales.py).
"With the pass" means both U55 passes in the lowering's order, and a control that departs must be exact with them.

With ``--target ethos-u85-256`` the same graphs run on the U85 as the flow leaves them for it (no U55 pass): each
must be exact.

Outside CI (each graph costs two Vela compiles). ``python tools/u55_window_fuzz.py --graphs 200 --seed 0``;
prints one line per finding and a summary; exits 1 when the passes leave a graph (or its control) departing.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import sys

import numpy as np
import tosa_serializer as ts

from arm.artifacts import TensorIo, TosaArtifact
from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.npu_model.binding import NpuModel, NpuModelError
from arm.ethosu.npu_model.oracle import compare_delegate
from arm.ethosu.vela import compile_tosa
from arm.tosa.graph import TosaGraph, TosaValue, concat, int32_elementwise, slice_tensor
from arm.tosa.rescale import rescale
from arm.tosa.unequal_add_sub_scales import keep_unequal_add_sub_scales_apart
from arm.tosa.widened_window_copies import copy_widened_windows, departs_on_u55

INT8, INT32 = np.dtype(np.int8), np.dtype(np.int32)
TARGET = "ethos-u55-128"
_SCALES = (1.0, 0.5, 0.75, 2.0**19, 0.7 * 2.0**18, 3.0)
# A MUL of two operands widened by 2^19 overflows int32 (the reference model and the NPU then disagree for
# another reason than the window): MULs take the small scales.
_MUL_SCALES = (1.0, 0.5, 0.75, 3.0)
_READERS = (ts.Op.ADD, ts.Op.SUB, ts.Op.MUL)
_OTHERS = ("window", "same_grid_input", "other_grid_input", "computed")


@dataclasses.dataclass(frozen=True)
class WindowGraph:
    """One fuzzed graph: x of ``shape``; the window (``kind`` "slice" at ``start``/``size``, or "roll" of the last
    axis at ``start[-1]``) widened by ``scale`` with input zero point ``zero_point``; ``reader`` of it and
    ``other`` (a second window at ``other_start``, y, or y + y) widened by ``other_scale``."""

    shape: tuple[int, ...]
    kind: str
    start: tuple[int, ...]
    size: tuple[int, ...]
    scale: float
    zero_point: int
    reader: ts.Op
    other: str
    other_start: tuple[int, ...]
    other_scale: float

    def describe(self) -> str:
        return (f"{self.kind} of x{list(self.shape)} at {list(self.start)} size {list(self.size)} x{self.scale:g} "
                f"zp {self.zero_point} {self.reader.name} {self.other} x{self.other_scale:g}")  # fmt: skip


def random_graph(rng: np.random.Generator) -> WindowGraph:
    rank = int(rng.integers(2, 5))
    shape = tuple(int(rng.integers(2, 7)) for _ in range(rank - 1)) + (int(rng.integers(2, 17)),)
    kind = "roll" if rng.random() < 0.25 else "slice"
    axis = int(rng.integers(0, rank))
    size = list(shape)
    start = [0] * rank
    if kind == "roll":
        start[-1] = int(rng.integers(1, shape[-1]))
    else:
        size[axis] = int(rng.integers(1, shape[axis]))
        start[axis] = int(rng.integers(0, shape[axis] - size[axis] + 1))
    other_start = [0] * rank
    other_start[axis] = int(rng.integers(0, shape[axis] - size[axis] + 1)) if kind == "slice" else 0
    reader = _READERS[int(rng.integers(0, 3))]
    scales = _MUL_SCALES if reader == ts.Op.MUL else _SCALES
    scale = float(rng.choice(scales))
    other = str(rng.choice(_OTHERS))
    other_scale = scale if other in ("window", "same_grid_input") else float(rng.choice(scales))
    return WindowGraph(
        shape, kind, tuple(start), tuple(size), scale, int(rng.choice((0, -3, 5))), reader, other,
        tuple(other_start), other_scale,
    )  # fmt: skip


def build(spec: WindowGraph, *, copied: bool, windowless: bool = False) -> TosaGraph:
    """The graph of ``spec``; ``windowless``: the control, with an input of the window's shape in its place."""
    graph = TosaGraph()
    x = graph.add_input("x", spec.size if windowless else spec.shape, INT8)
    window = x if windowless else _window(graph, x, spec.kind, spec.start, spec.size, "w")
    wide = rescale(graph, window, name="w_int32", scales=[spec.scale], output_dtype=INT32, input_zp=spec.zero_point,
                   output_zp=0)  # fmt: skip
    if spec.other == "window":
        other_window = x if windowless else _window(graph, x, "slice", spec.other_start, spec.size, "v")
        other = rescale(graph, other_window, name="v_int32", scales=[spec.other_scale], output_dtype=INT32,
                        input_zp=spec.zero_point, output_zp=0)  # fmt: skip
    else:
        y = graph.add_input("y", spec.size, INT8)
        other = rescale(graph, y, name="y_int32", scales=[spec.other_scale], output_dtype=INT32, input_zp=0,
                        output_zp=0)  # fmt: skip
        if spec.other == "computed":
            other = int32_elementwise(graph, ts.Op.ADD, other, other, name="gate")
    result = int32_elementwise(graph, spec.reader, wide, other, name="result")
    largest = max(spec.scale, spec.other_scale)
    out_scale = 1 / (largest * largest * 512) if spec.reader == ts.Op.MUL else 1 / (largest * 4)
    graph.mark_output(rescale(graph, result, name="out", scales=[out_scale], output_dtype=INT8, input_zp=0,
                              output_zp=0))  # fmt: skip
    if copied:  # the flow's U55 passes, in the lowering's order (arm/tosa/lowering.py)
        keep_unequal_add_sub_scales_apart(graph)
        copy_widened_windows(graph)
    return graph


def predicted_departure(spec: WindowGraph) -> bool:
    graph = build(spec, copied=False)
    return any(departs_on_u55(graph, operator) for operator in graph.operators)


def mismatches(spec: WindowGraph, model: NpuModel, *, copied: bool, seed: int, windowless: bool = False,
               target: str = TARGET) -> int:
    """Outputs that differ from the reference model on ``target`` (``model`` is its NPU model); -1 when the NPU
    model stops at an access out of bounds."""
    graph = build(spec, copied=copied, windowless=windowless)
    inputs = tuple(TensorIo(name, graph.tensors[name].shape, INT8) for name in graph.inputs)
    tosa = TosaArtifact(graph.serialize(), inputs, (TensorIo("out", spec.size, INT8),), "TOSA-1.0+INT")
    rng = np.random.default_rng(seed)
    values = [rng.integers(-128, 128, io.shape).astype(np.int8) for io in inputs]
    stream = compile_tosa(tosa.flatbuffer, EthosUCompileSpec(target)).bin_stream
    try:
        (comparison,) = compare_delegate(tosa, stream, values, model)
    except NpuModelError:
        return -1
    return comparison.mismatches


def _window(graph: TosaGraph, x: TosaValue, kind: str, start, size, name: str) -> TosaValue:
    if kind == "slice":
        return slice_tensor(graph, x, start, size, name=name)
    axis, split = len(x.shape) - 1, start[-1]
    tail = slice_tensor(graph, x, (0,) * axis + (split,), (*x.shape[:-1], x.shape[-1] - split), name=f"{name}_tail")
    head = slice_tensor(graph, x, (0,) * (axis + 1), (*x.shape[:-1], split), name=f"{name}_head")
    return concat(graph, [tail, head], axis, name=name)


def replay(spec: WindowGraph, model: NpuModel, seed: int = 0) -> tuple[int, int]:
    """(mismatches without the pass, with it) for one graph: a finding turned into a test."""
    return mismatches(spec, model, copied=False, seed=seed), mismatches(spec, model, copied=True, seed=seed)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--target", default=TARGET, help=f"{TARGET} (default) or an ethos-u85-* configuration")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    if args.target.startswith("ethos-u85"):
        return _fuzz_without_u55_passes(rng, args.graphs, args.seed, args.target)
    model = NpuModel(TARGET)
    outcomes: collections.Counter[str] = collections.Counter()
    holes = 0
    for index in range(args.graphs):
        spec = random_graph(rng)
        predicted = predicted_departure(spec)
        with_copies = mismatches(spec, model, copied=True, seed=index)
        without = mismatches(spec, model, copied=False, seed=index)
        observed = without != 0
        if (observed or with_copies) and mismatches(spec, model, copied=False, seed=index, windowless=True):
            # Not this family's departure; the passes must still leave both the graph and its control exact.
            control = mismatches(spec, model, copied=True, seed=index, windowless=True)
            outcomes["departs without a window"] += 1
            holes += with_copies != 0 or control != 0
            print(f"#{index} {spec.describe()}: departs without a window too ({without} off with it); with the "
                  f"passes {with_copies} off, the control {control}")  # fmt: skip
            continue
        outcome = {(True, True): "predicted, departs", (True, False): "predicted, hidden by the allocation",
                   (False, False): "not predicted, exact", (False, True): "NOT PREDICTED, DEPARTS"}[predicted, observed]  # fmt: skip
        outcomes[outcome] += 1
        if with_copies != 0 or (observed and not predicted):
            holes += with_copies != 0
            print(f"#{index} {spec.describe()}: {without} off without the pass, {with_copies} with it ({outcome})")
    print(f"{args.graphs} graphs, seed {args.seed}: " + "; ".join(f"{name}: {count}" for name, count in outcomes.items()))
    return 1 if holes else 0


def _fuzz_without_u55_passes(rng: np.random.Generator, graphs: int, seed: int, target: str) -> int:
    """The same graphs on a U85, which the flow gives none of the U55 passes: every stream must be exact."""
    model = NpuModel(target)
    departing = 0
    for index in range(graphs):
        spec = random_graph(rng)
        if off := mismatches(spec, model, copied=False, seed=index, target=target):
            departing += 1
            print(f"#{index} {spec.describe()}: {off} off on {target}")
    print(f"{graphs} graphs, seed {seed}, {target}: {departing} departing")
    return 1 if departing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
