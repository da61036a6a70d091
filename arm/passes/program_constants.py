"""Reading, adding and dropping the constants of an ExportedProgram (parameters, buffers, lifted constants).

Passes that turn computed values into constants (constant folding, int64 narrowing) share these, so the
graph signature and the program's constant tables stay in step with the placeholders.
"""

from __future__ import annotations

import torch
from torch._export.utils import (
    get_buffer,
    get_lifted_tensor_constant,
    get_param,
    is_buffer,
    is_lifted_tensor_constant,
    is_param,
)
from torch.export import ExportedProgram
from torch.export.graph_signature import ExportGraphSignature, InputKind, InputSpec, TensorArgument
from torch.fx import Node


def is_constant(program: ExportedProgram, node: Node) -> bool:
    """A placeholder holding a parameter, a buffer that nothing mutates, or a lifted constant."""
    if node.op != "placeholder":
        return False
    if is_buffer(program, node):
        buffer = program.graph_signature.inputs_to_buffers[node.name]
        return buffer not in program.graph_signature.buffers_to_mutate.values()
    return is_param(program, node) or is_lifted_tensor_constant(program, node)


def constant_value(program: ExportedProgram, node: Node) -> torch.Tensor:
    kinds = ((is_param, get_param), (is_buffer, get_buffer), (is_lifted_tensor_constant, get_lifted_tensor_constant))
    for is_kind, get in kinds:
        if is_kind(program, node):
            return get(program, node)
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
