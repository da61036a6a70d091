"""pt2e quantization for the Arm flow (int8 or int16 activations, int8 or int4 weights, int32 biases)."""

from arm.quantizer.quantization_config import (
    QuantizationConfig,
    get_symmetric_a8w4_quantization_config,
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from arm.quantizer.quantizer import EthosUQuantizer, TOSAQuantizer, VgfQuantizer

__all__ = [
    "EthosUQuantizer",
    "QuantizationConfig",
    "TOSAQuantizer",
    "VgfQuantizer",
    "get_symmetric_a8w4_quantization_config",
    "get_symmetric_a16w8_quantization_config",
    "get_symmetric_quantization_config",
]
