"""Stand-ins for the peer's test pipelines: same constructor signatures, our flow behind ``run()``.

The peer's op tests build a pipeline (``TosaPipelineINT(module, test_data, aten_op, exir_op, qtol=1)``),
may edit it (``pop_stage``, ``change_args``, ``pipeline.quantizer.set_global(...)``, extra check stages),
then call ``run()``. A stand-in binds the arguments to the peer class's own signature (so every argument
is accepted and recorded by name), keeps the list of stage ids the peer's pipeline would have (so popping
or changing a stage means what it means there), and on ``run()`` hands a ``ReplayRequest`` to the runner
that plugin.py installs. Nothing of the peer's flow runs: its stages are only names here.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from typing import Any, Callable, ClassVar

from bench.peer_op_replay.request import QuantizerCall, ReplayRequest, Tolerance

# The peer's stage that compares the lowered program's outputs with the reference module's.
COMPARE_STAGE = "run_method_and_compare_outputs"
# The peer's delegation checks: no expected op left outside a delegate, and the delegate count.
DELEGATION_STAGES = ("check_not.exir", "check_count.exir")

Runner = Callable[[ReplayRequest], None]
_runner: Runner | None = None


def install_runner(runner: Runner | None) -> None:
    """Sets what ``run()`` of every stand-in calls (plugin.py installs the replay engine)."""
    global _runner
    _runner = runner


@dataclasses.dataclass
class _Stage:
    id: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)


class _InertTester:
    """``pipeline.tester``: its methods are only used as stage functions (by name) or to set flags."""

    def __getattr__(self, name: str) -> Callable[..., None]:
        if name.startswith("__"):
            raise AttributeError(name)

        def stage_function(*_args: Any, **_kwargs: Any) -> None:
            return None

        stage_function.__name__ = name
        return stage_function


class _QuantizerRecorder:
    """``pipeline.quantizer``: records ``set_global``/``set_io``/``set_module_type``/... for the replay."""

    def __init__(self) -> None:
        self.calls: list[QuantizerCall] = []

    def __getattr__(self, name: str) -> Callable[..., "_QuantizerRecorder"]:
        if name.startswith("__"):
            raise AttributeError(name)

        def record(*args: Any, **kwargs: Any) -> _QuantizerRecorder:
            self.calls.append(QuantizerCall(name, args + tuple(kwargs.values())))
            return self

        return record


class StandInPipeline:
    """Base of the stand-ins; ``peer_class`` is the peer pipeline class it replaces."""

    peer_class: ClassVar[type]

    def __class_getitem__(cls, _item: Any) -> type:
        return cls  # TosaPipelineINT[input_t](...) in the peer's tests

    def __init__(self, *args: Any, **kwargs: Any):
        bound = inspect.signature(self.peer_class.__init__).bind(self, *args, **kwargs)
        bound.apply_defaults()
        self.params: dict[str, Any] = {name: value for name, value in bound.arguments.items() if name != "self"}
        self.test_data = self.params.get("test_data")
        self.tester = _InertTester()
        self._recorder = _QuantizerRecorder()
        self._stages: list[_Stage] = [self._initial_stage(stage_id) for stage_id in self.stage_ids()]

    # --- what the peer's tests call on a pipeline ---

    @property
    def quantizer(self) -> _QuantizerRecorder:
        return self._recorder

    def add_stage(self, func: Callable, *args: Any, **kwargs: Any) -> StandInPipeline:
        pos = kwargs.pop("pos", -1)
        suffix = kwargs.pop("suffix", None)
        stage = _Stage(f"{func.__name__}.{suffix}" if suffix else func.__name__, args, kwargs)
        self._stages.insert(len(self._stages) + pos + 1 if pos < 0 else pos, stage)
        return self

    def add_stage_after(self, stage_id: str, func: Callable, *args: Any, **kwargs: Any) -> StandInPipeline:
        kwargs["pos"] = self.find_pos(stage_id) + 1 if self.has_stage(stage_id) else len(self._stages)
        return self.add_stage(func, *args, **kwargs)

    def pop_stage(self, identifier: int | str) -> _Stage | None:
        if isinstance(identifier, int):
            return self._stages.pop(identifier)
        return self._stages.pop(self.find_pos(identifier)) if self.has_stage(identifier) else None

    def find_pos(self, stage_id: str) -> int:
        for index, stage in enumerate(self._stages):
            if stage.id == stage_id:
                return index
        raise KeyError(f"stage {stage_id} not in the pipeline")

    def has_stage(self, stage_id: str) -> bool:
        return any(stage.id == stage_id for stage in self._stages)

    def change_args(self, stage_id: str, *args: Any, **kwargs: Any) -> StandInPipeline:
        # As the peer's PipelineStage.update: the new arguments replace the old ones entirely.
        if self.has_stage(stage_id):
            stage = self._stages[self.find_pos(stage_id)]
            stage.args, stage.kwargs = args, kwargs
        return self

    def __getattr__(self, name: str) -> Callable[..., StandInPipeline]:
        # count_tosa_ops, dump_artifact, visualize, run_and_compare_to_initial_model, ...: checks of the
        # peer's own TOSA graph or debugging aids, with no meaning for our lowering.
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self

    def run(self) -> None:
        if _runner is None:
            raise RuntimeError("no replay runner installed: run the peer's tests through python -m bench.peer_op_replay")
        _runner(self.request())

    # --- per pipeline kind ---

    def stage_ids(self) -> list[str]:
        return []

    def request(self) -> ReplayRequest:
        return ReplayRequest(
            self.peer_class.__name__, None, None, self.test_data, not_replayed=f"{self.peer_class.__name__} is not replayed"
        )

    # --- shared by the kinds ---

    def _initial_stage(self, stage_id: str) -> _Stage:
        if stage_id == "quantize":
            # The peer's Quantize stage object: tests set its calibration_samples.
            return _Stage(stage_id, (types.SimpleNamespace(quantizer=self._recorder, calibration_samples=None),))
        if stage_id != COMPARE_STAGE:
            return _Stage(stage_id)
        tolerance = {key: self.params[key] for key in ("atol", "rtol", "qtol") if key in self.params}
        return _Stage(stage_id, (), {"inputs": self.test_data, **tolerance})

    def _tolerance(self) -> Tolerance | None:
        if not self.has_stage(COMPARE_STAGE):
            return None
        stage = self._stages[self.find_pos(COMPARE_STAGE)]
        kwargs = dict(stage.kwargs)
        if stage.args and not isinstance(stage.args[0], str):
            kwargs.setdefault("inputs", stage.args[0])  # change_args(stage, new_inputs, ...): the peer's `stage` slot
        if not kwargs.get("compare_outputs", True):
            return None
        return Tolerance(
            atol=float(kwargs.get("atol", 1e-3)),
            rtol=float(kwargs.get("rtol", 1e-3)),
            qtol=int(kwargs.get("qtol", 0)),
            inputs=kwargs.get("inputs"),
        )

    def _calibration(self) -> Any:
        if not self.has_stage("quantize") or not self._stages[self.find_pos("quantize")].args:
            return None
        return getattr(self._stages[self.find_pos("quantize")].args[0], "calibration_samples", None)

    def _request(self, target: str, **fields: Any) -> ReplayRequest:
        version = self.params.get("tosa_version") or "1.0"
        extensions = tuple(self.params.get("tosa_extensions") or ())
        return ReplayRequest(
            pipeline=self.peer_class.__name__,
            target=target,
            module=self.params["module"],
            test_data=self.test_data,
            tosa_extensions=extensions,
            per_channel=bool(self.params.get("per_channel_quantization", True)),
            symmetric_io=bool(self.params.get("symmetric_io_quantization", False)),
            quantizer_calls=tuple(self._recorder.calls),
            require_delegation=any(self.has_stage(stage) for stage in DELEGATION_STAGES),
            calibration=self._calibration(),
            not_replayed="" if version == "1.0" else f"TOSA {version}: our targets are TOSA 1.0",
            **fields,
        )


_BASE = ["export", "check.aten", "to_edge_transform_and_lower", "check_not.exir", "check_count.exir", "to_executorch"]
_QUANTIZED = ["quantize", "check.quant_nodes", "export", "check.aten", "to_edge_transform_and_lower",
              "check_not.quant_nodes", "check_not.exir", "check_count.exir", "to_executorch"]  # fmt: skip


class TosaFP(StandInPipeline):
    def stage_ids(self) -> list[str]:
        compare = [COMPARE_STAGE] if self.params["run_on_tosa_ref_model"] else []
        return ["export", "check_not.quant_nodes", *_BASE[1:], *compare]

    def request(self) -> ReplayRequest:
        return self._request("tosa_FP", tolerance=self._tolerance())


class TosaINT(StandInPipeline):
    def stage_ids(self) -> list[str]:
        compare = [COMPARE_STAGE] if self.params["run_on_tosa_ref_model"] else []
        stages = [*_QUANTIZED, *compare]
        stages.insert(stages.index("export") + 1, f"{COMPARE_STAGE}.original_model")
        return stages

    def request(self) -> ReplayRequest:
        int16 = "int16" in (self.params.get("tosa_extensions") or ())
        return self._request("tosa_INT", a16w8=int16, tolerance=self._tolerance())


class EthosU(StandInPipeline):
    target: ClassVar[str]

    def stage_ids(self) -> list[str]:
        return [*_QUANTIZED, *(["serialize", COMPARE_STAGE] if self.params["run_on_fvp"] else [])]

    def request(self) -> ReplayRequest:
        a16w8 = bool(self.params.get("a16w8_quantization", False))
        return self._request(self.target, a16w8=a16w8, tolerance=self._tolerance())


class EthosU55(EthosU):
    target = "u55_INT"


class EthosU85(EthosU):
    target = "u85_INT"


class OpNotSupported(StandInPipeline):
    def stage_ids(self) -> list[str]:
        return (["quantize"] if self.params["quantize"] else []) + _BASE[:-1]

    def _target(self) -> str:
        if self.params.get("u55_subset"):
            return "u55_INT"
        return "tosa_INT" if self.params["quantize"] else "tosa_FP"

    def request(self) -> ReplayRequest:
        return self._request(
            self._target(),
            expect_cpu=dict(self.params["non_delegated_ops"]),
            n_expected_delegates=int(self.params["n_expected_delegates"]),
        )


# The peer pipeline class name -> the stand-in kind replaying it; every other pipeline class of the
# peer's test_pipeline module is replaced by a plain StandInPipeline, which records "not replayed".
STAND_IN_KINDS: dict[str, type[StandInPipeline]] = {
    "TosaPipelineFP": TosaFP,
    "TosaPipelineINT": TosaINT,
    "EthosU55PipelineINT": EthosU55,
    "EthosU85PipelineINT": EthosU85,
    "OpNotSupportedPipeline": OpNotSupported,
}


def stand_in_for(peer_class: type) -> type[StandInPipeline]:
    """A stand-in class for ``peer_class``, carrying its name and constructor signature."""
    kind = STAND_IN_KINDS.get(peer_class.__name__, StandInPipeline)
    return type(peer_class.__name__, (kind,), {"peer_class": peer_class, "__module__": __name__})
