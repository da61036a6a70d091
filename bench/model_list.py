"""The models the comparison knows, by short name (the prefix of their Bazel targets in models/)."""

BENCH_MODELS = {
    "mv2": "models.mobilenet_v2:model",
    "dscnn": "models.ds_cnn:model",
    "resnet18": "models.resnet18:model",
    "mv3_small": "models.mobilenet_v3_small:model",
    "efficientnet_b0": "models.efficientnet_b0:model",
    "transformer": "models.transformer_encoder:model",
    # Transformer zoo (models/zoo/): attention, unbind, expand, embeddings.
    "deit_tiny": "models.zoo.deit_tiny:model",
    "mobilevit_xxs": "models.zoo.mobilevit_xxs:model",
    "bert": "models.zoo.bert_encoder:model",
    "conformer": "models.zoo.conformer_block:model",
    "mha_sequence": "models.zoo.mha_sequence:model",
    # The rest of the zoo: a decoder with int64 ids, CNNs and a detector.
    "llama": "models.zoo.llama:model",
    "squeezenet": "models.zoo.squeezenet:model",
    "regnet": "models.zoo.regnet:model",
    "convnext_atto": "models.zoo.convnext_atto:model",
    "kws_conv1d": "models.zoo.kws_conv1d:model",
    "yolov8n": "models.zoo.yolov8n:model",
}

BENCH_TARGETS = ("ethos-u55-128", "ethos-u85-256")
