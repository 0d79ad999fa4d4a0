"""Bit-exact floating-point semantics: formats, rounding, scalar PTX float ops and tensor-core MMA models.

A leaf package (imports nothing else from volta but `errors`). Exact Python-int/Fraction code is the
reference; numpy paths (`lanes`, `mma_vec`) are tested against it bit for bit.
"""
