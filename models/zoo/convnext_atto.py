"""ConvNeXt-atto (timm's definition, 1000 classes) at 64x64, seeded random weights.

7x7 depthwise convolutions, channels-last LayerNorms (permutes around ``layer_norm``), GELU MLPs as
Linear layers, layer scale (``mul`` by a per-channel parameter) and a mean-pooled head.
"""

import torch

import models.torchvision_compat  # noqa: F401  (timm imports torchvision)
import timm
from arm.model_spec import ModelSpec
from models.random_weights import model_spec, reinit_linear, seeded_inputs

INPUT_SHAPE = (1, 3, 64, 64)


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = timm.create_model("convnext_atto", pretrained=False)
    reinit_linear(module)
    return model_spec(module, seeded_inputs(INPUT_SHAPE))
