"""arm_none_eabi_repository: Debian's arm-none-eabi GCC, binutils, newlib and libstdc++, unpacked.

The .debs are fetched at pinned versions and hashes (debian_packages.bzl) and unpacked under usr/ as
Debian lays them out. Only the multilibs the build's CPUs use are kept: libstdc++ alone unpacks to 1.5 GB
across ~40 multilibs, of which one CPU needs one.

Debian's driver looks for newlib in /usr at absolute paths, so the toolchain that uses this repository
(//toolchains/arm_gcc) passes every include, library and binutils directory explicitly.
"""

load(":debian_packages.bzl", "download_debian_packages", "extract_debian_packages")

_PINS = "third_party/arm_none_eabi/packages.bzl"

# Directories holding one subdirectory per multilib (e.g. thumb/v8-m.main+dp/hard).
_MULTILIB_ROOTS = [
    "usr/lib/arm-none-eabi/newlib",
    "usr/lib/gcc/arm-none-eabi/{gcc_version}",
    "usr/include/newlib/c++/{gcc_version}/arm-none-eabi",
]

def _prune(rctx, directory, relative, keep):
    """Deletes every multilib under `directory` that is neither in `keep` nor on the way to one."""

    # Multilib paths are at most a few levels deep (thumb/v8-m.main+dp/hard); Starlark has no recursion.
    level = [(directory, relative)]
    for _ in range(8):
        next_level = []
        for parent, parent_relative in level:
            for child in parent.readdir():
                path = parent_relative + child.basename
                if path in keep:
                    continue
                if [kept for kept in keep if kept.startswith(path + "/")]:
                    next_level.append((child, path + "/"))
                else:
                    rctx.delete(child)
        level = next_level

def _arm_none_eabi_repository_impl(rctx):
    debs = download_debian_packages(rctx, rctx.attr.packages, _PINS)
    extract_debian_packages(rctx, debs)
    rctx.delete("usr/share")

    rctx.report_progress("keeping multilibs " + ", ".join(rctx.attr.multilibs))
    for root in _MULTILIB_ROOTS:
        root = root.format(gcc_version = rctx.attr.gcc_version)
        if not rctx.path(root).exists:
            fail("{}: {} is missing: is gcc_version ({}) the pinned GCC's?".format(rctx.name, root, rctx.attr.gcc_version))
        for isa in ["arm", "thumb"]:
            if rctx.path(root + "/" + isa).exists:
                _prune(rctx, rctx.path(root + "/" + isa), isa + "/", rctx.attr.multilibs)
        for multilib in rctx.attr.multilibs:
            if not rctx.path(root + "/" + multilib).exists:
                fail("{}: the pinned packages have no multilib {} under {}".format(rctx.name, multilib, root))

    rctx.template("BUILD.bazel", rctx.attr.build_file, substitutions = {
        "{gcc_version}": rctx.attr.gcc_version,
        "{multilibs}": repr(rctx.attr.multilibs),
    }, executable = False)

arm_none_eabi_repository = repository_rule(
    implementation = _arm_none_eabi_repository_impl,
    doc = "Debian's arm-none-eabi GCC + newlib + libstdc++ from pinned .debs, reduced to the multilibs in use.",
    attrs = {
        "packages": attr.string_list_dict(
            mandatory = True,
            doc = "Debian package name -> [version, sha256 of its .deb] (see packages.bzl).",
        ),
        "multilibs": attr.string_list(
            mandatory = True,
            doc = "Multilib directories to keep, as `arm-none-eabi-gcc <cpu flags> " +
                  "-print-multi-directory` prints them (e.g. thumb/v8-m.main+dp/hard).",
        ),
        "gcc_version": attr.string(
            default = "12.2.1",
            doc = "GCC's version directory name inside the packages (usr/lib/gcc/arm-none-eabi/<version>).",
        ),
        "build_file": attr.label(
            default = ":BUILD.arm_none_eabi.bazel",
            allow_single_file = True,
            doc = "The repository's BUILD file; `{gcc_version}` and `{multilibs}` are substituted.",
        ),
    },
)
