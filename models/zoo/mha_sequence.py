"""A small keyword-spotting-style sequence model: two 2-D convolutions over a 16-mel x 40-frame
spectrogram (the second halves the mel axis), the 8 channels x 8 mels of each frame as its 64 features,
then nn.MultiheadAttention (64 wide, 4 heads, self-attention), a residual layer norm and a mean-pooled
8-class head. Random weights from seed 0, BatchNorm statistics re-estimated on the inputs.

nn.MultiheadAttention exports (eval) as linear projections, view/transpose and
scaled_dot_product_attention.
"""

import torch
from torch import nn

from arm.model_spec import ModelSpec
from models.random_weights import model_spec, reestimate_batch_norm, reinit_linear, seeded_inputs

MELS = 16
FRAMES = 40
CHANNELS = 8
WIDTH = CHANNELS * MELS // 2
HEADS = 4
CLASSES = 8


class MhaSequence(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, CHANNELS, 3, padding=1), nn.BatchNorm2d(CHANNELS), nn.ReLU(),
            nn.Conv2d(CHANNELS, CHANNELS, 3, stride=(2, 1), padding=1), nn.BatchNorm2d(CHANNELS), nn.ReLU(),
        )  # fmt: skip
        self.attention = nn.MultiheadAttention(WIDTH, HEADS, batch_first=True)
        self.norm = nn.LayerNorm(WIDTH)
        self.classifier = nn.Linear(WIDTH, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.features(x).reshape(x.shape[0], WIDTH, FRAMES).transpose(1, 2)
        attended, _ = self.attention(y, y, y, need_weights=False)
        return self.classifier(self.norm(y + attended).mean(dim=1))


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = MhaSequence()
    reinit_linear(module)
    samples = seeded_inputs((1, 1, MELS, FRAMES))
    reestimate_batch_norm(module, samples)
    return model_spec(module, samples)
