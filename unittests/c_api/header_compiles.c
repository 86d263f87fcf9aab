// paddle_lite_c.h as C99 code includes it (compiled only; built as C99
// and, from header_compiles.cc, as C++98 and C++11 with -pedantic -Werror).
#include "paddle_lite/paddle_lite_c.h"

int PdliteHeaderCompiles(void);

int PdliteHeaderCompiles(void) {
  PD_Status status = PD_OK;
  PD_DataType type = PD_FLOAT32;
  return (int)status + (int)type + PD_C_API_VERSION;
}
