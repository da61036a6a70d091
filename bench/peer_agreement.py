"""The peer's error figures measured again (bench.agreement, float32 and float64) without compiling it again.

    PYTHONPATH=. python -m bench.peer_agreement --pairs mha_sequence@tosa-INT,... \
        --peer-from a.json,b.json --tosa-dirs DUMP1,DUMP2 --out peer_agreement.json

The error measure needs three things of a side: its delegate's TOSA graph, the grids its .pte quantizes
the inputs and dequantizes the outputs with, and its quantized torch model. The peer's TOSA graphs are
kept from earlier compiles (``bench.compare --dump-dir`` writes ``<model>_<target>_peer_<i>.tosa``); its
quantized model is made again here the way bench.peer makes it (same quantizer for the target, same
calibration samples, deterministic on one thread); the grids are that model's boundary quantize and
dequantize, which the peer's .pte keeps around its one delegate. So the peer's quantization runs
(seconds to a minute) and its lowering and Vela do not (minutes to an hour).

Each pair's saved report (cycles, delegated share, ...) is written again with the new agreement, dated
now, so bench.zoo_audit --peer-from takes it over the older file. As a check that the saved graph belongs
to the rebuilt model, the float32 figure measured now is printed beside the saved one: they must agree.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import torch

from bench.agreement import Agreements, measure_agreement
from bench.pte_program import Quantization
from bench.zoo_audit import SavedPeer, load_peer_figures, now_utc, parse_pairs, write_json
from arm.report.float64_quantized import output_grids

_QUANTIZE = "quantized_decomposed.quantize_per_tensor.default"


@dataclasses.dataclass(frozen=True)
class Boundary:
    """The grids of a one-delegate .pte: per input (None: an integer input fed as it is) and per output."""

    inputs: tuple[Quantization | None, ...]
    outputs: tuple[Quantization, ...]


def boundary_of(quantized: torch.fx.GraphModule) -> Boundary:
    """The quantize each program input goes through and the dequantize each output comes from.

    Raises ValueError when an output does not end on a dequantize: such a model's .pte is not "quantize,
    one delegate, dequantize", and the error measure does not apply.
    """
    inputs = []
    for placeholder in (node for node in quantized.graph.nodes if node.op == "placeholder"):
        quantizes = [user for user in placeholder.users if str(user.target) == _QUANTIZE]
        inputs.append(Quantization(float(quantizes[0].args[1]), int(quantizes[0].args[2])) if quantizes else None)
    outputs = []
    for index, grid in enumerate(output_grids(quantized)):
        if grid is None:
            raise ValueError(f"output {index} of the quantized model does not end on a dequantize_per_tensor")
        outputs.append(Quantization(*grid))
    return Boundary(tuple(inputs), tuple(outputs))


def saved_tosa(model: str, target: str, dirs: list[Path]) -> Path:
    """The peer's one TOSA graph for the pair from the first of ``dirs`` that holds it."""
    for folder in dirs:
        first = folder / f"{model}_{target}_peer_0.tosa"
        if first.exists():
            if (folder / f"{model}_{target}_peer_1.tosa").exists():
                raise ValueError(f"{folder} holds more than one peer partition for {model}@{target}")
            return first
    searched = ", ".join(str(folder) for folder in dirs) or "(no --tosa-dirs)"
    raise FileNotFoundError(
        f"no {model}_{target}_peer_0.tosa in {searched}: compile the peer for the pair with "
        f"bench.zoo_audit --run-peer --pairs {model}@{target} --dump-dir DIR"
    )


