"""EfficientNet-B0 (torchvision's definition, 1000 classes), seeded random weights.

Squeeze-and-excitation in every block (global average pool, two 1x1 convolutions with SiLU between,
a sigmoid gate multiplied into the features) and SiLU after most convolutions: the network the
issue names, with MobileNetV3-small, for quantized accuracy on gated activations.

``model()`` is the benchmark size (224x224); ``small()`` the same network at 96x96, which the tests
build (every block and operator is the same; the feature maps are 5.4x smaller). As for the other
torchvision classifiers here, BatchNorm statistics are re-estimated on the calibration inputs and the
classifier's Linear layer is re-drawn from N(0, 1/fan_in) (models/random_weights.py).
"""

import torch

from arm.model_spec import ModelSpec
from models.random_weights import model_spec, reestimate_batch_norm, reinit_linear, seeded_inputs
from models.torchvision_compat import torchvision

INPUT_SHAPE = (1, 3, 224, 224)
SMALL_INPUT_SHAPE = (1, 3, 96, 96)


def efficientnet_b0(input_shape: tuple[int, ...], samples: int) -> ModelSpec:
    torch.manual_seed(0)
    module = torchvision.models.efficientnet_b0()
    reinit_linear(module)
    inputs = seeded_inputs(input_shape, count=samples)
    reestimate_batch_norm(module, inputs)
    return model_spec(module, inputs)


def model() -> ModelSpec:
    return efficientnet_b0(INPUT_SHAPE, samples=16)


def small() -> ModelSpec:
    return efficientnet_b0(SMALL_INPUT_SHAPE, samples=4)
