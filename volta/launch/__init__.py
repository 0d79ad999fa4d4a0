"""The launch-spec language: what runs, on which grid, with which buffers and arguments.

`spec` reads `--grid/--block/--args/--buffer` options and manifest.toml files into a `LaunchSpec` (buffers,
symbols, one launch or a launch sequence per role) and binds an argument list to a kernel's parameters;
`kernel` is one `KernelLaunch`, `args` its typed arguments (each front end reads its text into them once);
`structargs` lays struct arguments out in bytes (`cudastruct` reads their field
types from the CUDA source); `hoststeps` turns `memset`/`copy` steps of a sequence into small kernels; `ctas`
parses `--ctas` selections. Nothing here executes: the machine (volta/exec) runs what this package describes.
"""
