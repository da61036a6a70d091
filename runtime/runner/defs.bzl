"""pte_runner_oracle_test: a delegated .pte run end to end by pte_runner on the host, against outputs the
host computes without our runtime (program_oracle.py)."""

load("//runtime/crosscheck:oracles.bzl", "oracle_outputs")
load("//tools/pytest:defs.bzl", "pytest_test")

def pte_runner_oracle_test(name, program, npu, oracle = "delegates", tags = [], **kwargs):
    """`<name>`: pte_runner runs `program` with its Ethos-U delegates on the NPU model; outputs equal the oracle.

    Args:
      name: the test.
      oracle: which oracle makes the inputs and expected outputs (runtime/crosscheck/oracles.bzl):
        "delegates" (q/dq in numpy, delegates on the TOSA reference model) or "executorch" (CPU runs on
        ExecuTorch's host runtime), for programs with other CPU ops.
      program: an arm_pte target for an Ethos-U target (its .tosa files beside the .pte feed the oracle).
      npu: the configuration the program was compiled for, as the NPU model names it ("Ethos-U55-128").
      tags: extra tags (add the target's: u55, u85; slow for large models).
      **kwargs: passed to the test (size, timeout, ...).
    """
    oracle_outputs(
        name = name + "_oracle",
        oracle = oracle,
        testonly = True,
        program = program,
    )
    pytest_test(
        name = name,
        srcs = ["//runtime/runner:pte_runner_oracle_test.py"],
        data = [
            name + "_oracle",
            program,
            "//runtime/runner:pte_runner",
        ],
        env = {
            "NPU": npu,
            "ORACLE_DIR": "$(rootpath {}_oracle)".format(name),
            "PTE": "$(rootpath {})".format(program),
        },
        tags = tags,
        target_compatible_with = select({
            "//tools/emulators:linux_x86_64": [],
            "//conditions:default": ["//toolchains/constraints:incompatible"],
        }),
        **kwargs
    )
