"""Generator of the CPU kernel programs: one tiny program per kernel and dtype case, the ops a partitioner
leaves on the CPU (layout and index ops, creation ops, elementwise math, comparisons, reductions, norms).

Every program is exported by ExecuTorch itself with nothing delegated, so its operator names, argument
orders and dtypes are what a partly delegated model leaves on the CPU. `//runtime/crosscheck` runs them
all on ExecuTorch's host runtime in one process and on ours in one test binary. Beside the programs the
generator writes `manifest.txt`: one line `<program> <inputs> <tolerance> <libm>` per program
(TOLERANCES and LIBM_PROGRAMS below; tolerance 0 for bit for bit), the list the test binary reads.
"""

from __future__ import annotations

import argparse
import pathlib
from collections.abc import Callable

import torch

from runtime.testdata.test_program import TestProgram, write_program


class Function(torch.nn.Module):
    """A module whose forward is `function`: one op (or a few) under test."""

    def __init__(self, function: Callable[..., torch.Tensor]) -> None:
        super().__init__()
        self.function = function

    def forward(self, *inputs: torch.Tensor):
        return self.function(*inputs)


def randn(*shape: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape) * scale


def randint(low: int, high: int, *shape: int, dtype: torch.dtype = torch.int64) -> torch.Tensor:
    return torch.randint(low, high, shape, dtype=dtype)


def lazy(function: Callable[..., torch.Tensor], make_inputs: Callable[[], tuple[torch.Tensor, ...]], preserve_ops=()):
    """Inputs drawn after the generator seeds torch, so each program's inputs do not depend on the others."""
    return lambda: TestProgram(Function(function).eval(), make_inputs(), tuple(preserve_ops))


aten = torch.ops.aten


