"""VGF backend: TOSA graphs converted to VGF (Arm's ML SDK for Vulkan) and run on a Vulkan device."""
