"""inline_mode_regions: autocast-disabled and grad-mode regions move into the graph and compute the
same; an autocast-enabled region stays; the inlined region quantizes and lowers in one INT delegate."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from arm.ops.common.op_test_case import OpTestCase, random_inputs
from arm.ops.testing.harness import OpCase, check_op_case
from arm.passes.inline_mode_regions import inline_mode_regions

torch.set_num_threads(1)


class _LinearAttention(torch.nn.Module):
    """timm EfficientViT's LiteMLA attention in small: ReLU kernels on q and k, v padded with ones, the
    attention computed in a ``torch.autocast(enabled=False)`` block with ``.float()`` casts, normalized by
    the padded column. ``grad_region`` puts the autocast block inside a ``torch.no_grad()`` block."""

    def __init__(self, grad_region: bool = False, autocast_enabled: bool = False):
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)
        self.grad_region = grad_region
        self.autocast_enabled = autocast_enabled

    def _attention(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        with torch.autocast(device_type="cpu", enabled=self.autocast_enabled):
            q, k, v = q.float(), k.float(), v.float()
            kv = k.transpose(-1, -2) @ v
            out = q @ kv
            # A larger eps than timm's keeps the int8 quotient within the harness's bound from float.
            return out[..., :-1] / (out[..., -1:] + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k = torch.relu(q), torch.relu(k)
        v = F.pad(v, (0, 1), mode="constant", value=1.0)
        if self.grad_region:
            with torch.no_grad():
                return self._attention(q, k, v)
        return self._attention(q, k, v)


def _regions(model: torch.fx.GraphModule) -> list[str]:
    return [
        str(node.target)
        for module in model.modules()
        if isinstance(module, torch.fx.GraphModule)
        for node in module.graph.nodes
        if isinstance(node.target, torch._ops.HigherOrderOperator)
    ]


def _exported(module: torch.nn.Module, x: torch.Tensor) -> torch.fx.GraphModule:
    return torch.export.export(module.eval(), (x,)).module(check_guards=False)


def test_an_autocast_disabled_region_is_inlined_and_computes_the_same() -> None:
    torch.manual_seed(0)
    module = _LinearAttention()
    (x,) = random_inputs(0, (1, 6, 8))
    model = _exported(module, x)
    assert _regions(model) == ["wrap_with_autocast"]

    assert inline_mode_regions(model)

    assert _regions(model) == []
    assert not [name for name, _ in model.named_children() if name.startswith("submod")]
    torch.testing.assert_close(model(x), module(x), rtol=0, atol=0)


def test_an_autocast_region_inside_a_no_grad_region_is_inlined_too() -> None:
    torch.manual_seed(0)
    module = _LinearAttention(grad_region=True)
    (x,) = random_inputs(1, (1, 6, 8))
    model = _exported(module, x)
    # The flow took the nested pair for a cond inside a cond and left the whole model float.
    assert sorted(_regions(model)) == ["wrap_with_autocast", "wrap_with_set_grad_enabled"]

    assert inline_mode_regions(model)

    assert _regions(model) == []
    torch.testing.assert_close(model(x), module(x), rtol=0, atol=0)


def test_an_autocast_enabled_region_stays() -> None:
    # bfloat16 autocast changes what the matmuls compute: inlining it would change the model.
    torch.manual_seed(0)
    (x,) = random_inputs(2, (1, 6, 8))
    model = _exported(_LinearAttention(autocast_enabled=True), x)

    assert not inline_mode_regions(model)
    assert _regions(model) == ["wrap_with_autocast"]


def test_the_inlined_attention_lowers_in_one_int_delegate() -> None:
    # Before the pass the region's bmm, slice, add and div stayed float on the CPU (EfficientViT-B0: 5
    # partitions). Now one delegate computes the model, within a step of the quantized module on the
    # TOSA reference model.
    torch.manual_seed(0)
    case = OpTestCase(_LinearAttention(grad_region=True), random_inputs(3, (1, 6, 8)))
    check_op_case(OpCase("inline_mode_regions", "linear_attention", "tosa_INT", case))
