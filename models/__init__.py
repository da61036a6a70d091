"""Models the repository lowers: each file has a factory returning arm.model_spec.ModelSpec."""
