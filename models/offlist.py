"""Models off the zoo list, compiled as a new user would (issue 9: "we will also check models not on this list").

Each entry builds a model the way its library's users do (timm's ``create_model``, transformers' config
classes, torchvision's constructors), with random weights from seed 0, a small input so one compile takes
well under two minutes, and 4 calibration samples; token models take int64 ids, as tokenizers give them.
The campaign runs each through the public API (``arm.flow.run_flow``, what ``python -m arm.compile``
calls) for tosa-INT, ethos-u55-128 and ethos-u85-256, and records per model and target: whether the
flow ended in an internal error, the partitions, the delegated share and the CPU operators with their
reasons.

    python -m models.offlist --out /tmp/offlist.jsonl [--models gpt2,resnet50] [--targets ethos-u55-128]
    python -m models.offlist --out /tmp/offlist.jsonl --numerics tosa-INT   # also each whole program's LSB
    python -m models.offlist --table /tmp/offlist.jsonl      # the Markdown table of models/README.md

``--numerics`` runs each program on the host (its boundary quantize and dequantize in numpy, or, with
other CPU operators such as a token model's id cast and embedding, its CPU runs on ExecuTorch's host
runtime; every delegate's TOSA graph on the reference model) against its own quantized model in float64
on two calibration inputs, and records the largest distance in output steps (models/delegated_numerics.py).

No test runs these models (they are too big for CI); what the campaign found is pinned by small
regression tests beside the code it fixed (arm/passes/inline_mode_regions_test.py for EfficientViT's
autocast-disabled attention, arm/passes/int64_to_int32_test.py for token ids, arm/ops/addcmul.py's
cases for ConvNeXt-V2, arm/ops/baddbmm.py's for Bloom's ALiBi scores, masked_fill's
``key_padding_built_from_shapes`` and gather's ``constant_index_per_row`` for DeBERTa-v2,
scaled_dot_product_attention's ``heads_merged_after_a_view_write`` for BART, arm/ops/roll.py's for Swin's
shifted windows, arm/ops/clamp.py's ``normalize`` for EdgeNeXt's F.normalize, arm/ops/index_select.py's
``relative_position_bias`` for Swin's folded bias lookup, arm/ops/adaptive_avg_pool3d.py's for r3d_18's
head; session 9: scaled_dot_product_attention's ``heads_merged_after_a_view_write`` on the float targets
for BART on TOSA FP, cumsum's ``token_positions`` and ``int32_data``, compare's ``int32_ne_scalar``,
fold_constants_test's gather from equal values and int64_to_int32_test's widening cast for RoBERTa's
position ids; session 10: batch_norm's ``rank4_every_value_exact`` for MobileOne's identity branches,
avg_pool2d's ``3x3_exclude_pad_ties_to_even`` for PoolFormer's token mixer; session 11: arm/ops/einsum.py's
cases for Funnel's and CvT's einsums, im2col.py's ``token_windows`` for ConvBERT's unfold, avg_pool1d.py's
``squeeze_frames`` for SEW, and
flow_robustness_test's ``custom_operator_without_a_kernel`` for Mixtral's default experts; session 12:
where.py's ``gpt_neo_causal_mask`` and ``gpt_neo_local_window_mask`` for GPT-Neo's masks). models/README.md
has the results, per model and target.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
import traceback
from pathlib import Path
from typing import Callable

import torch
from torch import nn

import models.torchvision_compat  # noqa: F401 (timm and transformers import torchvision)
from arm.model_spec import ModelSpec
from models.random_weights import reestimate_batch_norm, seeded_inputs

CALIBRATION_SAMPLES = 4
TARGETS = ("tosa-INT", "ethos-u55-128", "ethos-u85-256")
_VOCABULARY = 256
_SEQUENCE = 16


def _vision(make: Callable[[], nn.Module], size: int) -> Callable[[], ModelSpec]:
    def factory() -> ModelSpec:
        torch.manual_seed(0)
        module = make()
        samples = seeded_inputs((1, 3, size, size), count=CALIBRATION_SAMPLES)
        reestimate_batch_norm(module, samples)
        return ModelSpec(module.eval(), samples[0], samples)

    return factory


def _timm(name: str, size: int, **kwargs: object) -> Callable[[], ModelSpec]:
    def make() -> nn.Module:
        import timm

        return timm.create_model(name, pretrained=False, **kwargs)

    return _vision(make, size)


def _torchvision(name: str, size: int, **kwargs: object) -> Callable[[], ModelSpec]:
    def make() -> nn.Module:
        from models.torchvision_compat import torchvision

        return getattr(torchvision.models, name)(**kwargs)

    return _vision(make, size)


class _SegmentationMap(nn.Module):
    """A torchvision segmentation model returning its ``out`` map (its forward returns a dict)."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.model(images)["out"]


def _segmentation(name: str, size: int) -> Callable[[], ModelSpec]:
    def make() -> nn.Module:
        from models.torchvision_compat import torchvision

        return _SegmentationMap(getattr(torchvision.models.segmentation, name)(weights_backbone=None))

    return _vision(make, size)


class _FirstOutput(nn.Module):
    """A transformers model called as users call it, returning its first output tensor."""

    def __init__(self, model: nn.Module, keyword: str):
        super().__init__()
        self.model = model
        self.keyword = keyword

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        output = self.model(**{self.keyword: inputs})
        return output[0]


def _token_ids(seed: int = 0) -> list[tuple[torch.Tensor]]:
    generator = torch.Generator().manual_seed(seed)
    return [(torch.randint(0, _VOCABULARY, (1, _SEQUENCE), generator=generator),) for _ in range(CALIBRATION_SAMPLES)]


def _transformers(
    make: Callable[[], nn.Module], keyword: str, inputs: Callable[[], list[tuple[torch.Tensor]]]
) -> Callable[[], ModelSpec]:
    def factory() -> ModelSpec:
        torch.manual_seed(0)
        model = make()
        if hasattr(model, "config"):
            model.config.use_cache = False
        samples = inputs()
        return ModelSpec(_FirstOutput(model.eval(), keyword), samples[0], samples)

    return factory


def _gpt2() -> nn.Module:
    from transformers import GPT2Config, GPT2LMHeadModel

    return GPT2LMHeadModel(GPT2Config(vocab_size=_VOCABULARY, n_positions=32, n_embd=64, n_layer=2, n_head=4))


