"""Reading, adding and dropping the constants of an ExportedProgram (parameters, buffers, lifted constants).

Passes that turn computed values into constants (constant folding, int64 narrowing) share these, so the
graph signature and the program's constant tables stay in step with the placeholders.
"""

from __future__ import annotations

import dataclasses

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import ExportGraphSignature, InputKind, InputSpec, TensorArgument
from torch.fx import Node


@dataclasses.dataclass(frozen=True)
class _ConstantTable:
    """Placeholder name -> the name its value is stored under, by kind, read once off a graph signature.

    torch's ``is_param``/``get_buffer``/... rebuild the signature's name maps on every call, and the
    lowering asks about every placeholder of every op (O(nodes x placeholders): 0.8 CPU s of
    MobileNetV2's compile, constant folding and the TOSA lowering together)."""

    parameters: dict[str, str]
    buffers: dict[str, str]
    lifted: dict[str, str]
    mutated_buffers: frozenset[str]
    non_persistent_buffers: frozenset[str]

    @staticmethod
    def of(signature: ExportGraphSignature) -> _ConstantTable:
        return _ConstantTable(
            dict(signature.inputs_to_parameters),
            dict(signature.inputs_to_buffers),
            dict(signature.inputs_to_lifted_tensor_constants),
            frozenset(signature.buffers_to_mutate.values()),
            frozenset(signature.non_persistent_buffers),
        )


# The tables of the last few signatures, with the spec lists they were read from: a pass that changes the
# constants assigns a new signature (add_lifted_constant, drop_unused_constants) or new spec lists, and
# holding the lists keeps their ids from being reused while the entry lives.
_TABLES: list[tuple[ExportGraphSignature, list, list, int, int, _ConstantTable]] = []
_TABLES_KEPT = 4


def _table(program: ExportedProgram) -> _ConstantTable:
    signature = program.graph_signature
    inputs, outputs = signature.input_specs, signature.output_specs
    for cached, cached_inputs, cached_outputs, inputs_length, outputs_length, table in _TABLES:
        if (cached is signature and cached_inputs is inputs and cached_outputs is outputs
                and inputs_length == len(inputs) and outputs_length == len(outputs)):  # fmt: skip
            return table
    table = _ConstantTable.of(signature)
    _TABLES.insert(0, (signature, inputs, outputs, len(inputs), len(outputs), table))
    del _TABLES[_TABLES_KEPT:]
    return table


def is_constant(program: ExportedProgram, node: Node) -> bool:
    """A placeholder holding a parameter, a buffer that nothing mutates, or a lifted constant."""
    if node.op != "placeholder":
        return False
    table = _table(program)
    if node.name in table.buffers:
        return table.buffers[node.name] not in table.mutated_buffers
    return node.name in table.parameters or node.name in table.lifted


def is_stored(program: ExportedProgram, node: Node) -> bool:
    """A placeholder whose value the program stores: a parameter, any buffer, or a lifted constant."""
    if node.op != "placeholder":
        return False
    table = _table(program)
    return node.name in table.parameters or node.name in table.buffers or node.name in table.lifted


def constant_value(program: ExportedProgram, node: Node) -> torch.Tensor:
    table = _table(program)
    if node.name in table.parameters:
        return program.state_dict[table.parameters[node.name]]
    if node.name in table.buffers:
        name = table.buffers[node.name]
        return program.constants[name] if name in table.non_persistent_buffers else program.state_dict[name]
    if node.name in table.lifted:
        return program.constants[table.lifted[node.name]]
    raise ValueError(f"{node.name} is not a parameter, buffer or lifted constant")


def add_lifted_constant(program: ExportedProgram, name: str, data: torch.Tensor) -> Node:
    """A new lifted-constant placeholder (before the user inputs, as the graph signature requires)."""
    graph = program.graph_module.graph
    placeholders = [node for node in graph.nodes if node.op == "placeholder"]
    user_inputs = set(program.graph_signature.user_inputs)
    first_user_input = next((node for node in placeholders if node.name in user_inputs), None)
    anchor = graph.inserting_before(first_user_input) if first_user_input else graph.inserting_after(placeholders[-1])
    with anchor:
        node = graph.placeholder(graph._graph_namespace.create_name(name, None))
    node.target = node.name
    fake_mode = next(
        (p.meta["val"].fake_mode for p in placeholders if hasattr(p.meta.get("val"), "fake_mode")), None
    )
    node.meta["val"] = fake_mode.from_tensor(data, static_shapes=True) if fake_mode else data
    program.constants[node.name] = data
    specs = list(program.graph_signature.input_specs)
    index = [n.name for n in graph.nodes if n.op == "placeholder"].index(node.name)
    specs.insert(index, InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(node.name), node.name))
    program._graph_signature = ExportGraphSignature(specs, program.graph_signature.output_specs)
    return node


def drop_unused_constants(program: ExportedProgram) -> list[str]:
    """Removes constant placeholders nothing reads any more (their values too); returns their names."""
    graph = program.graph_module.graph
    unused = [node for node in graph.nodes if is_constant(program, node) and not node.users]
    if not unused:
        return []
    names = {node.name for node in unused}
    kept_specs = []
    for spec in program.graph_signature.input_specs:
        if spec.arg.name not in names:
            kept_specs.append(spec)
            continue
        # A parameter or buffer may be shared by name with another placeholder: drop the value only
        # when no remaining spec refers to it.
        target = spec.target
        if target is not None and not any(
            other.target == target for other in program.graph_signature.input_specs if other.arg.name not in names
        ):
            program.state_dict.pop(target, None)
            program.constants.pop(target, None)
    for node in unused:
        graph.erase_node(node)
    program._graph_signature = ExportGraphSignature(kept_specs, program.graph_signature.output_specs)
    return sorted(names)
