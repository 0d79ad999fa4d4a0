"""Tensor-core instructions over the reals (volta check): sums of products and data movement, registered into dispatch.REAL."""
from __future__ import annotations
