"""README.md's op support table is the one the op files' test cases give."""

from __future__ import annotations

from arm.ops.testing import support_table


def test_readme_table_matches_the_op_files() -> None:
    documented = support_table.readme_table(support_table.README.read_text())
    assert documented == support_table.table(), (
        "README.md's op table is out of date: run `python -m arm.ops.testing.support_table --write`"
    )


def test_every_op_has_cases() -> None:
    # An op without cases would show "yes" everywhere while nothing checks it.
    empty = [name for name in support_table.registry.op_names() if not support_table.registry.test_cases(name)]
    assert not empty, f"ops without TEST_CASES: {empty}"


def test_a_target_without_cases_claims_nothing() -> None:
    # while_loop's one case runs on TOSA FP only: the other targets are not shown as supported.
    assert support_table.support_cell("while_loop", "tosa_FP") == "yes"
    assert support_table.support_cell("while_loop", "u55_INT") == support_table.NOT_TESTED
