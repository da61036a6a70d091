"""A Conformer-style speech block (Gulati et al. 2020) over 32 frames of 64 features: half-step
feed-forward, multi-head self-attention, the convolution module (pointwise conv, GLU, depthwise conv,
batch norm, SiLU, pointwise conv), a second half-step feed-forward and a final layer norm.

Written out with nn.Linear, matmul and softmax as torchaudio's Conformer computes it, q, k and v
unbound from one projection as timm does; the convolutions over time are Conv2d over a [features, 1,
frames] map (torchaudio's Conv1d computes the same). Random weights from seed 0, BatchNorm statistics
re-estimated on the inputs.
"""

import math

import torch
from torch import nn

from arm.model_spec import ModelSpec
from models.random_weights import model_spec, reestimate_batch_norm, reinit_linear, seeded_inputs

FRAMES = 32
FEATURES = 64
HEADS = 4
KERNEL = 7


class FeedForward(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.LayerNorm(FEATURES), nn.Linear(FEATURES, 2 * FEATURES), nn.SiLU(), nn.Linear(2 * FEATURES, FEATURES)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + 0.5 * self.net(x)


class SelfAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(FEATURES)
        self.qkv = nn.Linear(FEATURES, 3 * FEATURES)
        self.out = nn.Linear(FEATURES, FEATURES)
        self.head_dim = FEATURES // HEADS

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch = x.shape[0]
        qkv = self.qkv(self.norm(x)).reshape(batch, FRAMES, 3, HEADS, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        mixed = torch.softmax(scores, dim=-1) @ v
        return x + self.out(mixed.transpose(1, 2).reshape(batch, FRAMES, FEATURES))


class ConvolutionModule(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(FEATURES)
        self.pointwise_in = nn.Conv2d(FEATURES, 2 * FEATURES, 1)
        self.depthwise = nn.Conv2d(FEATURES, FEATURES, (1, KERNEL), padding=(0, KERNEL // 2), groups=FEATURES)
        self.batch_norm = nn.BatchNorm2d(FEATURES)
        self.activation = nn.SiLU()
        self.pointwise_out = nn.Conv2d(FEATURES, FEATURES, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # (batch, frames, features) -> (batch, features, 1, frames)
        # GLU over channels, spelled out (aten.glu has no lowering): one half gates the other.
        content, gate = self.pointwise_in(self.norm(x).transpose(1, 2).unsqueeze(2)).chunk(2, dim=1)
        y = content * torch.sigmoid(gate)
        y = self.pointwise_out(self.activation(self.batch_norm(self.depthwise(y))))
        return x + y.squeeze(2).transpose(1, 2)


class ConformerBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.feed_forward_in = FeedForward()
        self.attention = SelfAttention()
        self.convolution = ConvolutionModule()
        self.feed_forward_out = FeedForward()
        self.norm = nn.LayerNorm(FEATURES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.convolution(self.attention(self.feed_forward_in(x)))
        return self.norm(self.feed_forward_out(x))


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = ConformerBlock()
    reinit_linear(module)
    samples = seeded_inputs((1, FRAMES, FEATURES))
    reestimate_batch_norm(module, samples)
    return model_spec(module, samples)
