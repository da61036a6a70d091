"""A repository rule that makes the build's Python environment from a lock file.

The environment is a venv of the host's CPython 3.11 with exactly the distributions of
requirements.lock (versions and sha256 pinned, installed with --require-hashes). It is registered as
Bazel's Python toolchain, so every py_binary and py_test runs in it and never in the python3 on PATH.

Cost model: the venv holds ~20k files (torch). Handing them to actions as runfiles costs seconds of
sandbox set-up per action, so the toolchain's interpreter is a small launcher that finds the venv beside
its own real path, and the lock file stands in for the venv's contents in action keys: a changed lock
re-creates the venv and re-runs every Python action; an unchanged one reuses both.

Remote execution: a remote worker receives the launcher and the lock but no venv (the venv is not an
input). There the launcher uses the execution image's venv at a fixed path, /opt/venv, made from the same
lock (tools/rbe: Dockerfile and make_image_tree.sh), and refuses to run if the image was made from another
lock. The launcher's bytes are the same everywhere, so action keys do not depend on where an action runs.
"""

_LAUNCHER = """#!/bin/sh
# The build's Python, made from requirements.lock. Locally: the venv that sits beside this script's real
# location (found at run time, so this file's bytes, and so every action key, do not depend on where the
# Bazel output base is). On a remote worker, where only this script and the lock arrive: the execution
# image's venv at /opt/venv, if the image was made from the same lock (tools/rbe/README.md).
here="$(dirname "$(readlink -f "$0")")"
if [ -x "$here/venv/bin/python3" ]; then
  venv="$here/venv"
elif [ -x /opt/venv/bin/python3 ]; then
  venv=/opt/venv
  if ! cmp -s "$here/requirements.lock" /opt/venv.lock; then
    echo "python3: the execution image's venv (/opt/venv) was not made from this build's requirements.lock" \\
      "(/opt/venv.lock differs); rebuild the image from it (tools/rbe/README.md)" >&2
    exit 2
  fi
else
  echo "python3: no venv beside $here and no execution image venv at /opt/venv: on a remote worker, run" \\
    "actions in the image tools/rbe/Dockerfile describes (tools/rbe/README.md)" >&2
  exit 2
fi
export PYTHONNOUSERSITE=1
# Only the venv is byte-compiled (at set-up); our own sources are cheap to compile and must not leave
# __pycache__ directories in runfiles trees.
export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python3" "$@"
"""

_BUILD = """\
load("@bazel_tools//tools/python:toolchain.bzl", "py_runtime_pair")

exports_files(["python3", "requirements.lock"])

py_runtime(
    name = "python3_runtime",
    interpreter = "python3",
    # The lock is the venv's identity: see venv.bzl.
    files = ["requirements.lock"],
    python_version = "PY3",
    # Actions have no `python` on PATH; the stub only needs some python3 to exec the launcher.
    stub_shebang = "#!/usr/bin/env python3",
    visibility = ["//visibility:public"],
)

py_runtime_pair(
    name = "runtime_pair",
    py3_runtime = ":python3_runtime",
)

toolchain(
    name = "toolchain",
    toolchain = ":runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
    visibility = ["//visibility:public"],
)

# Build inputs that the locked distributions carry, so C++ code is generated and compiled against the
# very versions the Python side uses.

# flatc 25.2.10 (tosa-tools), the version of the headers below; executorch's own flatc is older.
filegroup(
    name = "flatc",
    srcs = ["{site_packages}/bin/flatc"],
    visibility = ["//visibility:public"],
)

cc_library(
    name = "flatbuffers",
    hdrs = glob(["{site_packages}/include/flatbuffers/**/*.h"]),
    includes = ["{site_packages}/include"],
    visibility = ["//visibility:public"],
)

# ExecuTorch's program format (.pte).
filegroup(
    name = "executorch_program_schema",
    srcs = [
        "{site_packages}/executorch/exir/_serialize/program.fbs",
        "{site_packages}/executorch/exir/_serialize/scalar_type.fbs",
    ],
    visibility = ["//visibility:public"],
)
"""

def _run(rctx, what, arguments, timeout = 1800):
    rctx.report_progress(what)
    result = rctx.execute(arguments, timeout = timeout, quiet = True)
    if result.return_code != 0:
        fail("python_venv: {} failed (exit {}):\n{}\n{}".format(
            what,
            result.return_code,
            result.stdout[-4000:],
            result.stderr[-4000:],
        ))
    return result.stdout

def _find_interpreter(rctx):
    interpreter = rctx.which(rctx.attr.interpreter)
    if interpreter == None:
        fail(("python_venv: '{}' is not on PATH. The build needs CPython {}: install it " +
              "(Debian: apt-get install python3.11-venv) or set the interpreter attribute.").format(
            rctx.attr.interpreter,
            rctx.attr.python_version,
        ))
    version = _run(rctx, "checking " + str(interpreter), [
        interpreter,
        "-c",
        "import sys; print('%d.%d' % sys.version_info[:2])",
    ]).strip()
    if version != rctx.attr.python_version:
        fail("python_venv: {} is Python {}, the lock is for Python {}".format(
            interpreter,
            version,
            rctx.attr.python_version,
        ))
    return interpreter

def _python_venv_impl(rctx):
    interpreter = _find_interpreter(rctx)

    # A copy, not a symlink: its content is what action keys see.
    rctx.file("requirements.lock", rctx.read(rctx.attr.lock), executable = False)
    count = len([line for line in rctx.read(rctx.attr.lock).splitlines() if line and not line.startswith("#")])

    _run(rctx, "creating the Python {} venv".format(rctx.attr.python_version), [interpreter, "-m", "venv", "venv"])
    _run(rctx, "installing {} locked Python distributions".format(count), [
        "venv/bin/python3",
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-input",
        "--disable-pip-version-check",
        "--require-hashes",
        "--no-deps",
        "--requirement",
        "requirements.lock",
    ])

    # Once, with content hashes instead of mtimes, so no action ever re-compiles torch's sources.
    # Failures are ignored: some distributions ship sources for newer Pythons (torch's py312 tests).
    _run(rctx, "byte-compiling the venv", [
        "venv/bin/python3",
        "-c",
        "import compileall, py_compile; compileall.compile_dir('venv/lib', quiet=2, workers=0, " +
        "invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)",
    ])

    rctx.file("python3", _LAUNCHER, executable = True)
    site_packages = "venv/lib/python{}/site-packages".format(rctx.attr.python_version)
    rctx.file("BUILD.bazel", _BUILD.format(site_packages = site_packages), executable = False)

python_venv = repository_rule(
    implementation = _python_venv_impl,
    doc = "A venv of the host's CPython with the distributions of a hash-pinned lock file, as a Python toolchain.",
    attrs = {
        "lock": attr.label(
            mandatory = True,
            allow_single_file = True,
            doc = "requirements.lock: `name==version --hash=sha256:...` lines (see update_lock.py).",
        ),
        "interpreter": attr.string(
            default = "python3.11",
            doc = "Name of the CPython executable on PATH to base the venv on.",
        ),
        "python_version": attr.string(
            default = "3.11",
            doc = "The major.minor version the lock was resolved for; any other interpreter is refused.",
        ),
    },
    environ = ["PATH", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS"],
)
