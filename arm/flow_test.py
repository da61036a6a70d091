from typing import Callable

import pytest
import torch
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
from executorch.exir.program._program import _default_decomposition_table
from executorch.runtime import Runtime
from torch.fx import traceback as fx_traceback

from arm.artifacts import TosaArtifact
from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.bin_stream import parse_bin_stream
from arm.flow import STAGES, EthosUOptions, FlowError, resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.passes import EDGE_TRANSFORM_PASSES
from arm.passes.convolution_spelled_out import spell_out_convolutions
from arm.shared_provenance import sharing_node_provenance

torch.set_num_threads(1)


class ConvRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


def _model() -> ModelSpec:
    generator = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    samples = [(torch.rand(1, 3, 8, 8, generator=generator) * 2 - 1,) for _ in range(4)]
    return ModelSpec(ConvRelu().eval(), samples[0], samples)


@pytest.fixture(scope="module")
def u55_result():
    return run_flow(_model(), resolve_target("ethos-u55-128"), progress=False)


def test_ethos_u_pte_loads_in_host_runtime_up_to_the_delegate(u55_result, capfd):
    program = Runtime.get().load_program(u55_result.pte)
    assert set(program.method_names) == {"forward"}
    # The host runtime has no Ethos-U delegate: loading must stop at the delegate lookup, not earlier.
    with pytest.raises(RuntimeError):
        program.load_method("forward")
    assert "Backend EthosUBackend is not registered" in capfd.readouterr().err


def test_ethos_u_result_holds_one_delegate_and_its_artifacts(u55_result):
    assert u55_result.delegate_ids == ("EthosUBackend",)
    (tosa,) = u55_result.artifacts.tosa
    (vela,) = u55_result.artifacts.vela
    assert isinstance(tosa, TosaArtifact) and tosa.spec.startswith("TOSA-1.0+INT")
    assert vela.cpu_ops == () and vela.npu_cycles > 0
    stream = parse_bin_stream(vela.bin_stream)
    assert len(stream.inputs) == len(tosa.inputs) and len(stream.outputs) == len(tosa.outputs)
    assert vela.bin_stream in u55_result.pte
    assert list(u55_result.stage_seconds) == list(STAGES)
    assert u55_result.quantized_module is not None


def test_flow_is_deterministic(u55_result):
    again = run_flow(_model(), resolve_target("ethos-u55-128"), progress=False)
    assert again.pte == u55_result.pte
    assert again.artifacts.tosa[0].flatbuffer == u55_result.artifacts.tosa[0].flatbuffer


def test_float_target_skips_quantization():
    result = run_flow(_model(), resolve_target("tosa-FP"), progress=False)
    assert result.quantized_module is None
    assert "quantize" not in result.stage_seconds
    assert result.delegate_ids == ("TOSABackend",)
    assert result.artifacts.tosa[0].spec == "TOSA-1.0+FP"


def test_progress_has_one_line_per_stage(capsys):
    run_flow(_model(), resolve_target("tosa-INT"), calibration_samples=2)
    lines = capsys.readouterr().err.splitlines()
    assert lines[1].startswith("[2/5] quantize (2 calibration samples) ... ") and lines[1].endswith(" s")
    assert lines[4].startswith("[5/5] serialize ... ")


def test_unknown_target_is_rejected():
    with pytest.raises(FlowError, match="unknown target 'ethos-u99'"):
        resolve_target("ethos-u99")


def test_vela_options_need_an_ethos_u_target():
    with pytest.raises(FlowError, match="only apply to Ethos-U targets"):
        resolve_target("tosa-INT", EthosUOptions(memory_mode="Shared_Sram"))


# The flow's shortcuts around executorch's re-tracing must give what executorch's own route gives.


