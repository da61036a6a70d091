"""SqueezeNet 1.1 (torchvision's definition, 1000 classes) at 96x96, seeded random weights.

Its three ``MaxPool2d(3, 2, ceil_mode=True)`` see odd sizes (47, 23, 11) at this input, so the ceil
rounding adds an output row and column each time. It has no BatchNorm: its random-init activations are
already of order one.
"""

import torch

from arm.model_spec import ModelSpec
from models.random_weights import model_spec, seeded_inputs
from models.torchvision_compat import torchvision

INPUT_SHAPE = (1, 3, 96, 96)


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = torchvision.models.squeezenet1_1()
    return model_spec(module, seeded_inputs(INPUT_SHAPE))
