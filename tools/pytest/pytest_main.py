"""Runs pytest on the test files given as arguments, as the main of a Bazel py_test.

Bazel's test protocol is the exit status; pytest's "no tests collected" (exit 5) counts as a failure so a
test target can never pass by testing nothing.
"""

import os
import sys

import pytest


def main(argv: list[str]) -> int:
    args = ["-p", "no:cacheprovider", "-q", *argv]
    # Bazel asks for a JUnit report here; it lists each test case in the test's output.
    if xml := os.environ.get("XML_OUTPUT_FILE"):
        args.append(f"--junitxml={xml}")
    return int(pytest.main(args))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