def _distilbert() -> nn.Module:
    from transformers import DistilBertConfig, DistilBertModel

    config = DistilBertConfig(
        vocab_size=_VOCABULARY, dim=64, n_layers=2, n_heads=4, hidden_dim=128, max_position_embeddings=32
    )
    return DistilBertModel(config)


def _t5_encoder() -> nn.Module:
    from transformers import T5Config, T5EncoderModel

    return T5EncoderModel(T5Config(vocab_size=_VOCABULARY, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4))


def _whisper_encoder() -> nn.Module:
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    config = WhisperConfig(
        d_model=64,
        encoder_layers=2,
        encoder_attention_heads=4,
        encoder_ffn_dim=128,
        num_mel_bins=16,
        max_source_positions=16,
    )
    return WhisperEncoder(config)


def _qwen2() -> nn.Module:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    # Grouped-query attention (4 query heads over 2 key/value heads) with rotary positions, as Qwen2.5-0.5B.
    config = Qwen2Config(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=32,
        tie_word_embeddings=True,
    )
    return Qwen2ForCausalLM(config)


def _phi3() -> nn.Module:
    from transformers import Phi3Config, Phi3ForCausalLM

    # Fused qkv and gate_up projections, rotary positions, full multi-head attention.
    config = Phi3Config(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=32,
        original_max_position_embeddings=32,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )
    return Phi3ForCausalLM(config)


def _mobilebert() -> nn.Module:
    from transformers import MobileBertConfig, MobileBertModel

    # The bottleneck encoder with NoNorm (elementwise affine, no statistics) and stacked FFNs.
    config = MobileBertConfig(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        embedding_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        intra_bottleneck_size=32,
        true_hidden_size=32,
        num_feedforward_networks=2,
        max_position_embeddings=32,
    )
    return MobileBertModel(config, add_pooling_layer=False)


def _mel_frames() -> list[tuple[torch.Tensor]]:
    return seeded_inputs((1, 16, 32), count=CALIBRATION_SAMPLES)  # 2 x max_source_positions frames


def _hf_vit() -> nn.Module:
    from transformers import ViTConfig, ViTModel

    config = ViTConfig(
        image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128
    )
    return ViTModel(config, add_pooling_layer=False)


def _image(size: int) -> Callable[[], list[tuple[torch.Tensor]]]:
    return lambda: seeded_inputs((1, 3, size, size), count=CALIBRATION_SAMPLES)


# --- Session 8: more sequence, speech and detector models (decoders with other attention forms,
# encoders with relative or learned positions, a speech front end, detectors' other heads). ---


class _Output(nn.Module):
    """A transformers model called with named inputs, returning the output at ``index``."""

    def __init__(self, model: nn.Module, keywords: tuple[str, ...], index: int = 0):
        super().__init__()
        self.model = model
        self.keywords = keywords
        self.index = index

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        return self.model(**dict(zip(self.keywords, inputs)))[self.index]


def _sequence(
    make: Callable[[], nn.Module],
    keywords: tuple[str, ...],
    inputs: Callable[[], list[tuple[torch.Tensor, ...]]],
    index: int = 0,
) -> Callable[[], ModelSpec]:
    def factory() -> ModelSpec:
        torch.manual_seed(0)
        model = make()
        if hasattr(model, "config"):
            model.config.use_cache = False
        samples = inputs()
        return ModelSpec(_Output(model.eval(), keywords, index), samples[0], samples)

    return factory


def _decoder_config(config_class: type, **kwargs: object) -> object:
    """A tiny causal decoder: hidden 64, 2 layers, 4 heads, vocab 256, 32 positions."""
    sizes: dict[str, object] = dict(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=32,
    )
    sizes.update(kwargs)
    return config_class(**sizes)


def _mistral() -> nn.Module:
    from transformers import MistralConfig, MistralForCausalLM

    # Sliding-window attention: a window of 8 over 16 tokens, so the mask is a band, not a triangle.
    return MistralForCausalLM(_decoder_config(MistralConfig, num_key_value_heads=2, sliding_window=8))


def _gemma2() -> nn.Module:
    from transformers import Gemma2Config, Gemma2ForCausalLM

    # Tanh soft-capping of attention scores and logits, GeGLU MLP, (1 + w) RMSNorm with sandwich norms,
    # embeddings scaled by sqrt(hidden), local (window 8) and global layers alternating.
    config = _decoder_config(
        Gemma2Config, num_key_value_heads=2, head_dim=16, sliding_window=8, query_pre_attn_scalar=16
    )
    return Gemma2ForCausalLM(config)


def _llama32() -> nn.Module:
    from transformers import LlamaConfig, LlamaForCausalLM

    # Llama-3.2's rotary scaling ("llama3": low frequencies divided by 8, a smooth band between),
    # tied embeddings, GQA: the rotary table is computed from the scaled frequencies at run time.
    rope = {
        "rope_type": "llama3",
        "rope_theta": 500000.0,
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8,
    }
    config = _decoder_config(LlamaConfig, num_key_value_heads=2, rope_parameters=rope, tie_word_embeddings=True)
    return LlamaForCausalLM(config)


def _opt() -> nn.Module:
    from transformers import OPTConfig, OPTForCausalLM

    # Learned positions read at cumsum(attention_mask) + 2, ReLU MLP, a projection out of a smaller
    # word-embedding width.
    config = OPTConfig(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        ffn_dim=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=32,
        word_embed_proj_dim=32,
    )
    return OPTForCausalLM(config)


def _pythia() -> nn.Module:
    from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

    # GPT-NeoX (Pythia): rotary on a quarter of each head, parallel attention and MLP residuals, fused qkv.
    config = _decoder_config(GPTNeoXConfig, partial_rotary_factor=0.25, use_parallel_residual=True)
    return GPTNeoXForCausalLM(config)


def _bloom() -> nn.Module:
    from transformers import BloomConfig, BloomForCausalLM

    # ALiBi: per-head linear position biases built from the attention mask's cumsum, no position table.
    return BloomForCausalLM(BloomConfig(vocab_size=_VOCABULARY, hidden_size=64, n_layer=2, n_head=4))


