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

# Targets whose default test runs each op's first case only; `<target>_all_cases` (manual) runs them all.
# A VGF case costs four times a TOSA or Ethos-U case (model converter, Vulkan pipeline set-up on
# lavapipe), while its TOSA graph is the one the tosa_FP / tosa_INT cases already check bit for bit
# against the reference model; the first case of each op still runs every op's VGF on lavapipe in //...
FIRST_CASE_TARGETS = ["vgf_FP", "vgf_INT"]

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
        if target in FIRST_CASE_TARGETS:
            _op_test(target, target, args + ["--cases", "first"], OP_TEST_TARGETS[target], shard_count, **kwargs)
            all_cases_tags = OP_TEST_TARGETS[target] + ["slow", "manual"]
            _op_test(target + "_all_cases", target, args, all_cases_tags, shard_count, **kwargs)
        else:
            _op_test(target, target, args, OP_TEST_TARGETS[target], shard_count, **kwargs)

def _op_test(name, target, args, tags, shard_count, **kwargs):
    """One sharded py_test running op_test_main.py with `args` for harness target `target`."""
    run_time = _RUN_TIME_DATA.get(target, struct(data = [], env = {}))
    native.py_test(
        name = name,
        srcs = ["testing/op_test_main.py"],
        main = "testing/op_test_main.py",
        args = args,
        python_version = "PY3",
        shard_count = shard_count,
        tags = tags,
        data = run_time.data,
        env = run_time.env,
        deps = [":op_testing"],
        **kwargs
    )
