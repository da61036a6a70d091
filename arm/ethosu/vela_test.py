import numpy as np
import pytest
import tosa_serializer as ts

from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.bin_stream import IoTensor, parse_bin_stream
from arm.ethosu.vela import VelaCompileError, compile_tosa


def _clamp_graph(shape: list[int]) -> bytes:
    graph = ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)
    graph.addInputTensor(ts.TosaSerializerTensor("x", shape, ts.DType.INT8))
    out = graph.addIntermediate(shape, ts.DType.INT8)
    attr = ts.TosaSerializerAttribute()
    attr.ClampAttribute(list(np.int8(-10).tobytes()), list(np.int8(20).tobytes()), ts.NanPropagationMode.PROPAGATE)
    graph.addOperator(ts.Op.CLAMP, ["x"], [out.name], attr)
    graph.addOutputTensor(out)
    return graph.serialize()


def _add_gather(graph: ts.TosaSerializer) -> None:
    """Rows [1, 3, 4] of int8 values [1, 10, 4] picked by int32 indices: an op Vela leaves on the CPU."""
    graph.addInputTensor(ts.TosaSerializerTensor("values", [1, 10, 4], ts.DType.INT8))
    graph.addInputTensor(ts.TosaSerializerTensor("indices", [1, 3], ts.DType.INT32))
    rows = graph.addIntermediate([1, 3, 4], ts.DType.INT8)
    attr = ts.TosaSerializerAttribute()
    attr.GatherAttribute()
    graph.addOperator(ts.Op.GATHER, ["values", "indices"], [rows.name], attr)
    graph.addOutputTensor(rows)


def _gather_graph() -> bytes:
    graph = ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)
    _add_gather(graph)
    return graph.serialize()


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
def test_compiles_to_bin_stream(target):
    artifact = compile_tosa(_clamp_graph([1, 8, 8, 16]), EthosUCompileSpec(target))
    stream = parse_bin_stream(artifact.bin_stream)
    assert stream.cmd_data.startswith(b"COP1")
    assert stream.inputs == (IoTensor((1, 1, 1, 8, 8, 16), 1, stream.inputs[0].offset, stream.inputs[0].region),)
    assert len(stream.outputs) == 1
    assert artifact.cpu_ops == ()
    assert 0 < artifact.npu_cycles <= artifact.total_cycles
    assert artifact.summary_csv.splitlines()[1].startswith("default,model,")
    assert "NPU operators = 1" in artifact.log


def test_is_deterministic():
    spec = EthosUCompileSpec("ethos-u55-128")
    first, second = (compile_tosa(_clamp_graph([1, 4, 4, 8]), spec) for _ in range(2))
    assert (first.bin_stream, first.summary_csv) == (second.bin_stream, second.summary_csv)


def test_operator_left_on_cpu_raises():
    with pytest.raises(VelaCompileError, match=r"left 1 operator\(s\) on the CPU for ethos-u85-256: Gather"):
        compile_tosa(_gather_graph(), EthosUCompileSpec("ethos-u85-256"))


def test_unsupported_operator_raises_naming_target():
    with pytest.raises(VelaCompileError, match=r"ethos-u55-128: .*Gather"):
        compile_tosa(_gather_graph(), EthosUCompileSpec("ethos-u55-128"))


def test_bad_flag_raises_with_vela_reason():
    spec = EthosUCompileSpec("ethos-u55-128", extra_flags=["--no-such-flag"])
    with pytest.raises(VelaCompileError, match="unrecognized arguments: --no-such-flag"):
        compile_tosa(_clamp_graph([1, 4, 4, 8]), spec)


def test_bad_system_config_raises():
    spec = EthosUCompileSpec("ethos-u55-128", system_config="No_Such_System")
    with pytest.raises(VelaCompileError, match="No_Such_System"):
        compile_tosa(_clamp_graph([1, 4, 4, 8]), spec)


def _logical_not_then_gather_graph(with_gather: bool) -> bytes:
    """A bool graph input and output (LOGICAL_NOT), and optionally a GATHER the U85 leaves on the CPU."""
    graph = ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)
    graph.addInputTensor(ts.TosaSerializerTensor("flags", [2, 8], ts.DType.BOOL))
    flipped = graph.addIntermediate([2, 8], ts.DType.BOOL)
    attr = ts.TosaSerializerAttribute()
    attr.LogicalNotAttribute()
    graph.addOperator(ts.Op.LOGICAL_NOT, ["flags"], [flipped.name], attr)
    graph.addOutputTensor(flipped)
    if with_gather:
        _add_gather(graph)
    return graph.serialize()


def test_bool_graph_io_compiles_on_u85():
    # Vela 5.2.0's --show-cpu-operations report raises KeyError on bool graph I/O; compile_tosa then
    # reads the CPU operators from Vela's debug database instead.
    artifact = compile_tosa(_logical_not_then_gather_graph(with_gather=False), EthosUCompileSpec("ethos-u85-256"))
    stream = parse_bin_stream(artifact.bin_stream)
    assert artifact.cpu_ops == ()
    assert [(io.elem_size, io.shape[-2:]) for io in (*stream.inputs, *stream.outputs)] == [(1, (2, 8)), (1, (2, 8))]


def test_bool_graph_io_still_names_cpu_operators():
    with pytest.raises(VelaCompileError, match=r"left 1 operator\(s\) on the CPU for ethos-u85-256: Gather"):
        compile_tosa(_logical_not_then_gather_graph(with_gather=True), EthosUCompileSpec("ethos-u85-256"))
