"""ExecuTorch's own Arm op tests (the peer's), replayed through our flow: see README.md."""
