"""ArmOp.quantized_on, read by the quantizer: floor_divide by a tensor on the U55 (no INTDIV, so it runs on the
CPU) keeps float: a divisor of zero, or one that an int8 grid would round to zero, gives PyTorch's infinite
quotient in the .pte as in the quantized module, instead of a CPU quantize of infinity (ExecuTorch's kernel
gives the grid's lowest code there)."""

import numpy as np
import torch
from executorch.runtime import Runtime

from arm.flow import resolve_target, run_flow
from arm.model_spec import ModelSpec


class FloorDivide(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.floor_divide(x, y)


def test_u55_floor_divide_by_a_tensor_with_zeros_stays_float_on_the_cpu() -> None:
    generator = torch.Generator().manual_seed(0)
    x = 200.0 * torch.rand(2, 3, 8, generator=generator)
    y = torch.rand(2, 3, 8, generator=generator)
    y.view(-1)[:4] = torch.tensor([0.0, 1e-4, -2e-4, 0.0])  # zero, and divisors an int8 grid rounds to zero
    spec = ModelSpec(FloorDivide(), (x, y))

    result = run_flow(spec, resolve_target("ethos-u55-128"), progress=False)

    assert result.delegate_ids == ()
    assert any("INTDIV" in reason for _, reason in result.rejected)
    (got,) = Runtime.get().load_program(result.pte).load_method("forward").execute([x, y])
    expected = FloorDivide()(x, y)
    assert torch.isinf(expected).sum() == 2
    # ExecuTorch's portable floor_divide and PyTorch's round some quotients an ulp apart.
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=0)
    np.testing.assert_array_equal(result.quantized_module(x, y).numpy(), expected.numpy())
