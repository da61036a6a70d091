"""A Vela crash, abort, hang or silent exit costs one request, with the reason named, never this process.

The faults come from arm.ethosu.faulty_vela_server (the real server with a deterministic death on graphs
holding a MUL); the graphs are one-operator TOSA graphs, so each Vela run takes milliseconds. The test
talks to the server process directly and imports no torch (arm.ethosu.vela's VelaCompileError wrapping
is checked by vela_crash_fallback_test and vela_departures_test).
"""

from pathlib import Path

import numpy as np
import pytest
import tosa_serializer as ts

from arm.ethosu.vela_process import VelaProcess, VelaProcessDied


def _graph(op: str) -> bytes:
    graph = ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)
    graph.addInputTensor(ts.TosaSerializerTensor("x", [1, 4, 4, 8], ts.DType.INT8))
    out = graph.addIntermediate([1, 4, 4, 8], ts.DType.INT8 if op == "CLAMP" else ts.DType.INT32)
    attribute = ts.TosaSerializerAttribute()
    if op == "CLAMP":
        low, high = list(np.int8(-10).tobytes()), list(np.int8(20).tobytes())
        attribute.ClampAttribute(low, high, ts.NanPropagationMode.PROPAGATE)
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


def _vela(tmp_path: Path, graph: bytes) -> tuple[list[str], Path]:
    """Vela's arguments for ``graph`` on the U55-128, and the log path."""
    tosa = tmp_path / "model.tosa"
    tosa.write_bytes(graph)
    arguments = ["--accelerator-config=ethos-u55-128", "--system-config=Ethos_U55_High_End_Embedded",
                 "--memory-mode=Shared_Sram", "--config=Arm/vela.ini", "--output-format=raw",
                 f"--output-dir={tmp_path / 'out'}", str(tosa)]  # fmt: skip
    return arguments, tmp_path / "vela.log"


@pytest.fixture
def faulty_vela():
    """Yields a function that starts a faulty Vela process with the given fault; ends them afterwards."""
    servers = []

    def start(fault: str) -> VelaProcess:
        servers.append(VelaProcess("arm.ethosu.faulty_vela_server", ("--fault", fault, "--when-op", "MUL")))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("segv", "crashed with SIGSEGV"),
        ("abort", "crashed with SIGABRT"),
        ("exit", "exited with status 7 without answering"),
    ],
)
def test_a_dying_vela_is_named_and_the_next_request_gets_a_new_one(
    faulty_vela, tmp_path: Path, fault: str, reason: str
) -> None:
    server = faulty_vela(fault)
    assert server.run(*_vela(tmp_path, _graph("CLAMP")), timeout_s=120) == {"status": 0}
    with pytest.raises(VelaProcessDied, match=f"^{reason}"):
        server.run(*_vela(tmp_path, _graph("MUL")), timeout_s=120)
    arguments, log = _vela(tmp_path, _graph("CLAMP"))
    assert server.run(arguments, log, timeout_s=120) == {"status": 0}
    assert "NPU operators = 1" in log.read_text()


def test_a_hanging_vela_is_stopped_at_the_time_limit(faulty_vela, tmp_path: Path) -> None:
    server = faulty_vela("hang")
    with pytest.raises(VelaProcessDied, match=r"^did not finish within 3 s and was stopped"):
        server.run(*_vela(tmp_path, _graph("MUL")), timeout_s=3)
    assert server.run(*_vela(tmp_path, _graph("CLAMP")), timeout_s=120) == {"status": 0}


def test_the_real_server_compiles_the_graph_the_faulty_one_dies_on(tmp_path: Path) -> None:
    server = VelaProcess()  # the faults are the test server's, not the graph's
    try:
        assert server.run(["--version"], tmp_path / "version.log", timeout_s=120) == {"status": 0}
        assert server.run(*_vela(tmp_path, _graph("MUL")), timeout_s=120) == {"status": 0}
        assert server.run(["--no-such-flag"], tmp_path / "flag.log", timeout_s=120) == {"rejected_arguments": True}
    finally:
        server.close()


# atexit runs its handlers last-registered first: one registered before shared() runs after the
# shared server's close, and finds the server already waited for (so its CPU time is this process's
# children's, which /usr/bin/time and bench.compile_time count).
_EXIT_CHECK = """
import atexit, os
from arm.ethosu import vela_process
pids = []
def server_gone():
    try:
        os.kill(pids[0], 0)
    except ProcessLookupError:
        print("server gone", flush=True)
    else:
        print("server still running", flush=True)
atexit.register(server_gone)
vela_process.shared().warm_up()
pids.append(vela_process.shared()._server.pid)
"""


def test_the_shared_server_is_waited_for_when_the_process_exits() -> None:
    import subprocess
    import sys

    completed = subprocess.run([sys.executable, "-c", _EXIT_CHECK], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "server gone"
