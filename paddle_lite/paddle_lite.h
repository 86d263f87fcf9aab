// The public C++ API: load a PaddlePaddle model, feed inputs, run, read
// outputs. Pulls in no protobuf, Eigen or glog headers.
//
//   paddle_lite::Config config("dir/");
//   config.SetCpuThreads(2);
//   auto predictor = paddle_lite::CreatePredictor(config);
//   auto in = predictor->GetInputHandle(predictor->GetInputNames()[0]);
//   in->Reshape({1, 3, 48, 192});
//   in->CopyFromCpu(data);
//   predictor->Run();
//   auto out = predictor->GetOutputHandle(predictor->GetOutputNames()[0]);
//   out->CopyToCpu(result.data());
//
// Errors are thrown as paddle_lite::Exception (platform/errors.h), whose
// code() tells the kind and what() says where and why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "platform/errors.h"
#include "platform/float16.h"

namespace paddle_lite {

/// Element types of input and output tensors.
enum class DataType {
  FLOAT32,
  FLOAT64,
  FLOAT16,
  BFLOAT16,
  INT8,
  UINT8,
  INT16,
  INT32,
  INT64,
  BOOL,
};
const char* DataTypeName(DataType type);

/// The element types of FLOAT16 and BFLOAT16 tensors: bit patterns,
/// converted to and from float explicitly (`float16(1.5f)`,
/// `static_cast<float>(h)`).
using float16 = platform::float16;
using bfloat16 = platform::bfloat16;
static_assert(sizeof(float16) == 2 && std::is_trivially_copyable_v<float16>);
static_assert(sizeof(bfloat16) == 2 && std::is_trivially_copyable_v<bfloat16>);

/// Level-of-detail: sequence offsets per level, e.g. {{0, 3, 5}}.
using LoD = std::vector<std::vector<size_t>>;

/// How to load and run a model. Copyable; a predictor keeps its own copy.
class Config {
 public:
  Config() = default;
  /// A model folder, or a program file (`*.pdmodel`, `__model__`) whose
  /// parameters sit beside it.
  explicit Config(const std::string& model_path);
  /// A program file and its combined parameter file.
  Config(const std::string& program_file, const std::string& params_file);

  void SetModel(const std::string& model_path,
                const std::string& params_file = "");
  /// The model from memory: the program bytes and the combined parameter
  /// bytes (copied).
  void SetModelBuffer(const char* program,
                      size_t program_size,
                      const char* params,
                      size_t params_size);

  /// Loads a plugin (a shared library registering ops, kernels or a
  /// device) before the model is prepared. Plugins are process-wide.
  void LoadPlugin(const std::string& path) { plugins_.push_back(path); }
  const std::vector<std::string>& plugins() const { return plugins_; }

