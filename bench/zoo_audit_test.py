"""bench.zoo_audit's matrix and verdicts on made-up reports: no model is compiled."""

import dataclasses
import json

import pytest

from bench import zoo_audit
from bench.agreement import Agreement, Agreements
from bench.analysis import SideReport
from bench.vela_report import VelaNumbers
from bench.zoo_matrix import (
    MET,
    NO_PEER,
    NOT_APPLICABLE,
    NOT_COMPILED,
    NOT_MET,
    PEER_FAILED,
    AuditRow,
    markdown_row,
    not_met,
    tally,
    verdicts,
)


def _report(side, *, cycles=1000, delegated=100.0, cosine=0.999, max_abs=0.1, partitions=1, one_delegate=True):
    agreement = Agreement(cosine=cosine, max_abs_error=max_abs, top1=4, samples=4)
    return SideReport(
        side=side,
        partitions=partitions,
        delegated_percent=delegated,
        vela=None if cycles is None else VelaNumbers(cycles, cycles, 1.0, 1.0, 1.0, 10),
        agreement=Agreements(agreement, agreement, agreement) if one_delegate else None,
    )


def _statuses(row):
    return {criterion: verdict.status for criterion, verdict in verdicts(row).items()}


def test_a_pair_at_or_better_than_the_peer_meets_every_criterion():
    row = AuditRow("regnet", "ethos-u55-128", _report("ours", cycles=1000), _report("peer", cycles=1000))
    assert _statuses(row) == {"compiles": MET, "delegated": MET, "cycles": MET, "error": MET}
    assert not_met([row]) == []


def test_more_cycles_a_smaller_share_or_a_larger_error_is_not_met_and_listed():
    ours = _report("ours", cycles=1100, delegated=98.4, cosine=0.9955, max_abs=0.05)
    peer = _report("peer", cycles=1000, delegated=99.5, cosine=0.9959, max_abs=0.109)
    row = AuditRow("deit_tiny", "ethos-u85-256", ours, peer)
    assert _statuses(row) == {"compiles": MET, "delegated": NOT_MET, "cycles": NOT_MET, "error": NOT_MET}
    assert not_met([row]) == [
        "deit_tiny@ethos-u85-256: delegated: 98.4 vs 99.5%",
        "deit_tiny@ethos-u85-256: cycles: 1.100x",
        "deit_tiny@ethos-u85-256: error: cosine 0.99550 < 0.99590",
    ]
    larger_max = AuditRow("x", "ethos-u55-128", _report("ours", max_abs=0.2), _report("peer", max_abs=0.1))
    assert verdicts(larger_max)["error"].why == "max abs 0.2 > 0.1"


def test_errors_equal_but_for_float_rounding_or_the_grids_last_digits_count_as_no_larger():
    exact = AuditRow("kws_conv1d", "ethos-u55-128", _report("ours", cosine=1.0, max_abs=0.0),
                     _report("peer", cosine=1.0000000000000002, max_abs=0.0))
    grids_last_digits = AuditRow("convnext_atto", "ethos-u55-128", _report("ours", cosine=0.99972, max_abs=0.0980825),
                             _report("peer", cosine=0.99963, max_abs=0.0980347))
    two_percent_more = AuditRow("yolov8n", "ethos-u55-128", _report("ours", cosine=0.99993, max_abs=36.13),
                                _report("peer", cosine=0.99983, max_abs=35.22))
    assert verdicts(exact)["error"].status == MET
    assert verdicts(grids_last_digits)["error"].status == MET
    assert verdicts(two_percent_more)["error"].why == "max abs 36.1 > 35.2"


def test_a_failed_or_missing_peer_and_the_tosa_target_say_so_instead_of_judging():
    failed_peer = SideReport(side="peer", error="VelaCompileError: Gather left on the CPU")
    row = AuditRow("bert", "ethos-u85-256", _report("ours"), failed_peer)
    assert _statuses(row) == {"compiles": MET, "delegated": PEER_FAILED, "cycles": PEER_FAILED, "error": PEER_FAILED}

    no_peer = AuditRow("mha_sequence", "tosa-INT", _report("ours", cycles=None), None)
    assert _statuses(no_peer) == {"compiles": MET, "delegated": NO_PEER, "cycles": NOT_APPLICABLE, "error": NO_PEER}

    nothing_yet = AuditRow("llama", "ethos-u55-128", None, _report("peer"))
    assert _statuses(nothing_yet) == {c: NOT_COMPILED for c in ("compiles", "delegated", "cycles", "error")}