def _roberta() -> nn.Module:
    from transformers import RobertaConfig, RobertaModel

    # Position ids computed from the token ids at run time (cumsum of ids != pad, offset by pad + 1).
    config = RobertaConfig(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=40,
    )
    return RobertaModel(config, add_pooling_layer=False)


def _deberta_v2() -> nn.Module:
    from transformers import DebertaV2Config, DebertaV2Model

    # Disentangled attention: content-to-position and position-to-content scores gathered at
    # log-bucketed relative positions, shared relative embeddings, no absolute positions.
    config = DebertaV2Config(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=32,
        relative_attention=True,
        position_buckets=8,
        max_relative_positions=32,
        pos_att_type=["p2c", "c2p"],
        position_biased_input=False,
        norm_rel_ebd="layer_norm",
        share_att_key=True,
    )
    return DebertaV2Model(config)


def _clip_text() -> nn.Module:
    from transformers import CLIPTextConfig, CLIPTextModel

    # Causal text encoder whose pooled output is the hidden state at each row's largest id (argmax + index).
    config = CLIPTextConfig(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=32,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )
    return CLIPTextModel(config)


_DECODER_TOKENS = 8
_ENCODER_FRAMES = 16


def _whisper_decoder() -> nn.Module:
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperDecoder

    # The decoder over 8 ids: causal self-attention, cross-attention to 16 encoder frames, learned positions.
    config = WhisperConfig(
        vocab_size=_VOCABULARY,
        d_model=64,
        decoder_layers=2,
        decoder_attention_heads=4,
        decoder_ffn_dim=128,
        max_target_positions=16,
        max_source_positions=_ENCODER_FRAMES,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        decoder_start_token_id=1,
    )
    return WhisperDecoder(config)


def _ids_and_encoder_states() -> list[tuple[torch.Tensor, ...]]:
    generator = torch.Generator().manual_seed(0)
    return [
        (
            torch.randint(0, _VOCABULARY, (1, _DECODER_TOKENS), generator=generator),
            torch.randn((1, _ENCODER_FRAMES, 64), generator=generator),
        )
        for _ in range(CALIBRATION_SAMPLES)
    ]


# The sizes Wav2Vec2 and HuBERT share: a three-layer strided Conv1d feature encoder, two encoder layers.
_TINY_AUDIO_ENCODER = dict(
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=128,
    conv_dim=(32, 32, 32),
    conv_stride=(5, 2, 2),
    conv_kernel=(10, 3, 3),
    num_conv_pos_embeddings=16,
    num_conv_pos_embedding_groups=4,
)


def _wav2vec2() -> nn.Module:
    from transformers import Wav2Vec2Config, Wav2Vec2Model

    # Raw audio in: a strided Conv1d feature encoder with GroupNorm on its first layer, a feature
    # projection, a grouped positional Conv1d (weight-normalised) and a post-norm encoder.
    config = Wav2Vec2Config(
        **_TINY_AUDIO_ENCODER,
        feat_extract_norm="group",
        do_stable_layer_norm=False,
        apply_spec_augment=False,
    )
    return Wav2Vec2Model(config)


def _audio() -> list[tuple[torch.Tensor]]:
    return seeded_inputs((1, 640), count=CALIBRATION_SAMPLES)  # 640 samples -> 31 frames of 20


def _falcon() -> nn.Module:
    from transformers import FalconConfig, FalconForCausalLM

    # Falcon-7B's layout: multi-query attention (one key/value head), attention and MLP in parallel off
    # one LayerNorm, rotary positions, GELU.
    config = FalconConfig(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        multi_query=True,
        parallel_attn=True,
        max_position_embeddings=32,
        bos_token_id=1,
        eos_token_id=2,
    )
    return FalconForCausalLM(config)


def _qwen3() -> nn.Module:
    from transformers import Qwen3Config, Qwen3ForCausalLM

    # RMSNorm on each head's queries and keys before the rotary (QK-norm), GQA.
    return Qwen3ForCausalLM(_decoder_config(Qwen3Config, num_key_value_heads=2, head_dim=16))


def _modernbert() -> nn.Module:
    from transformers import ModernBertConfig, ModernBertModel

    # Alternating global and local (window 8) attention with rotary positions, GeGLU MLP, bias-free norms.
    config = ModernBertConfig(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=32,
        local_attention=8,
        global_attn_every_n_layers=2,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        cls_token_id=1,
        sep_token_id=2,
    )
    return ModernBertModel(config)


def _bart() -> nn.Module:
    from transformers import BartConfig, BartModel

    # Encoder-decoder from the ids alone: the decoder's ids are the input shifted right (start token,
    # padding of -100 labels replaced), so integer slicing, cat and masked_fill run on the ids.
    config = BartConfig(
        vocab_size=_VOCABULARY,
        d_model=64,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=128,
        decoder_ffn_dim=128,
        max_position_embeddings=32,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        decoder_start_token_id=2,
        forced_eos_token_id=2,
    )
    return BartModel(config)


def _fnet() -> nn.Module:
    from transformers import FNetConfig, FNetModel

    # Token mixing by a 2-D Fourier transform (the real part of fftn over sequence and hidden) instead of attention.
    config = FNetConfig(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        num_hidden_layers=2,
        intermediate_size=128,
        max_position_embeddings=32,
        use_tpu_fourier_optimizations=False,
    )
    return FNetModel(config, add_pooling_layer=False)


def _mamba() -> nn.Module:
    from transformers import MambaConfig, MambaForCausalLM

    # A selective state-space model: a causal depthwise Conv1d and a scan over the 16 tokens
    # (transformers' slow path without its CUDA kernels), no attention.
    config = MambaConfig(vocab_size=_VOCABULARY, hidden_size=64, state_size=8, num_hidden_layers=2, expand=2)
    return MambaForCausalLM(config)


def _hubert() -> nn.Module:
    from transformers import HubertConfig, HubertModel

    # HuBERT-large's "stable" layout: LayerNorm after every feature-encoder convolution (channels
    # transposed around it) and a pre-norm encoder.
    config = HubertConfig(
        **_TINY_AUDIO_ENCODER,
        feat_extract_norm="layer",
        do_stable_layer_norm=True,
        apply_spec_augment=False,
    )
    return HubertModel(config)