  /// Threads for this predictor's kernels (default 1). Clones keep it.
  void SetCpuThreads(int threads);
  /// The place ops run on: "cpu" (default, or the PDLITE_DEVICE
  /// environment variable), "cuda:0", or a plugin device such as "npu:1".
  /// Ops without a kernel there run on the CPU, with the copies inserted.
  void SetDevice(const std::string& place);
  bool device_set() const { return device_set_; }
  /// Kernel libraries to prefer, best first (e.g. {"MKLDNN"}); PLAIN is
  /// always the fallback. Replaces the default, which is {"MKLDNN"}.
  void SetKernelLibraries(std::vector<std::string> libraries);
  /// Prefers oneDNN kernels on the CPU (on by default); off leaves the
  /// plain reference kernels (and any other preferred library).
  void EnableMKLDNN(bool enable = true);
  bool mkldnn_enabled() const;
  /// Graph passes (on by default): no-op removal, batch-norm folding, conv
  /// and fc fusion, constant folding. Off runs the program as saved.
  void SwitchIrOptim(bool enable = true) { ir_optim_ = enable; }
  bool ir_optim_enabled() const { return ir_optim_; }
  /// Memory planning and plan replay (on by default): runs with input
  /// shapes seen before reuse one planned arena and skip shape inference.
  void EnableMemoryOptim(bool enable = true) { memory_optim_ = enable; }
  bool memory_optim_enabled() const { return memory_optim_; }
  /// Bytes all caches of the predictor that grow with input shapes may
  /// hold together: execution plans and their arena, oneDNN primitives,
  /// reordered weights and scratch buffers. Past it, what was used longest
  /// ago goes (and is rebuilt if needed again), so memory stays flat when
  /// every input has a new shape. 0 (default): 224 MB. Per predictor; a
  /// Clone() gets its own. RunStats::cache_bytes shows what each holds.
  /// Make-ahead's clone (EnableMakeAhead) keeps up to 16 MB more, apart,
  /// not shown there: what it makes goes on into the caches above.
  void SetCacheBudget(size_t bytes) { cache_budget_ = bytes; }
  size_t cache_budget() const { return cache_budget_; }
  /// Making a new input shape's oneDNN primitives ahead (on by default).
  /// When the predictor's threads leave a CPU core free, a clone of it runs
  /// each new input shape first, on a thread of its own, only making the
  /// shape's primitives, so that the real run finds most of them made (an
  /// OCR detector's first run of a shape about 20% faster on 2 cores at 1
  /// thread). Off, or PDLITE_MAKE_AHEAD=0: each run makes its own.
  void EnableMakeAhead(bool enable = true) { make_ahead_ = enable; }
  bool make_ahead_enabled() const { return make_ahead_; }
  /// Generic kernels for shapes not made (on by default, CPU only). When a
  /// new shape's first run on the oneDNN kernels is mostly making them (a
  /// small network), the predictor tries the plain kernels, which make
  /// nothing per shape; if they cost at most 1.5x the made oneDNN kernels
  /// per input element, every shape not made yet runs on them for good
  /// (no per-shape memory), else they take a shape's runs while make-ahead
  /// makes it, when faster. Results agree within float rounding. Only
  /// with MKLDNN among the kernel libraries (without it every run is on
  /// the plain kernels already), for a program that writes none of its
  /// inputs. Off, or PDLITE_GENERIC_KERNELS=0: every run on the preferred
  /// kernels.
  void EnableGenericKernels(bool enable = true) { generic_kernels_ = enable; }
  bool generic_kernels_enabled() const { return generic_kernels_; }
  /// A warm-up run at load (on by default, CPU only). When every input
  /// declares its shape (but for the batch, taken as 1) and together they
  /// are small (under 1 MB: a classifier, not a detector), CreatePredictor
  /// runs the model once on zeros of those shapes and forgets the run's
  /// plan: the weights get packed, the code and memory of a run touched,
  /// so that the first real run costs what any new shape does (the OCR
  /// classifier: about 2 ms more load; its first two runs of new widths
  /// 1.3-1.9x a steady run rather than 2.5-4x). A first shape much larger
  /// than the declared one still faults in its own memory. Inputs are left
  /// unset; programs with sub-blocks, inputs other than float32 or with a
  /// LoD, and kernel libraries without MKLDNN are not warmed. Off, or
  /// PDLITE_WARMUP=0: the first run pays for it.
  void EnableWarmup(bool enable = true) { warmup_ = enable; }
  bool warmup_enabled() const { return warmup_; }
  /// Small runs on one thread (on by default; CPU only, with 2 or more
  /// threads). A run that one thread is estimated to finish in under 2 ms
  /// (from the predictor's own runs, per input element) goes to a clone of
  /// the predictor on one thread: split across cores, its ops of tens of
  /// microseconds spend more moving their data between the cores' caches
  /// than the split saves (the OCR classifier at 2 threads on 1x3x48xW: no
  /// faster at the median, 1.3-1.6x slower at the 90th percentile on the
  /// project's 2-core VM). Run back to back the split can pay (its
  /// 2x3x48x192: 0.62 ms on two threads, 0.93 on one), so a small shape
  /// run 3 times in a row tries all threads for 4 runs and keeps the
  /// faster side for its runs in a row. Each shape keeps the side it was
  /// given when it follows another; RunStats::threads says which ran. The
  /// clone is made and warmed at load when the warm-up runs (small models:
  /// 3-18 ms more load and 3-6 MB more peak RSS); off, a service of one
  /// shape saves that. PDLITE_NARROW_RUNS=1 or =0 turns it on or off
  /// whatever the Config says.
  void EnableNarrowRuns(bool enable = true) { narrow_runs_ = enable; }
  bool narrow_runs_enabled() const { return narrow_runs_; }
  /// Batch-invariant results (off by default). Every row of a product
  /// (fc, mul, matmul, matmul_v2: the rows of its flattened left operand)
  /// comes out bit for bit as it does run alone, whatever rows run beside
  /// it, so a request batched with others (a server's dynamic batching)
  /// gets the answer it gets alone. A product blocked over many rows (by
  /// oneDNN or Eigen) sums in an order that changes with their number;
  /// here each row is a product of its own instead, on the kernel its own
  /// size picks. The generic kernels and narrow runs, which round
  /// otherwise or change the thread count, are off with it. Costs what
  /// blocking saves on products of many rows and large weights (an fc of
  /// 1024x1024 on 64 rows: 4-8x; a classifier's head: nothing
  /// measurable). Rows of the right operand (a batch in Y's columns, as
  /// when weights multiply transposed activations) are not covered.
  void EnableBatchInvariance(bool enable = true) { batch_invariant_ = enable; }
  bool batch_invariance_enabled() const { return batch_invariant_; }
  /// The one-thread estimate, in ms, under which a run goes to one thread
  /// (default 2; where cores share data cheaply, less pays). Throws
  /// InvalidArgument unless >= 0.
  void SetNarrowRunLimit(double ms);
  double narrow_run_limit() const { return narrow_run_ms_; }
  /// Host memory a run may use, checked before allocating: `tensor_bytes`
  /// for any one tensor, `run_bytes` for all tensors a run holds at once.
  /// A shape past either (a hostile model, a huge input) is a
  /// ResourceExhausted error naming the op and the shape, not an attempt.
  /// 0 (default): a quarter and a half of the machine's physical memory.
  /// Counted: the tensors a run of new shapes allocates (whatever ran
  /// before it); with memory optim (the default), a later run of the same
  /// shapes reuses that layout, in a block no limit counts again. Not
  /// counted in `run_bytes`: the inputs (mutable_data and CopyFromCpu
  /// check each against `tensor_bytes`), the weights, and the buffers
  /// kernels keep from run to run (held to `tensor_bytes`; oneDNN's
  /// scratchpads count in the cache budget, layout conversions' buffers
  /// take at most the largest tensor).
  void SetMemoryLimits(size_t tensor_bytes, size_t run_bytes) {
    max_tensor_bytes_ = tensor_bytes;
    max_run_bytes_ = run_bytes;
  }
  /// The limits in force (defaults resolved).
  size_t max_tensor_bytes() const;
  size_t max_run_bytes() const;
  /// The most loop iterations (`while` bodies run) one Run() may make, all
  /// its loops together; past it the run is a ResourceExhausted error
  /// naming the loop's condition, so a program whose loop never ends, or
  /// whose loops nest to multiply (a hostile or broken model), cannot hold
  /// the calling thread forever. Default 1048576; 0: no limit. Throws
  /// InvalidArgument if negative.
  void SetMaxLoopIterations(int64_t iterations);
  int64_t max_loop_iterations() const { return max_loop_iterations_; }
  /// CUDA place: the most device memory this process's allocator may
  /// hold, in use and cached together, in bytes; 0 (default) leaves the
  /// device's own limit. An allocation past it is a ResourceExhausted
  /// error naming the bytes asked for.
  void SetGpuMemoryLimit(size_t bytes) { gpu_memory_limit_ = bytes; }
  size_t gpu_memory_limit() const { return gpu_memory_limit_; }
  /// CUDA place: TF32 tensor-core math for fp32 convolutions and matmuls.
  /// Off by default: fp32 results are computed in fp32.
  void EnableTF32(bool enable = true) { tf32_ = enable; }
  bool tf32_enabled() const { return tf32_; }
  /// CUDA place: time every cuDNN convolution algorithm once per shape
  /// and keep the fastest (cached); off, cuDNN's heuristics choose.
  void EnableCudnnExhaustiveSearch(bool enable = true) {
    cudnn_exhaustive_search_ = enable;
  }
  bool cudnn_exhaustive_search_enabled() const {
    return cudnn_exhaustive_search_;
  }
  /// CUDA place: replay a plan (a repeated input-shape signature) as one
  /// CUDA graph, captured on its second replay (on by default; needs
  /// memory optim). A plan that cannot be captured runs op by op and says
  /// why in RunStats::graph_refusal.
  void EnableCudaGraph(bool enable = true) { cuda_graph_ = enable; }
  bool cuda_graph_enabled() const { return cuda_graph_; }
  /// Times every op of every Run() (RunStats::op_times); off by default.
  void EnableProfiling(bool enable = true) { profiling_ = enable; }
  bool profiling_enabled() const { return profiling_; }

