"""A small image classifier built from the first slice of lowered ops (conv2d, relu, add, view, linear).

It is the smoke model of the whole flow: quick to lower, yet it has a strided conv, a depthwise conv, a
residual add and a classifier head, so every stage and both layouts (NHWC convs, NCHW flatten) are used.
"""

import torch
from torch import nn

from arm.model_spec import ModelSpec

INPUT_SHAPE = (1, 3, 32, 32)
CALIBRATION_SAMPLES = 16


class SmallCnn(nn.Module):
    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1)
        self.depthwise = nn.Conv2d(16, 16, kernel_size=3, padding=1, groups=16)
        self.pointwise = nn.Conv2d(16, 32, kernel_size=1)
        self.residual = nn.Conv2d(32, 32, kernel_size=3, padding=1)
        self.head = nn.Linear(32 * 16 * 16, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.stem(x))
        x = torch.relu(self.depthwise(x))
        x = torch.relu(self.pointwise(x))
        x = torch.relu(x + self.residual(x))
        return self.head(x.reshape(x.shape[0], -1))


def model() -> ModelSpec:
    # Seeded weights and inputs: the same .pte on every machine.
    generator = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    module = SmallCnn().eval()
    samples = [(torch.rand(INPUT_SHAPE, generator=generator) * 2 - 1,) for _ in range(CALIBRATION_SAMPLES)]
    return ModelSpec(module=module, example_inputs=samples[0], calibration_inputs=samples)
