"""A keyword-spotting network of 1-D convolutions over time (TC-ResNet's shape), seeded random weights.

Input: 40 MFCC coefficients as channels x 49 frames. A 3-tap stem, three residual blocks of 9-tap
``Conv1d`` (the first of each with stride 2 and a 1-tap projection shortcut), each with BatchNorm and
ReLU, a global average over time and a Linear layer to the 12 keyword classes.
"""

import torch
from torch import nn

from arm.model_spec import ModelSpec
from models.random_weights import model_spec, reestimate_batch_norm, seeded_inputs

INPUT_SHAPE = (1, 40, 49)
WIDTHS = (16, 24, 32, 48)
CLASSES = 12


class _ResidualBlock(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(in_channels, out_channels, 9, stride=2, padding=4, bias=False)
        self.bn1 = nn.BatchNorm1d(out_channels)
        self.conv2 = nn.Conv1d(out_channels, out_channels, 9, padding=4, bias=False)
        self.bn2 = nn.BatchNorm1d(out_channels)
        self.shortcut = nn.Sequential(nn.Conv1d(in_channels, out_channels, 1, stride=2, bias=False), nn.BatchNorm1d(out_channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


class KwsConv1d(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv1d(INPUT_SHAPE[1], WIDTHS[0], 3, padding=1, bias=False), nn.BatchNorm1d(WIDTHS[0]), nn.ReLU())
        self.blocks = nn.Sequential(*(_ResidualBlock(a, b) for a, b in zip(WIDTHS, WIDTHS[1:])))
        self.classifier = nn.Linear(WIDTHS[-1], CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.blocks(self.stem(x)).mean(dim=-1))


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = KwsConv1d()
    samples = seeded_inputs(INPUT_SHAPE)
    reestimate_batch_norm(module, samples)
    return model_spec(module, samples)