  const std::string& model_path() const { return model_path_; }
  const std::string& params_file() const { return params_file_; }
  bool model_from_memory() const { return from_memory_; }
  const std::string& program_buffer() const { return program_buffer_; }
  const std::string& params_buffer() const { return params_buffer_; }
  int cpu_threads() const { return cpu_threads_; }
  const std::string& device() const { return device_; }
  const std::vector<std::string>& kernel_libraries() const {
    return libraries_;
  }

 private:
  std::string model_path_;
  std::string params_file_;
  bool from_memory_ = false;
  std::string program_buffer_;
  std::string params_buffer_;
  int cpu_threads_ = 1;
  size_t cache_budget_ = 0;
  size_t max_tensor_bytes_ = 0;
  size_t max_run_bytes_ = 0;
  int64_t max_loop_iterations_ = int64_t{1} << 20;
  std::string device_ = "cpu";
  bool device_set_ = false;
  std::vector<std::string> plugins_;
  std::vector<std::string> libraries_{"MKLDNN"};
  bool memory_optim_ = true;
  bool make_ahead_ = true;
  bool generic_kernels_ = true;
  bool warmup_ = true;
  bool narrow_runs_ = true;
  bool batch_invariant_ = false;
  double narrow_run_ms_ = 2.0;
  bool ir_optim_ = true;
  bool profiling_ = false;
  size_t gpu_memory_limit_ = 0;
  bool tf32_ = false;
  bool cudnn_exhaustive_search_ = false;
  bool cuda_graph_ = true;
};

/// Where one op of the main block runs.
struct OpPlacement {
  int index;            // position in the program's main block
  std::string type;     // op type
  std::string place;    // "cpu", "emu:0"; empty for ops without a kernel
  std::string library;  // "PLAIN", "MKLDNN", ...
  std::string reason;   // why this kernel ("exact match", "fallback: ...")
};

/// One copy of an op input to the place of the op's kernel.
struct CopyRecord {
  int op_index;
  std::string op_type;
  std::string var;
  std::string from;
  std::string to;
  size_t bytes;
  bool cached;  // a weight copied on an earlier run and reused
};

/// What the last Run() did, for benchmarks and memory checks.
/// Time one op took in a profiled Run().
struct OpTime {
  int op_index;
  std::string op_type;
  std::string kernel;  // "{float32, cpu, AnyLayout, MKLDNN}"
  double ms;
};

struct RunStats {
  std::vector<CopyRecord> copies;
  std::vector<OpTime> op_times;  // with Config::EnableProfiling
  bool replayed = false;         // input shapes matched a cached plan
  size_t arena_bytes = 0;        // intermediate buffers, planned by liveness
  size_t unplanned_bytes = 0;    // what they would take without planning
  size_t plans_cached = 0;       // input-shape signatures remembered
  int ops_inferred = 0;          // ops whose output shapes were re-inferred
  bool graph_replayed = false;   // the kernels ran as one CUDA graph
  std::string graph_refusal;     // why this run's plan is not a graph
  /// Bytes each cache holds after the run, by name ("plans", "arena",
  /// "mkldnn.primitives", "mkldnn.weights", "mkldnn.scratch"); together
  /// at most cache_budget_bytes (Config::SetCacheBudget).
  std::map<std::string, size_t> cache_bytes;
  size_t cache_budget_bytes = 0;
  /// New input shapes a clone ran ahead of the real run so far, making
  /// their primitives (Config::EnableMakeAhead; up to the first op it
  /// cannot run without computing, such as a loop).
  size_t shapes_made_ahead = 0;
  /// This run went to the generic (plain) kernels: its shape's specialised
  /// kernels were still being made ahead, and the generic ones have
  /// measured faster than making them during a run (Config::EnableMakeAhead).
  bool ran_generic = false;
  /// The threads the run had: 1 when a predictor of several gave a small
  /// run to one thread (Config::EnableNarrowRuns).
  int threads = 1;
};

/// An input or output as the program declares it.
struct TensorInfo {
  std::string name;
  DataType type = DataType::FLOAT32;
  /// Declared dims, -1 where open. A hint: programs often declare stale
  /// sizes (a detector saved at 960x960 runs at any multiple of 32).
  std::vector<int64_t> shape;
  int lod_level = 0;  // > 0: the input takes a LoD
};

class Predictor;

/// Where the memory behind a tensor handle's pointer is.
enum class PlaceType { kCPU, kGPU };

/// A handle to one input or output of a predictor. Valid while the
/// predictor lives. Input handles write the input; output handles read the
/// result of the last Run(): after a Run() that threw, reading an output
/// is PreconditionNotMet (no output of the run before is left). An output
/// never shares memory with an input (an output that is an input, or a
/// view of one, is copied as Run() ends, on its own place), so the next
/// input may be staged, or a shared buffer changed or freed, while it is
/// read.
class Tensor {
 public:
  ~Tensor();
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  const std::string& name() const { return name_; }

