// Volta stand-in: see volta/all.h
#pragma once
#include "../../volta/all.h"
#include "../../cublas_v2.h"

#define TORCH_CUDABLAS_CHECK(EXPR)                                                                              \
  do {                                                                                                          \
    cublasStatus_t _volta_status = (EXPR);                                                                      \
    TORCH_CHECK(_volta_status == CUBLAS_STATUS_SUCCESS, "CUDA error: ", cublasGetStatusString(_volta_status),   \
                " when calling `" #EXPR "`");                                                                   \
  } while (0)
