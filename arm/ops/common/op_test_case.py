"""A named, runnable example of one operator, shared by the op's own module and the test harness."""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING, Callable, Mapping

import torch

if TYPE_CHECKING:  # the quantizer imports the op registry, which imports this module
    from arm.quantizer.quantization_config import QuantizationConfig


# Every harness target, for a case that stays on the CPU everywhere (``cpu_targets=EVERY_TARGET``).
EVERY_TARGET = ("tosa_FP", "tosa_INT", "u55_INT", "u85_INT", "vgf_FP", "vgf_INT")


@dataclasses.dataclass(frozen=True)
class OpTestCase:
    """``module(*inputs)`` exercises the op; ``calibration`` holds extra input tuples for INT observers.

    The inputs themselves are always part of calibration, so an empty list is fine. ``cpu_targets``
    names the harness targets (e.g. ``"u55_INT"``) whose support rule must reject the case: there the
    test asserts that nothing is delegated, instead of running it. ``quantization`` makes the INT
    targets quantize with another config than their int8 default (e.g. a16w8). ``known_departures``
    maps an Ethos-U harness target to the evidence that Vela's command stream for this case does not
    compute what the TOSA graph does: there the test asserts that the departure is still there (so a
    fixed Vela or model makes it fail and the entry goes), instead of bit-exactness.
    ``steps_from_quantized`` is how many output steps the delegate may be from the quantized module:
    one (both round the same real value) unless the lowering approximates by design, as an int16
    TABLE does by interpolating between entries 128 input codes apart (common/table.py).
    ``targets`` are the harness targets the case runs on at all (default: every one); a variant of
    another case that only a float target can tell apart (the same op in float16) names those.
    ``tosa_extensions`` are added to the TOSA specification of the TOSA FP target (``("bf16",)`` for a
    bfloat16 case; the other targets keep theirs and so keep such a case on the CPU).
    ``differing_from_quantized`` is the largest share of output elements that may be a step off at all:
    a lowering that computes the quantized module's real value with too little precision rounds it
    the other way now and then, which a one-step bound cannot see but a deep network amplifies.
    ``float64_oracle`` evaluates the quantized module in float64 (arm/report/float64_quantized.py) for
    those checks: for cases built on values within 1e-5 of a step of a rounding tie, which float32's
    own rounding (about 1e-6 of a step at 40 steps) would otherwise decide.
    """

    module: torch.nn.Module
    inputs: tuple[torch.Tensor, ...]
    calibration: list[tuple[torch.Tensor, ...]] = dataclasses.field(default_factory=list)
    cpu_targets: tuple[str, ...] = ()
    quantization: Callable[[], QuantizationConfig] | None = None
    known_departures: Mapping[str, str] = dataclasses.field(default_factory=dict)
    steps_from_quantized: float = 1.0
    differing_from_quantized: float = 1.0
    tosa_extensions: tuple[str, ...] = ()
    targets: tuple[str, ...] = EVERY_TARGET
    float64_oracle: bool = False

    def calibration_inputs(self) -> list[tuple[torch.Tensor, ...]]:
        return [self.inputs, *self.calibration]


# Half-precision variants run on the float targets: the INT targets quantize the model to int8 whatever
# its float type, which the float32 case already checks.
HALF_TARGETS = ("tosa_FP", "vgf_FP")


# Bool data movement (a mask sliced or expanded) runs on the float targets; the INT targets' movement
# lowerings requantize, so a bool-only model has nothing they quantize.
BOOL_MOVEMENT_TARGETS = ("tosa_FP", "vgf_FP")


def in_float_type(case: OpTestCase, dtype: torch.dtype) -> OpTestCase:
    """``case`` with its module and inputs in ``dtype`` (float16 or bfloat16), checked against PyTorch's
    own result in that type. float16 is delegated on both float targets; bfloat16 on tosa_FP with the
    bf16 extension, while VGF (TOSA-1.0+FP, no extension) keeps it on the CPU."""
    module = copy.deepcopy(case.module).to(dtype)
    inputs = tuple(tensor.to(dtype) if tensor.is_floating_point() else tensor for tensor in case.inputs)
    bf16 = dtype == torch.bfloat16
    return dataclasses.replace(
        case,
        module=module,
        inputs=inputs,
        calibration=[],
        targets=HALF_TARGETS,
        cpu_targets=("vgf_FP",) if bf16 else (),
        tosa_extensions=("bf16",) if bf16 else (),
    )


def half_precision_cases(case: OpTestCase) -> dict[str, OpTestCase]:
    """``case`` in float16 and in bfloat16 (see ``in_float_type``), named by the type."""
    return {"float16": in_float_type(case, torch.float16), "bfloat16": in_float_type(case, torch.bfloat16)}


def random_inputs(seed: int, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Deterministic normal-distributed inputs, so every run of a case sees the same numbers."""
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(shape, generator=generator) for shape in shapes)


def seeded(seed: int, build: type[torch.nn.Module], *args: object, **kwargs: object) -> torch.nn.Module:
    """Builds ``build(*args, **kwargs)`` in eval mode with parameters drawn from ``seed``."""
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return build(*args, **kwargs).eval()


class FunctionModule(torch.nn.Module):
    """Wraps a plain tensor function so a parameter-free case needs no class of its own."""

    def __init__(self, function: Callable[..., torch.Tensor]):
        super().__init__()
        self.function = function

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        return self.function(*inputs)

    def extra_repr(self) -> str:
        return self.function.__name__
