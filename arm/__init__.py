"""Ahead-of-time flow that lowers PyTorch programs to Arm NPUs (Ethos-U, VGF) via TOSA 1.0."""