  /// Inputs: sets the shape for the next CopyFromCpu / mutable_data.
  void Reshape(const std::vector<int64_t>& shape);
  /// Inputs: copies shape-many elements from `data` (Reshape first).
  /// T is float, double, float16, bfloat16, int8_t, uint8_t, int16_t,
  /// int32_t, int64_t or bool (the same for every typed call below).
  template <typename T>
  void CopyFromCpu(const T* data);
  /// Inputs: a buffer to fill in place (zero-copy); Reshape first.
  template <typename T>
  T* mutable_data();
  /// Inputs: runs on `data` itself, host memory (kCPU) or memory of the
  /// predictor's CUDA device (kGPU), without a copy. It must stay valid
  /// and unchanged until Run() returns; null only for a shape of no
  /// elements. The runtime never writes it: where an op of the program
  /// writes this input (a loop's counter), or a view of it (reshape2's
  /// Out, written in place), each run works on a copy of it, so a next
  /// Run() finds it as it was given.
  template <typename T>
  void ShareExternalData(const T* data,
                         const std::vector<int64_t>& shape,
                         PlaceType place = PlaceType::kCPU);
  /// Sets the input's LoD (sequence offsets). It stays with the input until
  /// set again; Run() checks it against the input's shape and throws
  /// InvalidArgument naming the input unless each level starts at 0, never
  /// decreases, and ends at the sequence count of the level below (its
  /// offsets less one), the last level at the input's rows.
  void SetLoD(const LoD& lod);

