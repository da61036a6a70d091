"""ResNet-18 (torchvision's definition, 1000 classes) at 224x224, seeded random weights."""

import torch

from models.random_weights import model_spec, reestimate_batch_norm, seeded_inputs
from models.torchvision_compat import torchvision
from arm.model_spec import ModelSpec

INPUT_SHAPE = (1, 3, 224, 224)


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = torchvision.models.resnet18()
    samples = seeded_inputs(INPUT_SHAPE)
    reestimate_batch_norm(module, samples)
    return model_spec(module, samples)
