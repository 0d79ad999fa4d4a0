"""Symbolic values over the reals: expression DAG, normal forms, the Z3 bridge, lane polynomials.

A leaf of the import graph: it imports nothing from volta but `volta.errors`.
"""
