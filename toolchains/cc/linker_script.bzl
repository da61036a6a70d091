"""cc_linker_script: a linker script as a cc dependency (Bazel 4's cc_library cannot take one as input)."""

def _cc_linker_script_impl(ctx):
    script = ctx.file.script
    linker_input = cc_common.create_linker_input(
        owner = ctx.label,
        user_link_flags = depset(["-T" + script.path]),
        additional_inputs = depset([script]),
    )
    return [CcInfo(linking_context = cc_common.create_linking_context(linker_inputs = depset([linker_input])))]

cc_linker_script = rule(
    implementation = _cc_linker_script_impl,
    doc = "Links every binary that depends on it with `-T <script>`, the script being an input of the link.",
    attrs = {
        "script": attr.label(
            mandatory = True,
            allow_single_file = [".ld"],
            doc = "The GNU ld linker script.",
        ),
    },
    provides = [CcInfo],
)
