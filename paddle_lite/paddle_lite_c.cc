// The C API over the C++ API: every entry point runs its body under
// Guard(), which turns any exception into a PD_Status and a message.
#include "paddle_lite/paddle_lite_c.h"

#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "paddle_lite/paddle_lite.h"

struct PD_Config {
  paddle_lite::Config config;
};

struct PD_Predictor {
  std::unique_ptr<paddle_lite::Predictor> predictor;
  // Held here so the names handed out stay valid while the predictor lives.
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
};

struct PD_Tensor {
  std::unique_ptr<paddle_lite::Tensor> tensor;
  bool is_input = false;
  // The shape given to PD_TensorReshape on this handle: the byte count of
  // PD_TensorCopyFromCpu is checked against it before anything is read.
  // (Tensor::shape() reports the old data's shape until the copy.)
  bool reshaped = false;
  std::vector<int64_t> shape;
};

namespace {

using paddle_lite::DataType;
using paddle_lite::ErrorCode;

// The most dims and LoD levels a call takes (the header says so): far past
// any model's, and a count that was negative in the caller's code is caught
// before anything is read.
constexpr size_t kMaxCount = 64;
// The most offsets one LoD level takes: a sequence per row of a tensor of
// 2^32 rows, past any real batch.
constexpr size_t kMaxLoDOffsets = (size_t{1} << 32) + 1;

// The header promises these values; a change to ErrorCode or DataType must
// not silently renumber the C API.
static_assert(PD_INVALID_ARGUMENT ==
              static_cast<int>(ErrorCode::kInvalidArgument));
static_assert(PD_NOT_FOUND == static_cast<int>(ErrorCode::kNotFound));
static_assert(PD_OUT_OF_RANGE == static_cast<int>(ErrorCode::kOutOfRange));
static_assert(PD_ALREADY_EXISTS == static_cast<int>(ErrorCode::kAlreadyExists));
static_assert(PD_RESOURCE_EXHAUSTED ==
              static_cast<int>(ErrorCode::kResourceExhausted));
static_assert(PD_PRECONDITION_NOT_MET ==
              static_cast<int>(ErrorCode::kPreconditionNotMet));
static_assert(PD_UNIMPLEMENTED == static_cast<int>(ErrorCode::kUnimplemented));
static_assert(PD_UNAVAILABLE == static_cast<int>(ErrorCode::kUnavailable));
static_assert(PD_EXTERNAL == static_cast<int>(ErrorCode::kExternal));
static_assert(PD_FATAL == static_cast<int>(ErrorCode::kFatal));
static_assert(PD_FLOAT32 == static_cast<int>(DataType::FLOAT32));
static_assert(PD_FLOAT64 == static_cast<int>(DataType::FLOAT64));
static_assert(PD_FLOAT16 == static_cast<int>(DataType::FLOAT16));
static_assert(PD_BFLOAT16 == static_cast<int>(DataType::BFLOAT16));
static_assert(PD_INT8 == static_cast<int>(DataType::INT8));
static_assert(PD_UINT8 == static_cast<int>(DataType::UINT8));
static_assert(PD_INT16 == static_cast<int>(DataType::INT16));
static_assert(PD_INT32 == static_cast<int>(DataType::INT32));
static_assert(PD_INT64 == static_cast<int>(DataType::INT64));
static_assert(PD_BOOL == static_cast<int>(DataType::BOOL));
// PD_BOOL elements are copied byte for byte.
static_assert(sizeof(bool) == 1);

std::string& LastError() {
  thread_local std::string message;
  return message;
}

// Set when a failure's message could not be built (no memory): what
// PD_GetLastError says then, since "" means success.
const char*& LastErrorFallback() {
  thread_local const char* fallback = nullptr;
  return fallback;
}

PD_Status ToStatus(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return PD_INVALID_ARGUMENT;
    case ErrorCode::kNotFound:
      return PD_NOT_FOUND;
    case ErrorCode::kOutOfRange:
      return PD_OUT_OF_RANGE;
    case ErrorCode::kAlreadyExists:
      return PD_ALREADY_EXISTS;
    case ErrorCode::kResourceExhausted:
      return PD_RESOURCE_EXHAUSTED;
    case ErrorCode::kPreconditionNotMet:
      return PD_PRECONDITION_NOT_MET;
    case ErrorCode::kUnimplemented:
      return PD_UNIMPLEMENTED;
    case ErrorCode::kUnavailable:
      return PD_UNAVAILABLE;
    case ErrorCode::kExternal:
      return PD_EXTERNAL;
    case ErrorCode::kFatal:
      return PD_FATAL;
  }
  return PD_UNKNOWN;
}

