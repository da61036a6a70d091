"""The Vela process beside this one (arm.ethosu.vela_server): started once, restarted after it dies.

Vela's C++ core can crash (a segfault, an abort) or, in principle, hang on a graph; in process either
would end the user's whole compile. Here such a death costs one partition: ``VelaProcess.run`` raises
``VelaProcessDied`` naming the signal (or the time limit), and the next request starts a fresh server.

Why a server rather than a fork per compile: forking a process that holds torch (350 MiB and more) took
40-80 ms on this project's loaded 2-core machine, and up to half a second with a model in memory. The
server holds only Vela, starts once per process (about a second, overlapped with the first partition's
TOSA lowering by ``warm_up``), and a request then costs a line each way on a pipe.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

SERVER_MODULE = "arm.ethosu.vela_server"
_STARTUP_LOG_TAIL = 2000
# A server between requests exits at once when its stdin closes; one that does not is killed.
_CLOSE_TIMEOUT_S = 30.0


class VelaProcessDied(RuntimeError):
    """The Vela process ended (a signal, an exit) before answering, or ran past its time limit."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class VelaProcess:
    """One server process, started on first use; requests are serialized (one Vela run at a time)."""

    def __init__(self, module: str = SERVER_MODULE, arguments: tuple[str, ...] = ()):
        self._command = [sys.executable, "-P", "-m", module, *arguments]  # -P: no cwd on sys.path
        self._lock = threading.Lock()
        self._server: subprocess.Popen[bytes] | None = None
        self._startup_output: tempfile._TemporaryFileWrapper[bytes] | None = None

    def warm_up(self) -> None:
        """Starts the server now, so its imports overlap whatever the caller does next."""
        with self._lock:
            self._ensure_started()

    def run(self, arguments: list[str], log_path: Path, timeout_s: float) -> dict[str, object]:
        """Vela's main on ``arguments`` in the server, its output to ``log_path``; the server's answer
        (see arm.ethosu.vela_server).

        Raises:
            VelaProcessDied: the server crashed or exited without answering, or took longer than
                ``timeout_s`` (it is then killed); the next call starts a new one.
        """
        with self._lock:
            server = self._ensure_started()
            request = json.dumps({"arguments": arguments, "log": str(log_path)}).encode() + b"\n"
            try:
                assert server.stdin is not None
                server.stdin.write(request)
                server.stdin.flush()
            except BrokenPipeError:
                raise self._died() from None
            line, timed_out = _read_line(server, timeout_s)
            if timed_out:
                server.kill()
                self._forget()
                raise VelaProcessDied(f"did not finish within {timeout_s:g} s and was stopped")
            if line is None:
                raise self._died()
            return json.loads(line)

    def close(self) -> None:
        """Ends the server (it exits when its stdin closes) and waits for it: a process that exits
        after this has its server's CPU time in its own children's (what /usr/bin/time and
        bench.compile_time count), where an orphaned server's would be counted nowhere."""
        with self._lock:
            if self._server is not None:
                assert self._server.stdin is not None
                self._server.stdin.close()
                try:
                    self._server.wait(timeout=_CLOSE_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    self._server.kill()
                self._forget()

    def _ensure_started(self) -> subprocess.Popen[bytes]:
        if self._server is None:
            if not sys.executable:
                raise VelaProcessDied("cannot start a Vela process: this Python does not know its own executable")
            self._startup_output = tempfile.TemporaryFile(prefix="arm-vela-server-")
            environment = dict(os.environ, PYTHONPATH=os.pathsep.join(_import_path()))
            self._server = subprocess.Popen(
                self._command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._startup_output,  # until the first request hands fd 2 to its log
                env=environment,
            )
        return self._server

    def _died(self) -> VelaProcessDied:
        """The reason a server that closed its answer pipe gives; forgets it so the next call restarts."""
        assert self._server is not None
        code = self._server.wait()
        startup = self._startup_tail()
        self._forget()
        if code < 0:
            return VelaProcessDied(f"crashed with {_signal_name(-code)}")
        return VelaProcessDied(f"exited with status {code} without answering" + (f":\n{startup}" if startup else ""))

    def _startup_tail(self) -> str:
        if self._startup_output is None:
            return ""
        self._startup_output.seek(0)
        return self._startup_output.read()[-_STARTUP_LOG_TAIL:].decode(errors="replace").strip()

    def _forget(self) -> None:
        if self._server is not None:
            self._server.wait()
            for pipe in (self._server.stdin, self._server.stdout):
                if pipe is not None:
                    pipe.close()
        if self._startup_output is not None:
            self._startup_output.close()
        self._server, self._startup_output = None, None


def _import_path() -> list[str]:
    """This process's sys.path for the server, less the folder of the ``arm`` package itself (on the
    path when a script in arm/ runs), where arm/ethosu/ would hide Vela's top-level ``ethosu``."""
    arm_folder = Path(__file__).resolve().parent.parent
    return [entry for entry in sys.path if entry and Path(entry).resolve() != arm_folder]


def _read_line(server: subprocess.Popen[bytes], timeout_s: float) -> tuple[bytes | None, bool]:
    """The server's next answer line (None at end of file), and whether time ran out first."""
    assert server.stdout is not None
    fd = server.stdout.fileno()
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None, True
        readable, _, _ = select.select([fd], [], [], remaining)
        if not readable:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return None, False
        chunks.append(chunk)
        if chunk.endswith(b"\n"):  # one request, one line: nothing follows it
            return b"".join(chunks), False


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


_shared: VelaProcess | None = None
_shared_lock = threading.Lock()


def shared() -> VelaProcess:
    """This process's Vela server (one for every compile the process makes), ended when this process
    exits."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = VelaProcess()
            atexit.register(_shared.close)
        return _shared
