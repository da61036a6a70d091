"""aten.maximum -> TOSA MAXIMUM; INT as for add (arm.ops.common.extremum says why)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.extremum import extremum_op


def _attribute(attribute: ts.TosaSerializerAttribute) -> None:
    attribute.MaximumAttribute(ts.NanPropagationMode.PROPAGATE)


OP = extremum_op(
    "maximum",
    torch.maximum,
    exir_ops.edge.aten.maximum.default,
    torch.ops.aten.maximum.default,
    ts.Op.MAXIMUM,
    _attribute,
    two_tensor_form=(torch.max, torch.ops.aten.max.other),
)
