"""The replay's tables: outcome counts per target, the top CPU-fallback reasons, and the failures."""

from __future__ import annotations

import collections
import dataclasses
import json
import re
from typing import Iterable, Sequence

from bench.peer_op_replay.plugin import CaseResult
from bench.peer_op_replay.replay import OUTCOMES

# Outcomes of replayed cases, in table order; "not_replayed" cases are counted beside, not in the rate.
_COLUMNS = ("pass", "cpu_fallback", "wrong_numbers", "internal_error", "refused", "unexpected_delegation", "not_checked")


def outcome_table(results: Sequence[CaseResult]) -> str:
    """One row per target: counts (and % of the replayed cases) per outcome."""
    header = ["target", "replayed", *_COLUMNS, "not_replayed"]
    rows = [header, ["---"] * len(header)]
    for target in sorted({result.target for result in results}):
        mine = [result for result in results if result.target == target]
        counts = collections.Counter(result.outcome for result in mine)
        replayed = sum(counts[column] for column in _COLUMNS)
        cells = [f"{counts[column]} ({100 * counts[column] / replayed:.0f}%)" if replayed else "0" for column in _COLUMNS]
        rows.append([target, str(replayed), *cells, str(counts["not_replayed"])])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def _reason_key(reason: str) -> str:
    """A fallback reason without its node names and numbers, so that the same rule groups together."""
    reason = re.sub(r"\b[a-z_]+_\d+\b", "<node>", reason)
    return re.sub(r"\b\d+(\.\d+)*\b", "N", reason)[:200]  # counts and versions; float16 stays


def top_fallback_reasons(results: Iterable[CaseResult], count: int = 15) -> list[tuple[int, str, list[str]]]:
    """(cases, reason, ops) for the most frequent first CPU-fallback reasons."""
    cases: collections.Counter[str] = collections.Counter()
    ops: dict[str, set[str]] = collections.defaultdict(set)
    for result in results:
        if result.outcome == "cpu_fallback" and result.reasons:
            key = _reason_key(result.reasons[0])
            cases[key] += 1
            ops[key].add(f"{result.op}/{result.target}")
    return [(n, key, sorted(ops[key])) for key, n in cases.most_common(count)]


def failures(results: Iterable[CaseResult], outcome: str) -> list[CaseResult]:
    return sorted((r for r in results if r.outcome == outcome), key=lambda r: (r.op, r.target, r.case))


def render(results: Sequence[CaseResult]) -> str:
    lines = ["Outcomes per target (% of replayed cases):", "", outcome_table(results), ""]
    lines += [f"  {name}: {meaning}" for name, meaning in OUTCOMES.items()]
    lines += ["", "Top CPU-fallback reasons (cases, reason, op/target):"]
    for n, reason, ops in top_fallback_reasons(results):
        lines.append(f"  {n:3d}  {reason}\n        {', '.join(ops)}")
    for outcome in ("internal_error", "refused", "wrong_numbers", "unexpected_delegation", "not_checked"):
        listed = failures(results, outcome)
        lines += ["", f"{outcome} ({len(listed)}):"]
        lines += [f"  {r.op} {r.target} {r.case}: {r.detail}" for r in listed]
    return "\n".join(lines)


def write_json(path: str, results: Sequence[CaseResult], meta: dict) -> None:
    with open(path, "w") as handle:
        json.dump({"meta": meta, "results": [dataclasses.asdict(r) for r in results]}, handle, indent=1)


def load_json(path: str) -> tuple[dict, list[CaseResult]]:
    with open(path) as handle:
        data = json.load(handle)
    return data["meta"], [CaseResult(**entry) for entry in data["results"]]


def _cause_key(result: CaseResult) -> str:
    """What a failure is about, without its numbers and node names: the group it is listed under."""
    if result.outcome == "cpu_fallback":
        return _reason_key(result.reasons[0]) if result.reasons else result.detail
    text = re.sub(r"\[at .*", "", result.detail)  # the frame is kept in the case's own line
    return re.sub(r"-?\b\d+(\.\d+)?(e-?\d+)?\b", "N", text)[:160].strip()


def grouped_failures(results: Sequence[CaseResult], outcome: str) -> list[tuple[str, list[CaseResult]]]:
    groups: dict[str, list[CaseResult]] = collections.defaultdict(list)
    for result in failures(results, outcome):
        groups[_cause_key(result)].append(result)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


def render_markdown(results: Sequence[CaseResult], meta: dict) -> str:
    """The run as bench/README.md shows it: the table, then every failing case grouped by cause."""
    lines = [
        f"Commit {meta.get('commit')}, {meta.get('started')} to {meta.get('finished')}; load average "
        f"{', '.join(f'{x:.1f}' for x in meta.get('load_average_at_start', ()))} at the start; "
        f"{meta.get('per_file')} case(s) per test file and target, seed {meta.get('seed')}; "
        f"cases of these targets in the peer's tests: {meta.get('collected_per_target')}.",
        "",
        outcome_table(results),
    ]
    for outcome in ("internal_error", "refused", "wrong_numbers", "unexpected_delegation", "not_checked", "cpu_fallback"):
        groups = grouped_failures(results, outcome)
        if not groups:
            continue
        lines += ["", f"**{outcome}** ({sum(len(g) for _, g in groups)} cases)", ""]
        for cause, members in groups:
            cases = ", ".join(f"{r.op} {r.target} `{r.case}`" + (" (peer xfail)" if r.peer_xfail else "") for r in members)
            frame = re.search(r"\[at (.*)\]$", members[0].detail)
            lines.append(f"- {len(members)} x {cause}{f' (at {frame.group(1)})' if frame else ''}: {cases}")
    return "\n".join(lines)
