"""arm.compile as a Bazel persistent worker: one Python process lowers many models, importing torch once.

Bazel starts ``arm/compile --persistent_worker`` and sends it JSON WorkRequests on stdin, one per
``arm_pte`` action; each request's ``arguments`` are an ordinary ``arm.compile`` command line, and the
response carries that command's exit status and everything it printed. A lowering that runs in a worker
writes the same bytes as one that runs alone (``compile_worker_test`` checks it), so a worker changes
how long a build takes and nothing else; ``--strategy=ArmPte=sandboxed`` turns it off.

Two things keep the process honest between requests:
- stdout belongs to the protocol, so the file descriptors 1 and 2 point at a capture file while a
  request runs (Vela's C++ core prints there too, below Python's ``sys.stdout``);
- model modules imported for a request are forgotten after it, so an edited model file is read anew.
Random state is not carried over either way: torch seeds each process from OS entropy, so a model
factory must seed its own weights (models/ and ModelSpec factories do) for any build to be repeatable.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Callable

WORKER_FLAG = "--persistent_worker"


@dataclasses.dataclass(frozen=True)
class WorkRequest:
    arguments: list[str]
    request_id: int


def read_requests(stream: BinaryIO) -> Iterator[WorkRequest]:
    """Yields the JSON WorkRequests Bazel writes to ``stream``, until it closes.

    Bazel prints each request without insignificant whitespace; nothing promises a newline between two,
    so the stream is decoded object by object rather than line by line.
    """
    decoder = json.JSONDecoder()
    buffer = ""
    while True:
        buffer = buffer.lstrip()
        try:
            message, end = decoder.raw_decode(buffer)
        except json.JSONDecodeError:
            chunk = stream.read1(1 << 16) if hasattr(stream, "read1") else stream.read(1 << 16)
            if not chunk:
                if buffer.strip():
                    raise ValueError(f"worker input ended inside a request: {buffer[:200]!r}") from None
                return
            buffer += chunk.decode()
            continue
        buffer = buffer[end:]
        yield WorkRequest(arguments=[str(arg) for arg in message.get("arguments", [])],
                          request_id=int(message.get("requestId", 0)))


def write_response(stream: BinaryIO, request: WorkRequest, exit_code: int, output: str) -> None:
    response = {"exitCode": exit_code, "output": output, "requestId": request.request_id}
    stream.write(json.dumps(response).encode() + b"\n")
    stream.flush()


@contextlib.contextmanager
def _captured_descriptors() -> Iterator[Callable[[], str]]:
    """Points file descriptors 1 and 2 (and Python's streams) at a temporary file for the block."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    with tempfile.TemporaryFile() as capture:
        try:
            for fd in (1, 2):
                os.dup2(capture.fileno(), fd)
            yield lambda: _read_all(capture)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, duplicate in saved.items():
                os.dup2(duplicate, fd)
                os.close(duplicate)


def _read_all(capture: BinaryIO) -> str:
    sys.stdout.flush()
    sys.stderr.flush()
    capture.seek(0)
    return capture.read().decode(errors="replace")




def _forget_model_modules(directory: Path, before: set[str]) -> None:
    """Drops the modules a request imported from ``directory`` (the execroot), i.e. the model files.

    The flow itself (``arm``) stays: it is the worker's own code, fully imported at start-up, and
    Bazel restarts the worker when it changes.
    """
    root = str(directory.resolve())
    for name in set(sys.modules) - before:
        if name == "arm" or name.startswith("arm."):
            continue
        origin = getattr(sys.modules[name], "__file__", None) or ""
        if origin.startswith(root) or os.path.realpath(origin).startswith(root):
            del sys.modules[name]


def serve(compile_main: Callable[[list[str]], int], requests: BinaryIO, responses: BinaryIO) -> int:
    """Answers every request with ``compile_main(arguments)``; returns when Bazel closes stdin."""
    for request in read_requests(requests):
        before = set(sys.modules)
        with _captured_descriptors() as captured:
            try:
                exit_code = compile_main(request.arguments)
            except SystemExit as exit_request:  # argparse's usage errors
                exit_code = exit_request.code if isinstance(exit_request.code, int) else 2
            output = captured()
        _forget_model_modules(Path.cwd(), before)
        write_response(responses, request, exit_code, output)
    return 0


def run_worker(compile_main: Callable[[list[str]], int]) -> int:
    """Serves on the process's stdin/stdout, which from now on carry only the protocol."""
    from arm.ops.common import registry


    registry.op_names()  # every op module now, so no request imports a piece of the flow lazily
    protocol_out = os.fdopen(os.dup(1), "wb")
    # Anything printed outside a request (import-time warnings) goes to stderr, never into the protocol.
    os.dup2(2, 1)
    return serve(compile_main, sys.stdin.buffer, protocol_out)
