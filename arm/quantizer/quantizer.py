"""The pt2e quantizer for the Arm flow: annotates the ops the TOSA lowering supports."""

from __future__ import annotations

from typing import Callable

from torch.fx import GraphModule, Node
from torchao.quantization.pt2e.quantizer import Quantizer

from arm.compile_spec import ArmCompileSpec
from arm.ops.common import registry
from arm.ops.common.arm_op import ArmOp
from arm.passes.inline_mode_regions import inline_mode_regions
from arm.passes.norm_scale_folding import fold_norm_scales_into_linears
from arm.passes.same_dtype_casts import remove_same_dtype_casts
from arm.passes.square_as_product import squares_as_products
from arm.quantizer.annotation import annotate, drop_non_float_specs, is_annotated
from arm.quantizer.module_configs import ModuleConfigs
from arm.quantizer.quantization_config import QuantizationConfig


class EthosUQuantizer(Quantizer):
    """Annotates every node whose op module knows how to quantize it, with the config that applies to it.

    Usage (as with ExecuTorch's Arm quantizer)::

        quantizer = EthosUQuantizer(compile_spec).set_global(get_symmetric_quantization_config())
        quantizer.set_module_type(torch.nn.Linear, get_symmetric_a8w4_quantization_config())
        quantizer.set_module_name("head", None)          # keep the head float, on the CPU
        quantizer.set_io(get_symmetric_a16w8_quantization_config())
        prepared = prepare_pt2e(exported.module(check_guards=False), quantizer)

    See arm.quantizer.module_configs for which config wins where several apply.
    """

    def __init__(self, compile_spec: ArmCompileSpec):
        super().__init__()
        self.compile_spec = compile_spec
        self.configs = ModuleConfigs()
        self.io_config: QuantizationConfig | None = None

    @property
    def global_config(self) -> QuantizationConfig | None:
        return self.configs.global_config

    def set_global(self, config: QuantizationConfig | None) -> EthosUQuantizer:
        """The config for every node no module name or type claims."""
        self.configs.global_config = config
        return self

    def set_module_type(self, module_type: Callable, config: QuantizationConfig | None) -> EthosUQuantizer:
        """The config for nodes from modules of ``module_type`` (a class such as ``torch.nn.Linear``)."""
        if not isinstance(module_type, type):
            raise TypeError(f"set_module_type takes a module class such as torch.nn.Linear, got {module_type!r}")
        self.configs.by_type.pop(module_type, None)  # re-setting moves it last: the later call wins
        self.configs.by_type[module_type] = config
        return self

    def set_module_name(self, module_name: str, config: QuantizationConfig | None) -> EthosUQuantizer:
        """The config for nodes from the submodule at ``module_name`` (e.g. ``"blocks.0.attention"``)."""
        if not isinstance(module_name, str) or not module_name:
            raise TypeError(f"set_module_name takes a submodule's qualified name such as 'blocks.0', got {module_name!r}")
        self.configs.by_name.pop(module_name, None)
        self.configs.by_name[module_name] = config
        return self

    def set_io(self, config: QuantizationConfig | None) -> EthosUQuantizer:
        """The activation grid of the model's inputs and outputs (e.g. int16 I/O around an int8 body)."""
        self.io_config = config
        return self

    def transform_for_annotation(self, model: GraphModule) -> GraphModule:
        # Annotation sees the top-level graph only: a torch.autocast(enabled=False) or torch.no_grad()
        # block would stay float (arm/passes/inline_mode_regions.py).
        inline_mode_regions(model)
        # Ops such as scaled_dot_product_attention are quantized piece by piece: each intermediate
        # (scores, probabilities) needs its own observed grid, which one annotation cannot give.
        model = registry.decompose_for_quantization(model)
        # Llama's RMSNorm: its float32 upcast of a float32 tensor (an extra grid) and pow(x, 2) (a TABLE).
        remove_same_dtype_casts(model)
        squares_as_products(model)
        # After the decompositions: rms_norm's ends in the scale multiplication this folds.
        fold_norm_scales_into_linears(model)
        return model

    def annotate(self, model: GraphModule) -> GraphModule:
        if self.configs.is_empty() and self.io_config is None:
            raise ValueError(
                "EthosUQuantizer has no quantization config; call "
                "quantizer.set_global(get_symmetric_quantization_config()) before prepare_pt2e"
            )
        if self.io_config is not None:
            _annotate_io(model, self.io_config)
        for node in model.graph.nodes:
            arm_op = registry.for_aten_node(node)
            # A producer may already have annotated its fused activation.
            if arm_op is None or is_annotated(node):
                continue
            config = self.configs.config_for(node)
            if config is not None and _quantized_on(arm_op, node, self.compile_spec):
                arm_op.annotate(node, config)
        for node in model.graph.nodes:
            drop_non_float_specs(node)
        return model

    def validate(self, model: GraphModule) -> None:
        pass


def _quantized_on(arm_op: ArmOp, node: Node, compile_spec: ArmCompileSpec) -> bool:
    return arm_op.quantized_on is None or arm_op.quantized_on(node, compile_spec.tosa_spec)


def _annotate_io(model: GraphModule, config: QuantizationConfig) -> None:
    """Model inputs write, and model outputs read, ``config``'s activation grid; the ops next to them
    read that grid (arm.quantizer.annotation.input_spec shares a producer's output spec)."""
    for node in model.graph.nodes:
        if node.op == "placeholder" and node.users and not is_annotated(node):
            annotate(node, {}, config.activation)
        elif node.op == "output":
            producers: list[Node] = [arg for arg in node.all_input_nodes]
            annotate(node, {producer: config.activation for producer in producers}, None)


# The same quantizer serves the TOSA INT and VGF INT flows; the names match ExecuTorch's.
TOSAQuantizer = EthosUQuantizer
VgfQuantizer = EthosUQuantizer
