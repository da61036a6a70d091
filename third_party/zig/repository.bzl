"""zig_repository: the zig compiler from PyPI's `ziglang` wheel, pinned by version and sha256.

zig drives clang with its own libc++, musl and compiler-rt sources, so one download cross-compiles
static Linux binaries for any architecture. The wheel is fetched with the host Python's
`pip download`, checked against the pinned sha256 and unpacked; nothing of it is installed.

Cost model: zig builds libc++ and musl for a target on first use (130-170 s) and keeps them in its
cache. The wrappers keep that cache in <output_base>/zig-cache, outside the sandbox and outside this
repository, so it survives between actions and re-fetches (a `bazel clean --expunge` drops it).
Only zig's binary, the wrappers and the wheel's RECORD (which lists the sha256 of every file of the
wheel) are declared as action inputs: declaring zig's ~12k library files costs 4-9 s of sandbox set-up
per action. zig finds its library beside its binary's real path and Bazel allows its headers through
their absolute directory (`:builtin_include_directories`).
"""

_PINS = "the zig_repository call in WORKSPACE"

# The launcher zig's tools run through. It finds zig next to its own real path (no absolute path in
# its bytes, so action keys do not depend on where the output base is). On a remote worker only the
# declared inputs arrive (zig's binary, not its ~12k library files): there zig's library and a writable
# cache come from the execution image at fixed paths (tools/rbe/README.md), the same pinned wheel.
_WRAPPER = """#!/bin/sh
# zig {command}, with zig's cache in <output_base>/zig-cache (see third_party/zig/repository.bzl).
repository="$(dirname "$(dirname "$(readlink -f "$0")")")"
if [ -d "$repository/ziglang/lib" ]; then
  export ZIG_GLOBAL_CACHE_DIR="${{repository%/external/*}}/zig-cache"
elif [ -d {image_lib} ]; then
  export ZIG_LIB_DIR={image_lib}
  export ZIG_GLOBAL_CACHE_DIR={image_cache}
else
  echo "zig-{command}: zig's library is neither beside $repository/ziglang/zig nor in the execution image" \\
    "({image_lib}); on a remote worker, run actions in the image of tools/rbe/Dockerfile" >&2
  exit 2
fi
export ZIG_LOCAL_CACHE_DIR="$ZIG_GLOBAL_CACHE_DIR"
exec "$repository/ziglang/zig" {command} "$@"
"""

# Where the execution image (tools/rbe) keeps zig's library and a cache its actions may write.
_IMAGE_LIB_DIRECTORY = "/opt/zig/lib"
_IMAGE_CACHE_DIRECTORY = "/var/cache/zig"

# zig subcommand -> wrapper name.
_WRAPPERS = {
    "ar": "zig-ar",
    "c++": "zig-c++",
    "cc": "zig-cc",
}

def _fail_on(result, rctx, what):
    if result.return_code != 0:
        fail("{}: {} failed (exit {}):\n{}\n{}".format(
            rctx.name,
            what,
            result.return_code,
            result.stdout[-3000:],
            result.stderr[-3000:],
        ))

def _download_wheel(rctx):
    interpreter = rctx.which(rctx.attr.interpreter)
    if interpreter == None:
        fail("{}: '{}' is not on PATH; it downloads the ziglang wheel with pip.".format(rctx.name, rctx.attr.interpreter))
    requirement = "ziglang==" + rctx.attr.version
    rctx.report_progress("downloading " + requirement)
    result = rctx.execute([
        interpreter,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-input",
        "--disable-pip-version-check",
        "--no-deps",
        "--only-binary=:all:",
        "--platform=" + rctx.attr.wheel_platform,
        "--dest=wheel",
        requirement,
    ], timeout = 1800, quiet = True)
    _fail_on(result, rctx, "`pip download {}`".format(requirement))
    wheels = [path for path in rctx.path("wheel").readdir() if path.basename.endswith(".whl")]
    if len(wheels) != 1:
        fail("{}: expected one wheel from pip, got {}".format(rctx.name, wheels))
    wheel = wheels[0]
    digest = rctx.execute(["sha256sum", str(wheel)]).stdout.split(" ")[0]
    if digest != rctx.attr.sha256:
        fail(("{name}: sha256 mismatch for {wheel}:\n  pinned     {expected}\n  downloaded {digest}\n" +
              "If ziglang {version} was re-uploaded or you changed the version, check the file and update " +
              "sha256 in {pins}.").format(
            name = rctx.name,
            wheel = wheel.basename,
            expected = rctx.attr.sha256,
            digest = digest,
            version = rctx.attr.version,
            pins = _PINS,
        ))
    return wheel

def _zig_repository_impl(rctx):
    wheel = _download_wheel(rctx)

    # rctx.extract knows archives by their extension; a wheel is a zip.
    rctx.report_progress("unpacking " + wheel.basename)
    rctx.symlink(wheel, "ziglang.zip")
    rctx.extract("ziglang.zip")
    rctx.delete("ziglang.zip")
    rctx.delete("wheel")

    version = rctx.execute(["ziglang/zig", "version"])
    _fail_on(version, rctx, "`zig version`")
    if version.stdout.strip() != rctx.attr.version:
        fail("{}: the wheel's zig says it is {}, the pin is {}".format(rctx.name, version.stdout.strip(), rctx.attr.version))

    for command, name in _WRAPPERS.items():
        rctx.file("bin/" + name, _WRAPPER.format(
            command = command,
            image_lib = _IMAGE_LIB_DIRECTORY,
            image_cache = _IMAGE_CACHE_DIRECTORY,
        ), executable = True)

    rctx.template("BUILD.bazel", rctx.attr.build_file, substitutions = {
        "{version}": rctx.attr.version,
        "{lib_directory}": str(rctx.path("ziglang/lib")),
        "{image_lib_directory}": _IMAGE_LIB_DIRECTORY,
    }, executable = False)

zig_repository = repository_rule(
    implementation = _zig_repository_impl,
    doc = "zig from PyPI's ziglang wheel (pinned version and sha256), with cc/c++/ar wrappers for Bazel.",
    attrs = {
        "version": attr.string(mandatory = True, doc = "ziglang version on PyPI, e.g. 0.17.1."),
        "sha256": attr.string(mandatory = True, doc = "sha256 of the wheel for `wheel_platform`."),
        "wheel_platform": attr.string(
            default = "manylinux_2_12_x86_64",
            doc = "pip platform tag of the wheel: the execution platform's (zig runs where actions run).",
        ),
        "interpreter": attr.string(
            default = "python3.11",
            doc = "Python executable on PATH whose pip downloads the wheel.",
        ),
        "build_file": attr.label(
            default = ":BUILD.zig.bazel",
            allow_single_file = True,
            doc = "The repository's BUILD file; `{version}`, `{lib_directory}` and `{image_lib_directory}` are substituted.",
        ),
    },
    environ = ["PATH", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS"],
)
