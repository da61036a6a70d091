"""A tiny conv + relu model whose Ethos-U .pte gives the runtime's delegate tests a real Vela bin stream."""

import torch

from arm.model_spec import ModelSpec

INPUT_SHAPE = (1, 4, 8, 8)


class TinyConv(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


def tiny_conv() -> ModelSpec:
    torch.manual_seed(0)
    samples = [(torch.rand(INPUT_SHAPE) * 2 - 1,) for _ in range(4)]
    return ModelSpec(module=TinyConv().eval(), example_inputs=samples[0], calibration_inputs=samples)
