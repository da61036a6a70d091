"""arm.edge_in_place against its oracle, executorch's to_edge: the same edge graph, node for node.

Float models (no quantizer, no Vela) keep these cheap; arm/flow_test.py compares whole quantized
.pte files of both routes.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from executorch.exir import EdgeCompileConfig, to_edge
from executorch.exir.program._program import _default_decomposition_table

from arm import edge_in_place

torch.set_num_threads(1)

_CONFIG = EdgeCompileConfig(_check_ir_validity=False)


class _Classifier(torch.nn.Module):
    """What a CNN's ATen program holds besides convolutions: an in-place ReLU, a pool that decomposes
    to mean, flatten, an eval dropout and a linear; and a number where a tensor is wanted."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, kernel_size=3)
        self.relu = torch.nn.ReLU(inplace=True)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.dropout = torch.nn.Dropout(0.2)
        self.fc = torch.nn.Linear(4, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pool(self.relu(self.conv(x)))
        return self.fc(self.dropout(torch.flatten(y, 1))) / 4.0


class _Attention(torch.nn.Module):
    """A transformer's pieces: layer_norm, a 3-D linear, transpose/reshape views, softmax, gelu."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(8)
        self.qkv = torch.nn.Linear(8, 24)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        scores = torch.softmax(q @ k.transpose(1, 2) * 0.5, dim=-1)
        return torch.nn.functional.gelu(scores @ v).reshape(2, -1)


class _MixedDtypes(torch.nn.Module):
    """Operands of two dtypes: executorch casts the one that is not the computation's (an int64 tensor
    times a float one; YOLOv8n's box decoding divides a float tensor by the integer 2)."""

    def forward(self, x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        return (x * n) / 2 + n / 4


class _Upsampled(torch.nn.Module):
    """A detector's neck: nearest upsampling, which torch.export keeps whole (a composite operator it may
    preserve and to_edge's table leaves out), not the index graph its own decomposition traces."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.interpolate(x, scale_factor=2.0, mode="nearest").sigmoid()


class _DecoderPieces(torch.nn.Module):
    """What transformers' Llama holds besides its layers: a ``no_grad`` block (the rotary tables: a
    grad-mode region in the exported program), casts that change nothing (dropped) and one that does,
    arange positions, a masked_fill, and an attention nothing reads (dropped with the mask it reads)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            positions = torch.arange(x.shape[-1]).to(torch.float32)
            table = positions.to(torch.float32).cos() * 0.5
        mask = x > 0
        torch.nn.functional.scaled_dot_product_attention(x, x, x, attn_mask=mask.cumsum(-1) > 1)
        return (x.to(torch.float32) + table).masked_fill(mask, -1.0) * 2


class _TimeSteps(torch.nn.Module):
    """Mamba's time steps: softplus of a projection (exp, log1p and a where above its threshold)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.softplus(x * 2.0) * x


def _signatures(program: torch.export.ExportedProgram) -> list[tuple[str, ...]]:
    def value(node: torch.fx.Node) -> str:
        val = node.meta.get("val")
        return f"{val.dtype}{tuple(val.shape)}" if isinstance(val, torch.Tensor) else str(type(val))

    return [(n.op, n.name, str(n.target), str(n.args), str(n.kwargs), value(n)) for n in program.graph.nodes]


def _both_routes(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]):
    reference = to_edge(torch.export.export(module, inputs), compile_config=_CONFIG).exported_program()
    program = torch.export.export(module, inputs)
    ours, _ = edge_in_place.edge_program(program, _default_decomposition_table(), [], dataclasses.replace(_CONFIG))
    return reference, ours


@pytest.mark.parametrize(
    "module, inputs",
    [
        (_Classifier(), (torch.randn(1, 3, 6, 6),)),
        (_Attention(), (torch.randn(2, 3, 8),)),
        (_MixedDtypes(), (torch.randn(3), torch.arange(3))),
        (_Upsampled(), (torch.randn(1, 2, 3, 3),)),
        (_DecoderPieces(), (torch.randn(1, 2, 4, 4),)),
        (_TimeSteps(), (15.0 * torch.randn(2, 5, 8),)),  # both sides of softplus's threshold of 20
    ],
    ids=["classifier", "attention", "mixed_dtypes", "upsampled", "decoder_pieces", "time_steps"],
)
def test_edge_graph_equals_to_edges(module, inputs):
    torch.manual_seed(0)
    module = module.eval()
    reference, ours = _both_routes(module, inputs)
    assert _signatures(ours) == _signatures(reference)
    assert ours.graph_signature == reference.graph_signature
    for got, expected in zip(ours.module()(*inputs), reference.module()(*inputs)):
        assert torch.equal(got, expected)


def test_decompositions_are_traced_once_per_shape():
    """A transformer's layers repeat the same few decompositions; each is traced once."""
    edge_in_place._DECOMPOSITIONS.clear()
    layers = torch.nn.Sequential(*[torch.nn.LayerNorm(8) for _ in range(3)]).eval()
    program = torch.export.export(layers, (torch.randn(2, 8),))
    conversion = edge_in_place.convert(program, _default_decomposition_table())
    assert conversion.decomposed == 3
    assert len(edge_in_place._DECOMPOSITIONS) == 1


class _WritesBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.count.add_(1)
        return x + self.count


class _WritesThroughView(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x.sin()
        y[1:].relu_()  # changes y: only functionalization says what y holds afterwards
        return y.cos()




@pytest.mark.parametrize(
    "module, inputs, reason",
    [
        (_WritesBuffer(), (torch.randn(3),), "writes into the program's input, weight or buffer"),
        (_WritesThroughView(), (torch.randn(3),), "writes through the view"),
        # export decomposes batch_norm into _native_batch_norm_legit_no_training, make_fx does not.
        (torch.nn.BatchNorm1d(3), (torch.randn(2, 3),), "decomposition of aten.batch_norm.default is not checked"),
    ],
    ids=["buffer_write", "view_write", "batch_norm"],
)
def test_what_only_to_edge_rewrites_is_refused(module, inputs, reason):
    program = torch.export.export(module.eval(), inputs)
    before = _signatures(program)
    with pytest.raises(edge_in_place.NotConvertible, match=reason) as refused:
        edge_in_place.convert(program, _default_decomposition_table())
    if not refused.value.graph_changed:
        assert _signatures(program) == before
