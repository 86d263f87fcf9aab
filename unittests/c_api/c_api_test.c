// The C API from C: the demo model run through paddle_lite_c.h by a plain
// C11 program (no C++ compiler or runtime at this end), checked against the
// expected output the model ships with; a clone, clones on threads of their
// own, a model from buffers, and every kind of misuse, each a status and a
// message, never a crash.
//
//   c_api_test MODEL_DIR      (models/demo_convnet)

// nanosleep, in a strict C11 build.
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "paddle_lite/paddle_lite_c.h"

static int passed = 0;
static int failed = 0;

// Counts a check; on failure prints it with the last API error.
#define CHECK(cond)                                                         \
  do {                                                                      \
    if (cond) {                                                             \
      ++passed;                                                             \
    } else {                                                                \
      ++failed;                                                             \
      fprintf(stderr, "%s:%d: FAILED: %s (last error: \"%s\")\n", __FILE__, \
              __LINE__, #cond, PD_GetLastError());                          \
    }                                                                       \
  } while (0)

// A call expected to fail with `status` and a message containing `text`.
#define CHECK_ERROR(call, status, text)                                 \
  do {                                                                  \
    PD_Status got_ = (call);                                            \
    const char* message_ = PD_GetLastError();                           \
    if (got_ == (status) && strstr(message_, (text)) != NULL) {         \
      ++passed;                                                         \
    } else {                                                            \
      ++failed;                                                         \
      fprintf(stderr,                                                   \
              "%s:%d: FAILED: %s gave %s (\"%s\"), expected %s with "   \
              "\"%s\"\n",                                               \
              __FILE__, __LINE__, #call, PD_StatusName(got_), message_, \
              PD_StatusName(status), (text));                           \
    }                                                                   \
  } while (0)

// Reads a whole file into a malloc'ed buffer; NULL when it cannot.
static char* ReadFile(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  char* data = NULL;
  long end = -1;
  if (fseek(f, 0, SEEK_END) == 0) end = ftell(f);
  if (end >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = malloc(end > 0 ? (size_t)end : 1);
    if (data != NULL && fread(data, 1, (size_t)end, f) != (size_t)end) {
      free(data);
      data = NULL;
    }
  }
  fclose(f);
  *size = (size_t)end;
  return data;
}

// Reads a float32 .npy file (little-endian '<f4', C order, format version
// 1, 2 or 3): its shape into shape[0 .. *ndim) (at most 8 dims) and its
// elements into a malloc'ed array. NULL when the file is not one.
static float* ReadFloatNpy(const char* path, int64_t* shape, size_t* ndim) {
  size_t size = 0;
  char* file = ReadFile(path, &size);
  if (file == NULL) return NULL;
  float* values = NULL;
  const unsigned char* u = (const unsigned char*)file;
  // Magic, version, then the header length: 2 bytes in version 1, 4 after.
  size_t header_len = 0;
  size_t offset = 0;
  if (size >= 12 && memcmp(file, "\x93NUMPY", 6) == 0) {
    if (u[6] == 1) {
      header_len = (size_t)u[8] | (size_t)u[9] << 8;
      offset = 10;
    } else if (u[6] == 2 || u[6] == 3) {
      header_len = (size_t)u[8] | (size_t)u[9] << 8 | (size_t)u[10] << 16 |
                   (size_t)u[11] << 24;
      offset = 12;
    }
  }
  if (offset == 0 || header_len > size - offset) goto done;
  char header[512];
  if (header_len >= sizeof(header)) goto done;
  memcpy(header, file + offset, header_len);
  header[header_len] = '\0';
  offset += header_len;
  if (strstr(header, "'descr': '<f4'") == NULL ||
      strstr(header, "'fortran_order': False") == NULL) {
    goto done;
  }
  const char* p = strstr(header, "'shape': (");
  if (p == NULL) goto done;
  p += strlen("'shape': (");
  *ndim = 0;
  int64_t count = 1;
  while (*p != ')') {
    char* end = NULL;
    long long d = strtoll(p, &end, 10);
    if (end == p || d < 0 || *ndim == 8) goto done;
    shape[(*ndim)++] = d;
    count *= d;
    p = end;
    while (*p == ',' || *p == ' ') ++p;
  }
  if ((size - offset) != (size_t)count * sizeof(float)) goto done;
  values = malloc(count > 0 ? (size_t)count * sizeof(float) : 1);
  if (values != NULL) memcpy(values, file + offset, (size_t)count * 4);
done:
  free(file);
  return values;
}

static int Near(const float* got, const float* expected, size_t n, double rel) {
  for (size_t i = 0; i < n; ++i) {
    if (fabs((double)got[i] - expected[i]) > 1e-4 + rel * fabs(expected[i])) {
      fprintf(stderr, "element %zu: got %g, expected %g\n", i, got[i],
              expected[i]);
      return 0;
    }
  }
  return 1;
}

// The example of docs/c_api.md, verbatim: runs a model with one float input
// and one float output; returns 0 on success.
static int RunOnce(const char* model_dir,
                   const float* input,
                   const int64_t* shape,
                   size_t ndim,
                   float* output,
                   size_t output_bytes) {
  PD_Config* config = NULL;
  PD_Predictor* predictor = NULL;
  PD_Tensor* in = NULL;
  PD_Tensor* out = NULL;
  const char* name = NULL;
  size_t count = 1;
  for (size_t i = 0; i < ndim; ++i) count *= (size_t)shape[i];

  int ok = PD_ConfigCreate(&config) == PD_OK &&
           PD_ConfigSetModel(config, model_dir, NULL) == PD_OK &&
           PD_ConfigSetCpuThreads(config, 2) == PD_OK &&
           PD_PredictorCreate(config, &predictor) == PD_OK &&
           PD_PredictorGetInputName(predictor, 0, &name) == PD_OK &&
           PD_PredictorGetInputHandle(predictor, name, &in) == PD_OK &&
           PD_TensorReshape(in, ndim, shape) == PD_OK &&
           PD_TensorCopyFromCpu(in, PD_FLOAT32, input, count * sizeof(float)) ==
               PD_OK &&
           PD_PredictorRun(predictor) == PD_OK &&
           PD_PredictorGetOutputName(predictor, 0, &name) == PD_OK &&
           PD_PredictorGetOutputHandle(predictor, name, &out) == PD_OK &&
           PD_TensorCopyToCpu(out, output, output_bytes) == PD_OK;
  if (!ok) fprintf(stderr, "error: %s\n", PD_GetLastError());

  PD_TensorDestroy(out);
  PD_TensorDestroy(in);
  PD_PredictorDestroy(predictor);
  PD_ConfigDestroy(config);
  return ok ? 0 : 1;
}

// The model's input, its expected output, and their shapes.
typedef struct Demo {
  const char* dir;
  float* input;
  int64_t input_shape[8];
  size_t input_ndim;
  size_t input_count;
  float* expected;
  int64_t expected_shape[8];
  size_t expected_ndim;
  size_t expected_count;
} Demo;

static size_t Count(const int64_t* shape, size_t ndim) {
  size_t n = 1;
  for (size_t i = 0; i < ndim; ++i) n *= (size_t)shape[i];
  return n;
}

// Feeds the demo input to `predictor`, runs it and returns its output in
// `got` (expected_count floats); 1 when every step succeeded.
static int Feed(PD_Predictor* predictor, const Demo* demo) {
  PD_Tensor* in = NULL;
  int ok = PD_PredictorGetInputHandle(predictor, "x", &in) == PD_OK &&
           PD_TensorReshape(in, demo->input_ndim, demo->input_shape) == PD_OK &&
           PD_TensorCopyFromCpu(in, PD_FLOAT32, demo->input,
                                demo->input_count * sizeof(float)) == PD_OK;
  PD_TensorDestroy(in);
  return ok;
}

static int RunAndRead(PD_Predictor* predictor, const Demo* demo, float* got) {
  PD_Tensor* out = NULL;
  int ok =
      Feed(predictor, demo) && PD_PredictorRun(predictor) == PD_OK &&
      PD_PredictorGetOutputHandle(predictor, "softmax.tmp_0", &out) == PD_OK &&
      PD_TensorCopyToCpu(out, got, demo->expected_count * sizeof(float)) ==
          PD_OK;
  PD_TensorDestroy(out);
  return ok;
}

static PD_Predictor* CreateFromDir(const char* dir, int threads) {
  PD_Config* config = NULL;
  PD_Predictor* predictor = NULL;
  if (PD_ConfigCreate(&config) != PD_OK) return NULL;
  if (PD_ConfigSetModel(config, dir, NULL) != PD_OK ||
      PD_ConfigSetCpuThreads(config, threads) != PD_OK ||
      PD_PredictorCreate(config, &predictor) != PD_OK) {
    predictor = NULL;
  }
  PD_ConfigDestroy(config);
  return predictor;
}

static void TestBasics(void) {
  CHECK(PD_CApiVersion() == PD_C_API_VERSION);
  CHECK(PD_DataTypeSize(PD_FLOAT32) == 4 && PD_DataTypeSize(PD_INT64) == 8 &&
        PD_DataTypeSize(PD_FLOAT16) == 2 && PD_DataTypeSize(PD_BOOL) == 1);
  // Any int is answered (C++ reads the enums as int; UBSan checks it).
  CHECK(PD_DataTypeSize((PD_DataType)42) == 0);
  CHECK(PD_DataTypeSize((PD_DataType)-1) == 0);
  CHECK(strcmp(PD_DataTypeName((PD_DataType)1000), "") == 0);
  CHECK(strcmp(PD_StatusName((PD_Status)1000), "Unknown") == 0);
  CHECK(strcmp(PD_StatusName((PD_Status)-7), "Unknown") == 0);
  CHECK(strcmp(PD_DataTypeName(PD_INT64), "int64") == 0);
  CHECK(strcmp(PD_StatusName(PD_OK), "OK") == 0);
  CHECK(strcmp(PD_StatusName(PD_NOT_FOUND), "NotFound") == 0);
  CHECK(strcmp(PD_StatusName(PD_UNKNOWN), "Unknown") == 0);
}

// Create, names, reshape, copy in, run, copy out, shape and type.
static void TestRun(const Demo* demo) {
  PD_Predictor* predictor = CreateFromDir(demo->dir, 1);
  CHECK(predictor != NULL);
  if (predictor == NULL) return;
  CHECK(strcmp(PD_GetLastError(), "") == 0);  // "" after a success

  const char* name = NULL;
  CHECK(PD_PredictorGetInputNum(predictor) == 1);
  CHECK(PD_PredictorGetOutputNum(predictor) == 1);
  CHECK(PD_PredictorGetInputName(predictor, 0, &name) == PD_OK &&
        strcmp(name, "x") == 0);
  CHECK(PD_PredictorGetOutputName(predictor, 0, &name) == PD_OK &&
        strcmp(name, "softmax.tmp_0") == 0);

  PD_Tensor* in = NULL;
  CHECK(PD_PredictorGetInputHandle(predictor, "x", &in) == PD_OK);
  CHECK(strcmp(PD_TensorGetName(in), "x") == 0);
  PD_DataType dtype = PD_INT8;
  CHECK(PD_TensorGetDataType(in, &dtype) == PD_OK && dtype == PD_FLOAT32);
  CHECK(PD_TensorReshape(in, demo->input_ndim, demo->input_shape) == PD_OK);
  size_t ndim = 0;
  int64_t dims[8] = {0};
  CHECK(PD_TensorGetNumDims(in, &ndim) == PD_OK && ndim == demo->input_ndim);
  CHECK(PD_TensorGetDims(in, dims, 8) == PD_OK &&
        memcmp(dims, demo->input_shape, ndim * sizeof(int64_t)) == 0);
  CHECK(PD_TensorCopyFromCpu(in, PD_FLOAT32, demo->input,
                             demo->input_count * sizeof(float)) == PD_OK);
  CHECK(PD_PredictorRun(predictor) == PD_OK);

  PD_Tensor* out = NULL;
  CHECK(PD_PredictorGetOutputHandle(predictor, "softmax.tmp_0", &out) == PD_OK);
  CHECK(PD_TensorGetNumDims(out, &ndim) == PD_OK &&
        ndim == demo->expected_ndim);
  CHECK(PD_TensorGetDims(out, dims, 8) == PD_OK &&
        memcmp(dims, demo->expected_shape, ndim * sizeof(int64_t)) == 0);
  CHECK(PD_TensorGetDataType(out, &dtype) == PD_OK && dtype == PD_FLOAT32);
  float* got = calloc(demo->expected_count, sizeof(float));
  CHECK(PD_TensorCopyToCpu(out, got, demo->expected_count * sizeof(float)) ==
        PD_OK);
  CHECK(Near(got, demo->expected, demo->expected_count, 1e-3));

  // A clone runs on the shared weights and gives the same output.
  PD_Predictor* clone = NULL;
  CHECK(PD_PredictorClone(predictor, &clone) == PD_OK);
  float* cloned = calloc(demo->expected_count, sizeof(float));
  CHECK(clone != NULL && RunAndRead(clone, demo, cloned));
  CHECK(memcmp(cloned, got, demo->expected_count * sizeof(float)) == 0);
  PD_PredictorDestroy(clone);

  // The first predictor still runs after its clone is gone.
  CHECK(RunAndRead(predictor, demo, cloned));
  CHECK(Near(cloned, demo->expected, demo->expected_count, 1e-3));

  free(cloned);
  free(got);
  PD_TensorDestroy(out);
  PD_TensorDestroy(in);
  PD_PredictorDestroy(predictor);
}

// A clone outlives the predictor it came from (they share the weights),
// and clones run at once on threads of their own, each thread with its own
// last error.
typedef struct {
  PD_Predictor* predictor;
  const Demo* demo;
  char missing_name[32];  // an input name this thread's errors name
  int runs_matching;
  int own_error_kept;
} CloneRun;

static void* RunClone(void* arg) {
  CloneRun* run = (CloneRun*)arg;
  float* got = calloc(run->demo->expected_count, sizeof(float));
  const struct timespec pause = {0, 1000000};  // 1 ms
  for (int i = 0; i < 20; ++i) {
    if (got != NULL && RunAndRead(run->predictor, run->demo, got) &&
        Near(got, run->demo->expected, run->demo->expected_count, 1e-3)) {
      ++run->runs_matching;
    }
    // This thread's error stays while the other threads' calls succeed
    // (clearing theirs) and fail (setting theirs).
    PD_Tensor* missing = NULL;
    PD_PredictorGetInputHandle(run->predictor, run->missing_name, &missing);
    nanosleep(&pause, NULL);
    if (strstr(PD_GetLastError(), run->missing_name) != NULL) {
      ++run->own_error_kept;
    }
  }
  free(got);
  return NULL;
}

static void TestClonesOnThreads(const Demo* demo) {
  PD_Predictor* original = CreateFromDir(demo->dir, 1);
  CHECK(original != NULL);
  if (original == NULL) return;
  enum { kClones = 4 };
  CloneRun runs[kClones];
  pthread_t threads[kClones];
  memset(runs, 0, sizeof(runs));
  for (int i = 0; i < kClones; ++i) {
    runs[i].demo = demo;
    snprintf(runs[i].missing_name, sizeof(runs[i].missing_name),
             "not_an_input_%d", i);
    CHECK(PD_PredictorClone(original, &runs[i].predictor) == PD_OK);
  }
  // The clones run without the predictor they came from.
  PD_PredictorDestroy(original);
  int started[kClones] = {0};
  for (int i = 0; i < kClones; ++i) {
    CHECK(runs[i].predictor != NULL);
    if (runs[i].predictor == NULL) continue;
    started[i] = pthread_create(&threads[i], NULL, RunClone, &runs[i]) == 0;
    CHECK(started[i]);
  }
  for (int i = 0; i < kClones; ++i) {
    if (started[i]) pthread_join(threads[i], NULL);
  }
  for (int i = 0; i < kClones; ++i) {
    CHECK(runs[i].runs_matching == 20);
    CHECK(runs[i].own_error_kept == 20);
    PD_PredictorDestroy(runs[i].predictor);
  }
  // This thread made no call that failed since its last success.
  CHECK(strcmp(PD_GetLastError(), "") == 0);
}

// The model as program + params files, from memory, and the docs example.
static void TestModelSources(const Demo* demo) {
  char program[4096];
  char params[4096];
  snprintf(program, sizeof(program), "%s/model.pdmodel", demo->dir);
  snprintf(params, sizeof(params), "%s/model.pdiparams", demo->dir);
  float* got = calloc(demo->expected_count, sizeof(float));

  PD_Config* config = NULL;
  PD_Predictor* predictor = NULL;
  CHECK(PD_ConfigCreate(&config) == PD_OK);
  CHECK(PD_ConfigSetModel(config, program, params) == PD_OK);
  CHECK(PD_ConfigSwitchIrOptim(config, 0) == PD_OK);
  CHECK(PD_ConfigEnableMKLDNN(config, 0) == PD_OK);
  CHECK(PD_ConfigEnableMemoryOptim(config, 0) == PD_OK);
  CHECK(PD_ConfigSetCacheBudget(config, 64 << 20) == PD_OK);
  CHECK(PD_ConfigEnableMakeAhead(config, 0) == PD_OK);
  CHECK(PD_ConfigEnableMakeAhead(NULL, 1) == PD_INVALID_ARGUMENT);
  CHECK(PD_ConfigEnableGenericKernels(config, 1) == PD_OK);
  CHECK(PD_ConfigEnableGenericKernels(NULL, 1) == PD_INVALID_ARGUMENT);
  CHECK(PD_ConfigEnableWarmup(config, 0) == PD_OK);
  CHECK(PD_ConfigEnableWarmup(NULL, 1) == PD_INVALID_ARGUMENT);
  CHECK(PD_ConfigEnableNarrowRuns(config, 1) == PD_OK);
  CHECK(PD_ConfigEnableNarrowRuns(NULL, 1) == PD_INVALID_ARGUMENT);
  CHECK(PD_ConfigSetNarrowRunLimit(config, 2.0) == PD_OK);
  CHECK(PD_ConfigSetNarrowRunLimit(config, -1.0) == PD_INVALID_ARGUMENT);
  CHECK(PD_ConfigSetNarrowRunLimit(NULL, 2.0) == PD_INVALID_ARGUMENT);
  CHECK(PD_ConfigEnableBatchInvariance(config, 1) == PD_OK);
  CHECK(PD_ConfigEnableBatchInvariance(NULL, 1) == PD_INVALID_ARGUMENT);
  CHECK(PD_ConfigSetMemoryLimits(config, 256 << 20, 512 << 20) == PD_OK);
  CHECK(PD_ConfigSetMaxLoopIterations(config, 1000) == PD_OK);
  CHECK(PD_ConfigSetMaxLoopIterations(NULL, 1000) == PD_INVALID_ARGUMENT);
  CHECK(PD_ConfigSetMaxLoopIterations(config, -1) == PD_INVALID_ARGUMENT);
  CHECK(PD_ConfigSetDevice(config, "cpu") == PD_OK);
  CHECK(PD_PredictorCreate(config, &predictor) == PD_OK);
  CHECK(predictor != NULL && RunAndRead(predictor, demo, got) &&
        Near(got, demo->expected, demo->expected_count, 1e-3));
  PD_PredictorDestroy(predictor);
  predictor = NULL;

  size_t program_size = 0;
  size_t params_size = 0;
  char* program_bytes = ReadFile(program, &program_size);
  char* params_bytes = ReadFile(params, &params_size);
  CHECK(program_bytes != NULL && params_bytes != NULL);
  CHECK(PD_ConfigSetModelBuffer(config, program_bytes, program_size,
                                params_bytes, params_size) == PD_OK);
  // The buffers were copied: the caller may free them at once.
  free(program_bytes);
  free(params_bytes);
  memset(got, 0, demo->expected_count * sizeof(float));
  CHECK(PD_PredictorCreate(config, &predictor) == PD_OK);
  CHECK(predictor != NULL && RunAndRead(predictor, demo, got) &&
        Near(got, demo->expected, demo->expected_count, 1e-3));
  PD_PredictorDestroy(predictor);
  PD_ConfigDestroy(config);

  memset(got, 0, demo->expected_count * sizeof(float));
  CHECK(RunOnce(demo->dir, demo->input, demo->input_shape, demo->input_ndim,
                got, demo->expected_count * sizeof(float)) == 0);
  CHECK(Near(got, demo->expected, demo->expected_count, 1e-3));
  free(got);
}

static void TestLoD(const Demo* demo) {
  PD_Predictor* predictor = CreateFromDir(demo->dir, 1);
  CHECK(predictor != NULL);
  if (predictor == NULL) return;
  PD_Tensor* in = NULL;
  CHECK(PD_PredictorGetInputHandle(predictor, "x", &in) == PD_OK);
  size_t levels = 99;
  CHECK(PD_TensorGetLoDNumLevels(in, &levels) == PD_OK && levels == 0);
  // Two levels, {0, 1} and {0, 1, 2}, one after the other.
  const size_t level_sizes[] = {2, 3};
  const size_t offsets[] = {0, 1, 0, 1, 2};
  CHECK(PD_TensorSetLoD(in, 2, level_sizes, offsets) == PD_OK);
  CHECK(PD_TensorGetLoDNumLevels(in, &levels) == PD_OK && levels == 2);
  size_t got[3] = {0};
  size_t size = 0;
  CHECK(PD_TensorGetLoDLevel(in, 1, NULL, 0, &size) == PD_OK && size == 3);
  CHECK(PD_TensorGetLoDLevel(in, 1, got, 3, &size) == PD_OK && size == 3 &&
        got[0] == 0 && got[1] == 1 && got[2] == 2);
  CHECK_ERROR(PD_TensorGetLoDLevel(in, 1, got, 2, &size), PD_INVALID_ARGUMENT,
              "room");
  CHECK_ERROR(PD_TensorGetLoDLevel(in, 2, NULL, 0, &size), PD_OUT_OF_RANGE,
              "level 2");
  // The LoD survives the copy of data that follows it.
  CHECK(Feed(predictor, demo));
  CHECK(PD_TensorGetLoDNumLevels(in, &levels) == PD_OK && levels == 2);
  CHECK(PD_TensorSetLoD(in, 0, NULL, NULL) == PD_OK);
  CHECK(PD_TensorGetLoDNumLevels(in, &levels) == PD_OK && levels == 0);
  CHECK_ERROR(PD_TensorSetLoD(in, 1, NULL, offsets), PD_INVALID_ARGUMENT,
              "level_sizes is NULL");
  CHECK_ERROR(PD_TensorSetLoD(in, 1, level_sizes, NULL), PD_INVALID_ARGUMENT,
              "offsets is NULL");
  // After a run that fails (a LoD past the input's rows), the outputs of
  // the run before are not read as its: PD_PRECONDITION_NOT_MET.
  float* got_out = malloc(demo->expected_count * sizeof(float));
  CHECK(got_out != NULL && RunAndRead(predictor, demo, got_out));
  const size_t one_level[] = {2};
  const size_t past_rows[] = {0, 7};
  CHECK(PD_TensorSetLoD(in, 1, one_level, past_rows) == PD_OK);
  CHECK_ERROR(PD_PredictorRun(predictor), PD_INVALID_ARGUMENT, "'x'");
  PD_Tensor* out = NULL;
  CHECK(PD_PredictorGetOutputHandle(predictor, "softmax.tmp_0", &out) ==
        PD_OK);
  if (got_out != NULL) {
    CHECK_ERROR(
        PD_TensorCopyToCpu(out, got_out, demo->expected_count * sizeof(float)),
        PD_PRECONDITION_NOT_MET, "the last Run() failed");
  }
  PD_DataType dtype = PD_FLOAT32;
  CHECK_ERROR(PD_TensorGetDataType(out, &dtype), PD_PRECONDITION_NOT_MET,
              "the last Run() failed");
  size_t ndim = 9;
  CHECK(PD_TensorGetNumDims(out, &ndim) == PD_OK && ndim == 0);
  PD_TensorDestroy(out);
  free(got_out);
  PD_TensorDestroy(in);
  PD_PredictorDestroy(predictor);

  // A first run that fails: the outputs never had a shape, and the
  // message says the run failed rather than that none was made.
  predictor = CreateFromDir(demo->dir, 1);
  CHECK(predictor != NULL);
  if (predictor == NULL) return;
  CHECK_ERROR(PD_PredictorRun(predictor), PD_PRECONDITION_NOT_MET,
              "Input 'x' has no data");
  CHECK(PD_PredictorGetOutputHandle(predictor, "softmax.tmp_0", &out) == PD_OK);
  ndim = 9;
  CHECK_ERROR(PD_TensorGetNumDims(out, &ndim), PD_PRECONDITION_NOT_MET,
              "the last Run() failed");
  CHECK(ndim == 9);
  PD_TensorDestroy(out);
  PD_PredictorDestroy(predictor);
}

// Misuse: each a status naming the problem; out-parameters untouched.
static void TestErrors(const Demo* demo) {
  PD_Config* config = NULL;
  PD_Predictor* predictor = NULL;
  PD_Tensor* tensor = NULL;

  // A missing model names its path.
  const char* missing = "/nonexistent/pdlite_c_api_test/model_dir";
  CHECK(PD_ConfigCreate(&config) == PD_OK);
  CHECK(PD_ConfigSetModel(config, missing, NULL) == PD_OK);
  PD_Status status = PD_PredictorCreate(config, &predictor);
  CHECK(status != PD_OK && predictor == NULL);
  CHECK(strstr(PD_GetLastError(), missing) != NULL);
  CHECK(strstr(PD_GetLastError(), "PD_PredictorCreate") != NULL);
  CHECK_ERROR(PD_ConfigSetCpuThreads(config, 0), PD_INVALID_ARGUMENT,
              "threads");
  CHECK_ERROR(PD_ConfigSetDevice(config, "no_such_device:x"),
              PD_INVALID_ARGUMENT, "no_such_device");
  PD_ConfigDestroy(config);

  // A config naming no model.
  CHECK(PD_ConfigCreate(&config) == PD_OK);
  CHECK_ERROR(PD_PredictorCreate(config, &predictor), PD_INVALID_ARGUMENT,
              "no model");
  PD_ConfigDestroy(config);

  predictor = CreateFromDir(demo->dir, 1);
  CHECK(predictor != NULL);
  if (predictor == NULL) return;

  // Names and indices.
  CHECK_ERROR(PD_PredictorGetInputHandle(predictor, "no_such_input", &tensor),
              PD_NOT_FOUND, "no_such_input");
  CHECK(tensor == NULL);
  CHECK_ERROR(PD_PredictorGetOutputHandle(predictor, "x", &tensor),
              PD_NOT_FOUND, "'x'");
  const char* name = NULL;
  CHECK_ERROR(PD_PredictorGetInputName(predictor, 1, &name), PD_OUT_OF_RANGE,
              "index 1");
  CHECK(name == NULL);
  CHECK_ERROR(PD_PredictorGetOutputName(predictor, 7, &name), PD_OUT_OF_RANGE,
              "index 7");

  // Run before the input has data; an output before any run.
  CHECK_ERROR(PD_PredictorRun(predictor), PD_PRECONDITION_NOT_MET, "'x'");
  PD_Tensor* out = NULL;
  CHECK(PD_PredictorGetOutputHandle(predictor, "softmax.tmp_0", &out) == PD_OK);
  size_t ndim = 0;
  CHECK_ERROR(PD_TensorGetNumDims(out, &ndim), PD_PRECONDITION_NOT_MET, "Run");
  float small[4] = {0};
  CHECK_ERROR(PD_TensorCopyToCpu(out, small, sizeof(small)),
              PD_PRECONDITION_NOT_MET, "Run");

  // Reshape and copy-in mistakes on the input.
  PD_Tensor* in = NULL;
  CHECK(PD_PredictorGetInputHandle(predictor, "x", &in) == PD_OK);
  CHECK_ERROR(PD_TensorCopyFromCpu(in, PD_FLOAT32, demo->input, 4),
              PD_PRECONDITION_NOT_MET, "PD_TensorReshape");
  const int64_t negative[] = {2, -3};
  CHECK_ERROR(PD_TensorReshape(in, 2, negative), PD_INVALID_ARGUMENT, ">= 0");
  // A count that was negative in the caller's code (-1 as size_t): refused
  // before the array is read.
  const int minus_one = -1;
  CHECK_ERROR(PD_TensorReshape(in, (size_t)minus_one, negative),
              PD_INVALID_ARGUMENT, "ndim is");
  CHECK_ERROR(PD_TensorReshape(in, 65, negative), PD_INVALID_ARGUMENT,
              "at most 64");
  const size_t level_sizes[1] = {2};
  const size_t offsets[2] = {0, 1};
  CHECK_ERROR(PD_TensorSetLoD(in, (size_t)minus_one, level_sizes, offsets),
              PD_INVALID_ARGUMENT, "num_levels is");
  const size_t huge_level[1] = {(size_t)minus_one};
  CHECK_ERROR(PD_TensorSetLoD(in, 1, huge_level, offsets), PD_INVALID_ARGUMENT,
              "level_sizes[0] is");
  CHECK(PD_TensorReshape(in, demo->input_ndim, demo->input_shape) == PD_OK);
  const size_t bytes = demo->input_count * sizeof(float);
  // One byte short, one element over, the wrong type for the byte count:
  // each refused before a byte is read.
  CHECK_ERROR(PD_TensorCopyFromCpu(in, PD_FLOAT32, demo->input, bytes - 1),
              PD_INVALID_ARGUMENT, "bytes");
  CHECK_ERROR(PD_TensorCopyFromCpu(in, PD_FLOAT32, demo->input, bytes + 4),
              PD_INVALID_ARGUMENT, "bytes");
  CHECK_ERROR(PD_TensorCopyFromCpu(in, PD_FLOAT64, demo->input, bytes),
              PD_INVALID_ARGUMENT, "float64");
  CHECK_ERROR(PD_TensorCopyFromCpu(in, (PD_DataType)42, demo->input, bytes),
              PD_INVALID_ARGUMENT, "42");
  CHECK_ERROR(PD_TensorCopyFromCpu(out, PD_FLOAT32, demo->input, bytes),
              PD_PRECONDITION_NOT_MET, "output");
  CHECK_ERROR(PD_TensorReshape(out, demo->input_ndim, demo->input_shape),
              PD_PRECONDITION_NOT_MET, "output");
  // A shape with a 0 takes 0 bytes, however large its other dims; the
  // runtime refuses one whose other dims overflow (ops compute with them),
  // and says so.
  const int64_t empty_huge[] = {INT64_MAX, 2, 0};
  CHECK(PD_TensorReshape(in, 3, empty_huge) == PD_OK);
  CHECK_ERROR(PD_TensorCopyFromCpu(in, PD_FLOAT32, demo->input, 4),
              PD_INVALID_ARGUMENT, "takes 0 bytes");
  CHECK_ERROR(PD_TensorCopyFromCpu(in, PD_FLOAT32, NULL, 0),
              PD_INVALID_ARGUMENT, "overflows 64 bits");
  CHECK(PD_TensorReshape(in, demo->input_ndim, demo->input_shape) == PD_OK);
  CHECK(PD_TensorCopyFromCpu(in, PD_FLOAT32, demo->input, bytes) == PD_OK);
  CHECK(PD_PredictorRun(predictor) == PD_OK);

  // Copy-out and shape-query mistakes.
  float* got = calloc(demo->expected_count + 1, sizeof(float));
  const size_t out_bytes = demo->expected_count * sizeof(float);
  CHECK_ERROR(PD_TensorCopyToCpu(out, got, out_bytes - 1), PD_INVALID_ARGUMENT,
              "bytes");
  CHECK_ERROR(PD_TensorCopyToCpu(out, got, out_bytes + 4), PD_INVALID_ARGUMENT,
              "bytes");
  int64_t dims[1] = {0};
  CHECK_ERROR(PD_TensorGetDims(out, dims, 1), PD_INVALID_ARGUMENT, "room");
  CHECK(dims[0] == 0);
  CHECK(PD_TensorCopyToCpu(out, got, out_bytes) == PD_OK);
  free(got);

  // NULL anywhere: a status, never a crash.
  CHECK_ERROR(PD_ConfigCreate(NULL), PD_INVALID_ARGUMENT, "out is NULL");
  CHECK_ERROR(PD_ConfigSetModel(NULL, "m", NULL), PD_INVALID_ARGUMENT,
              "config is NULL");
  CHECK(PD_ConfigCreate(&config) == PD_OK);
  CHECK_ERROR(PD_ConfigSetModel(config, NULL, NULL), PD_INVALID_ARGUMENT,
              "model_path is NULL");
  CHECK_ERROR(PD_ConfigSetModelBuffer(config, NULL, 10, NULL, 0),
              PD_INVALID_ARGUMENT, "program is NULL");
  CHECK_ERROR(PD_ConfigSetDevice(config, NULL), PD_INVALID_ARGUMENT,
              "place is NULL");
  CHECK_ERROR(PD_ConfigLoadPlugin(config, NULL), PD_INVALID_ARGUMENT,
              "path is NULL");
  CHECK_ERROR(PD_PredictorCreate(config, NULL), PD_INVALID_ARGUMENT,
              "out is NULL");
  PD_ConfigDestroy(config);
  CHECK_ERROR(PD_PredictorCreate(NULL, &predictor), PD_INVALID_ARGUMENT,
              "config is NULL");
  CHECK_ERROR(PD_PredictorClone(NULL, &predictor), PD_INVALID_ARGUMENT,
              "predictor is NULL");
  CHECK_ERROR(PD_PredictorRun(NULL), PD_INVALID_ARGUMENT, "predictor is NULL");
  CHECK_ERROR(PD_PredictorGetInputName(NULL, 0, &name), PD_INVALID_ARGUMENT,
              "predictor is NULL");
  CHECK_ERROR(PD_PredictorGetInputName(predictor, 0, NULL), PD_INVALID_ARGUMENT,
              "name is NULL");
  CHECK_ERROR(PD_PredictorGetInputHandle(predictor, NULL, &tensor),
              PD_INVALID_ARGUMENT, "name is NULL");
  CHECK_ERROR(PD_PredictorGetInputHandle(predictor, "x", NULL),
              PD_INVALID_ARGUMENT, "out is NULL");
  CHECK_ERROR(PD_TensorReshape(NULL, 1, dims), PD_INVALID_ARGUMENT,
              "tensor is NULL");
  CHECK_ERROR(PD_TensorReshape(in, 2, NULL), PD_INVALID_ARGUMENT,
              "dims is NULL");
  CHECK_ERROR(PD_TensorCopyFromCpu(in, PD_FLOAT32, NULL, bytes),
              PD_INVALID_ARGUMENT, "data is NULL");
  CHECK_ERROR(PD_TensorCopyToCpu(out, NULL, out_bytes), PD_INVALID_ARGUMENT,
              "data is NULL");
  CHECK_ERROR(PD_TensorGetNumDims(out, NULL), PD_INVALID_ARGUMENT,
              "ndim is NULL");
  CHECK_ERROR(PD_TensorGetDims(out, NULL, 8), PD_INVALID_ARGUMENT,
              "dims is NULL");
  CHECK_ERROR(PD_TensorGetDataType(NULL, NULL), PD_INVALID_ARGUMENT,
              "tensor is NULL");
  CHECK(PD_PredictorGetInputNum(NULL) == 0);
  CHECK(PD_PredictorGetOutputNum(NULL) == 0);
  CHECK(PD_TensorGetName(NULL) == NULL);
  PD_ConfigDestroy(NULL);
  PD_PredictorDestroy(NULL);
  PD_TensorDestroy(NULL);

  // A handle outliving its predictor may still be destroyed.
  PD_PredictorDestroy(predictor);
  PD_TensorDestroy(in);
  PD_TensorDestroy(out);
}

// A thread cancelled while in a call: the call ends as it would have
// (glibc's cancellation unwinds by an exception, which the API's catch-all
// swallowed: glibc then aborted the process), and the thread ends at its
// next cancellation point after it.
typedef struct {
  const char* dir;
  PD_Config* config;
  PD_Predictor* predictor;
  PD_Status status;
  int returned;
} CancelledCreate;

static void DestroyCreated(void* arg) {
  CancelledCreate* c = (CancelledCreate*)arg;
  PD_PredictorDestroy(c->predictor);
  PD_ConfigDestroy(c->config);
}

static void* CreateWhileCancelled(void* arg) {
  CancelledCreate* c = (CancelledCreate*)arg;
  pthread_cleanup_push(DestroyCreated, c);
  PD_ConfigCreate(&c->config);
  PD_ConfigSetModel(c->config, c->dir, NULL);
  // Pending from here: the model's file reads are cancellation points.
  pthread_cancel(pthread_self());
  c->status = PD_PredictorCreate(c->config, &c->predictor);
  c->returned = 1;
  pthread_testcancel();  // the thread ends here
  pthread_cleanup_pop(1);
  return NULL;
}

// The same for the destroy calls, which join the predictor's threads: a
// join that waits is a cancellation point (the old code aborted when the
// thread that makes shapes ahead was still at work at the destroy, which
// this test meets only by timing).
typedef struct {
  PD_Predictor* predictor;
  int returned;
} CancelledDestroy;

static void* DestroyWhileCancelled(void* arg) {
  CancelledDestroy* d = (CancelledDestroy*)arg;
  pthread_cancel(pthread_self());
  PD_PredictorDestroy(d->predictor);
  d->returned = 1;
  pthread_testcancel();  // the thread ends here
  return NULL;
}

static void TestCancelledThread(const Demo* demo) {
  CancelledCreate c = {demo->dir, NULL, NULL, PD_UNKNOWN, 0};
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, CreateWhileCancelled, &c) == 0);
  void* result = NULL;
  CHECK(pthread_join(thread, &result) == 0);
  CHECK(result == PTHREAD_CANCELED);
  CHECK(c.returned && c.status == PD_OK);
  // One thread of two cores: the predictor makes new shapes ahead on a
  // thread of its own, which its destroy joins.
  CancelledDestroy d = {CreateFromDir(demo->dir, 1), 0};
  CHECK(d.predictor != NULL);
  if (d.predictor == NULL) return;
  float* got = calloc(demo->expected_count, sizeof(float));
  CHECK(RunAndRead(d.predictor, demo, got));
  free(got);
  CHECK(pthread_create(&thread, NULL, DestroyWhileCancelled, &d) == 0);
  CHECK(pthread_join(thread, &result) == 0);
  CHECK(result == PTHREAD_CANCELED);
  CHECK(d.returned);
}

