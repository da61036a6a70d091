"""Replays one peer pipeline through our public API and says how it went.

Compile with ``arm.flow.run_flow`` for the pipeline's target (the peer's quantization choices mapped to
ours), then check what the peer's test checks, in our terms:

* delegation: a pipeline that expects the module lowered must leave nothing but quantize/dequantize on
  the CPU; an OpNotSupportedPipeline expects its listed ops to stay on the CPU;
* numbers, when the test compares them: the whole program (program_run.py) against the eager module
  (the quantized one on integer targets), within the test's atol/rtol/qtol.

Every case ends in one outcome of OUTCOMES; nothing a case does escapes as an exception.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import dataclasses
import os
import signal
import time
import traceback
from typing import Any, Iterator

import torch
from torch.utils import _pytree as pytree

from arm.compile_spec import TosaCompileSpec
from arm.flow import FlowError, FlowResult, Target, resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.quantizer import (
    EthosUQuantizer,
    QuantizationConfig,
    get_symmetric_a8w4_quantization_config,
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from arm.tosa.context import tensor_to_numpy
from bench.backend_isolation import backends_of
from bench.peer_op_replay.program_run import run_program
from bench.peer_op_replay.request import FLOW_TARGETS, ReplayRequest, Tolerance
from bench.peer_op_replay.tolerance import compare_output, output_scales
from runtime.crosscheck.partitioned_program_oracle import OracleError

OUTCOMES = {
    "pass": "delegated as the test expects and, where the test compares numbers, within its tolerance",
    "cpu_fallback": "something other than quantize/dequantize stayed on the CPU, with our reason",
    "wrong_numbers": "delegated, but outputs outside the test's tolerance",
    "internal_error": "our flow (or running its program) raised",
    "refused": "our flow refused the model up front with a FlowError naming why (a torch.while_loop that "
    "cannot be delegated whole: ExecuTorch's program format has no loop, so no CPU fallback exists)",
    "unexpected_delegation": "the peer expects the op on the CPU (OpNotSupportedPipeline); we delegated it",
    "not_checked": "delegated, but this harness cannot run the program to compare numbers",
    "not_replayed": "a pipeline or feature this replay does not cover (VGF, U65, MXFP, a test without a pipeline)",
}

_EDGE_PREFIX = "executorch_exir_dialects_edge__ops_"
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclasses.dataclass
class Verdict:
    outcome: str
    detail: str = ""
    reasons: list[str] = dataclasses.field(default_factory=list)  # our CPU-fallback reasons
    numbers_checked: bool = False


def replay(request: ReplayRequest, timeout_s: int) -> Verdict:
    if request.target is None or request.not_replayed:
        return Verdict("not_replayed", request.not_replayed)
    try:
        with _time_limit(timeout_s):
            return _replay(request)
    except Exception as error:  # the flow, the oracle or the test's own data: all are findings
        return Verdict("internal_error", describe_error(error))


def _replay(request: ReplayRequest) -> Verdict:
    module, tensors, spec = _flat_module(request.module, request.test_data)
    target = _flow_target(request)
    try:
        with backends_of("arm"):
            calibration = [_comparison_inputs(sample, tensors, spec) for sample in request.calibration or [tensors]]
            result = run_flow(ModelSpec(module, tensors, calibration), target, progress=False)
    except FlowError as error:  # a stated refusal, not a crash: kept apart from internal errors
        return Verdict("refused", "compile: " + describe_error(error))
    except Exception as error:
        if (eager_error := _eager_error(module, tensors)) is not None:
            return Verdict("not_replayed", "the test's module raises in eager PyTorch, so nothing can compile it: " + eager_error)
        return Verdict("internal_error", "compile: " + describe_error(error))

    if request.expect_cpu is not None:
        verdict = _stays_on_cpu(result, request.expect_cpu)
        if verdict.outcome == "unexpected_delegation":
            # Delegating more than the peer is a finding only if the numbers are wrong: say which.
            default = Tolerance(qtol=1 if result.quantized_module is not None else 0)
            numbers = _check_numbers(result, module, tensors, spec, default)
            verdict.detail += f"; numbers with the peer's default tolerance: {numbers.outcome} {numbers.detail}".rstrip()
            verdict.numbers_checked = numbers.numbers_checked
        return verdict
    if request.require_delegation:
        computing = set(result.cpu_compute_nodes) - _int64_boundary_casts(result)
        on_cpu = [(name, reason) for name, reason in result.rejected if name in computing]
        if on_cpu or not result.delegate_ids:
            reasons = [reason for _, reason in on_cpu] or ["nothing was delegated"]
            return Verdict("cpu_fallback", f"{len(on_cpu)} node(s) on the CPU", reasons)
    if request.tolerance is None:
        return Verdict("pass", "the test compares no numbers")
    return _check_numbers(result, module, tensors, spec, request.tolerance)


def _eager_error(module: torch.nn.Module, tensors: tuple[torch.Tensor, ...]) -> str | None:
    """Why the module fails on the test's own data in eager PyTorch (the peer's xfailed scalar-first
    ``aten.mul.Scalar(2, x)``), or None: such a model is the test's error, not the flow's."""
    try:
        with torch.no_grad():
            module(*_clones(tensors))
    except Exception as error:  # whatever PyTorch raises for the module itself
        return describe_error(error)
    return None


def _check_numbers(
    result: FlowResult, module: torch.nn.Module, tensors: tuple[torch.Tensor, ...], spec: Any, tolerance: Tolerance
) -> Verdict:
    inputs = _comparison_inputs(tolerance.inputs, tensors, spec)
    try:
        outputs = run_program(result, [tensor_to_numpy(tensor.detach()) for tensor in inputs])
    except OracleError as error:
        return Verdict("not_checked", str(error))
    except Exception as error:
        return Verdict("internal_error", "run: " + describe_error(error))
    reference_module = result.quantized_module if result.quantized_module is not None else module
    arguments = _clones(inputs)
    try:
        with torch.no_grad():
            returned = pytree.tree_leaves(reference_module(*arguments))
    except NotImplementedError as error:  # PyTorch has no CPU kernel for the type (gather on float8)
        return Verdict("not_checked", "the eager module cannot compute the expected outputs: " + describe_error(error))
    # An input the module writes in place (leaky_relu(x, inplace=True)) is an output of the program too,
    # ahead of the returned ones: compare it with the eager module's argument after the call.
    written = [arguments[index] for index in _mutated_inputs(module, inputs)] if len(outputs) > len(returned) else []
    expected = [tensor_to_numpy(t.detach()) for t in [*written, *returned]]
    if len(outputs) != len(expected):
        return Verdict("wrong_numbers", f"{len(outputs)} outputs, the module has {len(expected)}", numbers_checked=True)
    scales = output_scales(result.quantized_module, len(expected))
    problems = [
        problem
        for index, (got, want, scale) in enumerate(zip(outputs, expected, scales))
        if (problem := compare_output(got, want, tolerance, scale, index))
    ]
    if problems:
        return Verdict("wrong_numbers", "; ".join(problems), numbers_checked=True)
    return Verdict("pass", "", numbers_checked=True)


def _int64_boundary_casts(result: FlowResult) -> set[str]:
    """The casts between a model's int64 inputs or outputs and the int32 its delegates take (TOSA has no
    int64): the flow keeps ids int64 outside a delegate by design, so these count as the boundary's
    conversions, as quantize and dequantize do, not as computation left on the CPU."""
    if result.edge_graph is None:
        return set()
    casts = set()
    for node in result.edge_graph.graph.nodes:
        if node.op != "call_function" or "_to_dim_order_copy" not in str(node.target):
            continue
        (source,) = node.all_input_nodes
        widths = {_dtype(source), _dtype(node)}
        reads_input = source.op == "placeholder" and _dtype(source) == torch.int64
        feeds_output = all(user.op == "output" for user in node.users) and _dtype(node) == torch.int64
        if widths == {torch.int64, torch.int32} and (reads_input or feeds_output):
            casts.add(node.name)
    return casts


def _dtype(node: torch.fx.Node) -> torch.dtype | None:
    value = node.meta.get("val")
    return getattr(value, "dtype", None)


def _mutated_inputs(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]) -> list[int]:
    """The positions, among ``inputs``, of the inputs ``module`` writes in place, in the order the program
    outputs them (the functionalized export's signature; the flow's float program keeps in-place ops)."""
    signature = torch.export.export(module, _clones(inputs)).run_decompositions({}).graph_signature
    user_inputs = list(signature.user_inputs)
    kind = torch.export.graph_signature.OutputKind.USER_INPUT_MUTATION
    return [user_inputs.index(spec.target) for spec in signature.output_specs if spec.kind == kind]


def _stays_on_cpu(result: FlowResult, expected: dict[str, int]) -> Verdict:
    """The peer's OpNotSupportedPipeline: its listed edge ops are left on the CPU, not delegated."""
    on_cpu = collections.Counter(
        _EDGE_PREFIX + str(node.target).replace(".", "_")
        for node in result.edge_graph.graph.nodes
        if node.op == "call_function"
    )
    missing = [op for op in expected if on_cpu[op] == 0]
    if not missing or not result.delegate_ids:
        return Verdict("pass", "stays on the CPU")
    names = ", ".join(op.removeprefix(_EDGE_PREFIX) for op in missing)
    return Verdict("unexpected_delegation", f"{names} delegated to {list(result.delegate_ids)}")


