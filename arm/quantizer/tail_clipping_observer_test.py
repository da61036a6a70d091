"""TailClippingObserver against a full sort of everything it observed (the oracle): the clipped range,
the cases where it must not clip, and the pruning of its candidates."""

from __future__ import annotations

import math

import pytest
import torch

from torchao.quantization.pt2e import MinMaxObserver

from arm.quantizer.tail_clipping_observer import TailClippingObserver

torch.set_num_threads(1)

_INT8 = dict(dtype=torch.int8, quant_min=-128, quant_max=127, qscheme=torch.per_tensor_affine)


def _observe(observer: TailClippingObserver, batches: list[torch.Tensor]) -> torch.Tensor:
    for batch in batches:
        observer(batch)
    return torch.cat([batch.reshape(-1) for batch in batches])


def _range(observer: TailClippingObserver) -> tuple[float, float]:
    """The real range the observer's int8 grid covers."""
    scale, zero_point = observer.calculate_qparams()
    scale, zero_point = float(scale), int(zero_point)
    return (observer.quant_min - zero_point) * scale, (observer.quant_max - zero_point) * scale


def _edges(values: torch.Tensor, fraction: float) -> tuple[float, float]:
    """The oracle: the values with floor(fraction * n) values beyond them, on each side."""
    outside = math.floor(fraction * values.numel())
    ordered = torch.sort(values).values
    return float(ordered[outside]), float(ordered[-1 - outside])


def _step(low: float, high: float) -> float:
    return (high - low) / 255


def test_clips_the_rarest_values_of_a_bell_shaped_tensor() -> None:
    generator = torch.Generator().manual_seed(0)
    batches = [torch.randn(1, 8, 32, 32, generator=generator) for _ in range(16)]
    observer = TailClippingObserver(**_INT8, tail_fraction=1e-3)
    values = _observe(observer, batches)
    low, high = _range(observer)
    expected_low, expected_high = _edges(values, 1e-3)
    # The grid's ends are the clipped range up to the rounding of the zero point (one step).
    step = _step(expected_low, expected_high)
    assert abs(low - expected_low) <= step and abs(high - expected_high) <= step
    assert high < 0.9 * float(values.max()) and low > 0.9 * float(values.min())


def test_keeps_the_whole_range_of_a_tensor_too_small_to_have_rare_values() -> None:
    generator = torch.Generator().manual_seed(1)
    batches = [torch.randn(1, 64, 1, 1, generator=generator) for _ in range(4)]  # 256 values < 1 / 3e-5
    observer = TailClippingObserver(**_INT8)
    values = _observe(observer, batches)
    low, high = _range(observer)
    step = _step(float(values.min()), float(values.max()))
    assert abs(low - float(values.min())) <= step and abs(high - float(values.max())) <= step


def test_a_relu_output_keeps_zero_as_its_lower_end() -> None:
    generator = torch.Generator().manual_seed(2)
    batches = [torch.relu(torch.randn(1, 4, 64, 64, generator=generator)) for _ in range(8)]
    observer = TailClippingObserver(**_INT8, tail_fraction=1e-3)
    values = _observe(observer, batches)
    scale, zero_point = observer.calculate_qparams()
    assert int(zero_point) == -128
    _, expected_high = _edges(values, 1e-3)
    assert abs(_range(observer)[1] - expected_high) <= float(scale)


def test_clips_less_never_more_where_it_kept_no_values() -> None:
    # A bulk in [-1, 1] and, in the first batch, 1000 values at 10. The first batch's own clipping
    # point is 10, so later batches keep only values beyond 9; over all batches a fraction of 0.1 asks
    # for an edge inside the bulk (below 1), where no value was kept. The range stops at 9, the lowest
    # point the observer can vouch for: it clips less than the rule asks, never more.
    generator = torch.Generator().manual_seed(3)
    bulk = [torch.rand(4096, generator=generator) * 2 - 1 for _ in range(4)]
    bulk[0][:1000] = 10.0
    observer = TailClippingObserver(**_INT8, tail_fraction=0.1)
    values = _observe(observer, bulk)
    _, oracle_high = _edges(values, 0.1)
    assert oracle_high < 1.0
    _, high = _range(observer)
    assert abs(high - 9.0) <= _step(-1.0, 9.0)


def test_pruned_candidates_give_the_same_edge_as_the_full_sort() -> None:
    # Uniform values put a tenth of each batch beyond 0.9 of the clipping point (near 1), so 200
    # batches of 64k pass the pruning limit (2**20 candidates).
    generator = torch.Generator().manual_seed(4)
    batches = [torch.rand(65536, generator=generator) for _ in range(200)]
    observer = TailClippingObserver(**_INT8, tail_fraction=1e-4)
    values = _observe(observer, batches)
    assert len(observer._high.candidates) < len(batches), "the candidates were never pruned"
    _, expected_high = _edges(values, 1e-4)
    assert observer._high.edge(math.floor(1e-4 * values.numel()), float(values.max())) == pytest.approx(expected_high)


def test_symmetric_int16_grid_covers_the_larger_clipped_side() -> None:
    generator = torch.Generator().manual_seed(5)
    batches = [torch.randn(1, 4, 64, 64, generator=generator) * 2 + 1 for _ in range(8)]
    observer = TailClippingObserver(
        dtype=torch.int16, quant_min=-32767, quant_max=32767, qscheme=torch.per_tensor_symmetric, tail_fraction=1e-3
    )
    values = _observe(observer, batches)
    scale, zero_point = observer.calculate_qparams()
    expected_low, expected_high = _edges(values, 1e-3)
    assert int(zero_point) == 0
    assert float(scale) == pytest.approx(max(-expected_low, expected_high) / 32767, rel=1e-6)


def test_observes_only_the_finite_values() -> None:
    """A fully masked attention row gives NaN, an additive mask -inf: the range is the finite values'."""
    generator = torch.Generator().manual_seed(2)
    finite = torch.randn(4, 64, generator=generator)
    with_holes = finite.clone()
    with_holes[0] = float("nan")
    with_holes[1, :8] = float("-inf")
    with_holes[2, :8] = float("inf")
    expected = TailClippingObserver(**_INT8)
    expected(with_holes[torch.isfinite(with_holes)])
    observer = TailClippingObserver(**_INT8)
    observer(with_holes)
    assert _range(observer) == _range(expected)
    assert all(math.isfinite(end) for end in _range(observer))


def test_a_tensor_with_no_finite_value_leaves_the_observer_untouched() -> None:
    observer = TailClippingObserver(**_INT8)
    observer(torch.full((8,), float("nan")))
    assert observer.count == 0
    observer(torch.tensor([-1.0, 2.0]))
    low, high = _range(observer)
    assert abs(low + 1.0) <= _step(-1.0, 2.0) and abs(high - 2.0) <= _step(-1.0, 2.0)


def test_the_range_before_clipping_is_minmax_exactly() -> None:
    """The row pass's minimum and maximum are MinMax's (the oracle), whatever the length: fewer values
    than a row, a partial last row, whole rows."""
    generator = torch.Generator().manual_seed(6)
    batches = [torch.randn(length, generator=generator) * 3 for length in (5, 64, 1000, 4096 + 17)]
    observer, oracle = TailClippingObserver(**_INT8), MinMaxObserver(**_INT8)
    for batch in batches:
        observer(batch)
        oracle(batch)
        assert float(observer.min_val) == float(oracle.min_val) and float(observer.max_val) == float(oracle.max_val)
