"""Runs the test cases of some ops on one target as pytest tests, e.g.

    python arm/ops/testing/op_test_main.py --target u55_INT --op add --op conv2d [pytest arguments]

Each case becomes a test with id ``{op}_{case}_{target}`` (``add_tensor_u55_INT``); the exit status is
pytest's, and collecting no test is a failure (except in a shard whose cases a `--test_filter` all
deselects: the matches are in other shards). Under Bazel the cases are split over the test's shards
(TEST_TOTAL_SHARDS), and ``--test_filter=conv2d`` selects cases by id (pytest's -k).
"""

from __future__ import annotations

import argparse
import os
import sys

import pytest

from arm.ops.testing.harness import OP_TEST_TARGETS, OpCase, check_op_case, op_cases


def test_op_case(op_case: OpCase) -> None:
    check_op_case(op_case)


class _OpCaseParametrization:
    """pytest plugin: one ``test_op_case`` per case of the chosen op."""

    def __init__(self, cases: list[OpCase]):
        self.cases = cases

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "op_case" in metafunc.fixturenames:
            metafunc.parametrize("op_case", self.cases, ids=[case.test_id for case in self.cases])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--op", required=True, action="append", help="op file name under arm/ops/, e.g. add")
    parser.add_argument("--target", required=True, choices=list(OP_TEST_TARGETS))
    parser.add_argument(
        "--cases",
        choices=("all", "first"),
        default="all",
        help="every case of each op, or only its first (see op_tests.bzl: the VGF targets in //...)",
    )
    args, pytest_args = parser.parse_known_args(argv)
    try:
        cases = [case for op in args.op for case in op_cases(op, args.target)[: None if args.cases == "all" else 1]]
    except KeyError as error:
        parser.error(str(error.args[0]))
    cases = _this_shard(cases)
    if test_filter := os.environ.get("TESTBRIDGE_TEST_ONLY"):
        pytest_args = ["-k", test_filter, *pytest_args]

    # torch and executorch deprecation warnings are about their internals, not about the op under test.
    quiet_warnings = ["-W", "ignore::DeprecationWarning", "-W", "ignore::FutureWarning"]
    pytest_args = ["-p", "no:cacheprovider", "-q", "--tb=short", *quiet_warnings, *pytest_args]
    # Bazel asks for a JUnit report here; it lists each case in the test's output.
    if xml := os.environ.get("XML_OUTPUT_FILE"):
        pytest_args.append(f"--junitxml={xml}")
    status = pytest.main([__file__, *pytest_args], plugins=[_OpCaseParametrization(cases)])
    if status == pytest.ExitCode.NO_TESTS_COLLECTED and test_filter and _is_sharded():
        # `--test_filter=argmax` on a sharded target: the matching cases sit in other shards.
        return 0
    return int(status) or (0 if cases else int(pytest.ExitCode.NO_TESTS_COLLECTED))


def _is_sharded() -> bool:
    return int(os.environ.get("TEST_TOTAL_SHARDS", "1")) > 1


def _this_shard(cases: list[OpCase]) -> list[OpCase]:
    """The cases of this Bazel test shard (every case when the test is not sharded)."""
    total = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    index = int(os.environ.get("TEST_SHARD_INDEX", "0"))
    if status_file := os.environ.get("TEST_SHARD_STATUS_FILE"):
        open(status_file, "w").close()  # tells Bazel this test knows how to shard
    return cases[index::total]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
