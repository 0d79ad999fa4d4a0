"""Volta: a formal checker for GPU kernels written in PTX."""

__version__ = "0.1.0"
