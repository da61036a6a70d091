"""For tests: arm.ethosu.vela_server with a fault on the graphs that hold a given TOSA operator.

    python -m arm.ethosu.faulty_vela_server --fault segv --when-op MUL

compiles every other graph as the real server does, and on a graph with a MUL segfaults (``segv``),
aborts (``abort``), hangs (``hang``) or exits without answering (``exit``): the deaths Vela's C++ core
can die, made deterministic so that tests can check what the flow does about them.
"""

from __future__ import annotations

import argparse
import os
import signal
import time
from pathlib import Path

from tosa.Op import Op
from tosa.TosaGraph import TosaGraph

from arm.ethosu import vela_server


def _operators(tosa_path: Path) -> set[int]:
    block = TosaGraph.GetRootAs(tosa_path.read_bytes(), 0).Regions(0).Blocks(0)
    return {block.Operators(index).Op() for index in range(block.OperatorsLength())}


def _die(fault: str) -> None:
    if fault == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif fault == "abort":
        os.abort()
    elif fault == "hang":
        while True:
            time.sleep(60)
    os._exit(7)  # "exit": gone without an answer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", choices=["segv", "abort", "hang", "exit"], required=True)
    parser.add_argument("--when-op", required=True, help="a TOSA operator name, e.g. MUL")
    args = parser.parse_args()
    trigger = getattr(Op, args.when_op)

    def compile_one(arguments: list[str]) -> vela_server.Answer:
        if trigger in _operators(Path(arguments[-1])):  # the TOSA file is Vela's last argument
            _die(args.fault)
        return vela_server.run_vela(arguments)

    vela_server.main(compile_one)


if __name__ == "__main__":
    main()
