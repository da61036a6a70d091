"""arm_pte: lowers a PyTorch model to an ExecuTorch .pte for an Arm target, as one cached Bazel action."""

ArmPteInfo = provider(
    doc = "What an arm_pte target produced.",
    fields = {
        "pte": "The .pte program.",
        "tosa": "The TOSA flatbuffer of the delegated partition (of the first, with several).",
        "tosa_partitions": "list of File: every partition's TOSA flatbuffer, in order.",
        "vela_summary": "Vela's summary CSV (Ethos-U targets), or None.",
        "target": "The target name, e.g. 'ethos-u55-128'.",
    },
)

def _is_ethos_u(target):
    return target.startswith("ethos-u")

def _add_flow_args(ctx, args):
    """The arguments that choose what is compiled and how, shared by the .pte and the report action."""
    args.add("--model", ctx.attr.factory)
    args.add("--target", ctx.attr.target)
    args.add("--calibration-samples", ctx.attr.calibration_samples)
    if not ctx.attr.quantize:
        args.add("--no-quantize")
    if ctx.attr.int8_io:
        args.add("--int8-io")
    args.add("--edge-route", ctx.attr.edge_route)
    if _is_ethos_u(ctx.attr.target):
        if ctx.attr.system_config:
            args.add("--system-config", ctx.attr.system_config)
        if ctx.attr.memory_mode:
            args.add("--memory-mode", ctx.attr.memory_mode)
        args.add_all(ctx.attr.vela_flags, before_each = "--vela-flag")
        if ctx.attr.lookups:
            args.add("--lookups", ctx.attr.lookups)
    elif ctx.attr.system_config or ctx.attr.memory_mode or ctx.attr.vela_flags or ctx.attr.lookups:
        fail("{}: system_config, memory_mode, vela_flags and lookups apply to ethos-u targets only, not {}".format(
            ctx.label,
            ctx.attr.target,
        ))

def _report_action(ctx):
    """`<name>_report.html`, built only when the `report` output group is asked for.

    A separate action from the .pte's: the per-layer error runs every calibration input through three
    models, which an ordinary build should not pay for. It lowers the model again (deterministically, so
    the page describes the very .pte of the default output).
    """
    report = ctx.actions.declare_file(ctx.label.name + "_report.html")
    args = ctx.actions.args()
    args.add("--report", report)
    _add_flow_args(ctx, args)
    ctx.actions.run(
        executable = ctx.executable._report_compiler,
        arguments = [args],
        inputs = ctx.attr.model[PyInfo].transitive_sources,
        outputs = [report],
        env = {"PYTHONPATH": "."},
        mnemonic = "ArmPteReport",
        progress_message = "Reporting on {} for {}".format(ctx.attr.factory, ctx.attr.target),
    )
    return report

def _arm_pte_impl(ctx):
    pte = ctx.actions.declare_file(ctx.label.name + ".pte")
    tosa = ctx.actions.declare_file(ctx.label.name + ".tosa")
    # compile.py names partition i > 0's graph <name>_i.tosa; the action fails if the count is wrong.
    tosa_partitions = [tosa] + [
        ctx.actions.declare_file("{}_{}.tosa".format(ctx.label.name, index))
        for index in range(1, ctx.attr.partitions)
    ]
    outputs = [pte] + tosa_partitions

    args = ctx.actions.args()
    # In a params file, so the same action can run alone (`compile @file`) or as a persistent worker's
    # request (Bazel hands the file's lines to the worker).
    args.use_param_file("@%s", use_always = True)
    args.set_param_file_format("multiline")
    args.add("--output", pte)
    args.add("--tosa-output", tosa)

    vela_summary = None
    if _is_ethos_u(ctx.attr.target):
        vela_summary = ctx.actions.declare_file(ctx.label.name + "_vela_summary.csv")
        outputs.append(vela_summary)
        args.add("--vela-summary-output", vela_summary)
    _add_flow_args(ctx, args)

    ctx.actions.run(
        executable = ctx.executable._compiler,
        arguments = [args],
        # The model's sources sit at their workspace paths in the execroot; the compiler imports the
        # factory from there.
        inputs = ctx.attr.model[PyInfo].transitive_sources,
        outputs = outputs,
        env = {"PYTHONPATH": "."},
        # A persistent worker (arm/compile_worker.py) imports torch once for many lowerings; its outputs
        # are byte-identical to a lone process's. `--strategy=ArmPte=sandboxed` runs each alone.
        execution_requirements = {
            "supports-workers": "1",
            "requires-worker-protocol": "json",
        },
        mnemonic = "ArmPte",
        progress_message = "Lowering {} for {}".format(ctx.attr.factory, ctx.attr.target),
    )

    report = _report_action(ctx)
    return [
        DefaultInfo(files = depset([pte]), runfiles = ctx.runfiles(files = outputs)),
        OutputGroupInfo(
            report = depset([report]),
            tosa = depset(tosa_partitions),
            vela_summary = depset([vela_summary] if vela_summary else []),
        ),
        ArmPteInfo(pte = pte, tosa = tosa, tosa_partitions = tosa_partitions, vela_summary = vela_summary, target = ctx.attr.target),
    ]