// Records "<kind>: <function>: <message>" as the thread's last error.
PD_Status Fail(PD_Status status,
               const char* kind,
               const char* function,
               const char* message) noexcept {
  try {
    std::string& last = LastError();
    last = kind;
    last += ": ";
    last += function;
    last += ": ";
    last += message;
  } catch (...) {
    // No memory for the message: the status must still get out, with a
    // message that does not read as a success.
    LastError().clear();
    LastErrorFallback() =
        "OutOfMemory: no memory for this failure's message (see its status)";
  }
  return status;
}

// Holds off thread cancellation for a C call: glibc cancels a thread by
// unwinding it with an exception that must not be caught, and Guard
// catches everything. A cancel that comes during the call acts at the
// thread's next cancellation point after it.
class NoCancellation {
 public:
  NoCancellation() noexcept {
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &previous_);
  }
  ~NoCancellation() { pthread_setcancelstate(previous_, nullptr); }
  NoCancellation(const NoCancellation&) = delete;
  NoCancellation& operator=(const NoCancellation&) = delete;

 private:
  int previous_ = PTHREAD_CANCEL_ENABLE;
};

// Runs `body`, the work of the C function `function`; no exception leaves.
template <typename Body>
PD_Status Guard(const char* function, Body&& body) noexcept {
  NoCancellation no_cancellation;
  LastError().clear();
  LastErrorFallback() = nullptr;
  try {
    body();
    return PD_OK;
  } catch (const paddle_lite::Exception& e) {
    // The code's own name, even for a code newer than this API's statuses.
    return Fail(ToStatus(e.code()), paddle_lite::ErrorCodeName(e.code()),
                function, e.message().c_str());
  } catch (const std::bad_alloc&) {
    return Fail(PD_OUT_OF_MEMORY, "OutOfMemory", function,
                "a memory allocation failed.");
  } catch (const std::length_error& e) {
    // A size past what a container can hold: an argument's doing.
    std::string message;
    try {
      message = std::string("a size given is more than memory can hold (") +
                e.what() + ").";
    } catch (...) {
    }
    return Fail(PD_INVALID_ARGUMENT, "InvalidArgument", function,
                message.empty() ? e.what() : message.c_str());
  } catch (const std::system_error& e) {
    // The system refused a resource: a thread the predictor starts
    // (EAGAIN), say.
    return Fail(PD_RESOURCE_EXHAUSTED, "ResourceExhausted", function, e.what());
  } catch (const std::exception& e) {
    return Fail(PD_UNKNOWN, "Unknown", function, e.what());
  } catch (...) {
    return Fail(PD_UNKNOWN, "Unknown", function,
                "an exception of unknown type.");
  }
}

template <typename... Args>
[[noreturn]] void Throw(ErrorCode code, Args&&... args) {
  throw paddle_lite::Exception(
      code, paddle_lite::platform::errors::Concat(std::forward<Args>(args)...));
}

void NotNull(const void* pointer, const char* argument) {
  if (pointer == nullptr) {
    Throw(ErrorCode::kInvalidArgument, argument, " is NULL.");
  }
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "]";
  return os.str();
}

bool IsDataType(int value) { return value >= PD_FLOAT32 && value <= PD_BOOL; }

// Calls `fn` with a value of the C++ element type of `type`.
template <typename Fn>
void DispatchType(DataType type, const std::string& tensor, Fn&& fn) {
  switch (type) {
    case DataType::FLOAT32:
      return fn(float{});
    case DataType::FLOAT64:
      return fn(double{});
    case DataType::INT8:
      return fn(int8_t{});
    case DataType::UINT8:
      return fn(uint8_t{});
    case DataType::INT16:
      return fn(int16_t{});
    case DataType::INT32:
      return fn(int32_t{});
    case DataType::INT64:
      return fn(int64_t{});
    case DataType::BOOL:
      return fn(bool{});
    case DataType::FLOAT16:
      return fn(paddle_lite::float16{});
    case DataType::BFLOAT16:
      return fn(paddle_lite::bfloat16{});
  }
  Throw(ErrorCode::kUnimplemented, "tensor '", tensor, "': data type ",
        static_cast<int>(type), " is not one the C API copies.");
}

