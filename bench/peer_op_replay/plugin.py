"""The pytest plugin that turns the peer's op tests into replays of our flow.

Before pytest imports a test module, ``pytest_configure`` replaces the peer's pipeline classes with
stand-ins (stand_ins.py) and blocks the peer's flow: ``ArmTester`` and the peer's partitioner raise
instead of compiling, so a test that would run the peer's own lowering records "not replayed".
Collection keeps the sampled cases of the chosen targets; each pipeline a test runs becomes one
``CaseResult``.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any, Callable, Iterator

import pytest

from bench.peer_op_replay import stand_ins
from bench.peer_op_replay.replay import timed
from bench.peer_op_replay.request import ReplayRequest
from bench.peer_op_replay.sampling import case_target, stratified_sample


class PeerFlowBlocked(RuntimeError):
    """Raised where a test would run the peer's own flow, which a replay never does."""


@dataclasses.dataclass
class CaseResult:
    case: str  # the peer's pytest node id; "#n" marks the n-th pipeline of one test
    file: str
    op: str  # the test file's op: test_<op>.py
    target: str
    pipeline: str
    outcome: str
    detail: str = ""
    reasons: list[str] = dataclasses.field(default_factory=list)
    numbers_checked: bool = False
    a16w8: bool = False
    seconds: float = 0.0
    peer_xfail: str = ""  # the peer marks this case as failing for itself, with this reason


# Peer pipelines the replay does not cover, and why.
_NOT_REPLAYED = {
    "VgfPipeline": "VGF: its numbers need lavapipe, which Bazel sets up (arm/vgf); not replayed here",
    "EthosU65PipelineINT": "U65: our flow compiles it, but the NPU model has no U65 configuration to check numbers",
}


# xfail marks of the peer's that are about its test machine (no FVP, no Vulkan layers), not its flow.
_MACHINE_XFAILS = ("Did not find", "VKML environment")


@dataclasses.dataclass
class ReplayOptions:
    targets: tuple[str, ...]
    per_file: int | None  # None: every case
    seed: int
    timeout_s: int
    # Results of an earlier, interrupted run of the same sample: those cases are not run again.
    earlier: list[CaseResult] = dataclasses.field(default_factory=list)
    # The case that earlier run was in when it stopped, as (file, case): it killed the process.
    crashed: tuple[str, str] | None = None


