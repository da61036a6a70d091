"""The flag sets (//toolchains/cc) every cross toolchain starts its list with, in command-line order."""

COMMON_FLAG_SETS = [
    "//toolchains/cc:c++17",
    "//toolchains/cc:no_exceptions_no_rtti",
    "//toolchains/cc:function_sections",
    "//toolchains/cc:gc_sections",
    "//toolchains/cc:no_timestamps",
    "//toolchains/cc:optimization_dbg",
    "//toolchains/cc:optimization_fastbuild",
    "//toolchains/cc:optimization_opt",
]
