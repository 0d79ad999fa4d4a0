// Row sums split along the columns: blockIdx.y picks a chunk of every row, each thread sums its row's chunk and
// atomically adds it into acc[r]. The launcher zeroes acc with cudaMemset before the launch and copies it into
// out after it (cudaMemcpyDeviceToDevice): the pipeline's host steps `memset acc 0` and `copy acc out`.
extern "C" __global__ void row_sums_split(const float* x, float* acc, int rows, int cols, int chunk)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int begin = blockIdx.y * chunk, end = min(cols, begin + chunk);
    if (r < rows) {
        float s = 0.f;
        for (int j = begin; j < end; ++j) s += x[r * cols + j];
        atomicAdd(&acc[r], s);
    }
}
