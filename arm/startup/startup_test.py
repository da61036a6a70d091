"""arm/startup: the edge-dialect table parsed in C is the table ruamel parses (the oracle), ruamel is
left as it was, and the collector is paused, then frozen and resumed."""

from __future__ import annotations

import gc
import json
import subprocess
import sys

import pytest

import torch

from arm.startup import auto_functionalized_pass, garbage_collection

# Runs in a fresh process: the table is parsed once, when executorch.exir is first imported.
_IMPORT_AND_COMPARE = """
import json, sys
import ruamel.yaml
original = ruamel.yaml.YAML
from arm.startup import edge_dialect_table
edge_dialect_table.import_executorch()
edge_ops = sys.modules[edge_dialect_table.EDGE_OPS_MODULE]
from importlib import resources
from executorch.exir.dialects import edge
oracle = original(typ="safe").load(resources.read_text(edge, "edge.yaml", encoding="utf-8"))
print(json.dumps({
    "equal": edge_ops._edge_dialect_info == {entry["inherits"]: entry for entry in oracle},
    "entries": len(edge_ops._edge_dialect_info),
    "ruamel_restored": ruamel.yaml.YAML is original,
    "module_restored": edge_ops.YAML is original,
}))
"""


def test_the_table_parsed_in_c_equals_ruamels() -> None:
    yaml = pytest.importorskip("yaml")
    assert hasattr(yaml, "CSafeLoader"), "PyYAML without libyaml: the start-up would parse in pure Python"
    completed = subprocess.run([sys.executable, "-c", _IMPORT_AND_COMPARE], capture_output=True, text=True, check=True)
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    assert result == {"equal": True, "entries": result["entries"], "ruamel_restored": True, "module_restored": True}
    assert result["entries"] > 100  # the whole table, not an empty parse


def test_the_collector_is_paused_then_frozen_and_resumed() -> None:
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    garbage_collection.pause()
    try:
        assert not gc.isenabled()
        start_up_objects = [[index] for index in range(1000)]  # what imports would leave behind
    finally:
        garbage_collection.settle()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(start_up_objects)
    garbage_collection.settle()  # a second settle (the worker's next request) changes nothing
    assert gc.isenabled()
    gc.unfreeze()


def test_settle_without_pause_leaves_the_collector_alone() -> None:
    frozen = gc.get_freeze_count()
    garbage_collection.settle()
    assert gc.isenabled() and gc.get_freeze_count() == frozen


# torch's pass itself is the oracle for the stand-in (arm/startup/auto_functionalized_pass.py).
def _torch_pass():
    import importlib

    module = importlib.import_module(auto_functionalized_pass.MODULE)
    assert not isinstance(module, auto_functionalized_pass._StandIn)
    return module.unsafe_remove_auto_functionalized_pass


class _AddWithDeadCode(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x.sin()  # dead
        return x + 1


def _with_self_copy(program: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """``copy_(add, add)`` inserted after the add, read by the output in its place."""
    graph = program.graph
    add = next(node for node in graph.nodes if node.target is torch.ops.aten.add.Tensor)
    with graph.inserting_after(add):
        copy = graph.call_function(torch.ops.aten.copy_.default, (add, add))
    output = next(node for node in graph.nodes if node.op == "output")
    output.replace_input_with(add, copy)
    program.graph_module.recompile()
    return program


def test_the_stand_in_drops_self_copies_and_dead_code_as_torchs_pass_does() -> None:
    def program() -> torch.export.ExportedProgram:
        return _with_self_copy(torch.export.export(_AddWithDeadCode(), (torch.randn(2, 3),)))

    ours, theirs = program(), program()
    assert not auto_functionalized_pass.needs_torch_pass(ours.graph)
    assert "copy_" in ours.graph_module.code and "sin" in ours.graph_module.code
    auto_functionalized_pass.unsafe_remove_auto_functionalized_pass(ours)
    _torch_pass()(theirs)
    assert str(ours.graph) == str(theirs.graph)
    assert "copy_" not in str(ours.graph) and "sin" not in str(ours.graph)
    assert str(ours.graph_signature) == str(theirs.graph_signature)


@torch.library.custom_op("arm_startup_test::add_one_", mutates_args=("x",))
def _add_one_(x: torch.Tensor) -> None:
    x.add_(1)


class _MutatesThroughACustomOp(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        _add_one_(y)
        return y * 2


def test_auto_functionalized_goes_through_torchs_pass() -> None:
    def program() -> torch.export.ExportedProgram:
        return torch.export.export(_MutatesThroughACustomOp(), (torch.randn(4),)).run_decompositions({})

    ours, theirs = program(), program()
    assert "auto_functionalized" in ours.graph_module.code
    assert auto_functionalized_pass.needs_torch_pass(ours.graph)
    auto_functionalized_pass.unsafe_remove_auto_functionalized_pass(ours)
    _torch_pass()(theirs)
    assert "auto_functionalized" not in str(ours.graph)
    assert str(ours.graph) == str(theirs.graph)
    x = torch.randn(4, generator=torch.Generator().manual_seed(0))
    assert torch.equal(ours.module()(x.clone()), (x + 1) * 2)
