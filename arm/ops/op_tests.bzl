"""arm_op_tests: one py_test per target running every op's test cases, tagged by target."""

load("//third_party/vulkan:defs.bzl", "VULKAN_TEST_DATA", "VULKAN_TEST_ENV")

# Target name -> the tags that select it (`bazel test --test_tag_filters=u55 //...`).
OP_TEST_TARGETS = {
    "tosa_FP": ["tosa"],
    "tosa_INT": ["tosa"],
    "u55_INT": ["u55"],
    "u85_INT": ["u85"],
    "vgf_FP": ["vgf"],
    "vgf_INT": ["vgf"],
}

# What a target's tests run on besides the Python environment: the Ethos-U targets run Vela's command
# streams on the functional NPU model, VGF files run on lavapipe (harness.py).
_NPU_MODEL = struct(data = ["//runtime/npu_model:libpte_npu_model.so"], env = {})
_VULKAN = struct(data = VULKAN_TEST_DATA, env = VULKAN_TEST_ENV)
_RUN_TIME_DATA = {
    "u55_INT": _NPU_MODEL,
    "u85_INT": _NPU_MODEL,
    "vgf_FP": _VULKAN,
    "vgf_INT": _VULKAN,
}

def arm_op_tests(ops, targets = OP_TEST_TARGETS.keys(), shard_count = 4, **kwargs):
    """Runs the TEST_CASES of `arm/ops/<op>.py` for each op on each target.

    One test per target (`//arm/ops:u55_INT`), its cases spread over `shard_count` shards: a test
    process pays ~15 s to import torch and executorch, so one per op and target would spend more time
    importing than testing. Case ids are `<op>_<case>_<target>`; `--test_filter=conv2d` picks cases.

    Args:
      ops: op file names without `.py` (e.g. "conv2d").
      targets: subset of OP_TEST_TARGETS' keys.
      shard_count: processes per target.
      **kwargs: passed to every py_test.
    """
    kwargs.setdefault("size", "large")
    for target in targets:
        args = ["--target", target]
        for op in ops:
            args += ["--op", op]
        run_time = _RUN_TIME_DATA.get(target, struct(data = [], env = {}))
        native.py_test(
            name = target,
            srcs = ["testing/op_test_main.py"],
            main = "testing/op_test_main.py",
            args = args,
            python_version = "PY3",
            shard_count = shard_count,
            tags = OP_TEST_TARGETS[target],
            data = run_time.data,
            env = run_time.env,
            deps = [":op_testing"],
            **kwargs
        )
