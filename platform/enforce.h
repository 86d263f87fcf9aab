// PADDLE_ENFORCE-style checks. Use them in op definitions and shape
// inference to validate user input; inside kernels only for invariants.
//
//   PADDLE_ENFORCE_EQ(x.dims().size(), 4,
//                     errors::InvalidArgument("conv2d: Input must be 4-D, got ",
//                                             x.dims()));
#pragma once

#include "platform/errors.h"

#define PADDLE_THROW(error) ::paddle_lite::platform::ThrowError(error)

#define PADDLE_ENFORCE(cond, error)                   \
  do {                                                \
    if (!(cond)) ::paddle_lite::platform::ThrowError(error); \
  } while (0)

#define PDLITE_ENFORCE_OP(a, b, op, error)                          \
  do {                                                              \
    if (!((a)op(b))) ::paddle_lite::platform::ThrowError(error);    \
  } while (0)

#define PADDLE_ENFORCE_EQ(a, b, error) PDLITE_ENFORCE_OP(a, b, ==, error)
#define PADDLE_ENFORCE_NE(a, b, error) PDLITE_ENFORCE_OP(a, b, !=, error)
#define PADDLE_ENFORCE_GT(a, b, error) PDLITE_ENFORCE_OP(a, b, >, error)
#define PADDLE_ENFORCE_GE(a, b, error) PDLITE_ENFORCE_OP(a, b, >=, error)
#define PADDLE_ENFORCE_LT(a, b, error) PDLITE_ENFORCE_OP(a, b, <, error)
#define PADDLE_ENFORCE_LE(a, b, error) PDLITE_ENFORCE_OP(a, b, <=, error)
#define PADDLE_ENFORCE_NOT_NULL(p, error) PADDLE_ENFORCE((p) != nullptr, error)

namespace paddle_lite {
namespace platform {
namespace errors {}  // namespace errors
}  // namespace platform
// Ops and kernels write errors::InvalidArgument(...) unqualified.
namespace operators {
namespace errors = ::paddle_lite::platform::errors;
}
namespace kernels {
namespace errors = ::paddle_lite::platform::errors;
}
namespace framework {
namespace errors = ::paddle_lite::platform::errors;
}
}  // namespace paddle_lite
