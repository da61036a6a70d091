"""What a test that runs VGF files on lavapipe needs: the unpacked packages and where their manifest is."""

# arm/vgf/vulkan.py reads ARM_VGF_LAVAPIPE_ICD and finds the libraries beside the manifest.
VULKAN_TEST_DATA = ["@lavapipe//:icd", "@lavapipe//:lavapipe"]
VULKAN_TEST_ENV = {"ARM_VGF_LAVAPIPE_ICD": "$(rootpath @lavapipe//:icd)"}
