"""flatbuffer_cc_library: C++ readers generated from .fbs schemas with flatc at build time."""

def _flatc_cc_headers_impl(ctx):
    headers = [
        ctx.actions.declare_file(src.basename[:-len(".fbs")] + "_generated.h")
        for src in ctx.files.srcs
    ]
    args = ctx.actions.args()
    args.add("--cpp")
    args.add_all(ctx.attr.flags)
    args.add("-o", headers[0].dirname)
    args.add_all(ctx.files.srcs)
    ctx.actions.run(
        executable = ctx.file.flatc,
        arguments = [args],
        inputs = ctx.files.srcs,
        outputs = headers,
        mnemonic = "Flatc",
        progress_message = "Generating C++ readers for {}".format(ctx.label),
    )
    return [DefaultInfo(files = depset(headers))]

_flatc_cc_headers = rule(
    implementation = _flatc_cc_headers_impl,
    doc = "Runs flatc --cpp over `srcs`; outputs `<stem>_generated.h` per schema, beside each other " +
          "so the generated includes between schemas resolve.",
    attrs = {
        "srcs": attr.label_list(
            allow_files = [".fbs"],
            mandatory = True,
            doc = "The schemas, including every schema they `include`.",
        ),
        "flatc": attr.label(
            allow_single_file = True,
            cfg = "exec",
            mandatory = True,
            doc = "The flatc binary; its version must match the flatbuffers headers in `deps`.",
        ),
        "flags": attr.string_list(doc = "Extra flatc code-generation flags."),
    },
)

def flatbuffer_cc_library(name, srcs, flatc, flatbuffers, flags = [], **kwargs):
    """A cc_library of the flatc-generated readers of `srcs`.

    Args:
      name: the cc_library; the generated headers are `<package>/<stem>_generated.h`.
      srcs: the .fbs schemas.
      flatc: the flatc binary.
      flatbuffers: the cc_library of the flatbuffers headers of flatc's version.
      flags: extra flatc flags.
      **kwargs: passed to cc_library (visibility, ...).
    """
    _flatc_cc_headers(
        name = name + "_headers",
        srcs = srcs,
        flatc = flatc,
        flags = flags,
    )
    native.cc_library(
        name = name,
        hdrs = [":" + name + "_headers"],
        deps = [flatbuffers],
        **kwargs
    )
