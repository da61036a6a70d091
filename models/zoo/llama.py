"""A Llama-architecture decoder: transformers' ``LlamaForCausalLM`` from a tiny config, random weights.

hidden 64, 2 layers, grouped-query attention with 4 query and 2 key/value heads, vocab 256, 16 tokens.
The input is int64 token ids, as a language model takes them; the output is the logits of every
position. No KV cache: one forward pass over the whole prompt, the prefill a device runs first.

What the flow meets here: an embedding gather on int64 ids, RMSNorm (pow, mean, rsqrt), rotary position
embeddings (cos/sin tables from arange positions and the inverse frequencies), a causal mask built from
arange comparisons, scaled_dot_product_attention with GQA key/value repeats, SiLU-gated MLPs.
"""

from __future__ import annotations

import models.torchvision_compat  # noqa: F401 (transformers imports torchvision, which needs it first)
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from arm.model_spec import ModelSpec

VOCAB = 256
HIDDEN = 64
LAYERS = 2
HEADS = 4
KV_HEADS = 2
INTERMEDIATE = 128
TOKENS = 16
CALIBRATION_SAMPLES = 8


def config() -> LlamaConfig:
    return LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=HIDDEN,
        intermediate_size=INTERMEDIATE,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS,
        max_position_embeddings=64,
        attn_implementation="sdpa",
    )


class LlamaLogits(torch.nn.Module):
    """token ids (1, TOKENS) int64 -> logits (1, TOKENS, VOCAB); the cache off, so the graph is one pass."""

    def __init__(self, model: LlamaForCausalLM):
        super().__init__()
        self.model = model

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=token_ids, use_cache=False).logits


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = LlamaLogits(LlamaForCausalLM(config())).eval()
    generator = torch.Generator().manual_seed(0)
    samples = [(torch.randint(0, VOCAB, (1, TOKENS), generator=generator),) for _ in range(CALIBRATION_SAMPLES)]
    return ModelSpec(module, samples[0], samples)