class ReplayPlugin:
    def __init__(self, options: ReplayOptions, on_result: Callable[[CaseResult], None],
                 on_start: Callable[[str, str], None] = lambda file, case: None):  # fmt: skip
        self.options = options
        self.on_result = on_result
        self.on_start = on_start
        self.results: list[CaseResult] = list(options.earlier)
        self.collected: dict[str, int] = {}
        self._item: Any = None
        self._pipelines_run = 0

    # --- set-up ---

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        _replace_peer_pipelines()
        _block_peer_flow()
        stand_ins.install_runner(self._run_request)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        stand_ins.install_runner(None)

    @pytest.hookimpl(tryfirst=True)  # sample before -k selects, so that -k picks from the same sample
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list) -> None:
        wanted = [item for item in items if _target_of(item) in self.options.targets]
        for item in wanted:
            self.collected[_target_of(item)] = self.collected.get(_target_of(item), 0) + 1
        chosen = stratified_sample(wanted, lambda item: (item.path.name, _target_of(item)), self.options.per_file,
                                   self.options.seed)  # fmt: skip
        done = {(result.file, result.case.split("#", 1)[0]) for result in self.results}
        crashed = [item for item in chosen if _key(item) == self.options.crashed and _key(item) not in done]
        for item in crashed:
            self._record(item, _target_of(item), "-", "internal_error", "the replay process died in this case (a crash in native code)")
        done |= {_key(item) for item in crashed}
        chosen = [item for item in chosen if _key(item) not in done]
        kept = set(chosen)
        deselected = [item for item in items if item not in kept]
        items[:] = chosen
        config.hook.pytest_deselected(items=deselected)

    # --- per case ---

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: Any) -> Iterator[None]:
        before = len(self.results)
        yield
        if len(self.results) == before:  # the test never ran: the peer's own skip marks (skipif, skip)
            skips = [str(mark.kwargs.get("reason", mark.args[0] if mark.args else "")) for mark in item.iter_markers()
                     if mark.name in ("skip", "skipif")]  # fmt: skip
            self._record(item, _target_of(item), "-", "not_replayed", f"skipped by the peer's test: {'; '.join(skips)}")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        self._item, self._pipelines_run = item, 0
        self.on_start(*_key(item))
        outcome = yield
        if self._pipelines_run == 0:
            error = outcome.excinfo[1] if outcome.excinfo else None
            why = "the test runs no peer pipeline" + (f" ({type(error).__name__}: {error})" if error else "")
            self._record(item, _target_of(item), "-", "not_replayed", why)
        self._item = None

    def _run_request(self, request: ReplayRequest) -> None:
        item = self._item
        self._pipelines_run += 1
        if request.pipeline in _NOT_REPLAYED:
            request = dataclasses.replace(request, target=None, not_replayed=_NOT_REPLAYED[request.pipeline])
        verdict, seconds = timed(request, self.options.timeout_s)
        self._record(
            item,
            request.target or _target_of(item),
            request.pipeline,
            verdict.outcome,
            verdict.detail,
            reasons=verdict.reasons,
            numbers_checked=verdict.numbers_checked,
            a16w8=request.a16w8,
            seconds=round(seconds, 2),
        )

    def _record(self, item: Any, target: str, pipeline: str, outcome: str, detail: str, **fields: Any) -> None:
        suffix = f"#{self._pipelines_run}" if self._pipelines_run > 1 else ""
        xfails = [str(mark.kwargs.get("reason", "xfail")) for mark in item.iter_markers("xfail")]
        xfails = [reason for reason in xfails if not reason.startswith(_MACHINE_XFAILS)]
        result = CaseResult(
            case=item.nodeid.split("::", 1)[-1] + suffix,
            file=item.path.name,
            op=item.path.stem.removeprefix("test_"),
            target=target,
            pipeline=pipeline,
            outcome=outcome,
            detail=detail,
            peer_xfail=xfails[0] if xfails else "",
            **fields,
        )
        self.results.append(result)
        self.on_result(result)


def _key(item: Any) -> tuple[str, str]:
    return item.path.name, item.nodeid.split("::", 1)[-1]


def _target_of(item: Any) -> str | None:
    return case_target(getattr(item, "originalname", None) or item.name.split("[", 1)[0])


def _replace_peer_pipelines() -> None:
    from executorch.backends.arm.test.tester import test_pipeline

    base = test_pipeline.BasePipeline
    for name, value in list(vars(test_pipeline).items()):
        if isinstance(value, type) and issubclass(value, base) and value is not base:
            setattr(test_pipeline, name, stand_ins.stand_in_for(value))


def _block_peer_flow() -> None:
    from executorch.backends.arm.test.tester import arm_tester
    from executorch.backends.arm.tosa import partitioner
    from executorch.exir.backend.backend_details import BackendDetails

    def blocked(*_args: Any, **_kwargs: Any) -> None:
        raise PeerFlowBlocked("the replay never runs the peer's own flow")

    # A subclass, so that tests still find its methods as stage functions (ArmTester.check_not).
    arm_tester.ArmTester = type("ArmTester", (arm_tester.ArmTester,), {"__init__": blocked})
    partitioner.TOSAPartitioner.partition = blocked
    # Some tests call a backend's preprocess directly; our own backends are other classes (arm.*).
    for backend in BackendDetails.__subclasses__():
        if backend.__module__.startswith("executorch.backends.arm"):
            for name in ("preprocess", "_preprocess"):
                if hasattr(backend, name):
                    setattr(backend, name, staticmethod(blocked))


def real_stderr() -> Any:
    """pytest captures sys.stderr while a test runs; progress goes to the process's own stderr."""
    return sys.__stderr__ if sys.__stderr__ is not None else open(os.devnull, "w")
