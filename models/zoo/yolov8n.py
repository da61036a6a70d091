"""Ultralytics YOLOv8n (detect, 80 classes) built from its yaml at 160x160, seeded random weights.

Ultralytics is AGPL-3.0: it is imported here and in tests only, never by the flow. ``YOLO("yolov8n.yaml")``
builds the network offline from the yaml shipped in the wheel. The detect head computes its anchor points
and strides from the feature map sizes (``arange``, ``full``, ``expand``) when the input size changes;
the factory runs it once first, so they are constants of the graph. Boxes are decoded with them
(distribution focal loss softmax, ``sub``, ``add``, ``cat``, ``mul``) besides the convolutions, SiLUs,
``split``/``cat`` C2f blocks, max-pool SPPF and nearest upsampling.
"""

import torch

import models.torchvision_compat  # noqa: F401  (ultralytics imports torchvision)
from arm.model_spec import ModelSpec
from models.random_weights import model_spec, reestimate_batch_norm, seeded_inputs

INPUT_SHAPE = (1, 3, 160, 160)
CALIBRATION_SAMPLES = 4


def _detector() -> torch.nn.Module:
    from ultralytics import YOLO  # AGPL-3.0: imported only to build the model definition

    network = YOLO("yolov8n.yaml", task="detect").model
    # Export mode: the eval graph returns the decoded boxes and class scores alone, not the raw maps too.
    network.model[-1].export = True
    return network


def model() -> ModelSpec:
    torch.manual_seed(0)
    module = _detector()
    samples = seeded_inputs(INPUT_SHAPE, count=CALIBRATION_SAMPLES)
    reestimate_batch_norm(module, samples)
    # A dry run at the export size caches the anchor points and strides in the head, as Ultralytics'
    # own exporter does before tracing: the exported graph then holds them as constants.
    with torch.no_grad():
        module(samples[0][0])
    return model_spec(module, samples)
