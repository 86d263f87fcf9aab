// The C API: the C++ API of paddle_lite.h behind opaque handles, for C
// programs and foreign-function interfaces (Python ctypes, Go cgo, ...).
// It compiles as C99 and as C++ (C++98 on), and needs only
// libpaddle_lite.so.
//
//   PD_Config* config;
//   PD_ConfigCreate(&config);
//   PD_ConfigSetModel(config, "dir/", NULL);
//   PD_Predictor* predictor;
//   if (PD_PredictorCreate(config, &predictor) != PD_OK) {
//     fprintf(stderr, "%s\n", PD_GetLastError());
//   }
//
// Errors: every function that can fail returns a PD_Status; PD_OK is 0 and
// any other value names the kind of error, and PD_GetLastError() gives the
// message. No C++ exception crosses this interface, and a failed call
// leaves its out-parameters and the objects it was given as they were
// (except PD_PredictorRun: the outputs then have no value, and reading
// one is PD_PRECONDITION_NOT_MET).
//
// Ownership: each handle made by a Create, Clone or Get...Handle function
// is owned by the caller and released with its Destroy function (Destroy
// accepts NULL). Strings returned by the API are owned by it and stay valid
// as long as the object they came from. Strings and buffers passed in are
// only read during the call (model buffers are copied).
//
// Threads: a predictor and its tensor handles are used from one thread at a
// time (PD_PredictorClone is such a use of the predictor it clones); clone
// a predictor for each further thread. Configs are not shared either.
// PD_GetLastError() is per thread: Go callers lock the goroutine to its OS
// thread (runtime.LockOSThread) around a call and its PD_GetLastError, or
// another thread's message may be read. No call is a cancellation point: a
// thread cancelled (pthread_cancel) during one ends at its next
// cancellation point after the call returns.
#pragma once

#include <stddef.h>
#include <stdint.h>

// This header's version: grows when functions are added or accept more
// values, so a program can check PD_CApiVersion() of the library it loaded
// against it. No function's signature changes; a new function is added
// instead, so programs built against an older header keep working.
// 5: PD_ConfigEnableBatchInvariance. 4: PD_ConfigSetMaxLoopIterations. 3:
// float16 and bfloat16 copies. 2: PD_ConfigEnableNarrowRuns and
// PD_ConfigSetNarrowRunLimit.
#define PD_C_API_VERSION 5