def _flow_target(request: ReplayRequest) -> Target:
    """Our target for the request: its TOSA extensions, and the quantization the test asked for."""
    target = resolve_target(FLOW_TARGETS[request.target])
    if request.tosa_extensions and isinstance(target.compile_spec, TosaCompileSpec):
        profile = "INT" if target.is_quantized else "FP"
        spec_text = f"TOSA-1.0+{profile}" + "".join(f"+{ext}" for ext in request.tosa_extensions)
        target = dataclasses.replace(target, compile_spec=TosaCompileSpec(spec_text))
    if not target.is_quantized:
        return target

    def quantizer(compile_spec: Any) -> EthosUQuantizer:
        base = _base_config(request.a16w8, request.per_channel)
        ours = EthosUQuantizer(compile_spec).set_global(base)
        if request.symmetric_io:
            ours.set_io(base)
        for call in request.quantizer_calls:
            _apply_quantizer_call(ours, call.method, call.args, request.per_channel)
        return ours

    return dataclasses.replace(target, kind=dataclasses.replace(target.kind, make_quantizer=quantizer))


def _base_config(a16w8: bool, per_channel: bool) -> QuantizationConfig:
    if a16w8:
        return get_symmetric_a16w8_quantization_config(is_per_channel=per_channel)
    return get_symmetric_quantization_config(is_per_channel=per_channel)


