"""arm_run_oracle_test: a delegated .pte run end to end by the Python runtime (arm.run) on the host, against
outputs the host computes without our runtime (program_oracle.py)."""

load("//runtime/crosscheck:oracles.bzl", "oracle_outputs")
load("//third_party/vulkan:defs.bzl", "VULKAN_TEST_DATA", "VULKAN_TEST_ENV")
load("//tools/pytest:defs.bzl", "pytest_test")

def arm_run_oracle_test(name, program, oracle = "delegates", vulkan = False, tags = [], **kwargs):
    """`<name>`: arm.run runs `program`; its outputs equal program_oracle.py's bit for bit.

    Args:
      name: the test.
      oracle: which oracle makes the inputs and expected outputs (runtime/crosscheck/oracles.bzl):
        "delegates" (q/dq in numpy, delegates on the TOSA reference model) or "executorch" (CPU runs on
        ExecuTorch's host runtime), for programs with other CPU ops.
      program: an arm_pte target whose delegates were lowered to TOSA (Ethos-U, VGF or TOSA targets).
      vulkan: the program holds VGF delegates: give the test lavapipe.
      tags: extra tags (the target's: tosa, u55, u85, vgf; slow for large models).
      **kwargs: passed to the test (size, timeout, ...).
    """
    oracle_outputs(
        name = name + "_oracle",
        oracle = oracle,
        testonly = True,
        program = program,
    )
    env = {
        "ORACLE_DIR": "$(rootpath {}_oracle)".format(name),
        "PTE": "$(rootpath {})".format(program),
    }
    if vulkan:
        env.update(VULKAN_TEST_ENV)
    pytest_test(
        name = name,
        srcs = ["//runtime/python:arm_run_oracle_test.py"],
        data = [
            name + "_oracle",
            program,
            "//runtime/python:libpte_runtime.so",
        ] + (VULKAN_TEST_DATA if vulkan else []),
        env = env,
        tags = tags,
        deps = ["//arm"],
        target_compatible_with = select({
            "//tools/emulators:linux_x86_64": [],
            "//conditions:default": ["//toolchains/constraints:incompatible"],
        }),
        **kwargs
    )
