"""Which QuantizationConfig a node gets: by module name, by module type, or the global one.

The rules follow ExecuTorch's Arm quantizer, so a script written for it means the same here:

* a module name ("blocks.0.attention") beats a module type (``torch.nn.Linear``), which beats the
  global config;
* among names, and among types, the innermost module a node comes from wins (a name set for
  "blocks.0" is overridden inside it by one set for "blocks.0.mlp"); setting a name or type again
  replaces its config (the later call wins);
* ``None`` as a config leaves that module's nodes unquantized: they stay float on the CPU.

A node's modules come from ``nn_module_stack``, the metadata torch.export writes: outermost first,
each as (qualified path, type).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from torch.fx import Node

if TYPE_CHECKING:
    from arm.quantizer.quantization_config import QuantizationConfig

_SELF_PREFIX = "L['self']."


@dataclasses.dataclass
class ModuleConfigs:
    """The configs a quantizer was given; ``config_for`` picks one per node."""

    global_config: QuantizationConfig | None = None
    by_type: dict[type, QuantizationConfig | None] = dataclasses.field(default_factory=dict)
    by_name: dict[str, QuantizationConfig | None] = dataclasses.field(default_factory=dict)

    def is_empty(self) -> bool:
        return self.global_config is None and not self.by_type and not self.by_name

    def config_for(self, node: Node) -> QuantizationConfig | None:
        modules = _module_stack(node)
        for path, _ in reversed(modules):
            if path in self.by_name:
                return self.by_name[path]
        type_names = {_qualified(module_type): config for module_type, config in self.by_type.items()}
        for _, module_type in reversed(modules):
            if module_type in type_names:
                return type_names[module_type]
        return self.global_config


def _module_stack(node: Node) -> list[tuple[str, str]]:
    """(path, qualified type name) of the modules ``node`` comes from, outermost first."""
    stack = node.meta.get("nn_module_stack") or {}
    return [(_normalized(path), _type_name(module_type)) for path, module_type in stack.values()]


def _normalized(path: str) -> str:
    return path[len(_SELF_PREFIX):] if path.startswith(_SELF_PREFIX) else path


def _type_name(module_type: object) -> str:
    # torch.export stores the class itself or, after serialization, its qualified name.
    return module_type if isinstance(module_type, str) else _qualified(module_type)


def _qualified(module_type: type) -> str:
    return f"{module_type.__module__}.{module_type.__qualname__}"
