"""Where the Vulkan pieces a VGF runs on are, and the process environment that puts them together.

A VGF needs a Vulkan driver plus Arm's ML extensions. Without an Arm GPU that is Mesa's lavapipe (a CPU
Vulkan driver, Debian's ``mesa-vulkan-drivers`` with the loader ``libvulkan1``) under Arm's emulation
layers (PyPI ``ai-ml-emulation-layer-for-vulkan``), which add ``VK_ARM_tensors`` and ``VK_ARM_data_graph``.

Bazel tests get lavapipe from the pinned .debs of ``@lavapipe`` (third_party/vulkan) and name its ICD
manifest in ``ARM_VGF_LAVAPIPE_ICD``; elsewhere the Debian packages installed on the machine are used.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import pathlib

LAVAPIPE_ICD_VARIABLE = "ARM_VGF_LAVAPIPE_ICD"
_SYSTEM_LAVAPIPE_ICD = pathlib.Path("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
_EMULATION_PACKAGE = "emulation_layer"
# Debian's loader (1.3.239) orders layers by where it finds their manifests, not by VK_INSTANCE_LAYERS:
# the graph layer must come first (it sits on the tensor layer), so each manifest gets a directory of
# its own and the graph directory leads VK_LAYER_PATH.
_LAYERS = (("VK_LAYER_ML_Graph_Emulation", "Graph"), ("VK_LAYER_ML_Tensor_Emulation", "Tensor"))


class VulkanSetupError(RuntimeError):
    """A Vulkan piece a VGF needs is missing; the message says what to install."""


@dataclasses.dataclass(frozen=True)
class VulkanEnvironment:
    """lavapipe (driver and loader) and Arm's emulation layers, found on this machine."""

    lavapipe_icd: pathlib.Path  # lavapipe's ICD manifest as Debian ships it
    lavapipe_root: pathlib.Path  # where Debian's /usr tree of the packages is ("/" when installed)
    layer_libraries: tuple[pathlib.Path, ...]  # libVkLayer_Graph.so, libVkLayer_Tensor.so, in _LAYERS order

    def process_environment(self, scratch: pathlib.Path) -> dict[str, str]:
        """Writes the manifests into ``scratch`` and returns the variables a Vulkan process needs."""
        icd = scratch / "icd" / "lavapipe.json"
        icd.parent.mkdir(parents=True)
        driver = self.driver
        manifest = json.loads(self.lavapipe_icd.read_text())
        manifest["ICD"]["library_path"] = str(driver)
        icd.write_text(json.dumps(manifest))
        layer_dirs = []
        for (name, kind), library in zip(_LAYERS, self.layer_libraries, strict=True):
            directory = scratch / "layers" / kind.lower()
            directory.mkdir(parents=True)
            manifest = json.loads((_emulation_manifests() / f"VkLayer_{kind}.json").read_text())
            manifest["layer"]["library_path"] = str(library)
            (directory / f"VkLayer_{kind}.json").write_text(json.dumps(manifest))
            layer_dirs.append(str(directory))
        # Debian ships some libraries (libexpat1) under /lib rather than /usr/lib.
        library_dirs = [driver.parent, self.lavapipe_root / "lib" / driver.parent.name]
        return {
            "VK_ICD_FILENAMES": str(icd),
            "VK_LAYER_PATH": os.pathsep.join(layer_dirs),
            "VK_INSTANCE_LAYERS": ":".join(name for name, _ in _LAYERS),
            # The loader (libvulkan.so.1) and, for unpacked .debs, lavapipe's own shared libraries.
            "LD_LIBRARY_PATH": os.pathsep.join(
                [str(d) for d in library_dirs if d.is_dir()] + list(filter(None, [os.environ.get("LD_LIBRARY_PATH")]))
            ),
        }

    @property
    def driver(self) -> pathlib.Path:
        """lavapipe's shared library: the manifest's absolute Debian path, under the packages' root."""
        debian_path = json.loads(self.lavapipe_icd.read_text())["ICD"]["library_path"]
        return self.lavapipe_root / debian_path.lstrip("/")


def locate_vulkan() -> VulkanEnvironment:
    icd, root = _lavapipe_icd()
    layers = tuple(_emulation_libraries() / f"libVkLayer_{kind}.so" for _, kind in _LAYERS)
    missing_layers = [str(library) for library in layers if not library.is_file()]
    if missing_layers:
        raise VulkanSetupError(f"missing emulation layer libraries {missing_layers}: {_EMULATION_HINT}")
    environment = VulkanEnvironment(icd, root, layers)
    driver = environment.driver
    if not driver.is_file():
        raise VulkanSetupError(f"lavapipe's manifest {icd} names {driver}, which does not exist: {_LAVAPIPE_HINT}")
    if not (driver.parent / "libvulkan.so.1").exists():
        raise VulkanSetupError(f"the Vulkan loader libvulkan.so.1 is not beside {driver}: {_LAVAPIPE_HINT}")
    return environment


_LAVAPIPE_HINT = (
    "install Debian's lavapipe and Vulkan loader (`apt-get install mesa-vulkan-drivers libvulkan1`), "
    f"or run under Bazel, whose VGF tests get them from @lavapipe and set {LAVAPIPE_ICD_VARIABLE}"
)
_EMULATION_HINT = "install Arm's emulation layer: `pip install ai-ml-emulation-layer-for-vulkan==0.11.0`"


def _lavapipe_icd() -> tuple[pathlib.Path, pathlib.Path]:
    """lavapipe's ICD manifest and the root its Debian paths are relative to."""
    named = os.environ.get(LAVAPIPE_ICD_VARIABLE)
    if named:
        icd = pathlib.Path(named).absolute()
        if not icd.is_file():
            raise VulkanSetupError(f"{LAVAPIPE_ICD_VARIABLE}={named} is not a file: {_LAVAPIPE_HINT}")
        # The manifest sits at <root>/usr/share/vulkan/icd.d/<name>.json in the unpacked packages.
        return icd, icd.parents[4]
    if not _SYSTEM_LAVAPIPE_ICD.is_file():
        raise VulkanSetupError(f"no lavapipe Vulkan driver ({_SYSTEM_LAVAPIPE_ICD} is missing): {_LAVAPIPE_HINT}")
    return _SYSTEM_LAVAPIPE_ICD, pathlib.Path("/")


def _emulation_deploy() -> pathlib.Path:
    spec = importlib.util.find_spec(_EMULATION_PACKAGE)
    if spec is None or spec.origin is None:
        raise VulkanSetupError(f"Arm's ML emulation layers are not installed: {_EMULATION_HINT}")
    return pathlib.Path(spec.origin).parent / "deploy"


def _emulation_libraries() -> pathlib.Path:
    return _emulation_deploy() / "lib"


def _emulation_manifests() -> pathlib.Path:
    return _emulation_deploy() / "share" / "vulkan" / "explicit_layer.d"
