"""aten.minimum -> TOSA MINIMUM; INT as for add (arm.ops.common.extremum says why)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.extremum import extremum_op


def _attribute(attribute: ts.TosaSerializerAttribute) -> None:
    attribute.MinimumAttribute(ts.NanPropagationMode.PROPAGATE)


OP = extremum_op(
    "minimum",
    torch.minimum,
    exir_ops.edge.aten.minimum.default,
    torch.ops.aten.minimum.default,
    ts.Op.MINIMUM,
    _attribute,
    two_tensor_form=(torch.min, torch.ops.aten.min.other),
)