#ifdef __cplusplus
extern "C" {
#endif

// C++ reads these enums as int: a C caller may pass any int (an unknown
// status or data type is answered, not undefined), and C's enums are
// int-sized on every ABI this library is built for.
#if defined(__cplusplus) && __cplusplus >= 201103L
#define PD_ENUM_AS_INT : int
#else
#define PD_ENUM_AS_INT
#endif

// ------------------------------------------------------------- status

/// The result of a call. The codes other than PD_OK, PD_UNKNOWN and
/// PD_OUT_OF_MEMORY have the values of paddle_lite::ErrorCode
/// (platform/errors.h).
typedef enum PD_Status PD_ENUM_AS_INT {
  PD_OK = 0,
  /// A bad argument: NULL, a wrong byte count, a malformed shape.
  PD_INVALID_ARGUMENT = 1,
  /// No such input, output, file or variable.
  PD_NOT_FOUND = 2,
  /// An index past the end.
  PD_OUT_OF_RANGE = 3,
  PD_ALREADY_EXISTS = 4,
  /// Over a configured limit (PD_ConfigSetMemoryLimits, the loop limit),
  /// or a resource the system refused (a thread).
  PD_RESOURCE_EXHAUSTED = 5,
  /// A call out of order, e.g. reading an output before the first run.
  PD_PRECONDITION_NOT_MET = 6,
  PD_UNIMPLEMENTED = 8,
  /// The hardware asked for is not there (no CUDA device).
  PD_UNAVAILABLE = 10,
  /// A library the runtime calls failed (CUDA, cuDNN, cuBLAS).
  PD_EXTERNAL = 11,
  PD_FATAL = 12,
  /// Memory could not be allocated at all.
  PD_OUT_OF_MEMORY = 98,
  /// A failure that is none of the above (a bug: please report it).
  PD_UNKNOWN = 99
} PD_Status;

/// The message of the last call on this thread that returns a PD_Status:
/// "<Kind>: <function>: <what and where>" after a failure, "" after a
/// success (e.g. "InvalidArgument: PD_ConfigSetCpuThreads: ..."). Valid
/// until the thread's next such call; never NULL.
const char* PD_GetLastError(void);

/// The name of a status, e.g. "InvalidArgument"; never NULL.
const char* PD_StatusName(PD_Status status);

/// PD_C_API_VERSION of the library as built.
int PD_CApiVersion(void);

// ---------------------------------------------------------- data types

/// Element types, with the values of paddle_lite::DataType. Bool elements
/// are one byte each, 0 or 1.
typedef enum PD_DataType PD_ENUM_AS_INT {
  PD_FLOAT32 = 0,
  PD_FLOAT64 = 1,
  PD_FLOAT16 = 2,
  PD_BFLOAT16 = 3,
  PD_INT8 = 4,
  PD_UINT8 = 5,
  PD_INT16 = 6,
  PD_INT32 = 7,
  PD_INT64 = 8,
  PD_BOOL = 9
} PD_DataType;

/// Bytes per element of `dtype`; 0 for a value that is no PD_DataType.
size_t PD_DataTypeSize(PD_DataType dtype);

/// The type's name, e.g. "float32"; "" for a value that is no PD_DataType.
const char* PD_DataTypeName(PD_DataType dtype);

// ------------------------------------------------------------- handles

/// How to load and run a model (paddle_lite::Config).
typedef struct PD_Config PD_Config;
/// A loaded model ready to run (paddle_lite::Predictor).
typedef struct PD_Predictor PD_Predictor;
/// One input or output of a predictor (paddle_lite::Tensor).
typedef struct PD_Tensor PD_Tensor;

// -------------------------------------------------------------- config

/// A new config with the defaults of paddle_lite::Config, in `*out`.
PD_Status PD_ConfigCreate(PD_Config** out);
/// Releases a config; predictors made from it keep their own copy.
void PD_ConfigDestroy(PD_Config* config);

/// The model on disk: a folder, or a program file (`*.pdmodel`,
/// `__model__`) with `params_file` its combined parameters, or NULL or ""
/// when they sit beside it. Paths are checked by PD_PredictorCreate.
PD_Status PD_ConfigSetModel(PD_Config* config,
                            const char* model_path,
                            const char* params_file);
/// The model from memory: program bytes and combined parameter bytes. Both
/// are copied; NULL is allowed for an empty buffer.
PD_Status PD_ConfigSetModelBuffer(PD_Config* config,
                                  const void* program,
                                  size_t program_size,
                                  const void* params,
                                  size_t params_size);
/// Threads for the kernels, 1 to 1024 (default 1).
PD_Status PD_ConfigSetCpuThreads(PD_Config* config, int threads);
/// Non-zero prefers oneDNN kernels on the CPU (the default); 0 leaves the
/// plain reference kernels.
PD_Status PD_ConfigEnableMKLDNN(PD_Config* config, int enable);
/// Non-zero runs the graph passes (the default); 0 runs the program as
/// saved.
PD_Status PD_ConfigSwitchIrOptim(PD_Config* config, int enable);
/// Non-zero plans memory and replays plans for shapes seen before (the
/// default).
PD_Status PD_ConfigEnableMemoryOptim(PD_Config* config, int enable);
/// Bytes the predictor's shape-dependent caches may hold together; 0: the
/// default (224 MB).
PD_Status PD_ConfigSetCacheBudget(PD_Config* config, size_t bytes);
/// Non-zero (the default) makes each new input shape's oneDNN primitives
/// ahead of its run, on a core the predictor's threads leave free
/// (Config::EnableMakeAhead); zero leaves each run to make its own.
PD_Status PD_ConfigEnableMakeAhead(PD_Config* config, int enable);
/// Non-zero (the default) lets shapes whose oneDNN kernels are not made
/// run on the plain kernels, which make nothing per shape, when they are
/// measured faster for the model (Config::EnableGenericKernels); zero
/// keeps every run on the preferred kernels.
PD_Status PD_ConfigEnableGenericKernels(PD_Config* config, int enable);
/// Non-zero (the default) runs a small model once at load on zeros of its
/// declared input shapes, so that its first real run costs what any new
/// shape does (Config::EnableWarmup); zero leaves that to the first run.
PD_Status PD_ConfigEnableWarmup(PD_Config* config, int enable);
/// Non-zero (the default) gives a run that one thread is estimated to
/// finish in under the limit (PD_ConfigSetNarrowRunLimit, 2 ms by default)
/// to one thread, when its shape follows another, where the predictor has
/// several (Config::EnableNarrowRuns); zero keeps every run on all the
/// threads.
/// Since version 2.
PD_Status PD_ConfigEnableNarrowRuns(PD_Config* config, int enable);
/// That limit, in ms (Config::SetNarrowRunLimit). Since version 2.
PD_Status PD_ConfigSetNarrowRunLimit(PD_Config* config, double ms);
/// Non-zero makes every row of a product come out, bit for bit, as it
/// does run alone, whatever rows run beside it: what a service batching
/// requests owes each (Config::EnableBatchInvariance; off by default, and
/// on it turns the generic kernels and narrow runs off). Since version 5.
PD_Status PD_ConfigEnableBatchInvariance(PD_Config* config, int enable);
/// Host memory limits in bytes for one tensor and for all tensors of a
/// run; 0 keeps the default (a quarter, a half of physical memory).
PD_Status PD_ConfigSetMemoryLimits(PD_Config* config,
                                   size_t tensor_bytes,
                                   size_t run_bytes);
/// The most loop iterations one run may make, all its loops together
/// (Config::SetMaxLoopIterations; default 1048576, 0: no limit, < 0
/// refused); past it the run fails with PD_RESOURCE_EXHAUSTED. Since
/// version 4.
PD_Status PD_ConfigSetMaxLoopIterations(PD_Config* config, int64_t iterations);
/// Where ops run: "cpu", "cuda:0" or a plugin's device such as "npu:1".
PD_Status PD_ConfigSetDevice(PD_Config* config, const char* place);
/// A plugin (shared library) to load when the predictor is created.
PD_Status PD_ConfigLoadPlugin(PD_Config* config, const char* path);

// ----------------------------------------------------------- predictor

/// Loads and prepares the model of `config` into a new predictor, `*out`.
/// A missing or broken model file is an error naming the file.
PD_Status PD_PredictorCreate(const PD_Config* config, PD_Predictor** out);
/// A new predictor sharing `predictor`'s weights (read-only), with inputs,
/// outputs and buffers of its own: one per thread. Not while `predictor`
/// is used from another thread (clone the clones from the thread that
/// owns the first, then hand them out).
PD_Status PD_PredictorClone(const PD_Predictor* predictor, PD_Predictor** out);
/// Releases a predictor. Its tensor handles must not be used afterwards,
/// but may still be destroyed.
void PD_PredictorDestroy(PD_Predictor* predictor);

/// Runs the model on the current inputs (each reshaped and filled).
PD_Status PD_PredictorRun(PD_Predictor* predictor);

/// The number of model inputs; 0 for NULL.
size_t PD_PredictorGetInputNum(const PD_Predictor* predictor);
/// The number of model outputs; 0 for NULL.
size_t PD_PredictorGetOutputNum(const PD_Predictor* predictor);
/// The name of input `index` (feed order) in `*name`, valid while the
/// predictor lives.
PD_Status PD_PredictorGetInputName(const PD_Predictor* predictor,
                                   size_t index,
                                   const char** name);
/// The name of output `index` (fetch order) in `*name`, valid while the
/// predictor lives.
PD_Status PD_PredictorGetOutputName(const PD_Predictor* predictor,
                                    size_t index,
                                    const char** name);
/// A handle to the input called `name`, `*out`; PD_NOT_FOUND, listing the
/// inputs, for an unknown name.
PD_Status PD_PredictorGetInputHandle(PD_Predictor* predictor,
                                     const char* name,
                                     PD_Tensor** out);
/// A handle to the output called `name`: it reads the last run's value.
PD_Status PD_PredictorGetOutputHandle(PD_Predictor* predictor,
                                      const char* name,
                                      PD_Tensor** out);

// -------------------------------------------------------------- tensor

/// Releases a tensor handle (not the tensor: the predictor owns that).
void PD_TensorDestroy(PD_Tensor* tensor);
/// The input or output name, valid while the handle lives; NULL for NULL.
const char* PD_TensorGetName(const PD_Tensor* tensor);

/// Inputs: the shape of the data the next PD_TensorCopyFromCpu gives.
/// `dims` holds `ndim` sizes, each >= 0 (NULL when `ndim` is 0: a scalar).
/// `ndim` above 64 is PD_INVALID_ARGUMENT (a negative count cast to
/// size_t, say), and `dims` is not read.
PD_Status PD_TensorReshape(PD_Tensor* tensor, size_t ndim, const int64_t* dims);
/// Inputs: copies `bytes` bytes of `dtype` elements, C order, from `data`.
/// `bytes` must be the reshaped element count times PD_DataTypeSize(dtype);
/// PD_INVALID_ARGUMENT otherwise, and nothing is read. float16 and bfloat16
/// elements are their 16-bit patterns (IEEE binary16; the upper half of a
/// binary32).
PD_Status PD_TensorCopyFromCpu(PD_Tensor* tensor,
                               PD_DataType dtype,
                               const void* data,
                               size_t bytes);
/// Copies the tensor's elements (of PD_TensorGetDataType) to `data`.
/// `bytes` must be their exact size; PD_INVALID_ARGUMENT otherwise, and
/// nothing is written. For an input that is the data last copied in: a
/// PD_TensorReshape since then changes what PD_TensorGetDims reports, not
/// the data, until the next PD_TensorCopyFromCpu.
PD_Status PD_TensorCopyToCpu(const PD_Tensor* tensor, void* data, size_t bytes);

/// The number of dimensions in `*ndim`. Outputs have a shape once the
/// predictor ran; an input has the one last given to PD_TensorReshape on
/// this handle, else that of its data. PD_PRECONDITION_NOT_MET for an
/// output before the predictor's first successful run (the message says
/// whether a run failed); 0 (no dims) for one after a failed run that
/// followed a successful one, and for an input with neither: not a
/// scalar, as PD_TensorCopyToCpu's PD_PRECONDITION_NOT_MET shows.
PD_Status PD_TensorGetNumDims(const PD_Tensor* tensor, size_t* ndim);
/// The shape, in `dims[0 .. ndim)`; `capacity` is the room in `dims`, an
/// error when less than the number of dimensions.
PD_Status PD_TensorGetDims(const PD_Tensor* tensor,
                           int64_t* dims,
                           size_t capacity);
/// The element type: that of the data, or for an input not yet filled the
/// type the model declares.
PD_Status PD_TensorGetDataType(const PD_Tensor* tensor, PD_DataType* dtype);

/// Inputs: sets the LoD (sequence offsets). Level `i` has
/// `level_sizes[i]` offsets, and `offsets` holds all levels one after
/// another, e.g. one level {0, 3, 5}: num_levels 1, level_sizes {3}. Zero
/// levels clears it. PD_PredictorRun fails with PD_INVALID_ARGUMENT
/// naming the input, whether or not the model reads the LoD, unless each
/// level starts at 0, never decreases, and ends at the sequence count of
/// the level below (its offsets less one), the last level at the input's
/// rows. The LoD stays with the input for later PD_TensorCopyFromCpu
/// calls and runs until set again: clear it (zero levels) before data
/// without one, or of another row count.
/// `num_levels` above 64, or a level of more than 2^32 + 1 offsets, is
/// PD_INVALID_ARGUMENT, and nothing is read.
PD_Status PD_TensorSetLoD(PD_Tensor* tensor,
                          size_t num_levels,
                          const size_t* level_sizes,
                          const size_t* offsets);
/// The number of LoD levels in `*num_levels` (0: none).
PD_Status PD_TensorGetLoDNumLevels(const PD_Tensor* tensor, size_t* num_levels);
/// LoD level `level`: its number of offsets in `*size`, and when `offsets`
/// is not NULL the offsets themselves (`capacity` is the room there, an
/// error when less than `*size`).
PD_Status PD_TensorGetLoDLevel(const PD_Tensor* tensor,
                               size_t level,
                               size_t* offsets,
                               size_t capacity,
                               size_t* size);

#undef PD_ENUM_AS_INT

#ifdef __cplusplus
}  // extern "C"
#endif
