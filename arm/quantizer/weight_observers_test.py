"""The weight observers against torchao's MinMax observers (the oracle): the same ranges after many
calibration forwards, and a weight written in place is observed again."""

from __future__ import annotations

import torch
from torchao.quantization.pt2e import MinMaxObserver, PerChannelMinMaxObserver

from arm.quantizer.weight_observers import PerChannelWeightObserver, PerTensorWeightObserver

_PER_CHANNEL = dict(dtype=torch.int8, quant_min=-127, quant_max=127, qscheme=torch.per_channel_symmetric, ch_axis=0)
_PER_TENSOR = dict(dtype=torch.int8, quant_min=-127, quant_max=127, qscheme=torch.per_tensor_symmetric)


def _weight(seed: int) -> torch.nn.Parameter:
    return torch.nn.Parameter(torch.randn(8, 4, 3, 3, generator=torch.Generator().manual_seed(seed)), requires_grad=False)


def _qparams(observer: torch.nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
    return observer.calculate_qparams()


def test_repeated_forwards_give_minmax_ranges() -> None:
    weight = _weight(0)
    ours, oracle = PerChannelWeightObserver(**_PER_CHANNEL), PerChannelMinMaxObserver(**_PER_CHANNEL)
    for _ in range(3):
        assert ours(weight) is weight
        oracle(weight)
    for mine, theirs in zip(_qparams(ours), _qparams(oracle), strict=True):
        assert torch.equal(mine, theirs)
    assert torch.equal(ours.min_val, oracle.min_val) and torch.equal(ours.max_val, oracle.max_val)


def test_a_weight_written_in_place_or_another_tensor_is_observed_again() -> None:
    weight, other = _weight(1), _weight(2)
    ours, oracle = PerTensorWeightObserver(**_PER_TENSOR), MinMaxObserver(**_PER_TENSOR)
    for observer in (ours, oracle):
        observer(weight)
    with torch.no_grad():
        weight.mul_(3.0)  # bumps the version counter: the range must widen
    for observer in (ours, oracle):
        observer(weight)
        observer(other)
    assert float(ours.max_val) == float(oracle.max_val) == float(torch.max(weight.max(), other.max()))
    assert float(ours.min_val) == float(oracle.min_val)
    assert torch.equal(_qparams(ours)[0], _qparams(oracle)[0])
