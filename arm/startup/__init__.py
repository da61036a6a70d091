"""A compile process's start-up, made cheaper without changing what it computes (README.md here).

    from arm import startup
    startup.begin()     # before the heavy imports: pauses the collector, imports executorch.exir
    ...                 # imports, model load
    startup.settle()    # before the compile: freezes start-up's objects, resumes the collector
"""

from __future__ import annotations

from arm.startup import garbage_collection


def begin() -> None:
    garbage_collection.pause()
    # Imported only now: both modules import torch, the largest import, which should load with the
    # collector paused too.
    from arm.startup import auto_functionalized_pass, edge_dialect_table

    auto_functionalized_pass.install()
    edge_dialect_table.import_executorch()


def settle() -> None:
    garbage_collection.settle()
