// paddle_lite_c.h as C++ code includes it; see header_compiles.c.
#include "unittests/c_api/header_compiles.c"
