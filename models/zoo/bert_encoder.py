"""A BERT-style encoder: transformers' BertModel from a tiny config (2 layers, hidden 64, 4 heads,
intermediate 128), random weights from seed 0, on int32 token ids of 16 positions (see token_ids).

The model returns the last hidden state, so its whole graph is the encoder: word, position and
token-type embeddings (gathers), layer norms, unmasked self-attention, GELU feed-forwards.
"""

import torch
from torch import nn

import models.torchvision_compat  # noqa: F401 (transformers may import torchvision)
from transformers import BertConfig, BertModel
from arm.model_spec import ModelSpec
from models.random_weights import CALIBRATION_SAMPLES

VOCABULARY = 512
SEQUENCE = 16


class BertEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        config = BertConfig(
            vocab_size=VOCABULARY,
            hidden_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            intermediate_size=128,
            max_position_embeddings=64,
            attn_implementation="eager",
        )
        self.bert = BertModel(config, add_pooling_layer=False)
        # The ids BertEmbeddings would make itself (with an arange and a gather) as fixed int32 buffers (TOSA has
        # no int64; int64 constants are narrowed by arm/passes, which cannot read them while partitioning).
        self.register_buffer("position_ids", torch.arange(SEQUENCE, dtype=torch.int32).unsqueeze(0))
        self.register_buffer("token_type_ids", torch.zeros(1, SEQUENCE, dtype=torch.int32))

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        # BertModel's own forward builds an attention mask from data-dependent checks (an all-ones mask is
        # dropped at run time), which export turns into unbacked symbols; without padding the mask is
        # nothing, so the embeddings feed the encoder directly, as BertModel does when no mask is needed.
        embedded = self.bert.embeddings(
            input_ids=input_ids, token_type_ids=self.token_type_ids, position_ids=self.position_ids
        )
        return self.bert.encoder(embedded).last_hidden_state


def token_ids(count: int, seed: int = 0) -> list[tuple[torch.Tensor]]:
    generator = torch.Generator().manual_seed(seed)
    # int32 ids: an int64 model input is narrowed by arm/passes/int64_to_int32 inside the partitioner,
    # which executorch 1.5.1 rejects ("should not modify the graph module"); that boundary is being
    # reworked on another branch, after which the ids can be int64 as tokenizers give them.
    return [
        (torch.randint(0, VOCABULARY, (1, SEQUENCE), generator=generator, dtype=torch.int32),) for _ in range(count)
    ]


def model() -> ModelSpec:
    torch.manual_seed(0)
    samples = token_ids(CALIBRATION_SAMPLES)
    return ModelSpec(module=BertEncoder().eval(), example_inputs=samples[0], calibration_inputs=samples)
