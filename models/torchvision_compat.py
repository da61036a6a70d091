"""Imports torchvision's model definitions when its compiled operator library cannot load.

torchvision's import registers fake (meta) kernels for ``torchvision::nms`` and ``torchvision::qnms``,
which fails with "operator torchvision::nms does not exist" when its C++ extension did not define them
(as on this project's CPU-only torch build). Only the model definitions are used here, never NMS, so
declaring the two schemas is enough for the import to succeed.

Model files import torchvision from this module: ``from models.torchvision_compat import torchvision``.
"""

import torch

_SCHEMAS = {
    "nms": "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms": "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
}


def _declare_missing_schemas() -> torch.library.Library | None:
    missing = [name for name in _SCHEMAS if not _schema_exists(f"torchvision::{name}")]
    if not missing:
        return None
    library = torch.library.Library("torchvision", "FRAGMENT")
    for name in missing:
        library.define(_SCHEMAS[name])
    return library


def _schema_exists(qualified_name: str) -> bool:
    try:
        torch._C._get_schema(qualified_name, "")
    except RuntimeError:
        return False
    return True


# The Library object owns the definitions: it must live as long as the process.
_LIBRARY = _declare_missing_schemas()

import torchvision  # noqa: E402  (needs the schemas above)

__all__ = ["torchvision"]