// float16 and bfloat16 in and out, as their bit patterns (C has no such
// types), on the model of unittests/test_utils/half_model.h: sum = 2 * x16 +
// xb16 as float32, float16 and bfloat16.
static void TestHalfPrecision(const char* dir) {
  PD_Predictor* predictor = CreateFromDir(dir, 1);
  CHECK(predictor != NULL);
  if (predictor == NULL) return;
  // x16: 1.5, -2, 0.25, 65504 (the largest float16), 0, -0.5.
  const uint16_t x16[6] = {0x3E00, 0xC000, 0x3400, 0x7BFF, 0x0000, 0xB800};
  // xb16: 0.5, 3, -1, 0, -0, 256.
  const uint16_t xb16[6] = {0x3F00, 0x4040, 0xBF80, 0x0000, 0x8000, 0x4380};
  // sum: 3.5, -1, -0.5, 131008 (infinity as float16, 131072 as bfloat16),
  // 0, 255.
  const float sum[6] = {3.5f, -1.0f, -0.5f, 131008.0f, 0.0f, 255.0f};
  const uint16_t sum16[6] = {0x4300, 0xBC00, 0xB800, 0x7C00, 0x0000, 0x5BF8};
  const uint16_t sumb16[6] = {0x4060, 0xBF80, 0xBF00, 0x4800, 0x0000, 0x437F};
  const int64_t shape[2] = {2, 3};
  const char* inputs[2] = {"x16", "xb16"};
  const uint16_t* input_data[2] = {x16, xb16};
  const PD_DataType input_types[2] = {PD_FLOAT16, PD_BFLOAT16};
  for (int i = 0; i < 2; ++i) {
    PD_Tensor* in = NULL;
    PD_DataType dtype = PD_FLOAT32;
    CHECK(PD_PredictorGetInputHandle(predictor, inputs[i], &in) == PD_OK);
    CHECK(PD_TensorGetDataType(in, &dtype) == PD_OK && dtype == input_types[i]);
    CHECK(PD_TensorReshape(in, 2, shape) == PD_OK);
    // The byte count is checked against the element size of the type.
    CHECK_ERROR(PD_TensorCopyFromCpu(in, input_types[i], input_data[i], 6),
                PD_INVALID_ARGUMENT, "12 bytes");
    CHECK(PD_TensorCopyFromCpu(in, input_types[i], input_data[i], 12) == PD_OK);
    PD_TensorDestroy(in);
  }
  CHECK(PD_PredictorRun(predictor) == PD_OK);
  const char* outputs[3] = {"sum", "sum16", "sumb16"};
  const PD_DataType output_types[3] = {PD_FLOAT32, PD_FLOAT16, PD_BFLOAT16};
  const void* expected[3] = {sum, sum16, sumb16};
  const size_t bytes[3] = {sizeof(sum), sizeof(sum16), sizeof(sumb16)};
  for (int i = 0; i < 3; ++i) {
    PD_Tensor* out = NULL;
    PD_DataType dtype = PD_INT8;
    unsigned char got[24] = {0};
    CHECK(PD_PredictorGetOutputHandle(predictor, outputs[i], &out) == PD_OK);
    CHECK(PD_TensorGetDataType(out, &dtype) == PD_OK &&
          dtype == output_types[i]);
    CHECK(PD_TensorCopyToCpu(out, got, bytes[i]) == PD_OK &&
          memcmp(got, expected[i], bytes[i]) == 0);
    PD_TensorDestroy(out);
  }
  PD_PredictorDestroy(predictor);
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s MODEL_DIR [HALF_PRECISION_MODEL_DIR]\n",
            argv[0]);
    return 2;
  }
  Demo demo;
  memset(&demo, 0, sizeof(demo));
  demo.dir = argv[1];
  char path[4096];
  snprintf(path, sizeof(path), "%s/input_x.npy", demo.dir);
  demo.input = ReadFloatNpy(path, demo.input_shape, &demo.input_ndim);
  snprintf(path, sizeof(path), "%s/expected_softmax.tmp_0.npy", demo.dir);
  demo.expected = ReadFloatNpy(path, demo.expected_shape, &demo.expected_ndim);
  if (demo.input == NULL || demo.expected == NULL) {
    fprintf(stderr, "cannot read the demo's float32 .npy files in %s\n",
            demo.dir);
    return 1;
  }
  demo.input_count = Count(demo.input_shape, demo.input_ndim);
  demo.expected_count = Count(demo.expected_shape, demo.expected_ndim);

  TestBasics();
  TestRun(&demo);
  TestModelSources(&demo);
  TestLoD(&demo);
  TestErrors(&demo);
  TestClonesOnThreads(&demo);
  TestCancelledThread(&demo);
  if (argc == 3) TestHalfPrecision(argv[2]);

  free(demo.input);
  free(demo.expected);
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
