"""torch's ``unsafe_remove_auto_functionalized_pass`` without importing torch._inductor where it has
nothing to do.

``executorch.exir.program._program`` imports it at module level, and its module imports
``torch._inductor.fx_passes.post_grad`` for one helper (decompose_auto_functionalized): inductor's
lowering, kernels and pattern matcher, and networkx, 2 CPU s of every cold compile's imports. The pass
runs once per program, in ``to_executorch``, and the helper matters only for a graph that holds
``auto_functionalized`` (a mutating custom op, functionalized), ``control_deps`` or an unused
``get_attr``: only then does the stand-in here import torch's module and run torch's pass. On every
other graph the pass comes down to its other two steps, done here as torch does them: drop
``copy_(x, x)`` self-copies, then eliminate dead code, under the program's replace hook.
arm/startup/startup_test.py checks both paths against torch's pass.

``install()`` puts the stand-in module in ``sys.modules`` before executorch imports the name; any other
name asked of it loads torch's module.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

import torch

MODULE = "torch.export._remove_auto_functionalized_pass"
# Higher-order operators whose nodes torch's pass rewrites through inductor's decomposition.
_INDUCTOR_OPERATORS = frozenset({"auto_functionalized", "auto_functionalized_v2", "control_deps"})


def _torch_module() -> types.ModuleType:
    """torch's own module, imported on first need (replacing the stand-in in ``sys.modules``)."""
    if isinstance(sys.modules.get(MODULE), _StandIn):
        del sys.modules[MODULE]
    return importlib.import_module(MODULE)


def needs_torch_pass(graph: torch.fx.Graph) -> bool:
    """Whether torch's pass would change ``graph`` beyond dropping self-copies and dead code."""
    for node in graph.nodes:
        if node.op == "get_attr" and not node.users:
            return True  # its decomposition step erases unused get_attr nodes
        target = node.target
        if isinstance(target, torch._ops.HigherOrderOperator) and target.name() in _INDUCTOR_OPERATORS:
            return True
    return False


def unsafe_remove_auto_functionalized_pass(ep: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    if needs_torch_pass(ep.graph):
        return _torch_module().unsafe_remove_auto_functionalized_pass(ep)
    with ep.graph_module._set_replace_hook(ep.graph_signature.get_replace_hook()):
        _drop_self_copies(ep.graph)
        ep.graph.eliminate_dead_code()
    return ep


def _drop_self_copies(graph: torch.fx.Graph) -> None:
    """``copy_(x, x)`` writes x onto itself: its users read x."""
    for node in list(graph.nodes):
        if node.target is torch.ops.aten.copy_.default and node.args[0] == node.args[1]:
            node.replace_all_uses_with(node.args[0])
            graph.erase_node(node)


class _StandIn(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # inspect and others probe every module for __file__ and the like
            raise AttributeError(name)
        return getattr(_torch_module(), name)


def install() -> None:
    """Makes ``from torch.export._remove_auto_functionalized_pass import ...`` find the stand-in, unless
    torch's module is already imported."""
    if MODULE in sys.modules:
        return
    import torch.export  # noqa: F401 (the parent package; the stand-in is its submodule)

    stand_in = _StandIn(MODULE, __doc__)
    stand_in.unsafe_remove_auto_functionalized_pass = unsafe_remove_auto_functionalized_pass
    sys.modules[MODULE] = stand_in
