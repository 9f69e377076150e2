// The C API's header compiles as C++ with warnings as errors (the C test compiles it as C11).
#include "simgrad/simgrad.h"

static_assert(SIMGRAD_OK == 0, "SIMGRAD_OK is zero");
