"""The Ethos-U delegates of a .pte built by arm_pte, paired with their TOSA graphs for the oracle.

arm_pte writes ``<name>.pte`` and, beside it, the TOSA graph of partition 0 as ``<name>.tosa`` (partition
i > 0 as ``<name>_i.tosa``). The .pte holds each partition's Vela bin stream in execution-plan order,
which is the order the flow lowered (and wrote) the partitions in.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
from executorch.exir._serialize._program import deserialize_pte_binary
from tosa.DType import DType
from tosa.TosaGraph import TosaGraph

from arm.artifacts import TensorIo, TosaArtifact
from arm.compile_spec import EthosUCompileSpec

_NUMPY_TYPES = {DType.INT8: np.int8, DType.INT16: np.int16, DType.INT32: np.int32, DType.BOOL: np.bool_}


@dataclasses.dataclass(frozen=True)
class EthosUDelegate:
    """One partition: the TOSA graph the flow gave Vela and the bin stream Vela made of it."""

    index: int
    tosa: TosaArtifact
    bin_stream: bytes


def ethos_u_bin_streams(pte: bytes) -> list[bytes]:
    """The Vela bin streams of every EthosUBackend delegate, in execution-plan order."""
    program = deserialize_pte_binary(pte).program
    return [
        program.backend_delegate_data[delegate.processed.index].data
        for plan in program.execution_plan
        for delegate in plan.delegates
        if delegate.id == EthosUCompileSpec.backend_id
    ]


def tosa_artifact(flatbuffer: bytes) -> TosaArtifact:
    """The graph's integer I/O as the oracle feeds and reads it (no quantization parameters: a .tosa has none)."""
    block = TosaGraph.GetRootAs(flatbuffer, 0).Regions(0).Blocks(0)
    tensors = {tensor.Name().decode(): tensor for tensor in (block.Tensors(i) for i in range(block.TensorsLength()))}

    def io(name: bytes) -> TensorIo:
        tensor = tensors[name.decode()]
        if tensor.Type() not in _NUMPY_TYPES:
            raise ValueError(f"TOSA I/O tensor {name.decode()!r} has type {tensor.Type()}; Ethos-U delegates take integers")
        shape = tuple(int(tensor.Shape(d)) for d in range(tensor.ShapeLength()))
        return TensorIo(name.decode(), shape, np.dtype(_NUMPY_TYPES[tensor.Type()]))

    return TosaArtifact(
        flatbuffer=flatbuffer,
        inputs=tuple(io(block.Inputs(i)) for i in range(block.InputsLength())),
        outputs=tuple(io(block.Outputs(i)) for i in range(block.OutputsLength())),
        spec="TOSA-1.0+INT",
    )


def partition_tosa_graphs(pte_path: Path, count: int) -> list[TosaArtifact]:
    """The TOSA graphs of a .pte's first ``count`` partitions, from the .tosa files arm_pte wrote beside it."""
    graphs = []
    for index in range(count):
        suffix = "" if index == 0 else f"_{index}"
        tosa_path = pte_path.with_name(f"{pte_path.stem}{suffix}.tosa")
        if not tosa_path.exists():
            raise FileNotFoundError(
                f"{pte_path.name} has {count} delegates but {tosa_path.name} is missing: arm_pte "
                f"declares only partition 0's TOSA graph as an output"
            )
        graphs.append(tosa_artifact(tosa_path.read_bytes()))
    return graphs


def load_ethos_u_delegates(pte_path: Path) -> list[EthosUDelegate]:
    """Every Ethos-U delegate of ``pte_path`` with the TOSA graph arm_pte wrote beside it."""
    streams = ethos_u_bin_streams(pte_path.read_bytes())
    if not streams:
        raise ValueError(f"{pte_path} has no {EthosUCompileSpec.backend_id} delegate")
    graphs = partition_tosa_graphs(pte_path, len(streams))
    return [EthosUDelegate(index, graph, stream) for index, (graph, stream) in enumerate(zip(graphs, streams))]


def random_integer_inputs(tosa: TosaArtifact, rng: np.random.Generator) -> list[np.ndarray]:
    """Inputs over each type's whole range: saturation and the extremes of every rescale get exercised."""
    inputs = []
    for io in tosa.inputs:
        if io.dtype == np.bool_:
            inputs.append(rng.integers(0, 2, io.shape).astype(np.bool_))
        else:
            info = np.iinfo(io.dtype)
            inputs.append(rng.integers(info.min, info.max, io.shape, endpoint=True, dtype=io.dtype))
    return inputs