PROGRAMS: dict[str, Callable[[], TestProgram]] = {
    # Layout and copies.
    "to_dim_order_copy_f32_to_i32": lazy(lambda x: x.to(torch.int32), lambda: (randn(2, 5, scale=50.0),)),
    "to_dim_order_copy_i64_to_f32": lazy(lambda x: x.to(torch.float32), lambda: (randint(-1000, 1000, 3, 4),)),
    "to_dim_order_copy_i32_to_i64": lazy(lambda x: x.to(torch.int64), lambda: (randint(-9, 9, 6, dtype=torch.int32),)),
    "to_dim_order_copy_bool_to_f32": lazy(lambda x: (x > 0).float(), lambda: (randn(7),)),
    "to_dim_order_copy_channels_last": lazy(
        lambda x: x.to(memory_format=torch.channels_last).contiguous(), lambda: (randn(1, 3, 2, 4),)),
    "clone": lazy(lambda x: x.clone() * 2.0, lambda: (randn(3, 3),)),
    "expand_copy": lazy(lambda x: x.expand(2, 3, 4) * 1.0, lambda: (randn(3, 1),)),
    "cat": lazy(lambda a, b: torch.cat([a, b, a], dim=1), lambda: (randn(2, 3, 2), randn(2, 1, 2))),
    "cat_int64": lazy(lambda a, b: torch.cat([a, b]), lambda: (randint(-5, 5, 2, 3), randint(-5, 5, 1, 3))),
    "stack": lazy(lambda a, b: torch.stack([a, b], dim=-1), lambda: (randn(2, 3), randn(2, 3))),
    "unsqueeze_copy": lazy(lambda x: x.unsqueeze(1) * 1.0, lambda: (randn(3, 4),)),
    "squeeze_copy": lazy(lambda x: x.squeeze(1) * 1.0, lambda: (randn(3, 1, 4),)),
    "slice_copy": lazy(lambda x: x[:, 1:7:2] * 1.0, lambda: (randn(3, 8),)),
    "slice_copy_negative": lazy(lambda x: x[..., -3:] * 1.0, lambda: (randn(2, 2, 5),)),
    "select_copy": lazy(lambda x: x[:, -1] * 1.0, lambda: (randn(3, 4, 2),)),
    "split_with_sizes_copy": lazy(lambda x: torch.split(x, [1, 3], dim=1), lambda: (randn(2, 4),)),
    "split_copy": lazy(lambda x: torch.split(x, 2, dim=0), lambda: (randn(5, 3),)),
    "chunk": lazy(lambda x: torch.chunk(x, 2, dim=-1), lambda: (randn(2, 6),)),
    "transpose_copy": lazy(lambda x: x.transpose(0, 2) * 1.0, lambda: (randn(2, 3, 4),)),
    "t_copy": lazy(lambda x: x.t() * 1.0, lambda: (randn(3, 5),)),
    "repeat": lazy(lambda x: x.repeat(2, 1, 3), lambda: (randn(2, 3),)),
    "flip": lazy(lambda x: torch.flip(x, [0, 2]), lambda: (randn(2, 3, 4),)),
    "constant_pad_nd": lazy(lambda x: torch.nn.functional.pad(x, (1, 2, 0, 1), value=0.5), lambda: (randn(1, 2, 3, 3),)),
    # Index ops (int64 indices as PyTorch makes them).
    "index_select": lazy(lambda x, i: torch.index_select(x, 1, i), lambda: (randn(3, 5), torch.tensor([4, 0, 2, 2]))),
    "embedding": lazy(lambda w, i: torch.nn.functional.embedding(i, w), lambda: (randn(10, 4), randint(0, 10, 2, 3))),
    "gather": lazy(lambda x, i: torch.gather(x, 1, i), lambda: (randn(3, 4), randint(0, 4, 3, 2))),
    "index_tensor": lazy(lambda x, i: x[i], lambda: (randn(5, 3), torch.tensor([[4, 0], [1, 1]]))),
    "index_tensor_two": lazy(lambda x, i, j: x[i, j], lambda: (randn(4, 5), torch.tensor([0, 3, 2]), torch.tensor([[1], [4]]))),
    "index_tensor_inner": lazy(lambda x, i: x[:, i], lambda: (randn(2, 5, 3), torch.tensor([4, -1, 0]))),
    # Creation.
    "full": lazy(lambda x: x + torch.full((2, 3), 1.5), lambda: (randn(2, 3),)),
    "full_like": lazy(lambda x: torch.full_like(x, -2.0) * x, lambda: (randn(3, 2),)),
    "zeros_ones": lazy(lambda x: x + torch.zeros(3) + torch.ones(3), lambda: (randn(3),)),
    "scalar_tensor": lazy(lambda x: torch.where(x > 0, x, torch.scalar_tensor(0.25)), lambda: (randn(6),)),
    "arange": lazy(lambda x: x + torch.arange(4), lambda: (randint(0, 5, 2, 4),)),
    "arange_float": lazy(lambda x: x * torch.arange(0.5, 3.0, 0.5), lambda: (randn(5),)),
    # Elementwise binary.
    "add_int64": lazy(lambda a, b: a + b, lambda: (randint(-50, 50, 3, 4), randint(-50, 50, 4))),
    "add_scalar": lazy(lambda x: x + 3, lambda: (randn(4),)),
    "sub": lazy(lambda a, b: a - b, lambda: (randn(2, 3), randn(1, 3))),
    "sub_alpha": lazy(lambda a, b: torch.sub(a, b, alpha=2.5), lambda: (randn(2, 3), randn(2, 3))),
    "rsub": lazy(lambda x: 1.0 - x, lambda: (randn(5),)),
    "mul_int32": lazy(lambda a, b: a * b, lambda: (randint(-9, 9, 3, 2, dtype=torch.int32), randint(-9, 9, 2, dtype=torch.int32))),
    "mul_scalar": lazy(lambda x: x * 0.125, lambda: (randn(4),)),
    "div": lazy(lambda a, b: a / b, lambda: (randn(3, 4), randn(4) + 3.0)),
    "div_scalar": lazy(lambda x: x / 3.0, lambda: (randn(5),)),
    "div_floor": lazy(lambda a, b: torch.div(a, b, rounding_mode="floor"), lambda: (randn(6, scale=10.0), randn(6) + 2.5)),
    "div_trunc": lazy(lambda a, b: torch.div(a, b, rounding_mode="trunc"), lambda: (randn(6, scale=10.0), randn(6) + 2.5)),
    "floor_divide_int64": lazy(lambda a: a // 3, lambda: (randint(-20, 20, 7),)),
    "remainder": lazy(lambda a, b: torch.remainder(a, b), lambda: (randn(6, scale=5.0), randn(6) + 3.0)),
    "pow_scalar": lazy(lambda x: x.abs() ** 1.5, lambda: (randn(6),)),
    "pow_square": lazy(lambda x: x ** 2, lambda: (randn(6),)),
    "pow_tensor": lazy(lambda a, b: torch.pow(a.abs() + 0.5, b), lambda: (randn(6), randn(6))),
    "maximum": lazy(lambda a, b: torch.maximum(a, b), lambda: (randn(3, 4), randn(4))),
    "minimum": lazy(lambda a, b: torch.minimum(a, b), lambda: (randn(3, 4), randn(3, 1))),
    "where": lazy(lambda c, a, b: torch.where(c, a, b), lambda: (randn(3, 4) > 0, randn(3, 4), randn(4))),
    "masked_fill": lazy(lambda x, m: x.masked_fill(m, -1e9), lambda: (randn(2, 4, 4), torch.ones(4, 4, dtype=torch.bool).triu(1))),
    "bitwise_and": lazy(lambda a, b: (a > 0) & (b > 0), lambda: (randn(5), randn(5))),
    "bitwise_or_int32": lazy(lambda a, b: a | b, lambda: (randint(0, 64, 5, dtype=torch.int32), randint(0, 64, 5, dtype=torch.int32))),
    "logical_not": lazy(lambda x: torch.logical_not(x > 0), lambda: (randn(6),)),
    "logical_and": lazy(lambda a, b: torch.logical_and(a > 0, b), lambda: (randn(6), randn(6) > 0)),
    # Comparisons.
    "eq_scalar": lazy(lambda x: x == 2, lambda: (randint(0, 4, 8),)),
    "ne_tensor": lazy(lambda a, b: a != b, lambda: (randint(0, 3, 8), randint(0, 3, 8))),
    "lt_scalar": lazy(lambda x: x < 0.5, lambda: (randn(8),)),
    "gt_tensor": lazy(lambda a, b: a > b, lambda: (randn(2, 4), randn(4))),
    "le_tensor": lazy(lambda a, b: a <= b, lambda: (randint(0, 3, 8, dtype=torch.int32), randint(0, 3, 8, dtype=torch.int32))),
    "ge_scalar": lazy(lambda x: x >= -0.25, lambda: (randn(8),)),
    # Elementwise unary.
    "neg": lazy(lambda x: -x, lambda: (randn(5),)),
    "abs": lazy(lambda x: x.abs(), lambda: (randn(5),)),
    "sqrt": lazy(lambda x: x.abs().sqrt(), lambda: (randn(16),)),
    "rsqrt": lazy(lambda x: torch.rsqrt(x.abs() + 0.1), lambda: (randn(16),)),
    "reciprocal": lazy(lambda x: torch.reciprocal(x), lambda: (randn(16),)),
    "exp": lazy(lambda x: torch.exp(x), lambda: (randn(16, scale=4.0),)),
    "log": lazy(lambda x: torch.log(x.abs() + 0.01), lambda: (randn(16, scale=4.0),)),
    "sin": lazy(lambda x: torch.sin(x), lambda: (randn(16, scale=4.0),)),
    "cos": lazy(lambda x: torch.cos(x), lambda: (randn(16, scale=4.0),)),
    "tanh": lazy(lambda x: torch.tanh(x), lambda: (randn(16, scale=3.0),)),
    "sigmoid": lazy(lambda x: torch.sigmoid(x), lambda: (randn(16, scale=4.0),)),
    "silu": lazy(lambda x: torch.nn.functional.silu(x), lambda: (randn(16, scale=4.0),)),
    "gelu": lazy(lambda x: torch.nn.functional.gelu(x), lambda: (randn(16, scale=3.0),)),
    "gelu_tanh": lazy(lambda x: torch.nn.functional.gelu(x, approximate="tanh"), lambda: (randn(16, scale=3.0),)),
    "erf": lazy(lambda x: torch.erf(x), lambda: (randn(16, scale=2.0),)),
    "floor_ceil_round": lazy(lambda x: torch.floor(x) + torch.ceil(x) * 10.0 + torch.round(x) * 100.0, lambda: (randn(16, scale=3.0),)),
    "clamp": lazy(lambda x: torch.clamp(x, -0.5, 0.75), lambda: (randn(16),)),
    "clamp_int64": lazy(lambda x: torch.clamp(x, min=0), lambda: (randint(-5, 5, 8),)),
    "hardtanh": lazy(lambda x: torch.nn.functional.hardtanh(x, -1.0, 2.0), lambda: (randn(16, scale=2.0),)),
    "relu6": lazy(lambda x: torch.nn.functional.relu6(x), lambda: (randn(16, scale=4.0),)),
    "leaky_relu": lazy(lambda x: torch.nn.functional.leaky_relu(x, 0.1), lambda: (randn(16),)),
    "hardswish": lazy(lambda x: torch.nn.functional.hardswish(x), lambda: (randn(16, scale=4.0),)),
    "hardsigmoid": lazy(lambda x: torch.nn.functional.hardsigmoid(x), lambda: (randn(16, scale=4.0),)),
    # Reductions.
    "mean": lazy(lambda x: x.mean(dim=-1, keepdim=True), lambda: (randn(3, 7),)),
    "mean_dims": lazy(lambda x: x.mean(dim=[2, 3]), lambda: (randn(1, 4, 3, 5),)),
    "sum": lazy(lambda x: x.sum(dim=1), lambda: (randn(3, 6, 2),)),
    "sum_int64": lazy(lambda x: x.sum(dim=0), lambda: (randint(-9, 9, 4, 3),)),
    "amax": lazy(lambda x: torch.amax(x, dim=1), lambda: (randn(3, 6),)),
    "amin": lazy(lambda x: torch.amin(x, dim=[0, 2], keepdim=True), lambda: (randn(3, 4, 2),)),
    "argmax": lazy(lambda x: torch.argmax(x, dim=-1), lambda: (randn(3, 6),)),
    "max_dim": lazy(lambda x: tuple(torch.max(x, dim=1)), lambda: (randn(3, 5),)),
    "cumsum": lazy(lambda x: torch.cumsum(x, dim=1), lambda: (randn(2, 6),)),
    "cumsum_int64": lazy(lambda x: torch.cumsum(x, dim=0), lambda: (randint(0, 3, 6),)),
    # Matrix, normalisation, pooling, resampling.
    "bmm": lazy(lambda a, b: torch.bmm(a, b), lambda: (randn(2, 3, 4), randn(2, 4, 5))),
    "softmax": lazy(lambda x: torch.softmax(x, dim=1), lambda: (randn(2, 5, 3),)),
    "log_softmax": lazy(lambda x: torch.log_softmax(x, dim=-1), lambda: (randn(3, 6),)),
    "layer_norm": lazy(lambda x, w, b: torch.nn.functional.layer_norm(x, (6,), w, b, 1e-5), lambda: (randn(2, 3, 6), randn(6), randn(6))),
    "group_norm": lazy(lambda x, w, b: torch.nn.functional.group_norm(x, 2, w, b, 1e-5), lambda: (randn(1, 4, 3, 3), randn(4), randn(4))),
    "batch_norm": lazy(lambda x, m, v, w, b: torch.nn.functional.batch_norm(x, m, v, w, b, False, 0.1, 1e-5),
                       lambda: (randn(1, 3, 2, 2), randn(3), randn(3).abs() + 0.5, randn(3), randn(3))),
    "avg_pool2d": lazy(lambda x: torch.nn.functional.avg_pool2d(x, 2, 2), lambda: (randn(1, 2, 4, 6),)),
    "avg_pool2d_pad": lazy(lambda x: torch.nn.functional.avg_pool2d(x, 3, 2, 1, count_include_pad=False), lambda: (randn(1, 2, 5, 5),)),
    "max_pool2d": lazy(lambda x: torch.nn.functional.max_pool2d(x, 3, 2, 1), lambda: (randn(1, 2, 5, 6),)),
    "upsample_nearest2d": lazy(lambda x: torch.nn.functional.interpolate(x, scale_factor=2.0, mode="nearest"), lambda: (randn(1, 2, 3, 3),)),
    "upsample_bilinear2d": lazy(lambda x: torch.nn.functional.interpolate(x, scale_factor=2.0, mode="bilinear"), lambda: (randn(1, 2, 3, 3),)),
    "tril": lazy(lambda x: torch.tril(x), lambda: (randn(4, 4),)),
    "upsample_nearest2d_size": lazy(lambda x: torch.nn.functional.interpolate(x, size=(5, 4), mode="nearest"), lambda: (randn(1, 2, 3, 3),)),
    "upsample_bilinear2d_align_corners": lazy(
        lambda x: torch.nn.functional.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True), lambda: (randn(1, 1, 3, 4),)),
    # More dtypes: int8/int16 as they sit between quantize and dequantize, int32/int64 index math, bool masks.
    "cat_int8": lazy(lambda a, b: torch.cat([a, b], dim=-1), lambda: (randint(-128, 127, 2, 3, dtype=torch.int8), randint(-128, 127, 2, 2, dtype=torch.int8))),
    "split_int16": lazy(lambda x: torch.split(x, [2, 1], dim=0), lambda: (randint(-999, 999, 3, 2, dtype=torch.int16),)),
    "to_dim_order_copy_f32_to_bool": lazy(lambda x: x.to(torch.bool), lambda: (torch.tensor([0.0, -0.0, 1.5, -2.0, 0.25]),)),
    "to_dim_order_copy_i64_to_i8": lazy(lambda x: x.to(torch.int8), lambda: (randint(-128, 127, 6),)),
    "where_int64": lazy(lambda c, a, b: torch.where(c, a, b), lambda: (randn(2, 3) > 0, randint(-9, 9, 2, 3), randint(-9, 9, 3))),
    "neg_abs_int32": lazy(lambda x: -x.abs(), lambda: (randint(-9, 9, 6, dtype=torch.int32),)),
    "pow_int64": lazy(lambda x: x ** 2, lambda: (randint(-9, 9, 6),)),
    "remainder_int64": lazy(lambda a, b: torch.remainder(a, b), lambda: (randint(-20, 20, 6), randint(1, 5, 6))),
    "amax_int32": lazy(lambda x: torch.amax(x, dim=0), lambda: (randint(-50, 50, 3, 4, dtype=torch.int32),)),
    "argmin": lazy(lambda x: torch.argmin(x, dim=0), lambda: (randn(4, 3),)),
    "min_dim": lazy(lambda x: tuple(torch.min(x, dim=-1, keepdim=True)), lambda: (randn(3, 4),)),
    "sum_all": lazy(lambda x: x.sum().unsqueeze(0), lambda: (randn(3, 5),)),
    "logical_or_xor": lazy(lambda a, b: torch.logical_xor(torch.logical_or(a > 0, b > 0), a > b), lambda: (randn(6), randn(6))),
    "bitwise_xor_bool": lazy(lambda a, b: (a > 0) ^ (b > 0), lambda: (randn(6), randn(6))),
    "index_select_int32": lazy(lambda x, i: torch.index_select(x, 0, i), lambda: (randn(4, 3), torch.tensor([3, 1], dtype=torch.int32))),
    "index_tensor_apart": lazy(lambda x, i, j: x[i, :, j], lambda: (randn(3, 2, 4), torch.tensor([2, 0]), torch.tensor([1, 3]))),
    "expand_copy_leading": lazy(lambda x: x.expand(3, 2, 4) * 1.0, lambda: (randn(1, 4),)),
    # Scalar overloads, called as such (export keeps an explicit .Scalar overload; `x + 3` becomes .Tensor).
    "add_Scalar": lazy(lambda x: aten.add.Scalar(x, 0.75, alpha=1.5), lambda: (randn(6),)),
    "add_Scalar_int64": lazy(lambda x: aten.add.Scalar(x, 3, alpha=-2), lambda: (randint(-50, 50, 2, 3),)),
    "sub_Scalar": lazy(lambda x: aten.sub.Scalar(x, 0.3, alpha=2.5), lambda: (randn(6),)),
    "mul_Scalar_int32": lazy(lambda x: aten.mul.Scalar(x, -3), lambda: (randint(-9, 9, 5, dtype=torch.int32),)),
    "mul_Scalar_promoted": lazy(lambda x: aten.mul.Scalar(x, 0.5), lambda: (randint(-9, 9, 5, dtype=torch.int32),)),
    "div_Scalar": lazy(lambda x: aten.div.Scalar(x, 3.0), lambda: (randn(8),)),
    "div_Scalar_int64": lazy(lambda x: aten.div.Scalar(x, 4), lambda: (randint(-20, 20, 6),)),
    "remainder_Scalar": lazy(lambda x: aten.remainder.Scalar(x, 2.5), lambda: (randn(8, scale=5.0),)),
    "remainder_Scalar_int64": lazy(lambda x: aten.remainder.Scalar(x, -3), lambda: (randint(-20, 20, 8),)),
    # Ops ExecuTorch keeps when asked (preserve_ops) and has portable kernels for.
    "tril_preserved": lazy(lambda x: torch.tril(x, -1), lambda: (randn(2, 3, 4),), [aten.tril.default]),
    "tril_preserved_int64": lazy(lambda x: torch.tril(x, 1), lambda: (randint(-9, 9, 4, 3),), [aten.tril.default]),
    "repeat_interleave": lazy(lambda r: torch.repeat_interleave(r, output_size=6), lambda: (torch.tensor([1, 0, 3, 2]),),
                              [aten.repeat_interleave.Tensor]),
}