// The shape PD_TensorGetDims reports (see the header).
std::vector<int64_t> ShapeOf(const PD_Tensor& tensor) {
  if (tensor.is_input && tensor.reshaped) return tensor.shape;
  return tensor.tensor->shape();
}

PD_Tensor* WrapTensor(std::unique_ptr<paddle_lite::Tensor> handle,
                      bool is_input) {
  auto tensor = std::make_unique<PD_Tensor>();
  tensor->tensor = std::move(handle);
  tensor->is_input = is_input;
  return tensor.release();
}

PD_Predictor* WrapPredictor(std::unique_ptr<paddle_lite::Predictor> handle) {
  auto predictor = std::make_unique<PD_Predictor>();
  predictor->input_names = handle->GetInputNames();
  predictor->output_names = handle->GetOutputNames();
  predictor->predictor = std::move(handle);
  return predictor.release();
}

const char* NameAt(const std::vector<std::string>& names,
                   size_t index,
                   const char* what) {
  if (index >= names.size()) {
    Throw(ErrorCode::kOutOfRange, what, " index ", index, " is past the ",
          names.size(), " ", what, "s of the model.");
  }
  return names[index].c_str();
}

}  // namespace

extern "C" {

const char* PD_GetLastError(void) {
  const char* fallback = LastErrorFallback();
  return fallback != nullptr ? fallback : LastError().c_str();
}

const char* PD_StatusName(PD_Status status) {
  switch (status) {
    case PD_OK:
      return "OK";
    case PD_OUT_OF_MEMORY:
      return "OutOfMemory";
    case PD_UNKNOWN:
      return "Unknown";
    default:
      break;
  }
  // Every other PD_Status has the value of its ErrorCode.
  const auto code = static_cast<ErrorCode>(status);
  if (ToStatus(code) != status) return "Unknown";
  return paddle_lite::ErrorCodeName(code);
}

int PD_CApiVersion(void) { return PD_C_API_VERSION; }

size_t PD_DataTypeSize(PD_DataType dtype) {
  switch (dtype) {
    case PD_FLOAT32:
    case PD_INT32:
      return 4;
    case PD_FLOAT64:
    case PD_INT64:
      return 8;
    case PD_FLOAT16:
    case PD_BFLOAT16:
    case PD_INT16:
      return 2;
    case PD_INT8:
    case PD_UINT8:
    case PD_BOOL:
      return 1;
  }
  return 0;
}

const char* PD_DataTypeName(PD_DataType dtype) {
  // Spelled as paddle_lite::DataTypeName spells them; a table of literals
  // needs no lazy initialization, so any thread may call this.
  static const char* const kNames[] = {
      "float32", "float64", "float16", "bfloat16", "int8",
      "uint8",   "int16",   "int32",   "int64",    "bool"};
  return IsDataType(dtype) ? kNames[dtype] : "";
}

// ------------------------------------------------------------------ config

PD_Status PD_ConfigCreate(PD_Config** out) {
  return Guard(__func__, [&] {
    NotNull(out, "out");
    *out = new PD_Config();
  });
}

void PD_ConfigDestroy(PD_Config* config) {
  NoCancellation no_cancellation;
  delete config;
}

PD_Status PD_ConfigSetModel(PD_Config* config,
                            const char* model_path,
                            const char* params_file) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    NotNull(model_path, "model_path");
    config->config.SetModel(model_path, params_file ? params_file : "");
  });
}

PD_Status PD_ConfigSetModelBuffer(PD_Config* config,
                                  const void* program,
                                  size_t program_size,
                                  const void* params,
                                  size_t params_size) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    if (program_size > 0) NotNull(program, "program");
    if (params_size > 0) NotNull(params, "params");
    // std::string::assign wants a valid pointer even for zero bytes.
    config->config.SetModelBuffer(
        program ? static_cast<const char*>(program) : "", program_size,
        params ? static_cast<const char*>(params) : "", params_size);
  });
}

PD_Status PD_ConfigSetCpuThreads(PD_Config* config, int threads) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    config->config.SetCpuThreads(threads);
  });
}

PD_Status PD_ConfigEnableMKLDNN(PD_Config* config, int enable) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    config->config.EnableMKLDNN(enable != 0);
  });
}

PD_Status PD_ConfigSwitchIrOptim(PD_Config* config, int enable) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    config->config.SwitchIrOptim(enable != 0);
  });
}

PD_Status PD_ConfigEnableMemoryOptim(PD_Config* config, int enable) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    config->config.EnableMemoryOptim(enable != 0);
  });
}

