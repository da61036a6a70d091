"""Generator of the test programs quantized with the repository's pt2e quantizer (per-channel int8 weights).

Nothing is delegated, so the quantize/dequantize nodes stay in the program and run on the CPU kernels.
"""

import torch
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from arm.compile_spec import EthosUCompileSpec
from arm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
from runtime.testdata import modules
from runtime.testdata.test_program import TestProgram, main, randn

CALIBRATION_SAMPLES = 4


def quantized(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]) -> TestProgram:
    graph = torch.export.export(module.eval(), inputs).module(check_guards=False)
    quantizer = EthosUQuantizer(EthosUCompileSpec("ethos-u55-128")).set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(graph, quantizer)
    for _ in range(CALIBRATION_SAMPLES):
        prepared(*(torch.randn_like(t) for t in inputs))
    return TestProgram(convert_pt2e(prepared), inputs)


PROGRAMS = {
    "mlp_int8": lambda: quantized(modules.Mlp(), (randn(3, 8),)),
}

if __name__ == "__main__":
    main(PROGRAMS)
