"""arm_op_tests: one py_test per (op, target), named `<op>_<target>` and tagged by target."""

# Target name -> the tags that select it (`bazel test --test_tag_filters=u55 //...`).
OP_TEST_TARGETS = {
    "tosa_FP": ["tosa"],
    "tosa_INT": ["tosa"],
    "u55_INT": ["u55"],
    "u85_INT": ["u85"],
}

def arm_op_tests(op, targets = OP_TEST_TARGETS.keys(), **kwargs):
    """Runs the TEST_CASES of `arm/ops/<op>.py` on each target, through the reference model and Vela.

    Args:
      op: op file name without `.py` (e.g. "conv2d").
      targets: subset of OP_TEST_TARGETS' keys.
      **kwargs: passed to every py_test (size, shard_count, ...).
    """
    for target in targets:
        native.py_test(
            name = "{}_{}".format(op, target),
            srcs = ["testing/op_test_main.py"],
            main = "testing/op_test_main.py",
            args = ["--op", op, "--target", target],
            python_version = "PY3",
            tags = OP_TEST_TARGETS[target],
            deps = [":op_testing"],
            **kwargs
        )
