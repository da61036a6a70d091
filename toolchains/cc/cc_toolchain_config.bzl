"""cc_toolchain_config: a C/C++ toolchain configuration built from tools and a list of cc_flag_sets.

Every flag comes from a named cc_flag_set (a feature of the same name, in list order), so a toolchain
reads as the list of what it passes, and a CPU's or a library's flags are swapped by select() on
platform constraints. Bazel's own features (dependency files, defines, include paths, user copts,
libraries to link, ...) are kept and wrap these.
"""

load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "action_config",
    "feature",
    "flag_group",
    "flag_set",
    "tool",
    "variable_with_value",
    "with_feature_set",
)
load(":actions.bzl", "ACTION_GROUPS")
load(":cc_flag_set.bzl", "COMPILATION_MODES", "CcFlagSetInfo")

def _flag_set_feature(info):
    return feature(
        name = info.name,
        enabled = True,
        flag_sets = [flag_set(
            actions = info.actions,
            flag_groups = [flag_group(flags = info.flags)] if info.flags else [],
            with_features = [with_feature_set(features = [mode]) for mode in info.compilation_modes],
        )],
    )

# Bazel's legacy features cover compiling and linking but not archiving once action configs are given:
# `ar rcsD <output> <objects>` (D: no timestamps or owners in the archive, for reproducible bytes).
_ARCHIVER_FLAGS = feature(
    name = "archiver_flags",
    enabled = True,
    flag_sets = [flag_set(
        actions = ACTION_GROUPS["archive"],
        flag_groups = [
            flag_group(flags = ["rcsD", "%{output_execpath}"], expand_if_available = "output_execpath"),
            flag_group(
                iterate_over = "libraries_to_link",
                expand_if_available = "libraries_to_link",
                flag_groups = [
                    flag_group(
                        flags = ["%{libraries_to_link.name}"],
                        expand_if_equal = variable_with_value(name = "libraries_to_link.type", value = "object_file"),
                    ),
                    flag_group(
                        flags = ["%{libraries_to_link.object_files}"],
                        iterate_over = "libraries_to_link.object_files",
                        expand_if_equal = variable_with_value(
                            name = "libraries_to_link.type",
                            value = "object_file_group",
                        ),
                    ),
                ],
            ),
        ],
    )],
)

def _action_configs(ctx):
    requirements = ctx.attr.tool_execution_requirements
    tools_by_group = [
        (ACTION_GROUPS["c_compile"], ctx.file.c_compiler),
        (ACTION_GROUPS["assemble"], ctx.file.c_compiler),
        (ACTION_GROUPS["cxx_compile"], ctx.file.cxx_compiler),
        (ACTION_GROUPS["link"], ctx.file.linker),
        (ACTION_GROUPS["archive"], ctx.file.archiver),
    ]
    if ctx.file.strip:
        tools_by_group.append((ACTION_GROUPS["strip"], ctx.file.strip))
    configs = []
    for actions, file in tools_by_group:
        for action in actions:
            configs.append(action_config(
                action_name = action,
                enabled = True,
                tools = [tool(tool = file, execution_requirements = requirements)],
            ))
    return configs

def _cc_toolchain_config_impl(ctx):
    flag_sets = [target[CcFlagSetInfo] for target in ctx.attr.flag_sets]
    seen = {}
    for info in flag_sets:
        if info.name in seen:
            fail("{}: two flag sets are named '{}'; feature names must be unique".format(ctx.label, info.name))
        seen[info.name] = True

    builtin_include_directories = []
    for info in flag_sets:
        builtin_include_directories += info.builtin_include_directories

    # Declared so Bazel enables the one matching --compilation_mode; flag sets select on them.
    mode_features = [feature(name = mode) for mode in COMPILATION_MODES]

    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        toolchain_identifier = str(ctx.label),
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = ctx.attr.target_system_name,
        target_cpu = ctx.attr.target_cpu,
        target_libc = ctx.attr.target_libc,
        compiler = ctx.attr.compiler,
        abi_version = ctx.attr.target_libc,
        abi_libc_version = ctx.attr.target_libc,
        action_configs = _action_configs(ctx),
        features = mode_features + [_ARCHIVER_FLAGS] + [_flag_set_feature(info) for info in flag_sets],
        cxx_builtin_include_directories = builtin_include_directories,
    )

cc_toolchain_config = rule(
    implementation = _cc_toolchain_config_impl,
    doc = "A C/C++ toolchain configuration: tools plus an ordered list of cc_flag_set targets.",
    provides = [CcToolchainConfigInfo],
    attrs = {
        "c_compiler": attr.label(
            mandatory = True,
            allow_single_file = True,
            doc = "Driver for C compilation and assembly.",
        ),
        "cxx_compiler": attr.label(
            mandatory = True,
            allow_single_file = True,
            doc = "Driver for C++ compilation.",
        ),
        "linker": attr.label(
            mandatory = True,
            allow_single_file = True,
            doc = "Driver that links executables.",
        ),
        "archiver": attr.label(
            mandatory = True,
            allow_single_file = True,
            doc = "ar-compatible archiver for static libraries.",
        ),
        "strip": attr.label(
            allow_single_file = True,
            doc = "strip, for `<binary>.stripped` outputs; optional.",
        ),
        "flag_sets": attr.label_list(
            providers = [CcFlagSetInfo],
            doc = "cc_flag_set targets in command-line order; each becomes an enabled feature.",
        ),
        "tool_execution_requirements": attr.string_list(
            doc = "Execution requirements of every action run with these tools (e.g. no-sandbox).",
        ),
        "target_system_name": attr.string(mandatory = True, doc = "GNU triple of the target, e.g. arm-none-eabi."),
        "target_cpu": attr.string(mandatory = True, doc = "Bazel's name for the target CPU (shows in output paths)."),
        "target_libc": attr.string(mandatory = True, doc = "The C library the toolchain links (newlib, musl)."),
        "compiler": attr.string(mandatory = True, doc = "Compiler family, e.g. gcc or clang."),
    },
)
