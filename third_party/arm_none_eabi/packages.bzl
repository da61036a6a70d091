"""Pinned Debian 12 (bookworm) packages of the arm-none-eabi toolchain: name -> [version, sha256 of the .deb].

GCC 12.2.1 with newlib 3.3.0 and its libstdc++. To move to another Debian version: `apt-get update`,
`apt-cache show <package>` for the new Version and SHA256 of every package below, edit both, build.
"""

ARM_NONE_EABI_PACKAGES = {
    "binutils-arm-none-eabi": ["2.40-2+18+b1", "c8f9da2a434366bfe5a66a8267cb3b1df028f1d95278715050c222b43e1c221c"],
    "gcc-arm-none-eabi": ["15:12.2.rel1-1", "2bbd4f4145e9a3669f58ddab6a3190b768949f07cc444d23e98743d905f83e16"],
    "libnewlib-arm-none-eabi": ["3.3.0-1.3+deb12u1", "c80278e8332940eaf9738910258bb85b21c30aacf246a5e363fee230d3605e84"],
    "libnewlib-dev": ["3.3.0-1.3+deb12u1", "ab5e6e80d66a6f2f8b9b22b9297154a676a5434ac82e48b88e8164548bc72115"],
    "libstdc++-arm-none-eabi-dev": ["15:12.2.rel1-1+23", "5f643e7507bd84150e820602cc086393c441e28f158b745370b2105333d9e2ec"],
    "libstdc++-arm-none-eabi-newlib": ["15:12.2.rel1-1+23", "9d5b31c174f71733b933e3b6b152f172ae2b0dbc2cabc5ea949212568ce4dbce"],
}
