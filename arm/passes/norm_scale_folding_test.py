"""fold_norm_scales_into_linears: the scale goes into the weights of every linear reading it, the
module computes what it did, and a scale something else reads stays."""

import torch

from arm.passes.norm_scale_folding import fold_norm_scales_into_linears

torch.manual_seed(0)


class _NormThenProjections(torch.nn.Module):
    """Llama's shape: ``weight * normalized`` read by two projections and, through an alias and a slice
    of the positions, an LM head; ``reads_product`` adds a reader that is not a linear layer."""

    def __init__(self, reads_product: bool = False):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.rand(8) + 0.5)
        self.q = torch.nn.Linear(8, 6)
        self.k = torch.nn.Linear(8, 4, bias=False)
        self.head = torch.nn.Linear(8, 5)
        self.reads_product = reads_product

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        normalized = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        scaled = self.weight * normalized
        outputs = (self.q(scaled), self.k(scaled), self.head(scaled[:, -2:, :]))
        return (*outputs, scaled.sum()) if self.reads_product else outputs


def _captured(module: torch.nn.Module, x: torch.Tensor) -> torch.fx.GraphModule:
    return torch.export.export(module, (x,)).module(check_guards=False)


def _scale_multiplications(model: torch.fx.GraphModule) -> int:
    return sum(
        1
        for node in model.graph.nodes
        if node.target is torch.ops.aten.mul.Tensor and any(arg.op == "get_attr" for arg in node.all_input_nodes)
    )


def test_the_scale_moves_into_every_projection() -> None:
    x = torch.randn(1, 5, 8)
    module = _NormThenProjections().eval()
    model = _captured(module, x)
    assert _scale_multiplications(model) == 1

    assert fold_norm_scales_into_linears(model)

    assert _scale_multiplications(model) == 0
    for folded, expected in zip(model(x), module(x)):
        torch.testing.assert_close(folded, expected, rtol=1e-5, atol=1e-6)


def test_a_scale_another_op_reads_stays() -> None:
    x = torch.randn(1, 5, 8)
    model = _captured(_NormThenProjections(reads_product=True).eval(), x)

    assert not fold_norm_scales_into_linears(model)
    assert _scale_multiplications(model) == 1