# Programs whose op ExecuTorch's host runtime (our oracle) runs with an optimized kernel from
# libexecutorch_kernels_optimized instead of the portable kernel ours follows, and where the two differ:
# each float output element may then differ from ExecuTorch's by tolerance * max(1, |ExecuTorch's|)
# (dtype and shape still exact). ExecuTorch on a Cortex-M runs the portable kernels, whose arithmetic
# ours keeps. Every other program must match bit for bit.
TOLERANCES: dict[str, float] = {
    # Optimized div of a tensor by a one-element tensor computes x * (1 / b) (1 ulp off); portable divides.
    "div_scalar": 1e-6,
    "div_Scalar": 1e-6,  # optimized div.Scalar_out of a float tensor: the same x * (1 / b) (measured: 1 ulp)
    "hardswish": 1e-6,
    "hardsigmoid": 1e-6,
    # Optimized bmm is cpublas::gemm; portable sums each product in k order from zero.
    "bmm": 1e-6,
    # Optimized gelu is ATen's vectorized gelu (a polynomial erf, error ~1e-7, with Sleef's exp); portable
    # calls libm's erf and tanh.
    "gelu": 1e-6,
    "gelu_tanh": 1e-6,
}

# Programs whose kernels call libm's sinf, cosf, tanhf, logf, erff or powf. ExecuTorch's host runtime uses
# glibc's; newlib and musl may round an input an ulp apart (measured: musl's cosf, logf and tanhf on three
# of these inputs), so off glibc the test holds these to 2.4e-7 relative instead of bit for bit.
LIBM_PROGRAMS: frozenset[str] = frozenset(
    {"sin", "cos", "tanh", "log", "erf", "pow_scalar", "pow_tensor", "log_softmax", "gelu", "gelu_tanh"}
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--output-dir", type=pathlib.Path, required=True)
    parser.add_argument("programs", nargs="*", help="default: all")
    args = parser.parse_args()
    torch.set_num_threads(1)
    names = args.programs or sorted(PROGRAMS)
    lines = []
    for name in names:
        write_program(name, PROGRAMS[name], args.output_dir)
        inputs = len(list(args.output_dir.glob(f"{name}_input*.npy")))
        lines.append(f"{name} {inputs} {TOLERANCES.get(name, 0)} {int(name in LIBM_PROGRAMS)}\n")
    (args.output_dir / "manifest.txt").write_text("".join(lines))


if __name__ == "__main__":
    main()
