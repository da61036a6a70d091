"""A process that runs Vela for this one, so that Vela crashing or hanging cannot end the user's compile.

Vela's C++ core (``ethosu.regor``) compiles in the calling process, and on some graphs it crashes (timm's
mobilevit_xxs at 224x224 segfaults it on the U55). arm.ethosu.vela_process starts this module as a
child process that imports Vela alone (no torch: it starts in about a second and forks nothing) and
sends it one request per line on stdin; the child answers each on the pipe that was its stdout. Vela's
own console output (Python's and C++'s) goes to the log file each request names.

Request: ``{"arguments": [...Vela's command line...], "log": "/path/of/the/log"}``.
Answer: ``{"status": N}`` (Vela's exit status), ``{"failure": "..."}`` (Vela rejected the graph),
``{"key_error": "..."}`` (Vela raised KeyError: in 5.2.0 its --show-cpu-operations report does on bool
graph inputs and outputs, after compiling; arm.ethosu.vela compiles again without it), or
``{"rejected_arguments": true}`` (its argument parser exited; the log's last line says why).

This module imports nothing from the flow: it must stay light, and it must not import torch.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import BinaryIO, Callable, Iterator

from ethosu.vela import vela
from ethosu.vela.errors import VelaError

Answer = dict[str, object]


def run_vela(arguments: list[str]) -> Answer:
    """Vela's main on ``arguments``; how it ended, as an answer."""
    recursion_limit = sys.getrecursionlimit()  # Vela lowers it globally
    try:
        return {"status": vela.main(arguments)}
    except VelaError as error:
        return {"failure": str(error.data)}
    except (RuntimeError, ValueError) as error:  # regor reports rejected graphs as RuntimeError
        return {"failure": str(error)}
    except KeyError as error:
        return {"key_error": str(error)}
    except SystemExit as exit:  # its argument parser exits: on flags it does not accept, after printing
        # why, and after --version or --help
        return {"status": 0} if exit.code in (0, None) else {"rejected_arguments": True}
    finally:
        sys.setrecursionlimit(recursion_limit)


def serve(requests: BinaryIO, answers: BinaryIO, compile_one: Callable[[list[str]], Answer] = run_vela) -> None:
    """Answers requests until ``requests`` ends (the parent closed the pipe or exited)."""
    for line in requests:
        request = json.loads(line)
        with _output_to(request["log"]):
            answer = compile_one(request["arguments"])
        answers.write(json.dumps(answer).encode() + b"\n")
        answers.flush()


@contextlib.contextmanager
def _output_to(path: str) -> Iterator[None]:
    """File descriptors 1 and 2 (so sys.stdout, sys.stderr and C++'s streams alike) go to ``path``; they
    stay there after the request, as nothing else writes to them."""
    sys.stdout.flush()
    sys.stderr.flush()
    log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def main(compile_one: Callable[[list[str]], Answer] = run_vela) -> None:
    # The answers go on a copy of the original stdout; fd 1 itself is handed to each request's log.
    answers = os.fdopen(os.dup(1), "wb")
    sys.stdout.reconfigure(line_buffering=True)
    sys.stderr.reconfigure(line_buffering=True)
    serve(sys.stdin.buffer, answers, compile_one)


if __name__ == "__main__":
    main()
