"""The portable .pte runtime; Python here only makes its test data."""
