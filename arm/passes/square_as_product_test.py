"""squares_as_products: ``pow(x, 2)`` becomes ``x * x`` and the module computes what it did; other powers stay."""

import torch

from arm.passes.square_as_product import squares_as_products


class _Powers(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x.pow(2).mean(-1, keepdim=True), x.pow(3)


def _targets(model: torch.fx.GraphModule) -> list[object]:
    return [node.target for node in model.graph.nodes if node.op == "call_function"]


def test_a_square_becomes_a_product_and_a_cube_stays() -> None:
    x = torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(0))
    model = torch.export.export(_Powers(), (x,)).module(check_guards=False)

    assert squares_as_products(model)

    targets = _targets(model)
    assert targets.count(torch.ops.aten.pow.Tensor_Scalar) == 1  # the cube
    assert targets.count(torch.ops.aten.mul.Tensor) == 1
    for rewritten, expected in zip(model(x), _Powers()(x)):
        torch.testing.assert_close(rewritten, expected, rtol=1e-6, atol=1e-7)
