"""timm's DeiT-tiny (ViT, 12 blocks, 192 wide, 3 heads), random weights from seed 0.

``model()`` is the benchmark size (224x224, 197 tokens); ``small()`` the same architecture at 64x64
(16 patches + the class token), which the tests build: every operator and every block is the same,
only the token count differs.
"""

import torch

import models.torchvision_compat  # noqa: F401 (timm imports torchvision)
import timm
from arm.model_spec import ModelSpec
from models.random_weights import model_spec, seeded_inputs


def deit_tiny(img_size: int) -> torch.nn.Module:
    torch.manual_seed(0)
    return timm.create_model("deit_tiny_patch16_224", pretrained=False, img_size=img_size).eval()


def model() -> ModelSpec:
    return model_spec(deit_tiny(224), seeded_inputs((1, 3, 224, 224)))


def small() -> ModelSpec:
    return model_spec(deit_tiny(64), seeded_inputs((1, 3, 64, 64), count=4))
