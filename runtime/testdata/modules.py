"""The small torch modules the runtime's test programs are exported from."""

import torch


class Softmax(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = torch.nn.Linear(8, 16)
        self.output = torch.nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.output(torch.relu(self.hidden(x)))


class MlpWithQdqEdges(Mlp):
    """The float MLP between an int8 quantize/dequantize pair at the input and at the output: the shape of a
    program whose middle went to an NPU, with the NPU replaced by float kernels."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        qdq = torch.ops.quantized_decomposed
        x = qdq.quantize_per_tensor(x, 0.02, 3, -128, 127, torch.int8)
        x = qdq.dequantize_per_tensor(x, 0.02, 3, -128, 127, torch.int8)
        y = super().forward(x)
        y = qdq.quantize_per_tensor(y, 0.01, -5, -128, 127, torch.int8)
        return qdq.dequantize_per_tensor(y, 0.01, -5, -128, 127, torch.int8)


class ConvLayout(torch.nn.Module):
    """conv2d, mul by a constant, add of a second input, then NCHW -> NHWC and a flatten: the layout ops."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, kernel_size=3, stride=2, padding=1)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        z = self.conv(x) * 2.0 + y
        return z.permute(0, 2, 3, 1).reshape(1, -1)


class Cond(torch.nn.Module):
    """torch.cond: ExecuTorch emits JumpFalseCall (on a bool tensor, then on a constant Bool) and MoveCall."""

    def forward(self, predicate: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(predicate, lambda x: x + 1.0, lambda x: x * 2.0, (x,))
