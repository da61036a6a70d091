"""remove_same_dtype_casts: a float32 tensor's cast to float32 (Llama's RMSNorm upcast) goes; a cast that
changes the dtype or writes a graph output stays."""

import torch

from arm.passes.same_dtype_casts import remove_same_dtype_casts

_CASTS = (torch.ops.aten.to.dtype, torch.ops.aten._to_copy.default)


class _Upcasts(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        y = x * 2.0
        kept_float = y.to(torch.float32).pow(2).mean(-1)
        narrowed = (y + 1.0).to(torch.float16)
        return kept_float, narrowed, (y - 1.0).to(torch.float32)


def _casts(model: torch.fx.GraphModule) -> int:
    return sum(1 for node in model.graph.nodes if node.op == "call_function" and node.target in _CASTS)


def test_only_the_identity_cast_inside_the_graph_goes() -> None:
    x = torch.randn(2, 8, generator=torch.Generator().manual_seed(0))
    model = torch.export.export(_Upcasts(), (x,)).module(check_guards=False)
    before = _casts(model)
    assert before >= 2  # the float16 cast and the upcast the output reads stay

    assert remove_same_dtype_casts(model)

    assert _casts(model) == before - 1
    for rewritten, expected in zip(model(x), _Upcasts()(x)):
        assert rewritten.dtype == expected.dtype
        torch.testing.assert_close(rewritten, expected)