def _ultralytics(yaml: str, task: str, size: int) -> Callable[[], ModelSpec]:
    """An Ultralytics network from the yaml its wheel ships (AGPL-3.0: imported only in this campaign)."""

    def factory() -> ModelSpec:
        from ultralytics import YOLO

        torch.manual_seed(0)
        module = YOLO(yaml, task=task).model
        head = module.model[-1]
        if hasattr(head, "export"):
            head.export = True  # the exporter's mode: decoded outputs alone
        samples = seeded_inputs((1, 3, size, size), count=CALIBRATION_SAMPLES)
        reestimate_batch_norm(module, samples)
        with torch.no_grad():
            module(samples[0][0])  # caches anchors and strides at the export size, as Ultralytics' exporter does
        return ModelSpec(module.eval(), samples[0], samples)

    return factory


_SEQUENCE_MODELS: dict[str, Callable[[], ModelSpec]] = {
    "mistral": _sequence(_mistral, ("input_ids",), _token_ids),
    "gemma2": _sequence(_gemma2, ("input_ids",), _token_ids),
    "llama32_rope": _sequence(_llama32, ("input_ids",), _token_ids),
    "opt": _sequence(_opt, ("input_ids",), _token_ids),
    "pythia": _sequence(_pythia, ("input_ids",), _token_ids),
    "bloom": _sequence(_bloom, ("input_ids",), _token_ids),
    "roberta": _sequence(_roberta, ("input_ids",), _token_ids),
    "deberta_v2": _sequence(_deberta_v2, ("input_ids",), _token_ids),
    "clip_text_pooled": _sequence(_clip_text, ("input_ids",), _token_ids, index=1),
    "whisper_decoder": _sequence(
        _whisper_decoder, ("input_ids", "encoder_hidden_states"), _ids_and_encoder_states
    ),
    "wav2vec2": _sequence(_wav2vec2, ("input_values",), _audio),
    "falcon": _sequence(_falcon, ("input_ids",), _token_ids),
    "qwen3": _sequence(_qwen3, ("input_ids",), _token_ids),
    "modernbert": _sequence(_modernbert, ("input_ids",), _token_ids),
    "bart": _sequence(_bart, ("input_ids",), _token_ids),
    "fnet": _sequence(_fnet, ("input_ids",), _token_ids),
    "mamba": _sequence(_mamba, ("input_ids",), _token_ids),
    "hubert_stable": _sequence(_hubert, ("input_values",), _audio),
    "yolov8n_cls": _ultralytics("yolov8n-cls.yaml", "classify", 64),
    "yolo11n": _ultralytics("yolo11n.yaml", "detect", 128),
    "yolov8n_pose": _ultralytics("yolov8n-pose.yaml", "pose", 128),
    "yolov8n_seg": _ultralytics("yolov8n-seg.yaml", "segment", 128),
}


# --- Session 9: vision models users bring that the lists above lack, picked for their constructs
# (grouped and dilated convolutions, 3-D convolutions, detection heads, mixed kernels, relative
# position biases, layer scales, rotated boxes). ---


def _video(make: Callable[[], nn.Module], frames: int, size: int) -> Callable[[], ModelSpec]:
    def factory() -> ModelSpec:
        torch.manual_seed(0)
        module = make()
        samples = seeded_inputs((1, 3, frames, size, size), count=CALIBRATION_SAMPLES)
        reestimate_batch_norm(module, samples)
        return ModelSpec(module.eval(), samples[0], samples)

    return factory


def _torchvision_video(name: str) -> Callable[[], nn.Module]:
    def make() -> nn.Module:
        from models.torchvision_compat import torchvision

        return getattr(torchvision.models.video, name)()

    return make


