"""DS-CNN keyword spotting, the shape of MLCommons Tiny's KWS reference model, seeded random weights.

Input: 49 frames x 10 MFCC coefficients, one channel. A 10x4 stride-2 convolution, four
depthwise-separable blocks (3x3 depthwise + 1x1 pointwise, each with BatchNorm and ReLU), a 25x5
average pool and a Linear layer to the 12 keyword classes. The reference pads "same"
(asymmetrically, 4 rows above and 5 below); symmetric padding of (5, 1) gives the same 25x5 feature
map without a separate pad operator. The output is the logits: the reference's final softmax does
not change the top class and would only blur the numerical comparison.
"""

import torch
from torch import nn

from models.random_weights import model_spec, reestimate_batch_norm, seeded_inputs
from arm.model_spec import ModelSpec

INPUT_SHAPE = (1, 1, 49, 10)
FILTERS = 64
BLOCKS = 4
CLASSES = 12


def _conv_bn_relu(conv: nn.Conv2d) -> nn.Sequential:
    return nn.Sequential(conv, nn.BatchNorm2d(conv.out_channels), nn.ReLU())


def _separable_block(channels: int) -> nn.Sequential:
    return nn.Sequential(
        _conv_bn_relu(nn.Conv2d(channels, channels, 3, padding=1, groups=channels, bias=False)),
        _conv_bn_relu(nn.Conv2d(channels, channels, 1, bias=False)),
    )


class DsCnn(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            _conv_bn_relu(nn.Conv2d(1, FILTERS, (10, 4), stride=2, padding=(5, 1), bias=False)),
            nn.Dropout(0.2),
            *(_separable_block(FILTERS) for _ in range(BLOCKS)),
            nn.Dropout(0.4),
            nn.AvgPool2d((25, 5)),
        )
        self.classifier = nn.Linear(FILTERS, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.features(x), 1))


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = DsCnn()
    samples = seeded_inputs(INPUT_SHAPE)
    reestimate_batch_norm(module, samples)
    return model_spec(module, samples)