def graph_digest(quantized: torch.fx.GraphModule) -> str:
    """A digest of the quantized model's graph, grids and constants: equal digests, the same model."""
    digest = hashlib.sha256(quantized.code.encode())
    for node in quantized.graph.nodes:
        if node.op == "get_attr":
            value = _attribute(quantized, node.target)
            if isinstance(value, torch.Tensor):
                digest.update(value.detach().contiguous().view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()[:16]


def _attribute(module: torch.nn.Module, dotted: str) -> object:
    for part in dotted.split("."):
        module = getattr(module, part)
    return module


def remeasure(model: str, target: str, saved: SavedPeer, tosa_path: Path) -> tuple[Agreements, dict]:
    """The peer's agreement for the pair from its saved TOSA graph and its quantized model made again."""
    from arm.model_spec import load_model_spec
    from bench import peer
    from bench.model_list import BENCH_MODELS

    spec = load_model_spec(BENCH_MODELS[model])
    quantized = peer.quantize_peer(spec, target, saved.calibration_samples)
    boundary = boundary_of(quantized)
    tosa = tosa_path.read_bytes()
    agreements = measure_agreement(
        tosa,
        boundary.inputs,
        boundary.outputs,
        spec.module,
        quantized,
        spec.calibration_inputs[: saved.calibration_samples],
    )
    provenance = {
        "tosa": str(tosa_path),
        "tosa_sha256": hashlib.sha256(tosa).hexdigest()[:16],
        "quantized_graph": graph_digest(quantized),
        "saved_report": saved.source,
        "saved_vs_quantized": None
        if saved.report.agreement is None
        else dataclasses.asdict(saved.report.agreement.vs_quantized),
    }
    return agreements, provenance


def _summary(agreements: Agreements, provenance: dict) -> str:
    now, exact = agreements.vs_quantized, agreements.vs_quantized_float64
    before = provenance["saved_vs_quantized"]
    saved = "none" if before is None else f"cos {before['cosine']:.8f}, max {before['max_abs_error']:.4g}"
    return (
        f"float32 now cos {now.cosine:.8f}, max {now.max_abs_error:.4g} ({now.max_steps} steps; saved {saved}); "
        f"float64 cos {exact.cosine:.8f}, max {exact.max_abs_error:.4g} ({exact.max_steps} steps, "
        f"{exact.elements_off} elements off); quantized graph {provenance['quantized_graph']}"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bench.peer_agreement", description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", required=True, help="MODEL@TARGET,... in the order to measure")
    parser.add_argument("--peer-from", required=True, help="comma-separated JSON files with the peer's saved reports")
    parser.add_argument("--tosa-dirs", required=True, help="comma-separated folders of saved <model>_<target>_peer_0.tosa")
    parser.add_argument("--out", type=Path, required=True, help="the JSON to add the re-measured reports to")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    pairs = parse_pairs(args.pairs)
    figures = load_peer_figures([Path(path) for path in args.peer_from.split(",") if path])
    dirs = [Path(path) for path in args.tosa_dirs.split(",") if path]
    missing = [f"{model}@{target}" for model, target in pairs if (model, target) not in figures]
    if missing:
        raise SystemExit(f"no saved peer report for {', '.join(missing)} in --peer-from: compile it with --run-peer")
    document = json.loads(args.out.read_text()) if args.out.exists() else {"run": {}, "comparisons": []}
    document["run"].update({"date": now_utc(), "by": "bench.peer_agreement"})
    torch.set_num_threads(1)  # as bench.compare: the peer's calibration must see the same arithmetic
    for model, target in pairs:
        saved = figures[(model, target)]
        print(f"{model}@{target}: the peer's quantized model ...", file=sys.stderr, flush=True)
        agreements, provenance = remeasure(model, target, saved, saved_tosa(model, target, dirs))
        report = dataclasses.replace(saved.report, agreement=agreements)
        comparisons = [c for c in document["comparisons"] if (c["model"], c["target"]) != (model, target)]
        comparisons.append(
            {
                "model": model,
                "target": target,
                "date": now_utc(),
                "calibration samples": saved.calibration_samples,
                "peer": dataclasses.asdict(report),
                "remeasured": provenance,
            }
        )
        document["comparisons"] = comparisons
        write_json(args.out, document)
        print(f"{model}@{target}: {_summary(agreements, provenance)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
