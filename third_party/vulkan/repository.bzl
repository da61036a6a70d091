"""lavapipe_repository: Mesa's CPU Vulkan driver (lavapipe), the Vulkan loader and their libraries, unpacked.

The .debs are fetched at pinned versions and hashes (packages.bzl) and unpacked as Debian lays them out
(usr/lib/x86_64-linux-gnu, lib/x86_64-linux-gnu, usr/share/vulkan/icd.d). Nothing is installed on the
machine: the VGF runner (arm/vgf/vulkan.py) points the loader at this tree's ICD manifest and puts its
library directories on its worker's LD_LIBRARY_PATH. Only lavapipe is kept of Mesa's Vulkan drivers.
"""

load("//third_party/arm_none_eabi:debian_packages.bzl", "download_debian_packages", "extract_debian_packages")

_PINS = "third_party/vulkan/packages.bzl"
_LIBRARY_DIR = "usr/lib/x86_64-linux-gnu"
_ICD_DIR = "usr/share/vulkan/icd.d"
# The hardware drivers (and their manifests) in mesa-vulkan-drivers: a CPU-only build never loads them.
_HARDWARE_DRIVERS = ["intel", "intel_hasvk", "radeon"]

def _lavapipe_repository_impl(rctx):
    debs = download_debian_packages(rctx, rctx.attr.packages, _PINS)
    extract_debian_packages(rctx, debs)
    for driver in _HARDWARE_DRIVERS:
        rctx.delete("{}/libvulkan_{}.so".format(_LIBRARY_DIR, driver))
        rctx.delete("{}/{}_icd.x86_64.json".format(_ICD_DIR, driver))
    for directory in ["etc", "usr/share/doc", "usr/share/lintian", "usr/share/man", "usr/share/locale", "usr/bin"]:
        rctx.delete(directory)
    if not rctx.path(_ICD_DIR + "/lvp_icd.x86_64.json").exists:
        fail("{}: the pinned mesa-vulkan-drivers has no lavapipe manifest ({}/lvp_icd.x86_64.json)".format(
            rctx.name,
            _ICD_DIR,
        ))
    rctx.template("BUILD.bazel", rctx.attr.build_file, executable = False)

lavapipe_repository = repository_rule(
    implementation = _lavapipe_repository_impl,
    doc = "Debian's lavapipe (mesa-vulkan-drivers), libvulkan1 and their shared libraries from pinned .debs.",
    attrs = {
        "packages": attr.string_list_dict(
            mandatory = True,
            doc = "Debian package name -> [version, sha256 of its .deb] (see packages.bzl).",
        ),
        "build_file": attr.label(
            default = ":BUILD.lavapipe.bazel",
            allow_single_file = True,
            doc = "The repository's BUILD file.",
        ),
    },
)