PD_Status PD_ConfigSetCacheBudget(PD_Config* config, size_t bytes) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    config->config.SetCacheBudget(bytes);
  });
}

PD_Status PD_ConfigEnableMakeAhead(PD_Config* config, int enable) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    config->config.EnableMakeAhead(enable != 0);
  });
}

PD_Status PD_ConfigEnableGenericKernels(PD_Config* config, int enable) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    config->config.EnableGenericKernels(enable != 0);
  });
}

PD_Status PD_ConfigEnableWarmup(PD_Config* config, int enable) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    config->config.EnableWarmup(enable != 0);
  });
}

PD_Status PD_ConfigEnableNarrowRuns(PD_Config* config, int enable) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    config->config.EnableNarrowRuns(enable != 0);
  });
}

PD_Status PD_ConfigEnableBatchInvariance(PD_Config* config, int enable) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    config->config.EnableBatchInvariance(enable != 0);
  });
}

PD_Status PD_ConfigSetNarrowRunLimit(PD_Config* config, double ms) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    if (!(ms >= 0)) {
      Throw(ErrorCode::kInvalidArgument, ms, " ms; the limit must be >= 0.");
    }
    config->config.SetNarrowRunLimit(ms);
  });
}

PD_Status PD_ConfigSetMemoryLimits(PD_Config* config,
                                   size_t tensor_bytes,
                                   size_t run_bytes) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    config->config.SetMemoryLimits(tensor_bytes, run_bytes);
  });
}

PD_Status PD_ConfigSetMaxLoopIterations(PD_Config* config, int64_t iterations) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    if (iterations < 0) {
      Throw(ErrorCode::kInvalidArgument, iterations,
            "; the limit must be >= 0 (0: no limit).");
    }
    config->config.SetMaxLoopIterations(iterations);
  });
}

PD_Status PD_ConfigSetDevice(PD_Config* config, const char* place) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    NotNull(place, "place");
    config->config.SetDevice(place);
  });
}

PD_Status PD_ConfigLoadPlugin(PD_Config* config, const char* path) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    NotNull(path, "path");
    config->config.LoadPlugin(path);
  });
}

// --------------------------------------------------------------- predictor

PD_Status PD_PredictorCreate(const PD_Config* config, PD_Predictor** out) {
  return Guard(__func__, [&] {
    NotNull(config, "config");
    NotNull(out, "out");
    *out = WrapPredictor(paddle_lite::CreatePredictor(config->config));
  });
}

PD_Status PD_PredictorClone(const PD_Predictor* predictor, PD_Predictor** out) {
  return Guard(__func__, [&] {
    NotNull(predictor, "predictor");
    NotNull(out, "out");
    *out = WrapPredictor(predictor->predictor->Clone());
  });
}

void PD_PredictorDestroy(PD_Predictor* predictor) {
  // Joins the predictor's threads: a join is a cancellation point, and an
  // unwind out of the destructors would end the process.
  NoCancellation no_cancellation;
  delete predictor;
}

PD_Status PD_PredictorRun(PD_Predictor* predictor) {
  return Guard(__func__, [&] {
    NotNull(predictor, "predictor");
    predictor->predictor->Run();
  });
}

size_t PD_PredictorGetInputNum(const PD_Predictor* predictor) {
  return predictor ? predictor->input_names.size() : 0;
}

size_t PD_PredictorGetOutputNum(const PD_Predictor* predictor) {
  return predictor ? predictor->output_names.size() : 0;
}

PD_Status PD_PredictorGetInputName(const PD_Predictor* predictor,
                                   size_t index,
                                   const char** name) {
  return Guard(__func__, [&] {
    NotNull(predictor, "predictor");
    NotNull(name, "name");
    *name = NameAt(predictor->input_names, index, "input");
  });
}

PD_Status PD_PredictorGetOutputName(const PD_Predictor* predictor,
                                    size_t index,
                                    const char** name) {
  return Guard(__func__, [&] {
    NotNull(predictor, "predictor");
    NotNull(name, "name");
    *name = NameAt(predictor->output_names, index, "output");
  });
}

PD_Status PD_PredictorGetInputHandle(PD_Predictor* predictor,
                                     const char* name,
                                     PD_Tensor** out) {
  return Guard(__func__, [&] {
    NotNull(predictor, "predictor");
    NotNull(name, "name");
    NotNull(out, "out");
    *out = WrapTensor(predictor->predictor->GetInputHandle(name),
                      /*is_input=*/true);
  });
}

