"""The replay's own parts on tiny inputs: stand-ins honour the peer's pipeline edits, the tolerance is
the peer's, and a replay tells a correct compile from one whose numbers are off (two tiny compiles)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bench.peer_op_replay import stand_ins
from bench.peer_op_replay.replay import replay
from bench.peer_op_replay.request import ReplayRequest, Tolerance
from bench.peer_op_replay.sampling import case_target, stratified_sample
from bench.peer_op_replay.tolerance import compare_output


class _PeerLikePipeline:
    """A constructor with the shape of the peer's TosaPipelineINT (only what the stand-in reads)."""

    def __init__(self, module, test_data, aten_op, exir_op=None, run_on_tosa_ref_model=True, atol=1e-3, rtol=1e-3,
                 qtol=1, tosa_extensions=None):  # fmt: skip
        pass


_PeerLikePipeline.__name__ = "TosaPipelineINT"


def _stand_in(**kwargs) -> stand_ins.StandInPipeline:
    return stand_ins.stand_in_for(_PeerLikePipeline)(torch.nn.ReLU(), (torch.ones(2),), "aten_op", **kwargs)


def test_stand_in_records_the_tolerance_the_test_leaves():
    pipeline = _stand_in(atol=0.5)
    assert pipeline.request().tolerance == Tolerance(atol=0.5, rtol=1e-3, qtol=1, inputs=pipeline.test_data)
    # The peer's change_args replaces a stage's arguments: unnamed tolerances fall back to its defaults.
    pipeline.change_args("run_method_and_compare_outputs", qtol=3)
    assert pipeline.request().tolerance == Tolerance(atol=1e-3, rtol=1e-3, qtol=3, inputs=None)
    pipeline.pop_stage(-1)  # the last stage of a TOSA INT pipeline is the comparison
    assert pipeline.request().tolerance is None
    assert pipeline.request().require_delegation


def test_stand_in_maps_int16_extension_and_quantizer_calls():
    pipeline = _stand_in(tosa_extensions=["int16"])
    pipeline.quantizer.set_global("config")
    request = pipeline.request()
    assert (request.target, request.a16w8, request.tosa_extensions) == ("tosa_INT", True, ("int16",))
    assert [(call.method, call.args) for call in request.quantizer_calls] == [("set_global", ("config",))]
    pipeline.pop_stage("check_count.exir")
    pipeline.pop_stage("check_not.exir")
    assert not pipeline.request().require_delegation


def test_tolerance_is_atol_plus_qtol_steps_plus_rtol():
    want = np.array([1.0, -2.0], np.float32)
    tolerance = Tolerance(atol=0.01, rtol=0.0, qtol=1)
    assert compare_output(want + 0.1, want, tolerance, scale=0.1, index=0) is None
    problem = compare_output(want + 0.2, want, tolerance, scale=0.1, index=0)
    assert problem is not None and "2 of 2 elements" in problem
    assert compare_output(np.array([True]), np.array([False]), tolerance, 0.0, 0) == "output 0: 1 of 1 booleans differ"


def test_target_from_test_name_and_sample_is_stable():
    assert case_target("test_add_tensor_u55_INT_not_delegated") == "u55_INT"
    assert case_target("test_add_tensor_tosa_FP") == "tosa_FP"
    assert case_target("test_add_tensor_vgf_quant") == "vgf"
    items = [(f"f{i % 3}", "tosa_FP", i) for i in range(30)]
    first = stratified_sample(items, lambda item: item[:2], 2, seed=7)
    assert first == stratified_sample(items, lambda item: item[:2], 2, seed=7)
    assert len(first) == 6 and {item[0] for item in first} == {"f0", "f1", "f2"}


class _Scaled(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) * 0.5


class _MaxOfAll(torch.nn.Module):
    """A 0-d delegate output read by the CPU's dequantize: the oracle must hand ExecuTorch's runtime a
    0-d tensor (np.ascontiguousarray made it 1-d, which the runtime refused: "set_inputs() failed")."""

    def forward(self, x):
        return torch.amax(x, dim=(0, 1, 2, 3))


class _ChangesAfterExport(torch.nn.Module):
    """Computes x + 1 when exported and x + 3 when called eagerly: a lowering that is right for the export
    is then wrong against the eager module, as a wrong lowering would be."""

    def forward(self, x):
        return x + (1.0 if torch.compiler.is_exporting() else 3.0)


@pytest.mark.parametrize(
    "target, module, outcome",
    # On TOSA FP the reference is the eager float module itself (on INT it is the quantized export).
    [("tosa_INT", _Scaled(), "pass"), ("tosa_FP", _ChangesAfterExport(), "wrong_numbers"), ("tosa_INT", _MaxOfAll(), "pass")],
    ids=["int_right", "fp_wrong", "int_0d_output"],
)
def test_replay_checks_numbers_against_the_eager_module(target, module, outcome):
    torch.manual_seed(0)
    request = ReplayRequest("replay_test", target, module, (torch.rand(1, 4, 4, 4) * 2 - 1,),
                            tolerance=Tolerance(atol=1e-3, rtol=1e-3, qtol=1))  # fmt: skip
    verdict = replay(request, timeout_s=300)
    assert (verdict.outcome, verdict.numbers_checked) == (outcome, True), verdict.detail


