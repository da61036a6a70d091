"""timm's MobileViT-XXS (MobileNetV2 blocks interleaved with transformer blocks over unfolded 2x2 patches),
random weights from seed 0, BatchNorm statistics re-estimated on the inputs (random_weights.py).

``model()`` is the benchmark size (256x256); ``small()`` the same architecture at 64x64 for the tests.
"""

import torch

import models.torchvision_compat  # noqa: F401 (timm imports torchvision)
import timm
from arm.model_spec import ModelSpec
from models.random_weights import model_spec, reestimate_batch_norm, seeded_inputs


def _spec(img_size: int, count: int) -> ModelSpec:
    torch.manual_seed(0)
    module = timm.create_model("mobilevit_xxs", pretrained=False)
    samples = seeded_inputs((1, 3, img_size, img_size), count=count)
    reestimate_batch_norm(module, samples)
    return model_spec(module, samples)


def model() -> ModelSpec:
    return _spec(256, 16)


def small() -> ModelSpec:
    return _spec(64, 4)
