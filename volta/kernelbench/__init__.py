"""KernelBench front door: a PyTorch reference `Model` run symbolically, against a CUDA candidate.

`tensor` holds the symbolic tensors (storage, views, element expressions), `torchsym` the stand-in for
the `torch` API a reference uses, `problem` loads a KernelBench problem file (sizes scaled down) and runs
its reference. Importing this package imports nothing else.
"""