def _apply_quantizer_call(ours: EthosUQuantizer, method: str, args: tuple[Any, ...], per_channel: bool) -> None:
    """A test's ``pipeline.quantizer.<method>(...)`` with the peer's config mapped to ours."""
    if method in ("set_global", "set_io") and args:
        getattr(ours, method)(_our_config(args[0], per_channel))
    elif method in ("set_module_type", "set_module_name") and len(args) >= 2:
        getattr(ours, method)(args[0], _our_config(args[1], per_channel))


def _our_config(peer_config: Any, per_channel: bool) -> QuantizationConfig | None:
    """Our config of the same kind as the peer's: int16 or int8 activations, int8 or int4 weights."""
    if peer_config is None:
        return None
    activation = getattr(peer_config, "output_activation", None) or getattr(peer_config, "input_activation", None)
    weight = getattr(peer_config, "weight", None)
    if weight is not None:
        per_channel = weight.qscheme in (torch.per_channel_symmetric, torch.per_channel_affine)
    if activation is not None and activation.dtype == torch.int16:
        return get_symmetric_a16w8_quantization_config(is_per_channel=per_channel)
    if weight is not None and weight.quant_max is not None and weight.quant_max <= 7:
        return get_symmetric_a8w4_quantization_config(is_per_channel=per_channel)
    return get_symmetric_quantization_config(is_per_channel=per_channel)


