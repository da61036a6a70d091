"""Named groups of Bazel's C/C++ action names, so a flag set says where its flags go in one word."""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")

_C_COMPILE = [ACTION_NAMES.c_compile]

_CXX_COMPILE = [
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.cpp_module_codegen,
    ACTION_NAMES.linkstamp_compile,
]

_ASSEMBLE = [ACTION_NAMES.assemble, ACTION_NAMES.preprocess_assemble]

_LINK = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

ACTION_GROUPS = {
    # Everything the compiler driver runs on a source file: C, C++ and assembly.
    "compile": _C_COMPILE + _CXX_COMPILE + _ASSEMBLE,
    "c_compile": _C_COMPILE,
    "cxx_compile": _CXX_COMPILE,
    "assemble": _ASSEMBLE,
    "link": _LINK,
    "archive": [ACTION_NAMES.cpp_link_static_library],
    "strip": [ACTION_NAMES.strip],
}

def actions_of(groups, where):
    """The action names of `groups`; fails naming `where` and the known groups on an unknown one."""
    actions = []
    for group in groups:
        if group not in ACTION_GROUPS:
            fail("{}: unknown action group '{}'; known: {}".format(where, group, ", ".join(ACTION_GROUPS)))
        actions += [action for action in ACTION_GROUPS[group] if action not in actions]
    return actions