class _DetectionHeads(nn.Module):
    """A torchvision SSD's backbone and head without its transform and box decoding, as deployments cut it:
    the box regressions and class logits of every anchor."""

    def __init__(self, detector: nn.Module):
        super().__init__()
        self.backbone = detector.backbone
        self.head = detector.head

    def forward(self, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        outputs = self.head(list(self.backbone(images).values()))
        return outputs["bbox_regression"], outputs["cls_logits"]


def _ssdlite_heads() -> nn.Module:
    from models.torchvision_compat import torchvision

    detector = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
    return _DetectionHeads(detector)


def _hf_beit() -> nn.Module:
    from transformers import BeitConfig, BeitModel

    # BEiT: a relative position bias per layer (a table looked up by a constant index) and layer scale.
    config = BeitConfig(
        image_size=32,
        patch_size=8,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        use_relative_position_bias=True,
        use_absolute_position_embeddings=False,
        layer_scale_init_value=0.1,
    )
    return BeitModel(config, add_pooling_layer=False)


_VISION_SESSION_9: dict[str, Callable[[], ModelSpec]] = {
    "resnext50_32x4d": _torchvision("resnext50_32x4d", 64),  # grouped 3x3 convolutions (32 groups)
    "deeplabv3_mobilenet_v3_large": _segmentation("deeplabv3_mobilenet_v3_large", 64),  # dilated ASPP, image pool
    "ssdlite320_heads": _vision(_ssdlite_heads, 128),  # SSDLite: extra layers, separable heads, two outputs
    "r3d_18": _video(_torchvision_video("r3d_18"), 4, 32),  # 3-D convolutions, 3-D batch norm and pooling
    "efficientnet_lite0": _timm("efficientnet_lite0", 64),  # ReLU6, no squeeze-excitation
    "mixnet_s": _timm("mixnet_s", 64),  # mixed depthwise kernels (split, 3x3/5x5/7x7/9x9, cat)
    "rexnet_100": _timm("rexnet_100", 64),  # residual into the first channels of a wider tensor
    "cs3darknet_s": _timm("cs3darknet_s", 64),  # cross-stage partial blocks
    "tiny_vit_5m": _timm("tiny_vit_5m_224", 64),  # windowed attention with biases, padding
    "efficientvit_m0": _timm("efficientvit_m0", 64, img_size=64),  # cascaded group attention
    "deit3_small": _timm("deit3_small_patch16_224", 64, img_size=64),  # layer scale
    "hf_beit": _transformers(_hf_beit, "pixel_values", _image(32)),  # relative position bias
    "yolov8n_obb": _ultralytics("yolov8n-obb.yaml", "obb", 128),  # rotated boxes: angle, cos/sin decode
}


# --- Session 9: sequence models people bring that the blocks above lack, each for a construct of its own. ---


def _encoder_config(config_class: type, **kwargs: object) -> object:
    """A tiny BERT-shaped encoder: hidden 64, 2 layers, 4 heads, vocab 256, 32 positions."""
    sizes: dict[str, object] = dict(
        vocab_size=_VOCABULARY,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=32,
    )
    sizes.update(kwargs)
    return config_class(**sizes)


def _albert() -> nn.Module:
    from transformers import AlbertConfig, AlbertModel

    # Factorised embeddings (32 wide, projected to 64) and one layer's weights shared by both layers.
    return AlbertModel(_encoder_config(AlbertConfig, embedding_size=32), add_pooling_layer=False)


def _electra() -> nn.Module:
    from transformers import ElectraConfig, ElectraForPreTraining

    # The discriminator: a smaller embedding (32) projected up, and a per-token real/replaced head.
    return ElectraForPreTraining(_encoder_config(ElectraConfig, embedding_size=32))


def _xlm_roberta() -> nn.Module:
    from transformers import XLMRobertaConfig, XLMRobertaModel

    # RoBERTa's position ids from the ids (cumsum of ids != pad), padding id 1 as in its tokenizer.
    config = _encoder_config(XLMRobertaConfig, max_position_embeddings=40, pad_token_id=1)
    return XLMRobertaModel(config, add_pooling_layer=False)


def _codegen() -> nn.Module:
    from transformers import CodeGenConfig, CodeGenForCausalLM

    # GPT-J's layout (CodeGen): fused qkv split in an interleaved order, rotary on part of each head
    # applied to interleaved pairs (rotate_every_two), attention and MLP in parallel off one LayerNorm.
    config = CodeGenConfig(
        vocab_size=_VOCABULARY,
        n_positions=32,
        n_embd=64,
        n_layer=2,
        n_head=4,
        rotary_dim=8,
        n_inner=128,
        bos_token_id=1,
        eos_token_id=2,
    )
    return CodeGenForCausalLM(config)


def _stablelm() -> nn.Module:
    from transformers import StableLmConfig, StableLmForCausalLM

    # LayerNorm (not RMSNorm) in a Llama-shaped decoder, rotary on a quarter of each head, qkv biases.
    config = _decoder_config(StableLmConfig, num_key_value_heads=2, partial_rotary_factor=0.25, use_qkv_bias=True)
    return StableLmForCausalLM(config)


def _olmo2() -> nn.Module:
    from transformers import Olmo2Config, Olmo2ForCausalLM

    # Norms after attention and MLP (not before), RMSNorm over the whole q and k projections.
    return Olmo2ForCausalLM(_decoder_config(Olmo2Config, num_key_value_heads=2, pad_token_id=0, eos_token_id=2))


def _smollm() -> nn.Module:
    from transformers import LlamaConfig, LlamaForCausalLM

    # SmolLM2-135M's proportions shrunk: 3 query heads over 1 key/value head of 16, tied embeddings.
    config = _decoder_config(
        LlamaConfig, hidden_size=48, num_attention_heads=3, num_key_value_heads=1, tie_word_embeddings=True
    )
    return LlamaForCausalLM(config)


def _t5_decoder_step() -> nn.Module:
    from transformers import T5Config, T5ForConditionalGeneration

    # Encoder and decoder with the decoder's own ids (a step of generation: 16 ids in, 4 decoder ids),
    # relative position buckets in both, cross-attention, the LM head scaled by 1/sqrt(d_model).
    config = T5Config(
        vocab_size=_VOCABULARY,
        d_model=64,
        d_kv=16,
        d_ff=128,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=4,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
    )
    return T5ForConditionalGeneration(config)


def _ids_and_decoder_ids() -> list[tuple[torch.Tensor, ...]]:
    generator = torch.Generator().manual_seed(0)
    return [
        (
            torch.randint(0, _VOCABULARY, (1, _SEQUENCE), generator=generator),
            torch.randint(0, _VOCABULARY, (1, 4), generator=generator),
        )
        for _ in range(CALIBRATION_SAMPLES)
    ]


def _wav2vec2_conformer() -> nn.Module:
    from transformers import Wav2Vec2ConformerConfig, Wav2Vec2ConformerModel

    # Conformer blocks (half-step FFNs around attention and a depthwise-convolution module with
    # BatchNorm and GLU) with rotary positions, behind Wav2Vec2's convolutional feature encoder.
    config = Wav2Vec2ConformerConfig(
        **_TINY_AUDIO_ENCODER,
        feat_extract_norm="layer",
        position_embeddings_type="rotary",
        conv_depthwise_kernel_size=7,
        apply_spec_augment=False,
    )
    return Wav2Vec2ConformerModel(config)


def _segformer() -> nn.Module:
    from transformers import SegformerConfig, SegformerForSemanticSegmentation

    # Mix Transformer encoder (overlapping patch embeddings, spatial-reduction attention, a depthwise
    # convolution in the MLP) and the all-MLP decoder with bilinear upsampling; logits at 1/4 size.
    config = SegformerConfig(
        num_encoder_blocks=2,
        depths=[1, 1],
        sr_ratios=[4, 2],
        hidden_sizes=[16, 32],
        patch_sizes=[7, 3],
        strides=[4, 2],
        num_attention_heads=[1, 2],
        mlp_ratios=[2, 2],
        decoder_hidden_size=32,
        num_labels=4,
    )
    return SegformerForSemanticSegmentation(config)


_SESSION9_SEQUENCE_MODELS: dict[str, Callable[[], ModelSpec]] = {
    "albert": _sequence(_albert, ("input_ids",), _token_ids),
    "electra": _sequence(_electra, ("input_ids",), _token_ids),
    "xlm_roberta": _sequence(_xlm_roberta, ("input_ids",), _token_ids),
    "codegen": _sequence(_codegen, ("input_ids",), _token_ids),
    "stablelm": _sequence(_stablelm, ("input_ids",), _token_ids),
    "olmo2": _sequence(_olmo2, ("input_ids",), _token_ids),
    "smollm": _sequence(_smollm, ("input_ids",), _token_ids),
    "t5_decoder_step": _sequence(_t5_decoder_step, ("input_ids", "decoder_input_ids"), _ids_and_decoder_ids),
    "wav2vec2_conformer": _sequence(_wav2vec2_conformer, ("input_values",), _audio),
    "segformer": _sequence(_segformer, ("pixel_values",), _image(64)),
}


# --- Session 11: architectures users bring that the blocks above lack, each for a construct of its own. ---


def _gpt_neo() -> nn.Module:
    from transformers import GPTNeoConfig, GPTNeoForCausalLM

    # Global and local (window 8) attention layers alternating, unscaled attention scores, learned positions.
    config = GPTNeoConfig(
        vocab_size=_VOCABULARY,
        max_position_embeddings=32,
        hidden_size=64,
        num_layers=2,
        num_heads=4,
        intermediate_size=128,
        attention_types=[[["global", "local"], 1]],
        window_size=8,
        bos_token_id=1,
        eos_token_id=2,
    )
    return GPTNeoForCausalLM(config)


def _mixtral() -> nn.Module:
    from transformers import MixtralConfig, MixtralForCausalLM

    # Sparse mixture of experts: a router's softmax and top-2 of 4 experts per token (data-dependent routing).
    # The experts run as transformers' own ExecuTorch exporter runs them ("batched_mm": each token's expert
    # weights gathered by its routed ids); the default ("grouped_mm") is a custom operator ExecuTorch has no
    # kernel for, which the flow refuses by name.
    config = _decoder_config(MixtralConfig, num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2)
    model = MixtralForCausalLM(config)
    model.set_experts_implementation("batched_mm")
    return model


def _funnel() -> nn.Module:
    from transformers import FunnelConfig, FunnelModel

    # Funnel-Transformer: the sequence mean-pooled by 2 between blocks (query-only pooling), relative
    # positional attention, and a decoder that upsamples back by repeat.
    config = FunnelConfig(
        vocab_size=_VOCABULARY,
        block_sizes=[1, 1],
        num_decoder_layers=1,
        d_model=64,
        n_head=4,
        d_head=16,
        d_inner=128,
        max_position_embeddings=32,
    )
    return FunnelModel(config)


def _mpnet() -> nn.Module:
    from transformers import MPNetConfig, MPNetModel

    # Relative position buckets (T5-style, log-bucketed) added to every layer's scores, positions from the ids.
    config = _encoder_config(MPNetConfig, max_position_embeddings=40, relative_attention_num_buckets=32)
    return MPNetModel(config, add_pooling_layer=False)


def _squeezebert() -> nn.Module:
    from transformers import SqueezeBertConfig, SqueezeBertModel

    # Every projection a grouped Conv1d (4 groups) over channels-first activations.
    config = _encoder_config(
        SqueezeBertConfig,
        embedding_size=64,
        q_groups=4,
        k_groups=4,
        v_groups=4,
        post_attention_groups=1,
        intermediate_groups=4,
        output_groups=4,
    )
    return SqueezeBertModel(config)


def _convbert() -> nn.Module:
    from transformers import ConvBertConfig, ConvBertModel

    # Span-based dynamic convolution: per-token kernels from a depthwise-separable Conv1d, applied to an
    # unfolded window of 9 tokens, beside half-width self-attention.
    config = _encoder_config(ConvBertConfig, embedding_size=64, head_ratio=2, conv_kernel_size=9)
    return ConvBertModel(config)


def _swinv2() -> nn.Module:
    from transformers import Swinv2Config, Swinv2Model

    # Cosine attention with a learned per-head temperature, a log-spaced continuous position bias (an MLP
    # over relative coordinates), post-norm residuals, shifted windows.
    config = Swinv2Config(
        image_size=64, patch_size=4, embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=4
    )
    return Swinv2Model(config, add_pooling_layer=False)


def _dinov2() -> nn.Module:
    from transformers import Dinov2Config, Dinov2Model

    # Position embeddings for a 32x32 image bicubically resized for the 64x64 input (as users run DINOv2 at
    # another size), layer scale.
    config = Dinov2Config(
        image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, mlp_ratio=2
    )
    return Dinov2Model(config)


def _cvt() -> nn.Module:
    from transformers import CvtConfig, CvtModel

    # Convolutional token embeddings and depthwise-convolution q/k/v projections (stride 2 for k and v).
    # (transformers 5.23 indexes stage i's drop-path rates by i, so stage i needs at least i + 1 layers.)
    config = CvtConfig(embed_dim=[16, 32, 64], num_heads=[1, 2, 4], depth=[1, 2, 3])
    return CvtModel(config, add_pooling_layer=False)


def _sew() -> nn.Module:
    from transformers import SEWConfig, SEWModel

    # Squeezed-and-excited wav2vec: the sequence average-pooled by 2 before the encoder and upsampled back
    # (a linear to 2x channels, reshaped) after it.
    config = SEWConfig(**_TINY_AUDIO_ENCODER, squeeze_factor=2, apply_spec_augment=False)
    return SEWModel(config)


_SESSION_11: dict[str, Callable[[], ModelSpec]] = {
    # timm, vision
    "coat_lite_tiny": _timm("coat_lite_tiny", 64, img_size=64),  # convolutional relative position encoding on v
    "cait_xxs24": _timm("cait_xxs24_224", 64, img_size=64),  # talking-heads attention, class-attention layers
    "twins_svt_small": _timm("twins_svt_small", 64, img_size=64),  # locally grouped + global sub-sampled attention
    "nest_tiny": _timm("nest_tiny", 64, img_size=64),  # nested local blocks aggregated by conv + max pool
    "maxvit_nano": _timm("maxvit_nano_rw_256", 64, img_size=64),  # window and grid (dilated) attention, MBConv
    "xception41": _timm("xception41", 64),  # separable convolutions with pre-activation residual flows
    "dla34": _timm("dla34", 64),  # deep layer aggregation: tree of concatenating roots
    "hrnet_w18_small": _timm("hrnet_w18_small", 64),  # parallel resolutions fused by nearest upsampling
    "resnest14d": _timm("resnest14d", 64),  # split attention: a softmax over radix groups
    "dpn48b": _timm("dpn48b", 64),  # dual paths: a residual slice and a densely concatenated slice
    "res2net50_14w_8s": _timm("res2net50_14w_8s", 64),  # hierarchical residual splits within a block
    "sequencer2d_s": _timm("sequencer2d_s", 64),  # bidirectional LSTMs along rows and columns
    "botnet26t": _timm("botnet26t_256", 64, img_size=64),  # self-attention with 2-D relative position logits
    "volo_d1": _timm("volo_d1_224", 64, img_size=64),  # outlook attention: unfold, attend, fold
    "pit_ti": _timm("pit_ti_224", 64, img_size=64),  # tokens pooled by a strided depthwise convolution
    "tnt_s": _timm("tnt_s_patch16_224", 64, img_size=64),  # pixel-level transformer inside each patch
    "starnet_s1": _timm("starnet_s1", 64),  # star operation: the product of two ReLU6 branches
    "fasternet_t0": _timm("fasternet_t0", 64),  # partial convolution on a quarter of the channels
    "inception_next_atto": _timm("inception_next_atto", 64),  # band kernels 1x11 and 11x1 on channel splits
    "lambda_resnet26t": _timm("lambda_resnet26t", 64, img_size=64),  # lambda layers: position lambdas by 3-D conv
    "ghostnetv2_100": _timm("ghostnetv2_100", 64),  # DFC attention: 1x5/5x1 depthwise gate, nearest upsample
    "inception_v3": _timm("inception_v3", 96),  # factorised 1x7/7x1 convolutions, pooled branches concatenated
    "ese_vovnet19b_dw": _timm("ese_vovnet19b_dw", 64),  # one-shot aggregation, effective SE with hard sigmoid
    # transformers, tiny configs
    "gpt_neo": _sequence(_gpt_neo, ("input_ids",), _token_ids),
    "mixtral": _sequence(_mixtral, ("input_ids",), _token_ids),
    "funnel": _sequence(_funnel, ("input_ids",), _token_ids),
    "mpnet": _sequence(_mpnet, ("input_ids",), _token_ids),
    "squeezebert": _sequence(_squeezebert, ("input_ids",), _token_ids),
    "convbert": _sequence(_convbert, ("input_ids",), _token_ids),
    "hf_swinv2": _sequence(_swinv2, ("pixel_values",), _image(64)),
    "hf_dinov2": _sequence(_dinov2, ("pixel_values",), _image(64)),
    "hf_cvt": _sequence(_cvt, ("pixel_values",), _image(64)),
    "sew": _sequence(_sew, ("input_values",), _audio),
}


MODELS: dict[str, Callable[[], ModelSpec]] = {
    # transformers, tiny configs
    "gpt2": _transformers(_gpt2, "input_ids", _token_ids),
    "distilbert": _transformers(_distilbert, "input_ids", _token_ids),
    "t5_encoder": _transformers(_t5_encoder, "input_ids", _token_ids),
    "whisper_encoder": _transformers(_whisper_encoder, "input_features", _mel_frames),
    "hf_vit": _transformers(_hf_vit, "pixel_values", _image(32)),
    "qwen2": _transformers(_qwen2, "input_ids", _token_ids),
    "phi3": _transformers(_phi3, "input_ids", _token_ids),
    "mobilebert": _transformers(_mobilebert, "input_ids", _token_ids),
    # timm
    "resnet50": _timm("resnet50", 64),
    "mobilenetv4_conv_small": _timm("mobilenetv4_conv_small", 64),
    "efficientvit_b0": _timm("efficientvit_b0", 64),
    "levit_128s": _timm("levit_128s", 64, img_size=64),
    "swin_tiny_w2": _timm("swin_tiny_patch4_window7_224", 64, img_size=64, window_size=2),
    "vit_small_cls": _timm("vit_small_patch16_224", 64, img_size=64),
    "vit_small_avg": _timm("vit_small_patch16_224", 64, img_size=64, class_token=False, global_pool="avg"),
    "repvit_m0_9": _timm("repvit_m0_9", 64),
    "fastvit_t8": _timm("fastvit_t8", 64),
    "ghostnet_100": _timm("ghostnet_100", 64),
    "convnextv2_atto": _timm("convnextv2_atto", 64),
    "edgenext_xx_small": _timm("edgenext_xx_small", 64),
    # torchvision
    "shufflenet_v2_x0_5": _torchvision("shufflenet_v2_x0_5", 64),
    "mnasnet0_5": _torchvision("mnasnet0_5", 64),
    "googlenet": _torchvision("googlenet", 64, aux_logits=False, init_weights=True),
    "mobilenet_v3_large": _torchvision("mobilenet_v3_large", 64),
    "efficientnet_v2_s": _torchvision("efficientnet_v2_s", 64),
    # on the zoo list at 64x64 and 256x256; at 224x224 it once segfaulted Vela on the U55
    "mobilevit_xxs_224": _timm("mobilevit_xxs", 224),
    # vision, session 8: families the list above lacks, picked for their constructs
    "regnety_002": _timm("regnety_002", 64),  # grouped convolutions with squeeze-excitation
    "mobileone_s0": _timm("mobileone_s0", 64),  # train-time multi-branch blocks, as users export them
    "hgnetv2_b0": _timm("hgnetv2_b0", 64),  # learnable affine blocks, effective SE, padded max-pool stem
    "efficientformerv2_s0": _timm("efficientformerv2_s0", 64, img_size=64),  # 4-D attention, talking heads
    "poolformerv2_s12": _timm("poolformerv2_s12", 64),  # pooling token mixer, StarReLU, one-group norms
    "mixer_s16": _timm("mixer_s16_224", 64, img_size=64),  # MLP-Mixer: token mixing through transposes
    "pvt_v2_b0": _timm("pvt_v2_b0", 64),  # spatial-reduction attention, depthwise convolution in the MLP
    "mobilevitv2_050": _timm("mobilevitv2_050", 64),  # separable self-attention over unfolded patches
    "xcit_nano_12": _timm("xcit_nano_12_p16_224", 64, img_size=64),  # cross-covariance attention, class attention
    "densenet121": _torchvision("densenet121", 64),  # dense concatenation
    "lraspp_mobilenet_v3_large": _segmentation("lraspp_mobilenet_v3_large", 64),  # segmentation, bilinear upsample
}
MODELS.update(_SEQUENCE_MODELS)
MODELS.update(_VISION_SESSION_9)
MODELS.update(_SESSION9_SEQUENCE_MODELS)
MODELS.update(_SESSION_11)


NUMERICS_SAMPLES = 2


def compile_one(name: str, spec: ModelSpec, target_name: str, numerics: bool = False) -> dict[str, object]:
    """One model on one target through the public API; a row of the campaign.

    With ``numerics``, the program is also run on the host (each delegate's TOSA graph on the reference
    model, CPU operators on ExecuTorch's host runtime) against its own quantized model in float64 on the
    first NUMERICS_SAMPLES calibration inputs: the row's ``max_lsb`` is the largest distance in output steps.
    """
    from arm.ethosu.vela import VelaCompileError
    from arm.flow import FlowError, StageError, resolve_target, run_flow
    from arm.model_spec import ModelSpecError

    row: dict[str, object] = {"model": name, "target": target_name}
    start = time.perf_counter()
    try:
        result = run_flow(spec, resolve_target(target_name), calibration_samples=CALIBRATION_SAMPLES, progress=False)
    except Exception as error:  # noqa: BLE001 (the campaign records every ending)
        user_error = isinstance(error, (FlowError, ModelSpecError, VelaCompileError)) or (
            isinstance(error, StageError) and error.stage == "export"
        )
        row.update(
            status="user error" if user_error else "internal error",
            error=f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:400],
            traceback=traceback.format_exc()[-3000:],
        )
    else:
        backend = result.target.compile_spec.backend_id
        cpu = result.cpu_compute_nodes
        reasons = dict(result.rejected)
        row.update(
            status="compiles",
            partitions=sum(1 for d in result.delegate_ids if d == backend),
            delegated_share=round(result.delegated_share, 4),
            cpu_nodes=len(cpu),
            cpu_ops=dict(collections.Counter(_op_of(node) for node in cpu)),
            cpu_reasons=sorted({_reason_kind(reasons[node]) for node in cpu}),
            npu_cycles=sum(v.npu_cycles for v in result.artifacts.vela),
            total_cycles=sum(v.total_cycles for v in result.artifacts.vela),
        )
        if numerics:
            row.update(_numerics(result, spec))
    row["seconds"] = round(time.perf_counter() - start, 1)
    return row