def test_replay_of_a_channels_last_input_feeds_the_delegate_its_values():
    """The peer's rand_4d_channels_last cases: the program took the input in its example's dim order (NHWC
    bytes), which the delegate read as NCHW, every element off; the flow now exports it contiguous."""
    torch.manual_seed(0)
    data = (torch.rand(1, 4, 2, 3) * 2 - 1).to(memory_format=torch.channels_last)
    request = ReplayRequest("replay_test", "tosa_INT", _Scaled(), (data,), tolerance=Tolerance(atol=1e-3, rtol=1e-3, qtol=1))
    verdict = replay(request, timeout_s=300)
    assert (verdict.outcome, verdict.numbers_checked) == ("pass", True), verdict.detail


class _CountUp(torch.nn.Module):
    """A torch.while_loop, which the U55 cannot delegate and ExecuTorch cannot run on the CPU."""

    def forward(self, x):
        return torch.ops.higher_order.while_loop(lambda v: v.sum() < 10.0, lambda v: (v + 1.0,), (x,), ())


def test_replay_tells_a_stated_refusal_from_an_internal_error():
    """The flow refuses such a model up front with a FlowError naming the loop: "refused", not "internal_error"."""
    request = ReplayRequest("replay_test", "u55_INT", _CountUp(), (torch.zeros(2, 2),), tolerance=None)
    verdict = replay(request, timeout_s=300)
    assert verdict.outcome == "refused" and "while" in verdict.detail, (verdict.outcome, verdict.detail)


class _ScalarFirst(torch.nn.Module):
    """The peer's test_scalars *_st cases: aten.mul.Scalar(number, tensor), which PyTorch itself rejects."""

    def forward(self, x, y):
        return torch.ops.aten.mul.Scalar(x, y)


def test_replay_of_a_module_pytorch_rejects_is_not_an_internal_error():
    request = ReplayRequest("replay_test", "tosa_FP", _ScalarFirst(), (2, torch.ones(3)), tolerance=None)
    verdict = replay(request, timeout_s=300)
    assert verdict.outcome == "not_replayed" and "raises in eager PyTorch" in verdict.detail, verdict.detail


class _LeakyInPlace(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.leaky_relu(x, 0.1, inplace=True)


def _bfloat16_conv() -> torch.nn.Module:
    with torch.random.fork_rng():
        torch.manual_seed(0)
        return torch.nn.Conv2d(3, 4, 3, padding=1).to(torch.bfloat16).eval()


@pytest.mark.parametrize(
    "module, data, extensions",
    # bfloat16 through the whole-program oracle, compared exactly: PyTorch rounds sum + bias once, as the
    # lowering must (TOSA's own half-type CONV2D rounds before adding the bias, an ulp off in a third).
    [(_bfloat16_conv(), torch.randn(1, 3, 6, 6).to(torch.bfloat16), ("bf16",)),
     # An input the module writes in place is a program output ahead of its result: both compared.
     (_LeakyInPlace(), torch.randn(1, 2, 4, 4), ())],
    ids=["bfloat16_conv_exact", "in_place_input"],
)  # fmt: skip
def test_replay_compares_bfloat16_and_written_inputs(module, data, extensions):
    request = ReplayRequest("replay_test", "tosa_FP", module, (data,), tosa_extensions=extensions,
                            tolerance=Tolerance(atol=0.0, rtol=0.0, qtol=0))  # fmt: skip
    verdict = replay(request, timeout_s=300)
    assert (verdict.outcome, verdict.numbers_checked) == ("pass", True), verdict.detail


def test_smoke_replay_of_one_peer_test_file(tmp_path):
    """The whole instrument on the peer's test_abs.py, one fixed-seed case per TOSA target: the peer's
    pipelines are replaced, the cases compile with our flow, and both are delegated with the right numbers."""
    from bench.peer_op_replay.__main__ import main
    from bench.peer_op_replay.report import load_json

    out = tmp_path / "replay.json"
    assert main(["--files", "test_abs.py", "--targets", "tosa_FP,tosa_INT", "--json", str(out)]) == 0
    meta, results = load_json(str(out))
    assert meta["per_file"] == 1 and meta["running"] is None
    assert sorted((r.target, r.pipeline, r.outcome, r.numbers_checked) for r in results) == [
        ("tosa_FP", "TosaPipelineFP", "pass", True),
        ("tosa_INT", "TosaPipelineINT", "pass", True),
    ]