def test_our_failure_fails_every_criterion_it_touches():
    row = AuditRow("yolov8n", "ethos-u55-128", SideReport(side="ours", error="RuntimeError: boom"), _report("peer"))
    judged = verdicts(row)
    assert judged["compiles"].status == NOT_MET and judged["compiles"].why == "RuntimeError: boom"
    assert {judged[c].status for c in ("delegated", "cycles", "error")} == {NOT_MET}


def test_error_is_not_applicable_where_a_side_is_partly_delegated():
    row = AuditRow(
        "llama", "ethos-u85-256", _report("ours", one_delegate=False), _report("peer", partitions=2, one_delegate=False)
    )
    assert verdicts(row)["error"] == dataclasses.replace(verdicts(row)["error"], status=NOT_APPLICABLE)
    assert verdicts(row)["error"].why == "partly delegated: ours and peer"


def test_the_markdown_row_shows_both_sides_the_ratio_and_the_verdicts():
    row = AuditRow(
        "squeezenet",
        "ethos-u55-128",
        _report("ours", cycles=1_709_234, cosine=0.999991, max_abs=0.0055),
        _report("peer", cycles=1_700_000, cosine=0.999991, max_abs=0.0055),
    )
    assert markdown_row(row) == (
        "| squeezenet | ethos-u55-128 | ok / ok | 1 / 1 | 100.0 / 100.0 | 1,709,234 / 1,700,000 (1.01) "
        "| 0.99999, 0.0055, 4/4 | 0.99999, 0.0055, 4/4 | met | met | NOT met | met |"
    )
    tosa = AuditRow("kws_conv1d", "tosa-INT", _report("ours", cycles=None), None)
    assert markdown_row(tosa).split(" | ")[5] == "–"
    assert tally([row, tosa])["cycles"] == {NOT_MET: 1, NOT_APPLICABLE: 1}


def _saved_run(path, date, samples, comparisons):
    run = {"date": date, "calibration samples": str(samples)}
    path.write_text(json.dumps({"run": run, "comparisons": comparisons}))
    return path


def test_peer_figures_come_from_the_latest_run_holding_the_pair_and_skip_partial_entries(tmp_path):
    peer = dataclasses.asdict(_report("peer", cycles=5))
    newer_peer = dataclasses.asdict(_report("peer", cycles=7))
    older = _saved_run(tmp_path / "old.json", "2026-11-25 10:00 UTC", 4, [
        {"model": "regnet", "target": "ethos-u55-128", "peer": peer},
        {"model": "deit_tiny", "target": "ethos-u55-128", "peer": {"seconds": 1024.4, "error": None}},
    ])
    newer = _saved_run(tmp_path / "new.json", "2026-11-26 10:00 UTC", 16, [
        {"model": "regnet", "target": "ethos-u55-128", "peer": newer_peer},
    ])
    figures = zoo_audit.load_peer_figures([newer, older])
    assert set(figures) == {("regnet", "ethos-u55-128")}
    saved = figures[("regnet", "ethos-u55-128")]
    assert (saved.report.vela.total_cycles, saved.calibration_samples) == (7, 16)
    assert saved.source == "new.json (2026-11-26 10:00 UTC)"


def test_the_cache_keeps_reports_per_pair_and_a_run_compiles_only_what_it_lacks_or_is_asked(tmp_path):
    cache = zoo_audit.OurCache(tmp_path / "ours.json")
    cache.put("kws_conv1d", "tosa-INT", _report("ours", cycles=None), 4)
    reread = zoo_audit.OurCache(tmp_path / "ours.json")
    assert reread.report("kws_conv1d", "tosa-INT") == _report("ours", cycles=None)
    todo = zoo_audit.pairs_to_compile([], reread, {})
    assert ("kws_conv1d", "tosa-INT") not in todo and len(todo) == len(zoo_audit.all_pairs()) - 1
    # A peer figure measured with 16 calibration samples asks for our side at 16 too.
    assert ("kws_conv1d", "tosa-INT") in zoo_audit.pairs_to_compile([], reread, {("kws_conv1d", "tosa-INT"): 16})
    assert zoo_audit.pairs_to_compile([("kws_conv1d", "tosa-INT")], reread, {}) == [("kws_conv1d", "tosa-INT")]


def test_pairs_outside_the_zoo_or_its_targets_are_refused_with_the_choices():
    assert zoo_audit.parse_pairs("llama@ethos-u55-128, bert@tosa-INT") == [
        ("llama", "ethos-u55-128"),
        ("bert", "tosa-INT"),
    ]
    with pytest.raises(SystemExit, match="MODEL in kws_conv1d"):
        zoo_audit.parse_pairs("mv2@ethos-u55-128")
    with pytest.raises(SystemExit, match="TARGET in tosa-INT"):
        zoo_audit.parse_pairs("llama@vgf-INT")
