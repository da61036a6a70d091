"""Where a delegate's TOSA graph departs from the quantized model it was lowered from, op by op.

Lowers a model for tosa-INT, keeping each partition's edge program and the TOSA value of each of its
nodes. The edge program is then evaluated in float64 (its (de)quantize ops as the zoo harness computes
them: the same integer grids without float32's rounding), and every quantize node's int8 codes are set
beside the TOSA tensor that holds them, read off the reference model by making it a graph output.
The first quantize in graph order whose codes differ names the op whose lowering departs; later ones
inherit the difference.

    python -m models.quantized_bisect --factory models.efficientnet_b0:small --calibration-samples 4
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from typing import Callable

import numpy as np
import torch
import tosa_reference_model
from torch.export import ExportedProgram
from torch.fx import Interpreter, Node

import arm.tosa.lowering as lowering
from arm.flow import resolve_target, run_flow
from arm.model_spec import load_model_spec
from arm.tosa.context import LoweringContext
from arm.tosa.layout import NHWC_TO_NCHW


@dataclasses.dataclass(frozen=True)
class Departure:
    node: str
    producer: str
    differing: int
    at_ties: int
    size: int
    max_lsb: int


def _recording_context(recorded: list[LoweringContext]) -> type[LoweringContext]:
    class Recording(LoweringContext):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            recorded.append(self)

    return Recording


class _Float64(Interpreter):
    """Evaluates an edge program in float64 and compares each quantize node's codes with the TOSA graph's.

    ``isolate`` hands the TOSA graph's codes on after each comparison, so every op is judged on the
    inputs the TOSA graph gave it: a row then shows that op's own departure, not an inherited one.
    """

    def __init__(self, module: torch.fx.GraphModule, tosa_codes: dict[str, np.ndarray], isolate: bool) -> None:
        super().__init__(module.double())
        self.tosa_codes = tosa_codes
        self.isolate = isolate
        self.departures: list[Departure] = []

    def run_node(self, node: Node) -> object:
        if node.op != "call_function":
            return super().run_node(node)
        args, kwargs = self.fetch_args_kwargs_from_env(node)
        if not _is_quantize(node):
            return _call_in_float64(node, args, kwargs)
        x, scale, zero_point, quant_min, quant_max, dtype = args[:6]
        steps = x.double() / float(scale)
        codes = torch.clamp(torch.round(steps) + int(zero_point), quant_min, quant_max).to(dtype)
        if node.name not in self.tosa_codes:
            return codes
        got = self.tosa_codes[node.name].reshape(codes.shape)
        difference = np.abs(got.astype(np.int64) - codes.numpy().astype(np.int64))
        # A value a hair from a half step: float64 noise decides torch's side of the tie.
        tie = np.abs(np.abs(steps.numpy() - np.floor(steps.numpy())) - 0.5) < 1e-6
        producer = node.args[0]
        self.departures.append(Departure(
            node.name, f"{producer.name} ({getattr(producer.target, '__name__', producer.target)})",
            int(np.count_nonzero(difference)), int(np.count_nonzero(difference & tie)), difference.size,
            int(difference.max()),
        ))  # fmt: skip
        return torch.from_numpy(got.astype(codes.numpy().dtype)) if self.isolate else codes


def _is_quantize(node: Node) -> bool:
    target = str(node.target)
    return node.op == "call_function" and "quantize_per_tensor" in target and "dequantize" not in target


def _call_in_float64(node: Node, args: tuple, kwargs: dict) -> object:
    target = str(node.target)
    if "dequantize_per_channel" in target:
        x, scales, zero_points, axis = args[:4]
        shape = [1] * x.dim()
        shape[axis] = -1
        return (x.double() - zero_points.view(shape).double()) * scales.view(shape).double()
    if "dequantize_per_tensor" in target:
        x, scale, zero_point = args[:3]
        return (x.double() - int(zero_point)) * float(scale)
    args = tuple(a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args)
    return node.target(*args, **kwargs)


def _tosa_tensor(ctx: LoweringContext, node: Node) -> tuple[str, Callable[[np.ndarray], np.ndarray]] | None:
    """The live TOSA tensor holding ``node``'s value, and how to bring its array back to the node's shape.

    The layout passes move a value into another layout or shape under a suffixed name:
    ``<name>_nhwc``, ``<name>_perm0231`` (arm.tosa.layout), ``<name>_as_1x1x7x48`` (arm.tosa.reshape_sinking),
    chained in the order they were applied.
    """
    value = ctx.values.get(node)
    if value is None:
        return None
    tensors = ctx.graph.tensors
    produced = {name for operator in ctx.graph.operators for name in operator.outputs} | set(ctx.graph.inputs)
    for name in sorted(produced, key=len):
        if name != value.name and not name.startswith(f"{value.name}_"):
            continue
        undo = []
        prefix, rest = value.name, name[len(value.name):]
        while rest:
            match = re.match(r"_(nhwc|perm\d+|as_[\dx]+)", rest)
            if match is None:
                break
            token = match.group(1)
            shape = tensors[prefix].shape
            if token == "nhwc":
                undo.append(lambda a: np.transpose(a, NHWC_TO_NCHW))
            elif token.startswith("perm"):
                order = tuple(np.argsort([int(d) for d in token[4:]]))
                undo.append(lambda a, order=order: np.transpose(a, order))
            else:
                undo.append(lambda a, shape=shape: a.reshape(shape))
            prefix, rest = f"{prefix}_{token}", rest[match.end():]
        if rest:
            continue

        def back(array: np.ndarray, steps: list = undo) -> np.ndarray:
            for step in reversed(steps):
                array = step(array)
            return array

        return name, back
    return None


def bisect(edge_program: ExportedProgram, ctx: LoweringContext, inputs: list[np.ndarray], *, isolate: bool) -> list[Departure]:
    quantizes = [node for node in edge_program.graph.nodes if _is_quantize(node)]
    watched = {node.name: found for node in quantizes if (found := _tosa_tensor(ctx, node)) is not None}
    graph = ctx.graph
    outputs = list(graph.outputs)
    extra = [name for name, _ in watched.values() if name not in outputs]
    graph.outputs = outputs + extra
    try:
        results, status = tosa_reference_model.run(graph.serialize(), inputs)
    finally:
        graph.outputs = outputs
    assert status == tosa_reference_model.GraphStatus.TOSA_VALID, status
    by_name = dict(zip(outputs + extra, results))
    tosa_codes = {node: back(np.asarray(by_name[name])) for node, (name, back) in watched.items()}
    interpreter = _Float64(edge_program.module(), tosa_codes, isolate)
    interpreter.run(*(torch.from_numpy(np.asarray(x)) for x in inputs))
    return interpreter.departures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--factory", required=True, help="module:function returning a ModelSpec")
    parser.add_argument("--calibration-samples", type=int, default=4)
    parser.add_argument("--sample", type=int, default=0, help="which calibration input to run")
    parser.add_argument("--chained", action="store_true",
                        help="let differences propagate (default: each op is fed the TOSA graph's codes)")
    args = parser.parse_args(argv)

    recorded: list[LoweringContext] = []
    lowering.LoweringContext = _recording_context(recorded)
    spec = load_model_spec(args.factory)
    result = run_flow(spec, resolve_target("tosa-INT"), calibration_samples=args.calibration_samples, progress=False)
    sample = spec.calibration_inputs[args.sample]
    # The flow may lower a partition more than once (fallback retries): the last lowerings are the kept ones.
    for ctx, artifact in zip(recorded[-len(result.artifacts.tosa):], result.artifacts.tosa):
        inputs = [io.quantize(x.numpy()) for io, x in zip(artifact.inputs, sample)]
        for d in bisect(ctx.program, ctx, inputs, isolate=not args.chained):
            flag = "  " if d.differing == d.at_ties else "!!"
            print(f"{flag} {d.node:50s} {d.differing:7d}/{d.size:<7d} ({d.at_ties} at ties) max {d.max_lsb:3d} LSB  "
                  f"from {d.producer}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
