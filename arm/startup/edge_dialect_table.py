"""executorch's edge-dialect table, parsed by PyYAML's C parser instead of ruamel's pure-Python one.

Importing ``executorch.exir`` parses ``exir/dialects/edge/edge.yaml`` (the dtype constraints of every
edge operator, 138 KB) with ``ruamel.yaml.YAML(typ="safe")``, which runs in pure Python when
ruamel's C extension is absent, as in this project's environment: 0.8 CPU s of every cold compile.
PyYAML's libyaml-based ``CSafeLoader`` gives the same dict in 0.08 s (the file uses plain YAML: lists,
maps and strings, which YAML 1.1 and 1.2 read alike; arm/startup/edge_dialect_table_test.py checks
the two parses are equal for the installed executorch).

``parsed_in_c()`` stands PyYAML in for ``ruamel.yaml.YAML`` only while the module that parses the table
is imported, and only for ``YAML(typ="safe")``; afterwards that module and ruamel are as they were.
Without PyYAML's C loader, or once executorch.exir is imported, it does nothing.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from typing import Any, Iterator

EDGE_OPS_MODULE = "executorch.exir.dialects.edge._ops"


class _CSafeYaml:
    """The part of ruamel's ``YAML(typ="safe")`` that executorch's table loader uses: ``load(text)``."""

    def __init__(self, c_safe_loader: type) -> None:
        self._loader = c_safe_loader

    def load(self, text: str) -> Any:
        import yaml

        return yaml.load(text, Loader=self._loader)


def _c_safe_loader() -> type | None:
    try:
        import yaml
    except ImportError:
        return None
    return getattr(yaml, "CSafeLoader", None)


@contextlib.contextmanager
def parsed_in_c() -> Iterator[None]:
    """Within this block, ruamel's ``YAML(typ="safe")`` parses with PyYAML's C loader."""
    loader = _c_safe_loader()
    if loader is None or EDGE_OPS_MODULE in sys.modules:
        yield
        return
    import ruamel.yaml

    ruamel_yaml = ruamel.yaml.YAML

    def yaml_factory(*args: Any, **kwargs: Any) -> Any:
        if args == () and kwargs == {"typ": "safe"}:
            return _CSafeYaml(loader)
        return ruamel_yaml(*args, **kwargs)

    ruamel.yaml.YAML = yaml_factory
    try:
        yield
    finally:
        ruamel.yaml.YAML = ruamel_yaml
        edge_ops = sys.modules.get(EDGE_OPS_MODULE)
        if edge_ops is not None and getattr(edge_ops, "YAML", None) is yaml_factory:
            edge_ops.YAML = ruamel_yaml  # its own ``from ruamel.yaml import YAML``, as without us


def import_executorch() -> None:
    """Imports ``executorch.exir`` (through the module that parses the table) with the C parser."""
    with parsed_in_c():
        importlib.import_module(EDGE_OPS_MODULE)
