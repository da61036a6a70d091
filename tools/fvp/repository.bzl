"""arm_fvp_corstone300: Arm's Corstone-300 FVP, found on this machine through $ARM_FVP_CORSTONE300.

FVPs are licensed downloads (Arm's "Arm Ecosystem FVPs" page) that Bazel cannot fetch. When the variable
names the executable, `@<name>//:fvp` runs it and `VERSION` holds what it reports; otherwise `fvp` is a
script that fails with instructions for getting one, so FVP tests fail loudly instead of passing.
"""

_VARIABLE = "ARM_FVP_CORSTONE300"
_EXECUTABLE = "FVP_Corstone_SSE-300_Ethos-U55"
_DOWNLOAD = "Corstone-300 Ecosystem FVP"

_MISSING = """#!/usr/bin/env bash
cat >&2 <<'MESSAGE'
{name}: no Corstone-300 FVP ({executable}) on this machine, so this test cannot run.
Get one: download "{download}" from Arm's "Arm Ecosystem FVPs" page
(https://developer.arm.com/downloads/-/arm-ecosystem-fvps), install it, then point Bazel at its executable:
  export {variable}=/path/to/{executable}
and run the test again (Bazel re-reads the variable). {reason}
MESSAGE
exit 1
"""

def _arm_fvp_corstone300_impl(rctx):
    variable = _VARIABLE
    path = rctx.os.environ.get(variable, "")
    reason = ""
    if not path:
        reason = "{} is not set.".format(variable)
    elif not rctx.path(path).exists:
        reason = "{}={} does not exist.".format(variable, path)
    if reason:
        rctx.file("fvp", _MISSING.format(
            name = rctx.name,
            download = _DOWNLOAD,
            variable = variable,
            executable = _EXECUTABLE,
            reason = reason,
        ), executable = True)
        rctx.file("VERSION", "absent: {}\n".format(reason), executable = False)
    else:
        rctx.symlink(path, "fvp")
        result = rctx.execute([path, "--version"], timeout = 60)
        rctx.file("VERSION", "{}\n{}".format(path, result.stdout), executable = False)
    rctx.file("BUILD.bazel", """\
# The Corstone-300 FVP named by ${variable} (see VERSION), or a stand-in that says how to get one.
package(default_visibility = ["//visibility:public"])

exports_files(["fvp", "VERSION"])
""".format(variable = variable), executable = False)

arm_fvp_corstone300 = repository_rule(
    implementation = _arm_fvp_corstone300_impl,
    doc = "Links the FVP executable named by $ARM_FVP_CORSTONE300, or a stand-in that explains its absence.",
    environ = [_VARIABLE],
    local = True,
)
