"""Where two sides' Vela cycles differ: per-layer CSVs of a ``bench.compare --dump-dir`` run, by operator.

    PYTHONPATH=. python -m bench.per_layer_diff /work/notes/s5/bench_dump squeezenet ethos-u55-128

Sums each side's Vela "Op Cycles" over all its partitions by (TOSA operator, Vela's operator), and
prints the kinds whose totals differ most first, with the layer counts: the first place to look for
why one side's total is higher (an extra TRANSPOSE, RESCALEs run as elementwise MULs, a copy ...).
"""

from __future__ import annotations

import argparse
import collections
import csv
import dataclasses
import sys
from pathlib import Path

SIDES = ("ours", "peer")


@dataclasses.dataclass
class Kind:
    """One (TOSA operator, Vela operator) pair's layers on one side."""

    layers: int = 0
    cycles: int = 0


def per_layer_files(dump_dir: Path, model: str, target: str, side: str) -> list[Path]:
    return sorted(dump_dir.glob(f"{model}_{target}_{side}_*_per_layer.csv"))


def cycles_by_kind(files: list[Path]) -> dict[tuple[str, str], Kind]:
    kinds: dict[tuple[str, str], Kind] = collections.defaultdict(Kind)
    for path in files:
        with path.open(newline="") as stream:
            for layer in csv.DictReader(stream):
                kind = kinds[(layer["Original Operator"], layer["NNG Operator"])]
                kind.layers += 1
                kind.cycles += int(float(layer["Op Cycles"]))
    return kinds


def render(ours: dict[tuple[str, str], Kind], peer: dict[tuple[str, str], Kind]) -> str:
    keys = sorted(set(ours) | set(peer), key=lambda key: -abs(ours[key].cycles - peer[key].cycles))
    lines = ["operator (TOSA / Vela)            layers ours/peer   cycles ours / peer    difference"]
    for key in keys:
        a, b = ours[key], peer[key]
        lines.append(
            f"{key[0] + ' / ' + key[1]:<34} {a.layers:>5} / {b.layers:<5} {a.cycles:>11,} / {b.cycles:<11,} "
            f"{a.cycles - b.cycles:>+11,}"
        )
    total_ours = sum(kind.cycles for kind in ours.values())
    total_peer = sum(kind.cycles for kind in peer.values())
    lines.append(f"{'all layers':<34} {'':13} {total_ours:>11,} / {total_peer:<11,} {total_ours - total_peer:>+11,}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dump_dir", type=Path, help="a bench.compare --dump-dir")
    parser.add_argument("model", help="bench model short name, e.g. squeezenet")
    parser.add_argument("target", help="e.g. ethos-u55-128")
    args = parser.parse_args(argv)
    files = {side: per_layer_files(args.dump_dir, args.model, args.target, side) for side in SIDES}
    missing = [side for side, paths in files.items() if not paths]
    if missing:
        parser.error(f"no per-layer CSV of {', '.join(missing)} for {args.model} {args.target} in {args.dump_dir}")
    kinds = {side: collections.defaultdict(Kind, cycles_by_kind(paths)) for side, paths in files.items()}
    print(render(kinds["ours"], kinds["peer"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