def _numerics(result: object, spec: ModelSpec) -> dict[str, object]:
    from models.delegated_numerics import distances_from_quantized_model

    try:
        distances = distances_from_quantized_model(result, spec.calibration_inputs[:NUMERICS_SAMPLES])
    except Exception as error:  # noqa: BLE001 (a row records why the program could not be measured)
        return {"numerics_error": f"{type(error).__name__}: {error}"[:300]}
    return {
        "max_lsb": max(d.max_lsb for d in distances),
        "lsb_differing": sum(d.differing for d in distances),
        "lsb_values": sum(d.size for d in distances),
    }


def _op_of(node: str) -> str:
    """``aten_mul_tensor_3`` -> ``aten_mul_tensor``: the operator a node name starts with."""
    head, _, tail = node.rpartition("_")
    return head if tail.isdigit() else node


def _reason_kind(reason: str) -> str:
    """A reason without its node name, so equal reasons of many nodes count once."""
    text = reason.split(": ", 1)[1] if reason.startswith("node ") else reason
    return text[:300]


def run_campaign(names: list[str], targets: list[str], out: Path, numerics: frozenset[str] = frozenset()) -> None:
    """Every model on every target; ``numerics`` names the targets whose whole programs are measured."""
    torch.set_num_threads(1)
    for name in names:
        try:
            spec = MODELS[name]()
        except Exception as error:  # noqa: BLE001
            failure = f"{type(error).__name__}: {error}"[:400]
            rows = [{"model": name, "target": t, "status": "model not built", "error": failure} for t in targets]
        else:
            rows = [compile_one(name, spec, target, target in numerics) for target in targets]
        with out.open("a") as file:
            for row in rows:
                file.write(json.dumps(row) + "\n")
                lsb = f"max {row['max_lsb']} LSB " if "max_lsb" in row else row.get("numerics_error", "")
                line = f"{row['model']:24} {row['target']:14} {row['status']:15} {lsb}{row.get('error') or ''}"
                print(line[:300], flush=True)


