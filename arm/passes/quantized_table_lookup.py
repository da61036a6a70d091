"""An embedding left on the CPU reads the int8 codes of its table, not a float copy of the whole table.

After partitioning, a quantized embedding that runs on the CPU (the U55 has no GATHER; the U85 looks up
ids that come from outside the delegate there, arm/ops/embedding.py) is
``quantize(embedding(dequantize(table), ids))``: every call dequantizes the whole constant table to
float, picks rows, and quantizes them back onto the same grid for the delegate. Dequantizing and
quantizing with one grid gives back the codes, so ``embedding(table, ids)`` on the int8 table is the
same result: a copy of the picked rows (Llama's 256x64 table: ~77,000 Cortex-M55 instructions fewer per
call, bench/README.md "Embedding: NPU or CPU, session 8"). Runs on the lowered edge program, where the
CPU's nodes are known; ExecuTorch's embedding kernel copies rows of any dtype.
"""

from __future__ import annotations

from executorch.exir import EdgeProgramManager
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import GraphModule, Node
from torch.fx.passes.infra.pass_base import PassResult

_EMBEDDING = exir_ops.edge.aten.embedding.default
_QUANTIZE = exir_ops.edge.quantized_decomposed.quantize_per_tensor.default
_DEQUANTIZE = exir_ops.edge.quantized_decomposed.dequantize_per_tensor.default


def look_up_quantized_rows(edge: EdgeProgramManager) -> EdgeProgramManager:
    """``edge`` with every CPU lookup of a dequantized constant table, requantized onto the table's own
    grid, reading the quantized table; the same manager when there is none."""
    if not any(_table_lookup(node) for node in edge.exported_program().graph.nodes):
        return edge
    return edge.transform([_read_quantized_rows])


def _read_quantized_rows(graph_module: GraphModule) -> PassResult:
    lookups = [node for node in graph_module.graph.nodes if _table_lookup(node)]
    for embedding in lookups:
        dequantize = embedding.args[0]
        requantizes = list(embedding.users)
        embedding.args = (dequantize.args[0], *embedding.args[1:])
        embedding.meta["val"] = requantizes[0].meta["val"]
        for requantize in requantizes:
            requantize.replace_all_uses_with(embedding)
            graph_module.graph.erase_node(requantize)
        if not dequantize.users:
            graph_module.graph.erase_node(dequantize)
    graph_module.recompile()
    return PassResult(graph_module, bool(lookups))


def _table_lookup(node: Node) -> bool:
    """An embedding of a dequantized constant whose every reader quantizes it back onto that grid."""
    if node.op != "call_function" or node.target != _EMBEDDING:
        return False
    table = node.args[0]
    if not (isinstance(table, Node) and table.target == _DEQUANTIZE and table.args[0].op == "placeholder"):
        return False
    grid = tuple(table.args[1:]) + tuple(table.kwargs.items())
    return bool(node.users) and all(
        user.target == _QUANTIZE and tuple(user.args[1:]) + tuple(user.kwargs.items()) == grid for user in node.users
    )