class _FlatArguments(torch.nn.Module):
    """The test's module taking only the tensors of its test data; other arguments are baked in.

    The peer's test data may hold Python numbers, lists of tensors or None beside tensors; our flow takes
    a tuple of tensors, as a model does.
    """

    def __init__(self, module: torch.nn.Module, spec: Any, constants: list[Any]):
        super().__init__()
        self.module = module
        self.spec = spec
        self.constants = constants  # None where a tensor goes

    def forward(self, *tensors: torch.Tensor) -> Any:
        supply = iter(tensors)
        leaves = [next(supply) if constant is _TENSOR else constant for constant in self.constants]
        return self.module(*pytree.tree_unflatten(leaves, self.spec))


_TENSOR = object()


def _flat_module(module: torch.nn.Module, test_data: Any) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...], Any]:
    arguments = test_data if isinstance(test_data, tuple) else (test_data,)
    leaves, spec = pytree.tree_flatten(arguments)
    tensors = tuple(leaf for leaf in leaves if isinstance(leaf, torch.Tensor))
    constants = [_TENSOR if isinstance(leaf, torch.Tensor) else leaf for leaf in leaves]
    if all(constant is _TENSOR for constant in constants) and isinstance(test_data, tuple) and spec.num_children == len(leaves):
        return module, tensors, spec  # plain tensors: the module as the test wrote it
    return _FlatArguments(module, spec, constants), tensors, spec


def _comparison_inputs(inputs: Any, tensors: tuple[torch.Tensor, ...], spec: Any) -> tuple[torch.Tensor, ...]:
    """The tensors of the test's comparison inputs when they fit the compiled program, else the test data's."""
    if inputs is None:
        return tensors
    leaves, other_spec = pytree.tree_flatten(inputs if isinstance(inputs, tuple) else (inputs,))
    candidate = tuple(leaf for leaf in leaves if isinstance(leaf, torch.Tensor))
    fits = len(candidate) == len(tensors) and all(a.shape == b.shape and a.dtype == b.dtype for a, b in zip(candidate, tensors))
    return candidate if fits else tensors


def _clones(tensors: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    return tuple(copy.deepcopy(tensor) for tensor in tensors)  # in-place ops must not change the inputs


def describe_error(error: BaseException) -> str:
    """Type and message of the innermost cause, with its last frame (and the last frame in this repository)."""
    inner = error
    while inner.__cause__ is not None:
        inner = inner.__cause__
    frames = traceback.extract_tb(inner.__traceback__)
    message = " ".join(str(inner).split())
    message = message[:400] + ("..." if len(message) > 400 else "")
    where = ""
    if frames:
        where = f" [at {_where(frames[-1])}"
        ours = [frame for frame in frames if frame.filename.startswith(_REPO)]
        if ours and ours[-1] is not frames[-1]:
            where += f"; last in this repository: {_where(ours[-1])}"
        where += "]"
    return f"{type(inner).__name__}: {message}{where}"


def _where(frame: traceback.FrameSummary) -> str:
    path = frame.filename
    for root in (_REPO + os.sep, "site-packages" + os.sep):
        if root in path:
            path = path.split(root, 1)[1]
    return f"{path}:{frame.lineno} in {frame.name}"


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    """Ends a case that runs longer than ``seconds`` (a stuck compile would otherwise stop the whole replay)."""

    def expire(_signum: int, _frame: Any) -> None:
        raise TimeoutError(f"the case took over {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def timed(request: ReplayRequest, timeout_s: int) -> tuple[Verdict, float]:
    start = time.monotonic()
    verdict = replay(request, timeout_s)
    return verdict, time.monotonic() - start
