// Volta stand-in: see volta/all.h
#pragma once
#include "../../volta/all.h"