  /// Copies the tensor's elements into `data` (shape-many).
  template <typename T>
  void CopyToCpu(T* data) const;
  /// Zero-copy read access; `size` receives the element count.
  template <typename T>
  const T* data(int64_t* size = nullptr) const;
  /// Zero-copy access on a place: kGPU gives the output in the CUDA
  /// device's memory (valid until the next Run()); PreconditionNotMet
  /// when the output was not computed there.
  template <typename T>
  const T* data(PlaceType place, int64_t* size = nullptr) const;

  std::vector<int64_t> shape() const;
  DataType type() const;
  LoD lod() const;

 private:
  friend class Predictor;
  struct Impl;
  Tensor(std::string name, std::unique_ptr<Impl> impl);
  std::string name_;
  std::unique_ptr<Impl> impl_;
};

/// Runs one model. Use from one thread at a time; Clone() gives another
/// predictor sharing the weights for another thread.
class Predictor {
 public:
  ~Predictor();
  Predictor(const Predictor&) = delete;
  Predictor& operator=(const Predictor&) = delete;

  /// Model inputs and outputs, in feed/fetch `col` order.
  std::vector<std::string> GetInputNames() const;
  std::vector<std::string> GetOutputNames() const;
  /// Throws NotFound naming the known names for an unknown name.
  std::unique_ptr<Tensor> GetInputHandle(const std::string& name);
  std::unique_ptr<Tensor> GetOutputHandle(const std::string& name);
  /// Declared type, shape and LoD level of every input and output, in the
  /// order of GetInputNames()/GetOutputNames() (what a server's model
  /// metadata reports).
  std::vector<TensorInfo> GetInputInfo() const;
  std::vector<TensorInfo> GetOutputInfo() const;

  /// Runs the model on the current inputs.
  void Run();
  /// About the last Run().
  RunStats last_run_stats() const;
  /// Where every op of the main block runs (decided when the predictor
  /// was created).
  std::vector<OpPlacement> GetOpPlacement() const;

  /// A new predictor on the same (shared, read-only) weights, with its own
  /// inputs, outputs and intermediate buffers.
  std::unique_ptr<Predictor> Clone() const;

  struct Impl;

 private:
  friend std::unique_ptr<Predictor> CreatePredictor(const Config& config);
  explicit Predictor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Loads the model and prepares it (every op must have a kernel; the error
/// lists those that do not).
std::unique_ptr<Predictor> CreatePredictor(const Config& config);

}  // namespace paddle_lite