PD_Status PD_PredictorGetOutputHandle(PD_Predictor* predictor,
                                      const char* name,
                                      PD_Tensor** out) {
  return Guard(__func__, [&] {
    NotNull(predictor, "predictor");
    NotNull(name, "name");
    NotNull(out, "out");
    *out = WrapTensor(predictor->predictor->GetOutputHandle(name),
                      /*is_input=*/false);
  });
}

// ------------------------------------------------------------------ tensor

void PD_TensorDestroy(PD_Tensor* tensor) {
  NoCancellation no_cancellation;
  delete tensor;
}

const char* PD_TensorGetName(const PD_Tensor* tensor) {
  return tensor ? tensor->tensor->name().c_str() : nullptr;
}

PD_Status PD_TensorReshape(PD_Tensor* tensor,
                           size_t ndim,
                           const int64_t* dims) {
  return Guard(__func__, [&] {
    NotNull(tensor, "tensor");
    if (ndim > kMaxCount) {
      Throw(ErrorCode::kInvalidArgument, "ndim is ", ndim, ", at most ",
            kMaxCount, " (a negative count cast to size_t?).");
    }
    if (ndim > 0) NotNull(dims, "dims");
    std::vector<int64_t> shape(dims, dims + ndim);
    tensor->tensor->Reshape(shape);  // checks it is an input, dims >= 0
    tensor->shape = std::move(shape);
    tensor->reshaped = true;
  });
}

PD_Status PD_TensorCopyFromCpu(PD_Tensor* tensor,
                               PD_DataType dtype,
                               const void* data,
                               size_t bytes) {
  return Guard(__func__, [&] {
    NotNull(tensor, "tensor");
    const std::string& name = tensor->tensor->name();
    if (!tensor->is_input) {
      Throw(ErrorCode::kPreconditionNotMet, "'", name,
            "' is an output; outputs are read-only.");
    }
    if (!IsDataType(dtype)) {
      Throw(ErrorCode::kInvalidArgument, "dtype ", static_cast<int>(dtype),
            " is no PD_DataType.");
    }
    if (!tensor->reshaped) {
      Throw(ErrorCode::kPreconditionNotMet, "input '", name,
            "': call PD_TensorReshape before copying data in.");
    }
    // The caller's buffer is only known by its byte count: check it before
    // reading, with overflow-safe arithmetic for hostile shapes.
    // A shape with a 0 holds nothing, whatever its other dims multiply to.
    const bool empty = std::find(tensor->shape.begin(), tensor->shape.end(),
                                 int64_t{0}) != tensor->shape.end();
    int64_t count = empty ? 0 : 1;
    for (int64_t d : tensor->shape) {
      if (empty) break;
      if (__builtin_mul_overflow(count, d, &count)) count = -1;
      if (count < 0) break;
    }
    size_t expected = 0;
    if (count < 0 ||
        __builtin_mul_overflow(static_cast<uint64_t>(count),
                               PD_DataTypeSize(dtype), &expected)) {
      Throw(ErrorCode::kInvalidArgument, "input '", name, "' of shape ",
            ShapeString(tensor->shape), " has more bytes than memory holds.");
    }
    if (bytes != expected) {
      Throw(ErrorCode::kInvalidArgument, "input '", name, "' of shape ",
            ShapeString(tensor->shape), " takes ", expected, " bytes of ",
            PD_DataTypeName(dtype), ", got ", bytes, ".");
    }
    if (bytes > 0) NotNull(data, "data");
    DispatchType(static_cast<DataType>(dtype), name, [&](auto tag) {
      using T = decltype(tag);
      T* dst = tensor->tensor->mutable_data<T>();
      if constexpr (std::is_same_v<T, bool>) {
        // Any non-zero byte is true; copying it raw would make an invalid
        // bool.
        const auto* src = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < bytes; ++i) dst[i] = src[i] != 0;
      } else if (bytes > 0) {
        // memcpy: `data` need not be aligned for T (a ctypes buffer).
        std::memcpy(dst, data, bytes);
      }
    });
  });
}

