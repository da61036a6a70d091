"""One module per lowered operator: its support rule, quantization annotation, TOSA lowering and test cases."""
