"""Pinned Debian 12 (bookworm) packages of lavapipe: name -> [version, sha256 of the .deb].

Mesa's CPU Vulkan driver (mesa-vulkan-drivers), the Vulkan loader (libvulkan1), and every shared
library lavapipe loads that a stock Debian 12 lacks (LLVM 15 and what it needs, libdrm, the X11/XCB
and Wayland client libraries it links although it never opens a display). Left out: the base system's
libc6, libgcc-s1, libstdc++6, zlib1g, libzstd1, liblzma5, libtinfo6 and libmd0.

To move to another Debian version: `apt-get update`, then `apt-cache show <package>` for the new Version
and SHA256 of every package below; edit both, build.
"""

LAVAPIPE_PACKAGES = {
    "libbsd0": ["0.11.7-2", "bb31cc8b40f962a85b2cec970f7f79cc704a1ae4bad24257a822055404b2c60b"],
    "libdrm-amdgpu1": ["2.4.114-1+b1", "b75a71e96f1faac0f131ac657e09efcbe8968eef62cc34b8abfcff2ff9f0cccd"],
    "libdrm2": ["2.4.114-1+b1", "be18fb670797ba32da9628cf3e8acd83160d8db8c8dd842501dd8e401c3b5371"],
    "libedit2": ["3.1-20221030-2", "1cf14abf2716d3279db12d0657a5737cf70074a1e71d3bdf73206625e3c89ce6"],
    "libelf1": ["0.188-2.1", "619add379c606b3ac6c1a175853b918e6939598a83d8ebadf3bdfd50d10b3c8c"],
    "libexpat1": ["2.5.0-1+deb12u2", "2255e62fc22a86d2c544b8a3f516da9aee19383ad5742722ab4ce7f66a30dbc8"],
    "libffi8": ["3.4.4-1", "6d9f6c25c30efccce6d4bceaa48ea86c329a3432abb360a141f76ac223a4c34a"],
    "libicu72": ["72.1-3+deb12u1", "f7f6f99c6d7b025914df2447fc93e11d22c44c0c8bdd8b6f36691c9e7ddcef88"],
    "libllvm15": ["1:15.0.6-4+b1", "9f0751109ba89e65b1313a4f3e34a29977a0db6fa30ed475e2c6bd555fa9e866"],
    "libvulkan1": ["1.3.239.0-1", "622f28b807ba55a1f5ad1622ff83aa2c5b11fedbec074850e04c10a8f28b43d3"],
    "libwayland-client0": ["1.21.0-1", "1f002d028b8b79eec9847c636d8886d10dfe8c884cc2bebe18086b1391c5a28d"],
    "libx11-6": ["2:1.8.4-2+deb12u2", "d88c973e79fd9b65838d77624142952757e47a6eb1a58602acf0911cf35989f4"],
    "libx11-xcb1": ["2:1.8.4-2+deb12u2", "f5da45e1d881a793250a96613f28c471a248877f1a0f18a5c90e2a620a76c898"],
    "libxau6": ["1:1.0.9-1", "679db1c4579ec7c61079adeaae8528adeb2e4bf5465baa6c56233b995d714750"],
    "libxcb-dri3-0": ["1.15-1", "02699b144b9467de8636d27a76984b8f4e7b66e2d25d96df2b9677be86ee9a29"],
    "libxcb-present0": ["1.15-1", "89383e627a4d17b9390d609b2459481bfd2029566367b43068586769e418b6e5"],
    "libxcb-randr0": ["1.15-1", "f86e3d8ff8622871008833e9d064919b7a6237399c903c59fc330ff00f199ff5"],
    "libxcb-shm0": ["1.15-1", "c1afcef29dc78b95c475159b181b28b1dedaf1d5aa06efd2fa6d90c73bfbe0e5"],
    "libxcb-sync1": ["1.15-1", "3366ce715220d38dd0148b78a8e738137bade25ef7eec0698850c6f66800844f"],
    "libxcb-xfixes0": ["1.15-1", "d744a7ebad2cbcf301c96cd6a1ab3ee856e436fc7be5cff5b7c28ac2ac181a64"],
    "libxcb1": ["1.15-1", "fdc61332a3892168f3cc9cfa1fe9cf11a91dc3e0acacbc47cbc50ebaa234cc71"],
    "libxdmcp6": ["1:1.1.2-3", "ecb8536f5fb34543b55bb9dc5f5b14c9dbb4150a7bddb3f2287b7cab6e9d25ef"],
    "libxml2": ["2.9.14+dfsg-1.3~deb12u6", "4460e39dda10a815881374217cde08474747cfa018358cd8612c14b390eff53b"],
    "libxshmfence1": ["1.3-1", "1a38142e40e3d32dc4f9a326bf5617363b7d9b4bb762fdcdd262f2192092024d"],
    "libz3-4": ["4.8.12-3.1", "6221ca25ad5abcfbe1965801029d85a88b4775320384b4b716de8fab7a4d2f7a"],
    "mesa-vulkan-drivers": ["22.3.6-1+deb12u2", "21f9ecf52886c88247d8ef92b635b8f670ab01fd7813c98f8200220aa138f4da"],
}