PD_Status PD_TensorCopyToCpu(const PD_Tensor* tensor,
                             void* data,
                             size_t bytes) {
  return Guard(__func__, [&] {
    NotNull(tensor, "tensor");
    const paddle_lite::Tensor& t = *tensor->tensor;
    DispatchType(t.type(), t.name(), [&](auto tag) {
      using T = decltype(tag);
      int64_t count = 0;
      const T* src = t.data<T>(&count);
      const size_t expected = static_cast<size_t>(count) * sizeof(T);
      if (bytes != expected) {
        Throw(ErrorCode::kInvalidArgument, "tensor '", t.name(), "' of shape ",
              ShapeString(t.shape()), " holds ", expected, " bytes of ",
              paddle_lite::DataTypeName(t.type()), ", the buffer has ", bytes,
              ".");
      }
      if (bytes > 0) {
        NotNull(data, "data");
        std::memcpy(data, src, bytes);
      }
    });
  });
}

PD_Status PD_TensorGetNumDims(const PD_Tensor* tensor, size_t* ndim) {
  return Guard(__func__, [&] {
    NotNull(tensor, "tensor");
    NotNull(ndim, "ndim");
    *ndim = ShapeOf(*tensor).size();
  });
}

PD_Status PD_TensorGetDims(const PD_Tensor* tensor,
                           int64_t* dims,
                           size_t capacity) {
  return Guard(__func__, [&] {
    NotNull(tensor, "tensor");
    const std::vector<int64_t> shape = ShapeOf(*tensor);
    if (capacity < shape.size()) {
      Throw(ErrorCode::kInvalidArgument, "tensor '", tensor->tensor->name(),
            "' has ", shape.size(), " dims, room was given for ", capacity,
            ".");
    }
    if (!shape.empty()) NotNull(dims, "dims");
    std::copy(shape.begin(), shape.end(), dims);
  });
}

PD_Status PD_TensorGetDataType(const PD_Tensor* tensor, PD_DataType* dtype) {
  return Guard(__func__, [&] {
    NotNull(tensor, "tensor");
    NotNull(dtype, "dtype");
    *dtype = static_cast<PD_DataType>(tensor->tensor->type());
  });
}

PD_Status PD_TensorSetLoD(PD_Tensor* tensor,
                          size_t num_levels,
                          const size_t* level_sizes,
                          const size_t* offsets) {
  return Guard(__func__, [&] {
    NotNull(tensor, "tensor");
    if (num_levels > kMaxCount) {
      Throw(ErrorCode::kInvalidArgument, "num_levels is ", num_levels,
            ", at most ", kMaxCount, " (a negative count cast to size_t?).");
    }
    if (num_levels > 0) NotNull(level_sizes, "level_sizes");
    // Each level's count is checked before `offsets` is read, as `ndim` is:
    // a count cast from -1 would wrap the pointer.
    for (size_t i = 0; i < num_levels; ++i) {
      if (level_sizes[i] > kMaxLoDOffsets) {
        Throw(ErrorCode::kInvalidArgument, "level_sizes[", i, "] is ",
              level_sizes[i], ", at most ", kMaxLoDOffsets,
              " (a negative count cast to size_t?).");
      }
      if (level_sizes[i] > 0) NotNull(offsets, "offsets");
    }
    paddle_lite::LoD lod(num_levels);
    size_t at = 0;
    for (size_t i = 0; i < num_levels; ++i) {
      lod[i].assign(offsets + at, offsets + at + level_sizes[i]);
      at += level_sizes[i];
    }
    tensor->tensor->SetLoD(lod);
  });
}

PD_Status PD_TensorGetLoDNumLevels(const PD_Tensor* tensor,
                                   size_t* num_levels) {
  return Guard(__func__, [&] {
    NotNull(tensor, "tensor");
    NotNull(num_levels, "num_levels");
    *num_levels = tensor->tensor->lod().size();
  });
}

PD_Status PD_TensorGetLoDLevel(const PD_Tensor* tensor,
                               size_t level,
                               size_t* offsets,
                               size_t capacity,
                               size_t* size) {
  return Guard(__func__, [&] {
    NotNull(tensor, "tensor");
    NotNull(size, "size");
    const paddle_lite::LoD lod = tensor->tensor->lod();
    if (level >= lod.size()) {
      Throw(ErrorCode::kOutOfRange, "tensor '", tensor->tensor->name(),
            "' has ", lod.size(), " LoD levels, asked for level ", level, ".");
    }
    const std::vector<size_t>& values = lod[level];
    if (offsets != nullptr) {
      if (capacity < values.size()) {
        Throw(ErrorCode::kInvalidArgument, "LoD level ", level, " of '",
              tensor->tensor->name(), "' has ", values.size(),
              " offsets, room was given for ", capacity, ".");
      }
      std::copy(values.begin(), values.end(), offsets);
    }
    *size = values.size();
  });
}

}  // extern "C"
