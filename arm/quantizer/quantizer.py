"""The pt2e quantizer for the Arm flow: annotates the ops the TOSA lowering supports."""

from __future__ import annotations

from torch.fx import GraphModule
from torchao.quantization.pt2e.quantizer import Quantizer

from arm.compile_spec import ArmCompileSpec
from arm.ops.common import registry
from arm.quantizer.annotation import drop_integer_specs, is_annotated
from arm.quantizer.quantization_config import QuantizationConfig


class EthosUQuantizer(Quantizer):
    """Annotates every node whose op module knows how to quantize it, using the global config.

    Usage (as with ExecuTorch's Arm quantizer)::

        quantizer = EthosUQuantizer(compile_spec).set_global(get_symmetric_quantization_config())
        prepared = prepare_pt2e(exported.module(check_guards=False), quantizer)
    """

    def __init__(self, compile_spec: ArmCompileSpec):
        super().__init__()
        self.compile_spec = compile_spec
        self.global_config: QuantizationConfig | None = None

    def set_global(self, config: QuantizationConfig) -> EthosUQuantizer:
        self.global_config = config
        return self

    def transform_for_annotation(self, model: GraphModule) -> GraphModule:
        # Ops such as scaled_dot_product_attention are quantized piece by piece: each intermediate
        # (scores, probabilities) needs its own observed grid, which one annotation cannot give.
        return registry.decompose_for_quantization(model)

    def annotate(self, model: GraphModule) -> GraphModule:
        if self.global_config is None:
            raise ValueError(
                "EthosUQuantizer has no quantization config; call "
                "quantizer.set_global(get_symmetric_quantization_config()) before prepare_pt2e"
            )
        for node in model.graph.nodes:
            arm_op = registry.for_aten_node(node)
            # A producer may already have annotated its fused activation.
            if arm_op is not None and not is_annotated(node):
                arm_op.annotate(node, self.global_config)
                drop_integer_specs(node)
        return model

    def validate(self, model: GraphModule) -> None:
        pass


# The same quantizer serves the TOSA INT and VGF INT flows; the names match ExecuTorch's.
TOSAQuantizer = EthosUQuantizer
VgfQuantizer = EthosUQuantizer
