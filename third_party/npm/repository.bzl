"""npm_package: one package from the npm registry, pinned by version and sha512, unpacked as a repository.

The tarball comes through the `npm` client (`npm pack`, which asks whatever registry npm is configured
for) rather than a URL, so nothing here names a host; the sha512 of the tarball is checked before
anything is unpacked. It is the hex form of the `integrity` field npm prints
(`npm view <name>@<version> dist.integrity` gives base64: `echo <base64> | base64 -d | xxd -p -c 64`).
"""

def _npm_package_impl(rctx):
    npm = rctx.which("npm")
    if npm == None:
        fail("{}: `npm` is not installed; `apt-get install --no-install-recommends npm` provides it.".format(rctx.name))
    spec = "{}@{}".format(rctx.attr.package, rctx.attr.version)
    packed = rctx.execute(
        [npm, "pack", "--silent", spec],
        environment = {"npm_config_update_notifier": "false", "npm_config_fund": "false"},
        timeout = 600,
    )
    if packed.return_code != 0:
        fail("{}: `npm pack {}` failed:\n{}".format(rctx.name, spec, packed.stderr))
    tarball = packed.stdout.strip().splitlines()[-1]
    digest = rctx.execute(["sha512sum", tarball])
    actual = digest.stdout.split(" ")[0] if digest.return_code == 0 else "(sha512sum failed: {})".format(digest.stderr)
    if actual != rctx.attr.sha512:
        fail(("{name}: {spec} has sha512 {actual}, the pin in WORKSPACE says {expected}. If the version was " +
              "changed on purpose, update the pin from `npm view {spec} dist.integrity`.").format(
            name = rctx.name,
            spec = spec,
            actual = actual,
            expected = rctx.attr.sha512,
        ))
    rctx.extract(tarball, stripPrefix = "package")
    rctx.delete(tarball)
    rctx.file("VERSION", spec + "\n", executable = False)
    rctx.file("BUILD.bazel", """\
# {spec} from the npm registry (sha512-pinned in WORKSPACE).
package(default_visibility = ["//visibility:public"])

exports_files({files} + ["VERSION"])
""".format(spec = spec, files = repr(rctx.attr.exports)), executable = False)

npm_package = repository_rule(
    implementation = _npm_package_impl,
    doc = "An npm package's files, fetched with `npm pack` and checked against a pinned sha512.",
    attrs = {
        "package": attr.string(mandatory = True, doc = "npm package name, e.g. `chart.js`."),
        "version": attr.string(mandatory = True, doc = "Exact version, e.g. `4.5.1`."),
        "sha512": attr.string(mandatory = True, doc = "sha512 of the tarball, hex (npm's integrity, decoded)."),
        "exports": attr.string_list(
            mandatory = True,
            doc = "Files of the package (paths below its `package/` folder) other targets may use.",
        ),
    },
    environ = ["PATH"],
)
