"""installed_qemu: the QEMU emulators Debian installed on this machine, as build inputs.

Debian's qemu-system-arm needs ten shared libraries a stock Debian 12 machine lacks (libfdt, libslirp,
libcapstone, ...), so unpacking its .deb into a repository, as //third_party/arm_none_eabi does for GCC,
would not run. ./bazelw installs qemu-system-arm and qemu-user-static with apt-get beside Bazel instead,
and this rule links the installed binaries into a repository. Each package's installed version is
written into the repository and made an input of every emulated test, so a QEMU upgrade re-runs them.
"""

def _installed_version(rctx, package):
    result = rctx.execute(["dpkg-query", "--show", "--showformat=${Version}", package])
    return result.stdout.strip() if result.return_code == 0 else None

def _installed_qemu_impl(rctx):
    versions = []
    for binary, package in rctx.attr.binaries.items():
        path = rctx.which(binary)
        version = _installed_version(rctx, package)
        if path == None or version == None:
            fail(("{name}: {binary} (Debian package {package}) is not installed. ./bazelw installs it " +
                  "together with Bazel; or run `apt-get install --no-install-recommends {package}`.").format(
                name = rctx.name,
                binary = binary,
                package = package,
            ))
        rctx.symlink(path, binary)
        versions.append("{} {}\n".format(package, version))
    rctx.file("VERSIONS", "".join(sorted(versions)), executable = False)
    rctx.file("BUILD.bazel", """\
# QEMU binaries installed on this machine by ./bazelw (Debian packages; versions in VERSIONS).
package(default_visibility = ["//visibility:public"])

exports_files(["VERSIONS"] + {binaries})
""".format(binaries = repr(sorted(rctx.attr.binaries.keys()))), executable = False)

installed_qemu = repository_rule(
    implementation = _installed_qemu_impl,
    doc = "Links QEMU binaries installed from Debian packages into a repository, with their versions.",
    attrs = {
        "binaries": attr.string_dict(
            mandatory = True,
            doc = "Executable name on PATH -> the Debian package that installs it.",
        ),
    },
    environ = ["PATH"],
    local = True,
)
