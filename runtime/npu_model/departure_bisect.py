"""Finds the first TOSA operator of an Ethos-U delegate whose result on the NPU model departs from the TOSA reference model.

    python -m runtime.npu_model.departure_bisect --pte deit_tiny_u85_pte.pte --target ethos-u85-256 [--delegate 0]
    python -m runtime.npu_model.departure_bisect --tosa graph.tosa --target ethos-u55-128

The NPU model runs what Vela's command stream says, so a delegate that departs has either a stream that computes
something else (a Vela bug) or a model that reads the stream wrongly (ours). Either way the search starts at the TOSA
operator. The graph is cut after operator k (``tosa_probes.segment``: every kept operator byte for byte the
delegate's own) with every tensor still live there as an output, compiled by Vela, and run on both models from the
same seeded inputs; the first k whose prefix departs is found by bisection over the operators (a prefix that departs
stays departing as it grows: its live tensors carry the difference on). That operator is then compiled alone, fed the
reference model's own values of its inputs, which says whether it departs by itself or only in its context (Vela
fusing it with a neighbour, a buffer it shares). Both graphs are written out for a closer look (``--keep``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from arm.artifacts import TosaArtifact
from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.npu_model.binding import NpuModel, NpuModelError
from arm.ethosu.npu_model.oracle import compare_delegate
from arm.ethosu.npu_model.pte_delegates import load_ethos_u_delegates, random_integer_inputs, tosa_artifact
from arm.ethosu.vela import VelaCompileError, compile_tosa
from arm.report import tosa_probes

# Operators that only declare constants: never a place to cut.
_CONSTANT_OPS = frozenset({"CONST", "CONST_SHAPE"})


@dataclasses.dataclass(frozen=True)
class SegmentRun:
    """One cut graph compiled by Vela and run on both models."""

    graph: bytes
    differing: dict[str, tuple[int, int, int]]  # output -> (values differing, of how many, largest difference)

    @property
    def departs(self) -> bool:
        return bool(self.differing)

    def describe(self) -> str:
        if not self.differing:
            return "bit-exact"
        return "; ".join(f"{name}: {count} of {size} differ, by up to {most}" for name, (count, size, most) in self.differing.items())


@dataclasses.dataclass(frozen=True)
class Departure:
    """The first operator whose prefix departs, and how it behaves alone."""

    operator: tosa_probes.OperatorInfo
    prefix: SegmentRun
    alone: SegmentRun | None  # None when the operator alone does not compile (the reason is in ``alone_error``)
    alone_error: str
    compiles: int  # Vela runs the search took


def run_segment(graph: bytes, values: dict[str, np.ndarray], target: str, npu: NpuModel) -> SegmentRun:
    """Compiles ``graph`` for ``target`` and compares its outputs on the NPU model with ``values`` (the reference
    model's values of the whole graph's tensors, which feed the segment's inputs too)."""
    artifact = tosa_artifact(graph)
    inputs = [values[io.name].astype(io.dtype).reshape(io.shape) for io in artifact.inputs]
    stream = compile_tosa(graph, EthosUCompileSpec(target)).bin_stream
    comparisons = compare_delegate(artifact, stream, inputs, npu)
    differing = {}
    for io, comparison in zip(artifact.outputs, comparisons, strict=True):
        expected = values[io.name].reshape(io.shape)
        if not np.array_equal(comparison.reference, expected.astype(comparison.reference.dtype)):
            raise AssertionError(f"the segment's reference output {io.name} is not the whole graph's: a bad cut")
        if comparison.mismatches:
            differing[io.name] = (comparison.mismatches, comparison.npu.size, comparison.max_difference)
    return SegmentRun(graph, differing)


class Bisection:
    """A delegate's TOSA graph, its reference values on one input, and the prefixes cut from it."""

    def __init__(self, flatbuffer: bytes, inputs: Sequence[np.ndarray], target: str, npu: NpuModel):
        self.flatbuffer = flatbuffer
        self.target = target
        self.npu = npu
        self.operators = tosa_probes.operator_table(flatbuffer)
        self.names = tosa_probes.tensor_names(flatbuffer)
        self.graph_inputs = [io.name for io in tosa_artifact(flatbuffer).inputs]
        self.graph_outputs = tosa_probes.graph_outputs(flatbuffer)
        table = tosa_probes.tensor_table(flatbuffer)
        computed = [operator for operator in self.operators if operator.op not in _CONSTANT_OPS]
        # The reference model cannot hand out a tensor numpy cannot hold (INT48 accumulators), and Vela takes
        # no such graph output: such tensors are never probed, and no cut leaves one live.
        self.readable = {name for operator in computed for name in operator.outputs if table[name].dtype is not None}
        self.values = tosa_probes.run_with_probes(flatbuffer, inputs, sorted(self.readable))
        self.values.update(zip(self.graph_inputs, inputs))
        self.cuts = computed
        self.cut_positions = [
            position for position in range(len(computed)) if set(self.live_after(position)) <= self.readable
        ]
        self.compiles = 0

    def live_after(self, position: int) -> list[str]:
        """Tensors computed by ``cuts[: position + 1]`` that a later operator (or the graph's output) reads."""
        done = {name for operator in self.cuts[: position + 1] for name in operator.outputs}
        later = {name for operator in self.cuts[position + 1 :] for name in operator.inputs}
        later.update(self.graph_outputs)
        last = self.cuts[position].outputs
        return sorted({name for name in done if name in later} | set(last))

    def segment(self, inputs: Sequence[str], outputs: Sequence[str]) -> bytes:
        _, reads = tosa_probes.segment_operators(self.operators, outputs, set(inputs))
        return tosa_probes.segment(self.flatbuffer, [name for name in inputs if name in reads], outputs, self.operators, self.names)

    def prefix(self, position: int) -> SegmentRun:
        self.compiles += 1
        return run_segment(self.segment(self.graph_inputs, self.live_after(position)), self.values, self.target, self.npu)

    def alone(self, operator: tosa_probes.OperatorInfo) -> SegmentRun:
        self.compiles += 1
        computed = [name for name in operator.inputs if name in self.values]
        return run_segment(self.segment(computed, list(operator.outputs)), self.values, self.target, self.npu)

    def first_departure(self, log: Callable[[str], None] = lambda line: None) -> Departure | None:
        positions = list(self.cut_positions)
        whole = self.prefix(positions[-1])
        log(f"whole graph ({len(self.cuts)} operators): {whole.describe()}")
        if not whole.departs:
            return None
        # Bisection over the cut positions: the prefix ending at positions[high] departs, none before low does.
        low, high, found = 0, len(positions) - 1, whole
        while low < high:
            middle = (low + high) // 2
            cut = self.cuts[positions[middle]]
            try:
                run = self.prefix(positions[middle])
            except (VelaCompileError, NpuModelError) as error:
                # Cut there, Vela may choose an operation the NPU model does not model (an 8-to-32-bit table):
                # that position is dropped and the search goes on over the others.
                log(f"the prefix to #{cut.index} does not run ({error}); dropping that cut")
                del positions[middle]
                high -= 1
                continue
            log(f"prefix to #{cut.index} {cut.op} {cut.outputs[0]}: {run.describe()}")
            if run.departs:
                high, found = middle, run
            else:
                low = middle + 1
        # Operators between the last exact cut and the departing one (unreadable tensors in between) are candidates
        # together; the last of them is named, and the prefix's differing outputs say which ones are involved.
        operator = self.cuts[positions[high]]
        try:
            alone, error = self.alone(operator), ""
        except (VelaCompileError, NpuModelError) as failure:
            alone, error = None, str(failure)
        return Departure(operator, found, alone, error, self.compiles)


def _delegate_graph(args: argparse.Namespace) -> bytes:
    if args.tosa:
        return args.tosa.read_bytes()
    return load_ethos_u_delegates(args.pte)[args.delegate].tosa.flatbuffer


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--pte", type=Path, help="a .pte built by arm_pte (its .tosa files beside it)")
    source.add_argument("--tosa", type=Path, help="a delegate's TOSA graph")
    parser.add_argument("--delegate", type=int, default=0, help="which Ethos-U delegate of --pte")
    parser.add_argument("--target", required=True, help="the Vela accelerator, e.g. ethos-u85-256")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random integer inputs")
    parser.add_argument("--keep", type=Path, help="write the departing prefix and the operator alone here (.tosa)")
    args = parser.parse_args(argv)

    graph = _delegate_graph(args)
    inputs = random_integer_inputs(tosa_artifact(graph), np.random.default_rng(args.seed))
    bisection = Bisection(graph, inputs, args.target, NpuModel(args.target))
    found = bisection.first_departure(log=print)
    if found is None:
        print("the delegate is bit-exact on the NPU model for these inputs")
        return 0
    operator = found.operator
    print(f"first departing operator: #{operator.index} {operator.op} {list(operator.inputs)} -> {list(operator.outputs)}")
    print(f"  its prefix: {found.prefix.describe()}")
    print(f"  alone, from the reference model's inputs: {found.alone.describe() if found.alone else found.alone_error}")
    print(f"  ({found.compiles} Vela compiles)")
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        (args.keep / "prefix.tosa").write_bytes(found.prefix.graph)
        if found.alone:
            (args.keep / "alone.tosa").write_bytes(found.alone.graph)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
