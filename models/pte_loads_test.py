"""The .pte files built by arm_pte parse in ExecuTorch's own host runtime, up to the NPU delegate.

The executorch wheel's runtime has no Arm delegates, so loading a method must stop exactly at "backend
not registered" for our delegate id; any earlier failure (flatbuffer, plan, kernel lookup) is a format bug.
"""

import pathlib

import pytest
from executorch.runtime import Runtime

PTE_FILES = sorted(pathlib.Path(__file__).parent.glob("*.pte"))


def test_pte_files_are_present():
    assert PTE_FILES, "no .pte in the test's runfiles: check the data attribute of the test target"


@pytest.mark.parametrize("pte", PTE_FILES, ids=[p.stem for p in PTE_FILES])
def test_pte_loads_up_to_the_delegate(pte: pathlib.Path, capfd):
    program = Runtime.get().load_program(pte.read_bytes())
    assert set(program.method_names) == {"forward"}

    with pytest.raises(RuntimeError):
        program.load_method("forward")

    log = capfd.readouterr().err
    delegate_id = "TOSABackend" if pte.stem.endswith("_tosa_pte") else "EthosUBackend"
    assert f"{delegate_id} is not registered" in log or f"Backend {delegate_id} is not registered" in log, log
