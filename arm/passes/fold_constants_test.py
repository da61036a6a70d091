"""fold_constants on small edge programs: tables computed from constants and shapes become constants,
the outputs do not change, and what depends on an input or a dequantized weight stays."""

from __future__ import annotations

import torch
from executorch.exir import EdgeCompileConfig, to_edge
from torch.export import ExportedProgram

from arm.ops.common.op_test_case import OpTestCase, random_inputs
from arm.ops.testing.harness import OpCase, check_op_case
from arm.passes.fold_constants import fold_constants

torch.set_num_threads(1)


class _CausalScores(torch.nn.Module):
    """Attention scores masked by a causal mask built from arange comparisons, as decoders build it."""

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(scores.shape[-1])
        future = positions[None, :] > positions[:, None]
        return scores.masked_fill(future, -10.0)


class _RotaryPositions(torch.nn.Module):
    """cos/sin tables from arange positions and inverse frequencies (a buffer), applied to the input."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("inverse_frequency", 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        angles = torch.arange(x.shape[1]).float()[:, None] * self.inverse_frequency[None, :]
        table = torch.cat([angles, angles], dim=-1)
        return x * table.cos() + table.sin()


class _AnchorGrid(torch.nn.Module):
    """A detector head's box decoding: grid offsets and strides from the feature map's shape."""

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        height, width = features.shape[-2:]
        ys, xs = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
        grid = torch.stack([xs, ys]).float() + 0.5
        stride = torch.full((2, 1, 1), 32.0 / height)
        return (features[:, :2] + grid) * stride


def _edge(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]) -> ExportedProgram:
    config = EdgeCompileConfig(_check_ir_validity=False)
    return to_edge(torch.export.export(module.eval(), inputs), compile_config=config).exported_program()


def _computing_targets(program: ExportedProgram) -> set[str]:
    return {str(node.target) for node in program.graph.nodes if node.op == "call_function"}


def _mentions(program: ExportedProgram, operator_name: str) -> bool:
    return any(operator_name in target for target in _computing_targets(program))


def _check_folds(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...], folded: set[str]) -> None:
    program = _edge(module, inputs)
    expected = program.module()(*inputs)
    assert all(_mentions(program, name) for name in folded)

    result = fold_constants(program)

    assert result.constants, "nothing was folded"
    assert not any(_mentions(program, name) for name in folded), _computing_targets(program)
    torch.testing.assert_close(program.module()(*inputs), expected, rtol=0, atol=0)


def test_causal_mask_folds() -> None:
    _check_folds(_CausalScores(), random_inputs(0, (1, 2, 6, 6)), {"aten.arange", "aten.gt"})


def test_rotary_tables_fold_from_arange_and_a_buffer() -> None:
    _check_folds(_RotaryPositions(), random_inputs(1, (1, 5, 8)), {"aten.arange", "aten.cos", "aten.sin"})


def test_anchor_grid_folds() -> None:
    _check_folds(_AnchorGrid(), random_inputs(2, (1, 4, 3, 5)), {"aten.arange"})


class _LikeAnInput(torch.nn.Module):
    """zeros_like / ones_like of the model input: constants of its static shape."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([x + torch.ones_like(x), torch.zeros_like(x)], dim=-1)


def test_shape_only_creators_of_an_input_fold() -> None:
    _check_folds(_LikeAnInput(), random_inputs(5, (2, 3)), {"aten.full_like"})


class _TokenTypesAtPositions(torch.nn.Module):
    """RoBERTa's token types: a buffer of zeros gathered at position ids computed from the input ids."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("token_type_ids", torch.zeros(1, 8, dtype=torch.long))
        self.types = torch.nn.Embedding(2, 4)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        positions = torch.cumsum((ids != 1).int(), dim=1) + 1
        types = torch.gather(self.token_type_ids.expand(ids.shape[0], -1), 1, positions.long())
        return self.types(types) + positions[..., None]


def test_gather_from_values_equal_along_its_dim_folds() -> None:
    ids = (torch.tensor([[5, 1, 6, 2, 7, 1]]),)
    _check_folds(_TokenTypesAtPositions(), ids, {"aten.gather"})


def test_gather_from_differing_values_stays() -> None:
    module = _TokenTypesAtPositions()
    module.token_type_ids[0, 3] = 1  # the result now depends on the positions
    program = _edge(module, (torch.tensor([[5, 1, 6, 2, 7, 1]]),))
    fold_constants(program)
    assert _mentions(program, "aten.gather"), _computing_targets(program)


def test_what_reads_an_input_stays() -> None:
    program = _edge(_RotaryPositions(), random_inputs(3, (1, 5, 8)))
    fold_constants(program)
    remaining = " ".join(_computing_targets(program))
    for operator in ("aten.mul.Tensor", "aten.add.Tensor"):
        assert operator in remaining, remaining


def test_folded_rotary_tables_let_the_model_lower() -> None:
    # Folded, the cos/sin tables are constants the muls read: one delegate computes the model and matches
    # the quantized module on the TOSA reference model.
    case = OpTestCase(_RotaryPositions(), random_inputs(4, (1, 5, 8)))
    check_op_case(OpCase("fold_constants", "rotary", "tosa_INT", case))
