"""Vela cycles of group norms in three small models, with group_norm's int8 lowering forced to one form.

    PYTHONPATH=. python -m bench.group_norm_cycles [--targets ethos-u55-128,ethos-u85-256] [--form rule]

``--form``: ``int16`` (the normalized value u as int16 and a DEPTHWISE_CONV2D for the weights, the
lowering before session 8), ``exact`` (int8_normalization.group_norm_exact everywhere) or ``rule``
(what arm/ops/group_norm.py picks). Prints each model's NPU cycles (Vela 5.2.0's summary) and the
"NPU" cycles of its group-norm layers (per-layer CSV rows whose name holds "group_norm").

The models (seed 0, 4 calibration inputs): ``gn_block``, a 3x3 convolution to 32 channels, GroupNorm(4,
32) with per-channel weights and biases drawn around 1 and 0, ReLU, on [1, 8, 16, 16]; ``gn_cnn``, three
stride-2 convolutions each followed by GroupNorm(8, C) as initialized (unit weights, zero biases) and
ReLU, a mean and a linear head, on [1, 3, 32, 32]; ``wav2vec2_features``, transformers'
Wav2Vec2FeatureEncoder with ``feat_extract_norm="group"`` (GroupNorm(32, 32) after its first
convolution), three convolutions of 32 channels (kernels 10, 3, 3; strides 5, 2, 2), on 1,600 samples.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from unittest import mock

import torch

FORMS = ("rule", "int16", "exact")


class GroupNormBlock(torch.nn.Module):
    def __init__(self, groups: int = 4, channels: int = 32):
        super().__init__()
        self.conv = torch.nn.Conv2d(8, channels, 3, padding=1)
        self.norm = torch.nn.GroupNorm(groups, channels)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(channels))
            self.norm.bias.copy_(0.5 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.norm(self.conv(x)))


class GroupNormCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        layers: list[torch.nn.Module] = []
        channels = 3
        for width in (16, 32, 32):
            layers += [torch.nn.Conv2d(channels, width, 3, stride=2, padding=1), torch.nn.GroupNorm(8, width),
                       torch.nn.ReLU()]  # fmt: skip
            channels = width
        self.body = torch.nn.Sequential(*layers)
        self.head = torch.nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x).mean((2, 3)))


class Wav2Vec2Features(torch.nn.Module):
    def __init__(self):
        super().__init__()
        import models.torchvision_compat  # noqa: F401 (transformers imports torchvision)
        from transformers import Wav2Vec2Config
        from transformers.models.wav2vec2.modeling_wav2vec2 import Wav2Vec2FeatureEncoder

        config = Wav2Vec2Config(conv_dim=(32, 32, 32), conv_kernel=(10, 3, 3), conv_stride=(5, 2, 2),
                                feat_extract_norm="group", conv_bias=False)  # fmt: skip
        self.encoder = Wav2Vec2FeatureEncoder(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder(x)


MODELS = {
    "gn_block": (GroupNormBlock, (1, 8, 16, 16)),
    "gn_cnn": (GroupNormCnn, (1, 3, 32, 32)),
    "wav2vec2_features": (Wav2Vec2Features, (1, 1600)),
}


def _spec(name: str):
    from arm.model_spec import ModelSpec

    module_class, shape = MODELS[name]
    torch.manual_seed(0)
    module = module_class().eval()
    generator = torch.Generator().manual_seed(0)
    samples = [(torch.randn(*shape, generator=generator),) for _ in range(4)]
    return ModelSpec(module, samples[0], samples)


def cycles(name: str, target: str, form: str) -> tuple[int, int]:
    """(the model's NPU cycles, its group-norm layers' NPU cycles)."""
    import arm.ops.group_norm as group_norm
    from arm.flow import resolve_target, run_flow

    forced = {"rule": group_norm._takes_exact_form, "int16": lambda *args: False, "exact": lambda *args: True}[form]
    with mock.patch.object(group_norm, "_takes_exact_form", forced):
        result = run_flow(_spec(name), resolve_target(target), calibration_samples=4, progress=False)
    npu = layers = 0
    for vela in result.artifacts.vela:
        npu += sum(int(float(row["cycles_npu"])) for row in csv.DictReader(io.StringIO(vela.summary_csv)))
        layers += sum(int(float(row["NPU"])) for row in csv.DictReader(io.StringIO(vela.per_layer_csv))
                      if "group_norm" in row["Name"])  # fmt: skip
    return npu, layers


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--targets", default="ethos-u55-128,ethos-u85-256")
    parser.add_argument("--form", choices=FORMS, default="rule")
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print(f"| model | target | form | NPU cycles | group-norm layers |\n| --- | --- | --- | ---: | ---: |")
    for name in args.models.split(","):
        for target in args.targets.split(","):
            npu, layers = cycles(name, target, args.form)
            print(f"| {name} | {target} | {args.form} | {npu:,} | {layers:,} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
