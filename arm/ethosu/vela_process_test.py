"""A Vela crash, abort, hang or silent exit costs one compile, with the reason named, never the process.

The faults come from arm.ethosu.faulty_vela_server (the real server with a deterministic death on graphs
holding a MUL); the graphs are one-operator TOSA graphs, so each compile takes Vela milliseconds.
"""

from pathlib import Path

import numpy as np
import pytest
import tosa_serializer as ts

from arm.compile_spec import EthosUCompileSpec
from arm.ethosu import vela_process
from arm.ethosu.vela import VelaCompileError, compile_tosa

U55 = EthosUCompileSpec("ethos-u55-128")


def _graph(op: str) -> bytes:
    graph = ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)
    graph.addInputTensor(ts.TosaSerializerTensor("x", [1, 4, 4, 8], ts.DType.INT8))
    out = graph.addIntermediate([1, 4, 4, 8], ts.DType.INT8 if op == "CLAMP" else ts.DType.INT32)
    attribute = ts.TosaSerializerAttribute()
    if op == "CLAMP":
        attribute.ClampAttribute(list(np.int8(-10).tobytes()), list(np.int8(20).tobytes()), ts.NanPropagationMode.PROPAGATE)
        graph.addOperator(ts.Op.CLAMP, ["x"], [out.name], attribute)
    else:  # x as int32 times itself
        wide = graph.addIntermediate([1, 4, 4, 8], ts.DType.INT32)
        rescale = ts.TosaSerializerAttribute()
        rescale.RescaleAttribute(True, ts.RoundingMode.SINGLE_ROUND, False, False, False)
        constants = [
            graph.addConst([1], ts.DType.INT32, [1 << 30]).name,
            graph.addConst([1], ts.DType.INT8, [30]).name,
            graph.addConst([1], ts.DType.INT8, [0]).name,
            graph.addConst([1], ts.DType.INT32, [0]).name,
        ]
        graph.addOperator(ts.Op.RESCALE, ["x", *constants], [wide.name], rescale)
        shift = graph.addConst([1], ts.DType.INT8, [0])
        attribute.MulAttribute()
        graph.addOperator(ts.Op.MUL, [wide.name, wide.name, shift.name], [out.name], attribute)
    graph.addOutputTensor(out)
    return graph.serialize()


@pytest.fixture
def faulty_vela(monkeypatch: pytest.MonkeyPatch):
    """Installs a faulty Vela process as the shared one; yields a function that picks the fault."""
    servers = []

    def install(fault: str) -> vela_process.VelaProcess:
        server = vela_process.VelaProcess("arm.ethosu.faulty_vela_server", ("--fault", fault, "--when-op", "MUL"))
        servers.append(server)
        monkeypatch.setattr(vela_process, "_shared", server)
        return server

    yield install
    for server in servers:
        server.close()


def test_a_healthy_graph_compiles_through_the_faulty_server(faulty_vela) -> None:
    faulty_vela("segv")
    assert compile_tosa(_graph("CLAMP"), U55).npu_cycles > 0


@pytest.mark.parametrize(
    ("fault", "reason"),
    [("segv", "crashed with SIGSEGV"), ("abort", "crashed with SIGABRT"), ("exit", "exited with status 7 without answering")],
)
def test_a_dying_vela_becomes_a_compile_error_and_the_next_compile_works(faulty_vela, fault: str, reason: str) -> None:
    faulty_vela(fault)
    with pytest.raises(VelaCompileError, match=rf"Vela failed to compile the TOSA graph for ethos-u55-128: Vela {reason}"):
        compile_tosa(_graph("MUL"), U55)
    # A new server takes the next request.
    assert compile_tosa(_graph("CLAMP"), U55).npu_cycles > 0


def test_a_hanging_vela_is_stopped_at_the_time_limit(faulty_vela) -> None:
    faulty_vela("hang")
    with pytest.raises(VelaCompileError, match=r"Vela did not finish within 5 s and was stopped"):
        compile_tosa(_graph("MUL"), U55, timeout_s=5)
    assert compile_tosa(_graph("CLAMP"), U55).npu_cycles > 0


def test_the_real_server_compiles_the_graph_the_faulty_one_dies_on() -> None:
    # The faults are the test server's, not the graph's: Vela itself compiles it.
    server = vela_process.VelaProcess()
    try:
        log = Path("/dev/null")
        assert server.run(["--version"], log, 60) == {"status": 0}
    finally:
        server.close()
    assert compile_tosa(_graph("MUL"), U55).npu_cycles > 0