def test_pte_equals_executorchs_unshortened_route(u55_result):
    """The oracle: executorch's to_edge_transform_and_lower on a fresh export of the same quantized
    module, with its deep-copied provenance and both decomposition re-traces (no conv2d spelled out)."""
    target = resolve_target("ethos-u55-128")
    exported = torch.export.export(u55_result.quantized_module, _model().example_inputs)
    edge = to_edge_transform_and_lower(
        exported,
        transform_passes=list(EDGE_TRANSFORM_PASSES),
        partitioner=[target.partitioner()],
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    assert edge.to_executorch().buffer == u55_result.pte


class _Convolutions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1d = torch.nn.Conv1d(3, 4, kernel_size=3, stride=2)
        self.grouped = torch.nn.Conv2d(4, 4, kernel_size=3, padding=(1, 2), dilation=(1, 2), groups=2, bias=False)

    def forward(self, x: torch.Tensor, unbatched: torch.Tensor) -> tuple[torch.Tensor, ...]:
        y = self.conv1d(x).unsqueeze(-1)
        stride_as_int = torch.nn.functional.conv2d(y, self.grouped.weight, stride=1, padding=1, groups=2)
        return self.grouped(y) + 1, stride_as_int, torch.nn.functional.conv2d(unbatched, self.grouped.weight[:2, :2])


def _node_signatures(program: torch.export.ExportedProgram) -> list[tuple[str, ...]]:
    return [
        (node.op, node.name, str(node.target), str(node.args), str(node.kwargs), str(node.meta["val"].shape))
        if isinstance(node.meta.get("val"), torch.Tensor)
        else (node.op, node.name, str(node.target), str(node.args))
        for node in program.graph.nodes
    ]


def test_convolutions_spelled_out_as_torchs_decomposition():
    torch.manual_seed(0)
    module = _Convolutions().eval()
    inputs = (torch.randn(1, 3, 9), torch.randn(2, 5, 5))
    table = _default_decomposition_table()
    reference = torch.export.export(module, inputs).run_decompositions({}).run_decompositions(table)
    rewritten = torch.export.export(module, inputs)
    assert spell_out_convolutions(rewritten.graph_module) == 3  # the unbatched conv2d is left to torch
    remaining = [node.target for node in rewritten.graph.nodes if node.target in table]
    assert remaining == [torch.ops.aten.conv2d.default]
    assert _node_signatures(rewritten.run_decompositions({}).run_decompositions(table)) == _node_signatures(reference)
    for ours, torchs in zip(rewritten.module()(*inputs), module(*inputs)):
        assert torch.equal(ours, torchs)


def _provenance(program: torch.export.ExportedProgram) -> list[list[dict]]:
    """Every node's provenance chain, without graph ids (object addresses, different in every run)."""

    def without_ids(record: dict) -> dict:
        return {**{k: v for k, v in record.items() if k != "graph_id"}, "from_node": [without_ids(r) for r in record["from_node"]]}

    return [[without_ids(source.to_dict()) for source in node.meta.get("from_node", [])] for node in program.graph.nodes]


def test_shared_provenance_reads_as_deep_copied():
    module, inputs = _Convolutions().eval(), (torch.randn(1, 3, 9), torch.randn(2, 5, 5))
    copied = torch.export.export(module, inputs).run_decompositions({}).run_decompositions(_default_decomposition_table())
    with sharing_node_provenance() as sharing:
        shared = torch.export.export(module, inputs).run_decompositions({}).run_decompositions(_default_decomposition_table())
    assert sharing  # torch 2.13's NodeSource: the shortcut is on
    chains = _provenance(copied)
    assert max(len(str(chain)) for chain in chains) > 200  # several passes deep: the comparison means something
    assert _provenance(shared) == chains
    assert fx_traceback.NodeSource.__init__ is _COPYING_NODE_SOURCE_INIT  # restored after the block


_COPYING_NODE_SOURCE_INIT = fx_traceback.NodeSource.__init__


# The in-place edge route (arm.edge_in_place) must give what executorch's to_edge gives, or take that route.


def test_in_place_edge_route_gives_the_same_pte(u55_result):
    result = run_flow(_model(), resolve_target("ethos-u55-128"), progress=False, edge_route="in_place")
    assert result.edge_route == "in_place"
    assert result.pte == u55_result.pte


class _ChannelsLastBlock(torch.nn.Module):
    """ConvNeXt's block: a depthwise convolution, a permute to channels-last, layer_norm, an MLP with an
    eval dropout (a clone of a permuted tensor), a permute back and the residual. In the exported program
    the permutes are views with permuted strides; their edge ``_copy`` forms are contiguous, so to_edge's
    dropout clone keeps the dim order and goes (the in-place route once left dq -> clone -> q on the CPU)."""

    def __init__(self):
        super().__init__()
        self.depthwise = torch.nn.Conv2d(4, 4, kernel_size=3, padding=1, groups=4)
        self.norm = torch.nn.LayerNorm(4)
        self.expand = torch.nn.Linear(4, 8)
        self.dropout = torch.nn.Dropout(0.1)
        self.project = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.depthwise(x).permute(0, 2, 3, 1))
        y = self.project(self.dropout(torch.nn.functional.gelu(self.expand(y))))
        return x + y.permute(0, 3, 1, 2)


class _Attention(torch.nn.Module):
    """Two heads of scaled_dot_product_attention: the partitioner keeps operators whole only where it
    delegates them (executorch's per-node EDGE_DO_NOT_DECOMP path)."""

    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)
        self.out = torch.nn.Linear(4, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = (t.view(1, 4, 2, 4).transpose(1, 2) for t in self.qkv(x).chunk(3, dim=-1))
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        # Not y.transpose(1, 2).reshape(...): with the attention kept whole on tosa-FP, executorch's
        # to_edge (the oracle here) fails on that view (its kept op's output is laid out differently).
        return self.out(y.mean(dim=1))


class _DetectorNeck(torch.nn.Module):
    """YOLOv8n's neck and box decoding in small: nearest upsampling (kept whole, as torch.export keeps it)
    and a float tensor divided by the integer 2 (executorch casts the 2)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 4, kernel_size=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.interpolate(self.conv(x), scale_factor=2.0, mode="nearest").sigmoid() / 2


class _RotaryGate(torch.nn.Module):
    """Llama's pieces around its layers: a ``no_grad`` block building a table from arange positions (a
    grad-mode region, casts), and a masked_fill."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            table = torch.arange(x.shape[-1]).to(torch.float32).to(torch.float32) * 0.25
        y = self.proj(x) + table
        return y.masked_fill(y > 1.5, 0.0)