def markdown_table(rows: list[dict[str, object]]) -> str:
    """The campaign's rows; with an LSB column when some row was measured (--numerics)."""
    measured = any("max_lsb" in row or "numerics_error" in row for row in rows)
    lines = [
        "| model | target | status | partitions | delegated | Vela cycles |"
        + (" max LSB from its quantized model |" if measured else "")
        + " CPU ops (count) |",
        "|---|---|---|---|---|---|" + ("---|" if measured else "") + "---|",
    ]
    for row in rows:
        lsb = f" {row.get('max_lsb', row.get('numerics_error', '-'))} |" if measured else ""
        if row["status"] == "compiles":
            ops = ", ".join(f"{op.removeprefix('aten_')} ({n})" for op, n in sorted(row["cpu_ops"].items())) or "-"
            cycles = f"{row['total_cycles']:,}" if row.get("total_cycles") else "-"
            lines.append(
                f"| {row['model']} | {row['target']} | compiles | {row['partitions']} | "
                f"{100 * float(row['delegated_share']):.1f}% | {cycles} |{lsb} {ops} |"
            )
        else:
            empty = " |" if measured else ""
            lines.append(f"| {row['model']} | {row['target']} | {row['status']} | | | |{empty} {row.get('error', '')} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.offlist", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="append one JSON line per model and target here")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated names (default: all)")
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument(
        "--numerics",
        default="",
        help="comma-separated targets on which each program is run against its quantized "
        "model in float64 (max LSB per row), e.g. tosa-INT",
    )
    parser.add_argument("--table", type=Path, help="print the Markdown table of a campaign's JSON lines and exit")
    args = parser.parse_args(argv)
    if args.table is not None:
        print(markdown_table([json.loads(line) for line in args.table.read_text().splitlines() if line.strip()]))
        return 0
    if args.out is None:
        parser.error("give --out (or --table)")
    unknown = [name for name in args.models.split(",") if name not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(MODELS)}")
    run_campaign(args.models.split(","), args.targets.split(","), args.out, frozenset(filter(None, args.numerics.split(","))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
