"""The flow never ends in an internal error because of what a model contains.

Each case is a small model that once crashed the flow (issue 9's op-test sample, plus control flow).
Cases the fixes now lower run through the op harness (one delegate, the TOSA reference model within one
step of the quantized module). Cases that keep nodes on the CPU assert that the .pte serializes, that
every node left on the CPU carries a reason naming it, and, when nothing is delegated, that the .pte
runs in ExecuTorch's host runtime and matches the module.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import pytest
import torch
import torch.nn.functional as F
from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.runtime import Runtime

from arm.flow import FlowResult, resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.testing.compare import assert_close
from arm.ops.testing.harness import OpCase, check_op_case

torch.set_num_threads(1)


class _WithBuffer(torch.nn.Module):
    def __init__(self, function: Callable[..., torch.Tensor], **buffers: torch.Tensor):
        super().__init__()
        self.function = function
        for name, value in buffers.items():
            self.register_buffer(name, value)

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        return self.function(self, *inputs)


def _cond(x: torch.Tensor) -> torch.Tensor:
    return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,)) + x


def _nested_cond(x: torch.Tensor) -> torch.Tensor:
    def inner(t: torch.Tensor) -> torch.Tensor:
        return torch.cond(t.mean() > 0.5, lambda u: u + 1, lambda u: u * 3, (t,))

    return torch.cond(x.sum() > 0, inner, lambda t: t - 1, (x,)) + x


class _SelfAttention(torch.nn.Module):
    """nn.MultiheadAttention's output alone (its averaged weights are a second output the test does not need)."""

    def __init__(self) -> None:
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
        return self.attention(query, key, value, need_weights=False)[0]


def _seeded(seed: int, make: Callable[[], torch.nn.Module]) -> torch.nn.Module:
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return make().eval()


# Cases the fixes lower completely: int/bool tensors are no longer annotated (arange, linspace, eye,
# int ones/zeros/scalar_tensor, index_select's indices), an unflatten's input keeps its grid, and
# MultiheadAttention lowers whole.
LOWERED = {
    "arange": OpTestCase(FunctionModule(lambda x: x + torch.arange(8)), random_inputs(0, (2, 8))),
    "linspace": OpTestCase(FunctionModule(lambda x: x * torch.linspace(0, 1, 8)), random_inputs(1, (2, 8))),
    "eye": OpTestCase(FunctionModule(lambda x: x * torch.eye(4)), random_inputs(2, (4, 4))),
    "int_ones_zeros_scalar": OpTestCase(
        FunctionModule(
            lambda x: x + torch.ones(4, dtype=torch.int64) + torch.zeros(4, dtype=torch.int32)
            + torch.scalar_tensor(2, dtype=torch.int64)
        ),
        random_inputs(3, (2, 4)),
    ),
    "index_select_buffer": OpTestCase(
        _WithBuffer(lambda self, x: x.index_select(1, self.indices) * 2, indices=torch.tensor([0, 3, 5])),
        random_inputs(4, (2, 8)),
    ),
    "unflatten": OpTestCase(FunctionModule(lambda x: (x * 2).unflatten(1, (2, 4)) + 1), random_inputs(5, (2, 8))),
    # Once: "per-channel qparams have no single scale" (in_proj's weight is sliced after quantization);
    # constant folding makes the slices int8 weights, and the attention ops lower the rest.
    "multihead_attention": OpTestCase(_seeded(6, _SelfAttention), random_inputs(6, (1, 4, 16), (1, 4, 16), (1, 4, 16))),
    # Once fallback cases (int64 narrowed inside partition()); tril and select_scatter are now kept whole
    # and lowered (arm/ops/tril.py, arm/ops/select_scatter.py).
    "tril": OpTestCase(FunctionModule(lambda x: torch.tril(x) + x), random_inputs(10, (4, 4))),
    "select_scatter": OpTestCase(FunctionModule(lambda x, y: torch.select_scatter(x, y, 0, 1)), random_inputs(11, (3, 4), (4,))),
    # Once a fallback case: the padding's two chained index ops (one per padded dim, only the last
    # quantized) now lower, the inner one on its input's grid (arm/ops/index.py).
    "reflection_pad": OpTestCase(FunctionModule(lambda x: F.pad(x, (1, 1, 1, 1), mode="reflect")), random_inputs(12, (1, 2, 4, 4))),
}