arm_pte = rule(
    implementation = _arm_pte_impl,
    doc = """Lowers a model to `<name>.pte` (plus `<name>.tosa` and, for Ethos-U, `<name>_vela_summary.csv`).

`--output_groups=+report` also writes `<name>_report.html`: a self-contained page with where each node
runs, Vela's cycles per operator and the per-layer error of the calibration inputs (arm/report/).

The lowering (export, quantization, partitioning, TOSA, Vela, serialization) runs as one sandboxed action,
so an unchanged model is never lowered twice and the result can come from a remote cache.
""",
    attrs = {
        "model": attr.label(
            mandatory = True,
            providers = [PyInfo],
            doc = "py_library holding the model's module and its factory function.",
        ),
        "factory": attr.string(
            mandatory = True,
            doc = "`package.module:function` returning an arm.model_spec.ModelSpec (module, example and " +
                  "calibration inputs).",
        ),
        "target": attr.string(
            mandatory = True,
            doc = "`tosa-INT`, `tosa-FP`, or a Vela accelerator config such as `ethos-u55-128`, `ethos-u85-256`.",
        ),
        "quantize": attr.bool(
            default = True,
            doc = "Quantize to int8 with the target's quantizer (required for Ethos-U).",
        ),
        "int8_io": attr.bool(
            default = False,
            doc = "The program takes and returns int8 where its inputs and outputs are quantized (the " +
                  "caller quantizes; scale and zero point are recorded in the .pte): see arm/int8_io.py.",
        ),
        "edge_route": attr.string(
            default = "in_place",
            values = ["in_place", "to_edge"],
            doc = "How the quantized program becomes an edge program: `in_place` (arm/edge_in_place.py: " +
                  "the .pte executorch's to_edge gives, without its re-trace; it takes to_edge itself, with " +
                  "the reason, where it cannot) or `to_edge` (executorch's re-trace only).",
        ),
        "partitions": attr.int(
            default = 1,
            doc = "How many delegated partitions the model lowers to: one `<name>.tosa`, then " +
                  "`<name>_<i>.tosa` for each further one, are declared outputs.",
        ),
        "calibration_samples": attr.int(
            default = 16,
            doc = "How many of the model's calibration inputs to observe.",
        ),
        "system_config": attr.string(doc = "Vela system config name (Ethos-U only); default by NPU family."),
        "memory_mode": attr.string(doc = "Vela memory mode name (Ethos-U only); default by NPU family."),
        "vela_flags": attr.string_list(doc = "Extra Vela flags (Ethos-U only), e.g. [\"--optimise=Size\"]."),
        "lookups": attr.string(
            doc = "Where table lookups the NPU can run go (Ethos-U only): \"cost\" (the default: by the op's " +
                  "cost estimate) or \"npu\" (on the NPU whatever it costs); arm.compile --lookups.",
            values = ["", "cost", "npu"],
        ),
        "_compiler": attr.label(
            default = "//arm:compile",
            executable = True,
            cfg = "exec",
        ),
        "_report_compiler": attr.label(
            default = "//arm/report:compile",
            executable = True,
            cfg = "exec",
        ),
    },
)
