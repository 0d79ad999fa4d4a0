// Volta stand-in: cublas_api.h is cublas_v2.h here
#pragma once
#include "cublas_v2.h"