@pytest.mark.parametrize("name", LOWERED)
def test_lowered_case_matches_the_reference_model(name: str) -> None:
    check_op_case(OpCase("robustness", name, "tosa_INT", LOWERED[name]))


@dataclasses.dataclass(frozen=True)
class FallbackCase:
    """A model part of which stays on the CPU; ``cpu_nodes`` are substrings of node names that must be
    among those left there (with a reason); ``runs_on_cpu`` means nothing is delegated at all."""

    module: torch.nn.Module
    inputs: tuple[torch.Tensor, ...]
    cpu_nodes: tuple[str, ...]
    runs_on_cpu: bool = False


FALLBACK = {
    # Once: re-export failed in quantize_per_tensor (an int32 clamp was annotated).
    "clamp_int32": FallbackCase(
        FunctionModule(lambda x: (x * 4).to(torch.int32).clamp(-3, 3).to(torch.float32) + x),
        random_inputs(13, (2, 8)),
        ("to_dim_order_copy",),
    ),
    "cond": FallbackCase(FunctionModule(_cond), random_inputs(15, (2, 4)), ("cond",)),
    # pt2e cannot quantize a cond inside a cond: the model stays float on the CPU.
    "nested_cond": FallbackCase(FunctionModule(_nested_cond), random_inputs(16, (2, 4)), ("cond",), runs_on_cpu=True),
}


@pytest.fixture(scope="module")
def fallback_results() -> dict[str, FlowResult]:
    results = {}
    for name, case in FALLBACK.items():
        generator = torch.Generator().manual_seed(0)
        calibration = [case.inputs] + [tuple(torch.randn(t.shape, generator=generator) for t in case.inputs)]
        results[name] = run_flow(ModelSpec(case.module, case.inputs, calibration), resolve_target("tosa-INT"), progress=False)
    return results


@pytest.mark.parametrize("name", FALLBACK)
def test_fallback_case_serializes_and_says_why(name: str, fallback_results: dict[str, FlowResult]) -> None:
    case, result = FALLBACK[name], fallback_results[name]
    program = deserialize_pte_binary(result.pte).program
    assert len(program.execution_plan) == 1
    reasons = dict(result.rejected)
    for fragment in case.cpu_nodes:
        named = [node for node in reasons if fragment in node]
        assert named, f"no node named like {fragment!r} stayed on the CPU; left there: {sorted(reasons)}"
        for node in named:
            assert node in reasons[node] or "nested control flow" in reasons.get("<quantize>", ""), reasons[node]
    assert all(reason for reason in reasons.values())
    if case.runs_on_cpu:
        assert result.delegate_ids == ()
        outputs = Runtime.get().load_program(result.pte).load_method("forward").execute(list(case.inputs))
        # The CPU runs what the flow compiled: the quantized module where quantization ran.
        reference = result.quantized_module if result.quantized_module is not None else case.module
        assert_close(outputs[0].numpy(), reference(*case.inputs).detach().numpy(), atol=1e-5, what=name)
    else:
        assert result.delegate_ids and set(result.delegate_ids) == {"TOSABackend"}


@torch.library.custom_op("arm_robustness::opaque_double", mutates_args=())
def _opaque_double(x: torch.Tensor) -> torch.Tensor:
    """A library's own operator with no ExecuTorch out variant (as transformers' ``grouped_mm_fallback``)."""
    return x * 2


@_opaque_double.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


def test_custom_operator_without_a_kernel_is_refused_by_name() -> None:
    # Mixtral with transformers' default experts implementation: the custom op stayed on the CPU and
    # ExecuTorch's serializer ended the compile with "Missing out variants" (an internal error).
    from arm.flow import FlowError

    module = FunctionModule(lambda x: torch.ops.arm_robustness.opaque_double(torch.relu(x)) + 1.0)
    inputs = random_inputs(0, (2, 8))
    with pytest.raises(FlowError) as refused:
        run_flow(ModelSpec(module, inputs, [inputs]), resolve_target("tosa-INT"), progress=False)
    message = str(refused.value)
    assert "arm_robustness::opaque_double" in message and "tosa-INT" in message, message
    assert "node arm_robustness_opaque_double_default" in message and "no kernel" in message, message
