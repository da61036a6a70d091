"""Every ATen operator of the re-exported quantized program, and what executorch's to_edge made of it.

    PYTHONPATH=. python bench/aten_targets.py mv2,dscnn,transformer > targets.txt

The survey behind arm.edge_in_place (bench/README.md, "ATen-level lowering"): for each bench model (U55
quantizer, one calibration sample), each ATen target with, per node, the edge operators whose provenance
(``from_node``) leads back to it; ``<gone>`` when none does (folded, removed or absorbed). Writes the
same as JSON to /tmp/aten_targets.json.
"""
import collections, json, sys, time
import torch
from executorch.exir import to_edge
from executorch.exir.tracer import _default_decomposition_table
from arm.flow import _quantize, resolve_target, _EDGE_CONFIG
from arm.model_spec import load_model_spec
from arm.ops.common import registry
from arm.passes.convolution_spelled_out import spell_out_convolutions
from arm.shared_provenance import sharing_node_provenance
from bench.model_list import BENCH_MODELS

torch.set_num_threads(1)
names = sys.argv[1].split(",")
target = resolve_target("ethos-u55-128")
kept = set(registry.ops_to_not_decompose())
report = {}
for name in names:
    t0 = time.process_time()
    spec = load_model_spec(BENCH_MODELS[name])
    with sharing_node_provenance():
        ep = torch.export.export(spec.module.eval(), spec.example_inputs)
        qm = _quantize(ep, target.quantizer(), spec.calibration_inputs[:1])
        ep = torch.export.export(qm, spec.example_inputs)
        spell_out_convolutions(ep.graph_module)
        aten_graph_id = id(ep.graph)
        aten_nodes = {n.name: n for n in ep.graph.nodes if n.op == "call_function"}
        table = _default_decomposition_table()
        for op in kept:
            table.pop(op, None)
        edge = to_edge(ep.run_decompositions(table), compile_config=_EDGE_CONFIG).exported_program()
    mapping = collections.defaultdict(collections.Counter)  # aten target -> Counter(edge target tuple)
    per_node = collections.defaultdict(list)
    def roots(src, out):
        if src.graph_id == aten_graph_id:
            out.add(src.name); return
        for s in src.from_node:
            roots(s, out)
    for n in edge.graph.nodes:
        if n.op != "call_function": continue
        found = set()
        for s in n.meta.get("from_node", ()):
            roots(s, found)
        for r in found:
            per_node[r].append(str(n.target))
    for nm, node in aten_nodes.items():
        mapping[str(node.target)][" + ".join(sorted(per_node.get(nm, ["<gone>"])))] += 1
    report[name] = {k: dict(v) for k, v in mapping.items()}
    print(f"== {name} ({time.process_time()-t0:.1f} CPU s)", flush=True)
    for k, v in sorted(mapping.items()):
        print(f"  {k:55s} -> {dict(v)}")
json.dump(report, open("/tmp/aten_targets.json", "w"), indent=1)
