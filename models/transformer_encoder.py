"""A small transformer encoder classifier: 2 pre-norm layers, d_model 64, 4 heads, 32 positions.

Attention is spelled out with Linear, matmul and softmax rather than nn.MultiheadAttention, whose
fused fast path exports as one opaque kernel; the model's operators are the ones an NPU flow must
lower: linear, layer_norm, matmul, softmax, gelu, add, view/permute and a mean over positions.
The input is a sequence of feature vectors (no token embedding: a gather is not the point here).
"""

import math

import torch
from torch import nn

from models.random_weights import model_spec, reinit_linear, seeded_inputs
from arm.model_spec import ModelSpec

SEQUENCE = 32
D_MODEL = 64
HEADS = 4
LAYERS = 2
FEED_FORWARD = 128
CLASSES = 10
INPUT_SHAPE = (1, SEQUENCE, D_MODEL)


class SelfAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.query = nn.Linear(D_MODEL, D_MODEL)
        self.key = nn.Linear(D_MODEL, D_MODEL)
        self.value = nn.Linear(D_MODEL, D_MODEL)
        self.out = nn.Linear(D_MODEL, D_MODEL)
        self.head_dim = D_MODEL // HEADS

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        # (batch, positions, d_model) -> (batch, heads, positions, head_dim)
        return x.view(x.shape[0], SEQUENCE, HEADS, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        query, key, value = self._heads(self.query(x)), self._heads(self.key(x)), self._heads(self.value(x))
        scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(self.head_dim)
        mixed = torch.matmul(torch.softmax(scores, dim=-1), value)
        return self.out(mixed.permute(0, 2, 1, 3).reshape(x.shape[0], SEQUENCE, D_MODEL))


class EncoderLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attention_norm = nn.LayerNorm(D_MODEL)
        self.attention = SelfAttention()
        self.feed_forward_norm = nn.LayerNorm(D_MODEL)
        self.feed_forward = nn.Sequential(
            nn.Linear(D_MODEL, FEED_FORWARD), nn.GELU(), nn.Linear(FEED_FORWARD, D_MODEL)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.feed_forward_norm(x))


class TransformerEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.Sequential(*(EncoderLayer() for _ in range(LAYERS)))
        self.norm = nn.LayerNorm(D_MODEL)
        self.classifier = nn.Linear(D_MODEL, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.norm(self.layers(x)).mean(dim=1))


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = TransformerEncoder()
    reinit_linear(module)
    return model_spec(module, seeded_inputs(INPUT_SHAPE))
