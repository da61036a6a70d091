"""Generator of the test programs that need nothing but torch and ExecuTorch."""

import torch

from runtime.testdata import modules
from runtime.testdata.test_program import TestProgram, main, randn

PROGRAMS = {
    "softmax": lambda: TestProgram(modules.Softmax().eval(), (randn(4, 16, scale=3.0),)),
    "mlp_fp32": lambda: TestProgram(modules.Mlp().eval(), (randn(3, 8),)),
    "mlp_qdq_edges": lambda: TestProgram(modules.MlpWithQdqEdges().eval(), (randn(3, 8),)),
    "conv_layout": lambda: TestProgram(modules.ConvLayout().eval(), (randn(1, 3, 8, 8), randn(1, 4, 4, 4))),
    "cond": lambda: TestProgram(modules.Cond().eval(), (torch.tensor([True]), randn(2, 3))),
}

if __name__ == "__main__":
    main(PROGRAMS)
