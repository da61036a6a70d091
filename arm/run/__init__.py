"""Run a .pte on the host through our C++ runtime: ``load(path).run(inputs)``; CLI: ``python -m arm.run``."""

from arm.run.program import Program, RuntimeRunError, TensorSpec, load

__all__ = ["Program", "RuntimeRunError", "TensorSpec", "load"]
