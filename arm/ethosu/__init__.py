"""Ethos-U backend: Vela compilation of TOSA graphs and the bin stream the runtime reads."""
