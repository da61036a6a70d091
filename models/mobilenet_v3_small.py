"""MobileNetV3-small (torchvision's definition, 1000 classes) at 224x224, seeded random weights.

Besides the BatchNorm fix, its Linear layers are re-drawn: torchvision's N(0, 0.01) classifier init
leaves the logits near 4e-3, where int8 rounding decides the top class.
"""

import torch

from models.random_weights import model_spec, reestimate_batch_norm, reinit_linear, seeded_inputs
from models.torchvision_compat import torchvision
from arm.model_spec import ModelSpec

INPUT_SHAPE = (1, 3, 224, 224)


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = torchvision.models.mobilenet_v3_small()
    reinit_linear(module)
    samples = seeded_inputs(INPUT_SHAPE)
    reestimate_batch_norm(module, samples)
    return model_spec(module, samples)
