"""A machine without the Vulkan pieces gets an error that says what to install."""

import pytest

from arm.vgf.vulkan import LAVAPIPE_ICD_VARIABLE, VulkanSetupError, locate_vulkan


def test_a_missing_lavapipe_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv(LAVAPIPE_ICD_VARIABLE, str(tmp_path / "missing.json"))
    with pytest.raises(VulkanSetupError, match=r"apt-get install mesa-vulkan-drivers libvulkan1"):
        locate_vulkan()


def test_a_manifest_without_its_driver_says_what_to_install(monkeypatch, tmp_path):
    manifest = tmp_path / "usr" / "share" / "vulkan" / "icd.d" / "lvp_icd.x86_64.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text('{"file_format_version": "1.0.0", "ICD": {"library_path": "/usr/lib/libvulkan_lvp.so"}}')
    monkeypatch.setenv(LAVAPIPE_ICD_VARIABLE, str(manifest))
    with pytest.raises(VulkanSetupError, match=r"libvulkan_lvp.so, which does not exist: install Debian's"):
        locate_vulkan()
