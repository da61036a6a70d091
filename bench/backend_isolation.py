"""Lets two flows that register backends of the same name share one process.

Both flows define an ``EthosUBackend`` (and a ``TOSABackend``): the delegate ids are the same on
purpose, so a .pte from either runs on the same runtime. executorch finds a backend by the class name
of its ``BackendDetails`` subclasses, so with both loaded, one flow's partitions would be compiled by
the other's backend. While one side compiles, the other side's same-named classes get a different
name, and get their own back afterwards.
"""

from __future__ import annotations

import collections
import contextlib
from typing import Iterator

from executorch.exir.backend.backend_details import BackendDetails


@contextlib.contextmanager
def backends_of(package: str) -> Iterator[None]:
    """Inside the block, every backend id that ``package`` defines resolves to ``package``'s class."""
    by_name = collections.defaultdict(list)
    for cls in BackendDetails.__subclasses__():
        by_name[cls.__name__].append(cls)
    hidden = [
        cls
        for classes in by_name.values()
        if any(_belongs_to(cls, package) for cls in classes)
        for cls in classes
        if not _belongs_to(cls, package)
    ]
    names = {cls: cls.__name__ for cls in hidden}
    for cls in hidden:
        cls.__name__ = f"{cls.__name__} (of {cls.__module__}, hidden)"
    try:
        yield
    finally:
        for cls, name in names.items():
            cls.__name__ = name


def _belongs_to(cls: type, package: str) -> bool:
    return cls.__module__ == package or cls.__module__.startswith(f"{package}.")
