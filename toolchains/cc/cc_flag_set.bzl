"""cc_flag_set: one named, reusable piece of a C/C++ toolchain's command lines."""

load(":actions.bzl", "ACTION_GROUPS", "actions_of")

# Bazel enables the toolchain feature named after --compilation_mode; flag sets can be limited to some.
COMPILATION_MODES = ["dbg", "fastbuild", "opt"]

CcFlagSetInfo = provider(
    doc = "Flags a toolchain adds to some of its actions, and the include directories they make built-in.",
    fields = {
        "name": "The flag set's name; it becomes the toolchain feature's name.",
        "actions": "Bazel action names the flags apply to.",
        "flags": "Flags, in order.",
        "compilation_modes": "Compilation modes (dbg, fastbuild, opt) the flags are limited to; empty: all.",
        "builtin_include_directories": "Directories whose headers the compiler may use undeclared.",
    },
)

def _cc_flag_set_impl(ctx):
    for mode in ctx.attr.compilation_modes:
        if mode not in COMPILATION_MODES:
            fail("{}: unknown compilation mode '{}'; known: {}".format(ctx.label, mode, ", ".join(COMPILATION_MODES)))
    system_includes = []
    for directory in ctx.attr.system_include_directories:
        system_includes += ["-isystem", directory]
    return [CcFlagSetInfo(
        name = ctx.label.name,
        actions = actions_of(ctx.attr.actions, str(ctx.label)),
        flags = system_includes + ctx.attr.flags,
        compilation_modes = ctx.attr.compilation_modes,
        builtin_include_directories = ctx.attr.builtin_include_directories,
    )]

cc_flag_set = rule(
    implementation = _cc_flag_set_impl,
    doc = "Flags for some C/C++ actions, named so a toolchain is composed from a list of them.",
    attrs = {
        "actions": attr.string_list(
            mandatory = True,
            doc = "Action groups the flags apply to: " + ", ".join(ACTION_GROUPS) + ".",
        ),
        "flags": attr.string_list(
            doc = "Flags, in order; they come after system_include_directories' -isystem flags.",
        ),
        "system_include_directories": attr.string_list(
            doc = "Directories passed as -isystem, in order, before `flags`; relative to the execution " +
                  "root. Their headers must be files of the toolchain (cc_toolchain's compiler_files).",
        ),
        "builtin_include_directories": attr.string_list(
            doc = "Absolute directories the compiler searches by itself and reports absolute paths from " +
                  "(zig's libc++ and musl): Bazel's header check lets their headers through undeclared.",
        ),
        "compilation_modes": attr.string_list(
            doc = "Apply only in these compilation modes (dbg, fastbuild, opt); empty means always.",
        ),
    },
)
