"""RegNetX-400MF (torchvision's definition, 1000 classes) at 64x64, seeded random weights.

Grouped 3x3 convolutions (group width 16) in every block, 22 blocks deep: the model that shows whether
rounding differences from the quantized torch model stay put or grow with depth.
"""

import torch

from arm.model_spec import ModelSpec
from models.random_weights import model_spec, reestimate_batch_norm, seeded_inputs
from models.torchvision_compat import torchvision

INPUT_SHAPE = (1, 3, 64, 64)


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = torchvision.models.regnet_x_400mf()
    samples = seeded_inputs(INPUT_SHAPE)
    reestimate_batch_norm(module, samples)
    return model_spec(module, samples)