def _seeded(make_module: Callable[[], torch.nn.Module], shape: tuple[int, ...]) -> ModelSpec:
    torch.manual_seed(0)
    module = make_module().eval()
    generator = torch.Generator().manual_seed(1)
    samples = [(torch.rand(shape, generator=generator) * 2 - 1,) for _ in range(2)]
    return ModelSpec(module, samples[0], samples)


@pytest.mark.parametrize(
    "make_module, shape, target",
    [
        (_ChannelsLastBlock, (1, 4, 5, 5), "ethos-u55-128"),
        (_Attention, (1, 4, 8), "ethos-u85-256"),
        (_Attention, (1, 4, 8), "tosa-FP"),
        (_DetectorNeck, (1, 4, 3, 3), "ethos-u85-256"),
        (_RotaryGate, (1, 4, 8), "ethos-u55-128"),
    ],
    ids=["channels_last_block_u55", "attention_u85", "attention_tosa_fp", "detector_neck_u85", "rotary_gate_u55"],
)
def test_in_place_edge_route_equals_to_edge_on_clones_and_attention(make_module, shape, target):
    ours = run_flow(_seeded(make_module, shape), resolve_target(target), progress=False, edge_route="in_place")
    theirs = run_flow(_seeded(make_module, shape), resolve_target(target), progress=False, edge_route="to_edge")
    assert ours.edge_route == "in_place"
    assert theirs.edge_route == "to_edge"
    assert len(ours.delegate_ids) == 1  # one partition: nothing left between two delegates
    assert ours.pte == theirs.pte


class _WritesThroughView(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x.sin()
        y[1:].relu_()
        return y * 2


def test_in_place_edge_route_falls_back_to_to_edge_with_its_reason():
    torch.manual_seed(0)
    model = ModelSpec(_WritesThroughView().eval(), (torch.randn(4, 3),))
    target = resolve_target("tosa-FP")
    result = run_flow(model, target, progress=False, edge_route="in_place")
    assert result.edge_route.startswith("to_edge (") and "writes through the view" in result.edge_route
    assert result.pte == run_flow(model, target, progress=False, edge_route="to_edge").pte


def test_unknown_edge_route_is_rejected():
    with pytest.raises(FlowError, match="unknown edge_route"):
        run_flow(_model(), resolve_target("tosa-FP"), progress=False, edge_route="aten")


class _CountsUp(torch.nn.Module):
    def forward(self, x):
        return torch._higher_order_ops.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2), (torch.tensor(0), x))[1]


def test_a_while_loop_is_refused_before_any_work():
    """ExecuTorch's emitter has no while loop; without this check the whole compile ran first."""
    model = ModelSpec(_CountsUp().eval(), (torch.randn(2, 3),))
    with pytest.raises(FlowError, match=r"torch.while_loop \(while_loop.*\): ExecuTorch's program format has no while"):
        run_flow(model, resolve_target("tosa-INT"), progress=False)


def test_a_lone_batch_norm_skips_the_qat_pattern_search(monkeypatch):
    """convert_pt2e's conv + batch-norm search for QAT graphs exported 96 patterns (60 CPU s) per compile."""
    from torchao.quantization.pt2e import qat_utils

    def exported_a_pattern(*args, **kwargs):
        raise AssertionError("convert_pt2e searched for QAT conv + batch-norm patterns")

    monkeypatch.setattr(qat_utils, "_get_aten_graph_module_for_pattern", exported_a_pattern)
    torch.manual_seed(0)
    norm = torch.nn.BatchNorm2d(3).eval()
    norm.running_mean, norm.running_var = torch.rand(3), torch.rand(3) + 0.5
    x = torch.rand(1, 3, 4, 5)
    result = run_flow(ModelSpec(norm, (x,)), resolve_target("tosa-INT"), progress=False)
    assert result.delegate_ids == ("TOSABackend",)
    quantized = result.quantized_module(x)
    # One output step apart at most from float: the folded search changed no numbers.
    assert torch.allclose(quantized, norm(x), atol=(norm(x).max() - norm(x).min()).item() / 255 * 1.01)


def test_lookup_placement_is_checked_and_carried_by_the_compile_spec() -> None:
    spec = resolve_target("ethos-u55-128", EthosUOptions(lookups="npu")).compile_spec
    assert spec.lookups == "npu" and spec.tosa_spec.npu_lookups
    assert EthosUCompileSpec.from_list(spec.to_list()) == spec
    default = resolve_target("ethos-u55-128").compile_spec
    assert default.lookups == "cost" and not default.tosa_spec.npu_lookups
    assert "lookups" not in {item.key for item in default.to_list()}  # programs compiled before keep their specs
    with pytest.raises(ValueError, match="unknown lookup placement 'gpu'"):
        EthosUCompileSpec("ethos-u55-128", lookups="gpu")
    with pytest.raises(FlowError, match="only apply to Ethos-U targets"):
        resolve_target("tosa-INT", EthosUOptions(lookups="npu"))
