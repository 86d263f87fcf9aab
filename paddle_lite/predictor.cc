#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <dnnl.hpp>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <utility>

#include "framework/executor.h"
#include "framework/first_sight_policy.h"
#include "framework/make_only.h"
#include "framework/model_io.h"
#include "framework/narrow_run_policy.h"
#include "framework/pass.h"
#include "framework/plugin.h"
#include "framework/program_validator.h"
#include "kernels/cpu/plain/sgemm_util.h"
#include "paddle_lite/paddle_lite.h"
#include "platform/cache_budget.h"
#include "platform/enforce.h"
#include "platform/host_block_pool.h"

namespace paddle_lite {

namespace fw = framework;

namespace {

fw::DataType ToInternal(DataType t) {
  switch (t) {
    case DataType::FLOAT32:
      return fw::DataType::kFloat32;
    case DataType::FLOAT64:
      return fw::DataType::kFloat64;
    case DataType::FLOAT16:
      return fw::DataType::kFloat16;
    case DataType::BFLOAT16:
      return fw::DataType::kBFloat16;
    case DataType::INT8:
      return fw::DataType::kInt8;
    case DataType::UINT8:
      return fw::DataType::kUInt8;
    case DataType::INT16:
      return fw::DataType::kInt16;
    case DataType::INT32:
      return fw::DataType::kInt32;
    case DataType::INT64:
      return fw::DataType::kInt64;
    case DataType::BOOL:
      return fw::DataType::kBool;
  }
  return fw::DataType::kUndefined;
}

// The public type of `variable`'s elements (named in the error: a corrupt
// program may declare a type that no public DataType names).
DataType ToPublic(fw::DataType t, const std::string& variable) {
  for (auto p :
       {DataType::FLOAT32, DataType::FLOAT64, DataType::FLOAT16,
        DataType::BFLOAT16, DataType::INT8, DataType::UINT8, DataType::INT16,
        DataType::INT32, DataType::INT64, DataType::BOOL}) {
    if (ToInternal(p) == t) return p;
  }
  PADDLE_THROW(platform::errors::Unimplemented(
      "The variable '", variable, "' is of type ", t,
      ", which no public DataType names."));
}

}  // namespace

const char* DataTypeName(DataType type) {
  // Filled once, under the static's initialization lock: threads may ask
  // at the same time.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (int i = 0; i <= static_cast<int>(DataType::BOOL); ++i) {
      all.push_back(fw::DataTypeName(ToInternal(static_cast<DataType>(i))));
    }
    return all;
  }();
  const int i = static_cast<int>(type);
  if (i < 0 || i >= static_cast<int>(names.size())) return "";
  return names[i].c_str();
}

// ---------------------------------------------------------------- Predictor

class PrimitiveMaker;

struct Predictor::Impl {
  Config config;
  std::shared_ptr<const fw::ProgramDesc> program;
  std::shared_ptr<fw::Scope> weights;  // shared by clones, read-only
  std::shared_ptr<platform::CacheBudget> cache_budget;
  std::unique_ptr<platform::DeviceContextPool> contexts;
  std::unique_ptr<fw::Executor> executor;
  fw::Scope* scope = nullptr;  // this predictor's child of `weights`
  std::vector<std::string> feed_names;
  std::vector<std::string> fetch_names;
  // The inputs an op writes (a loop's counter, an op in place), by col.
  std::vector<size_t> written_feed_cols;
  platform::Place staging_place;  // where input handles put their data
  // Host memory of the inputs the handles stage (closed with the Impl).
  // Inputs change size with every shape: through glibc's heap they
  // fragment it (RSS stepped up at random passes of a shape stream), and
  // in the runs' pool they would take the pages that pool's decay gives
  // back while plans replay. Apart, the largest inputs' pages stay warm.
  platform::HostBlockPool* input_pool = nullptr;
  platform::DeviceContext* device_context = nullptr;  // of the target place
  // Makes each new input shape's primitives ahead of the real run (see
  // PrimitiveMaker); null when off or not yet needed.
  std::unique_ptr<PrimitiveMaker> maker;
  // Input shapes seen (as text), the oldest first out past kSeenShapes.
  static constexpr size_t kSeenShapes = 256;
  // The budget of the maker's clone: a shape's worth of its entries.
  static constexpr size_t kMakerCacheBytes = size_t{16} << 20;
  // Inputs this large make a large run: 1 MB, an image of about 300x300
  // (a detector's first run at that size takes tens of ms, a good part of
  // it making primitives). The maker races the first shape only from this
  // size; below it, the making is most of a first run, which the generic
  // kernels may take instead.
  static constexpr size_t kLargeInputBytes = size_t{1} << 20;
  // After a warm-up at load, free host pages made resident: this many
  // times the warm-up's peak, at most kWarmPagesBytes (WarmUp).
  static constexpr size_t kWarmPagesPerPeakByte = 8;
  static constexpr size_t kWarmPagesBytes = size_t{2} << 20;
  // What the predictor knows of an input shape it has seen.
  struct SeenShape {
    // Set once the maker has run the shape ahead; null when it was never
    // handed to the maker.
    std::shared_ptr<const std::atomic<bool>> made;
    // The specialised kernels have run it (made what they need).
    bool ran_specialised = false;
    // The generic kernels had shapes not made for good at its first
    // sight: it stays theirs (a decision per shape, so that a policy
    // changing its mind later makes no shape seen before), unless the
    // decision was taken before any made run was timed and the timed runs
    // say otherwise.
    bool generic_for_good = false;
    bool for_good_provisional = false;
    // Its last generic run that replayed a plan, in ms (0: none): with
    // its made runs, the policy compares both kernels on one shape.
    double generic_replay_ms = 0;
  };
  std::unordered_map<std::string, SeenShape> seen_shapes;
  std::deque<std::string> seen_order;
  // The shape of the run being routed (null when the predictor does not
  // route): valid until the next RouteRun.
  SeenShape* routed = nullptr;
  // The entry of `last_key` (null until looked up): a run of the same
  // shape skips the lookup. Entries go only when a new shape comes.
  SeenShape* last_seen = nullptr;
  // The last run's input dims and types and its shape's key: a run of the
  // same shape (the common case) skips building the key.
  std::vector<std::pair<fw::DDim, fw::DataType>> last_inputs;
  std::string last_key;
  // Whether this predictor may make ahead at all (decided in Init).
  bool make_ahead_possible = false;
  // A clone on the plain kernels (no code per shape), which runs shapes
  // whose specialised kernels are not made when `policy` says so
  // (framework/first_sight_policy.h). Null until the policy wants it;
  // usable once `generic_ready`: `generic_warmer` has made what a
  // process's first plain run makes once (oneDNN's sgemm code), off the
  // real runs.
  std::unique_ptr<Impl> generic;
  std::atomic<bool> generic_ready{false};
  std::thread generic_warmer;
  fw::FirstSightPolicy policy;
  bool generic_possible = false;  // decided in Init
  bool last_run_generic = false;
  // Whether the predictor's first run has been routed.
  bool first_run_routed = false;
  // Runs small enough for one thread go to `narrow`, a clone on one
  // thread (framework/narrow_run_policy.h, Config::EnableNarrowRuns);
  // null until a run is given to it.
  std::unique_ptr<Impl> narrow;
  fw::NarrowRunPolicy narrow_policy{1};  // set in Init
  bool narrow_possible = false;          // decided in Init
  bool last_run_narrow = false;
  // The last Run() threw: its outputs have no value (Tensor::data says
  // why).
  bool last_run_failed = false;
  // Where each input shape runs. A small shape goes to one thread at its
  // first sight and keeps that side when it follows another shape (moving
  // between the sides would make it anew on the other); a shape put on all
  // threads moves to one, once, when the estimate has fallen under the
  // limit since its first sight. Run back to back,
  // the split pays where it did not after another shape or an idle gap
  // (each core finds its part of the data where it left it): from the
  // kStreakRuns-th run in a row a small shape tries all threads for
  // kWideTrials runs and keeps the faster side for its runs in a row from
  // then on, so a service of one shape ends where it is fastest.
  struct NarrowShape {
    bool narrow = false;  // its side after another shape
    // Its side in a run of it in a row.
    enum class InARow { kUndecided, kNarrow, kWide };
    InARow in_a_row = InARow::kUndecided;
    int wide_trials = 0;
    // The best of its runs on each side, less making (negative: none).
    double narrow_best_ms = -1;
    double wide_best_ms = -1;
    static void KeepBest(double ms, double* best) {
      if (*best < 0 || ms < *best) *best = ms;
    }
  };
  static constexpr int kStreakRuns = 3;
  static constexpr int kWideTrials = 4;  // the first makes, and is not timed
  // By shape key; the oldest out past kSeenShapes.
  std::unordered_map<std::string, NarrowShape> narrow_shapes;
  std::deque<std::string> narrow_order;
  NarrowShape* narrow_shape = nullptr;  // the last run's
  std::string narrow_previous_key;
  int narrow_streak = 0;      // runs in a row of narrow_previous_key
  bool narrow_trial = false;  // this run is one of its shape's wide trials
  // The last run on this Impl's own threads, less making, when it ran the
  // specialised kernels (negative otherwise).
  double last_own_ms = -1;
  // No specialised run yet: the first pays what no later run does (the
  // weights' reorders and packing, oneDNN's first use) and teaches the
  // policy nothing. After a generic first run that is the second run, on
  // the specialised kernels (5-8 ms on the OCR classifier); the policy
  // learns from the specialised first runs after it. A small model's
  // specialised kernels make little per shape now (the classifier: its
  // stem and pooling, 0.2 ms) and its made runs beat the generic kernels
  // by 1.2-1.7x, so its shapes are made and measured, not kept generic.
  bool skip_first_specialised = true;

  ~Impl();
  // Another Impl on the same program and weights (with `config`).
  // With `budget`, its caches count in that budget rather than their own.
  std::unique_ptr<Impl> CloneWith(
      const Config& clone_config,
      std::shared_ptr<platform::CacheBudget> budget = nullptr) const {
    auto impl = std::make_unique<Impl>();
    impl->config = clone_config;
    impl->cache_budget = std::move(budget);
    impl->program = program;
    impl->weights = weights;
    impl->Init();
    return impl;
  }
  // Where a run goes.
  enum class Route {
    kMade,         // the specialised kernels, made for its shape
    kSpecialised,  // the specialised kernels, making for its shape
    kGeneric,      // the generic kernels
  };
  // Before a run: hands the inputs' shape to the maker if it is new, and
  // says where the run goes.
  Route RouteRun();
  // Runs the inputs on `generic` and takes its outputs as this run's.
  void RunGeneric();
  // The warm-up run at load (Config::EnableWarmup); true if it ran. With
  // `estimate` (on an Impl of one thread), a second run of the declared
  // shapes is timed for it. Its cost per element includes the run's fixed
  // costs, so it errs towards all threads for larger inputs until real runs
  // refine it. (A third run at batch 4, timed for the marginal cost, held
  // the clone's memory at that batch: 13 MB more peak RSS on MobileNetV3
  // at 2 threads, where batch 1 alone adds 6 MB.)
  bool WarmUp(fw::NarrowRunPolicy* estimate = nullptr);
  // WarmUp, then what a warmed predictor's first run is: an ordinary
  // first sight (no generic first run, no exemption from the policy).
  // With several threads the one-thread clone is made and warmed too,
  // timed for the narrow policy's first estimate.
  void WarmUpAtLoad(fw::NarrowRunPolicy* estimate = nullptr) {
    warmed_up = WarmUp(estimate);
    if (warmed_up) skip_first_specialised = false;
    if (warmed_up && narrow_possible && MakeNarrow()) {
      narrow->WarmUpAtLoad(&narrow_policy);
    }
  }
  // Whether this run goes to `narrow` (deciding for a new shape).
  bool RunsNarrow();
  // After a run: outputs that share an input's buffer get their own.
  void DetachOutputsFromInputs();
  // Makes `narrow` if it is not there; false if it cannot be made.
  bool MakeNarrow();
  // Runs the inputs on `narrow` and takes its outputs as this run's.
  void RunNarrow();
  // After a wide trial of a small shape run in a row: its time, and the
  // side its runs in a row keep once the trials are done.
  void LearnFromWideTrial();
  // A run on this Impl's own threads (routed to its kernels).
  void Run();
  // Keeps last_inputs and last_key those of the inputs set now.
  void UpdateShapeKey();
  RunStats Stats() const;
  bool warmed_up = false;
  // After a specialised run, of a shape not made or made: tells the
  // policy.
  void LearnFromSpecialised(double run_ms, double making_ms);
  void LearnFromMade(double run_ms);
  // Makes the generic clone, if the policy wants it (or `first_run`
  // asks for it) and it is not there.
  void MaybeStartGeneric(bool first_run = false);
  // For a first run with small inputs (RouteRun decides: under
  // kLargeInputBytes, generic kernels possible, our AVX2 GEMM): starts the
  // generic clone and says whether the run can go to it at once. They
  // make nothing per shape, so it costs what a later run of theirs does,
  // where the specialised kernels' first run also makes every primitive
  // and reorders every weight, which is most of a small run (the OCR
  // classifier: 3 ms against 12-17 ms). A service of one shape runs its
  // second run specialised and stays there.
  bool FirstRunGeneric();
  bool GenericReady() const {
    return generic_possible && generic_ready.load(std::memory_order_acquire);
  }
  double InputElements() {
    double n = 0;
    for (auto& t : feeds()) n += static_cast<double>(t.numel());
    return n;
  }

  // The configured device, or PDLITE_DEVICE when none was configured.
  platform::Place TargetPlace() const {
    const char* env_device = std::getenv("PDLITE_DEVICE");
    if (!config.device_set() && env_device != nullptr && *env_device) {
      return platform::ParseRunPlace(env_device, "PDLITE_DEVICE");
    }
    return platform::ParsePlace(config.device());
  }

  void Init() {
    feed_names = program->FeedTargetNames();
    fetch_names = program->FetchTargetNames();
    written_feed_cols = WrittenFeedCols();
    platform::DeviceContextOptions context_options;
    context_options.num_threads = config.cpu_threads();
    context_options.allow_tf32 = config.tf32_enabled();
    context_options.cudnn_exhaustive_search =
        config.cudnn_exhaustive_search_enabled();
    context_options.device_memory_limit = config.gpu_memory_limit();
    if (cache_budget == nullptr) {
      cache_budget = std::make_shared<platform::CacheBudget>(
          config.cache_budget() ? config.cache_budget()
                                : platform::CacheBudget::kDefaultBytes);
    }
    context_options.cache_budget = cache_budget;
    context_options.batch_invariant = config.batch_invariance_enabled();
    input_pool = platform::HostBlockPool::Create(cache_budget.get());
    contexts = std::make_unique<platform::DeviceContextPool>(context_options);
    fw::KernelPreference preference;
    preference.place = TargetPlace();
    // Plugins, and the libraries they register, are loaded by now.
    for (auto& lib : config.kernel_libraries()) {
      preference.libraries.push_back(fw::LibraryType::FromPreferredName(lib));
    }
    // A device nobody provides (no plugin loaded, a misspelt name), or a
    // CUDA place without a GPU, is an error naming it here, not a silent
    // run on the CPU (CreatePredictor loaded the device's library).
    device_context = contexts->Get(preference.place);
    // Feeds are staged in page-locked memory when the device has it, so
    // their copies to the device run at full speed.
    staging_place = platform::CPUPlace{};
    if (preference.place.is_cuda()) {
      staging_place = platform::CUDAPinnedPlace{};
    }
    fw::ExecutorOptions options;
    options.plan_replay = config.memory_optim_enabled();
    options.profile = config.profiling_enabled();
    options.device_graphs = config.cuda_graph_enabled();
    options.max_tensor_bytes = config.max_tensor_bytes();
    options.max_run_bytes = config.max_run_bytes();
    options.max_loop_iterations = config.max_loop_iterations();
    executor = std::make_unique<fw::Executor>(*program, preference,
                                              contexts.get(), options);
    executor->Prepare(0);
    scope = &weights->NewScope();
    for (const char* list : {"feed", "fetch"}) {
      scope->Var(list)->GetMutable<fw::TensorList>();
    }
    scope->Var("feed")->GetMutable<fw::TensorList>()->resize(feed_names.size());
    make_ahead_possible = MakeAheadPossible(preference);
    // PDLITE_GENERIC_KERNELS=0 keeps every run on the preferred kernels
    // (for comparisons).
    static const bool kGenericWanted = [] {
      const char* env = std::getenv("PDLITE_GENERIC_KERNELS");
      return env == nullptr || std::string(env) != "0";
    }();
    // Batch invariance keeps every run on the preferred kernels, which
    // round otherwise than the generic ones, and on the configured
    // threads.
    generic_possible = kGenericWanted && config.generic_kernels_enabled() &&
                       !config.batch_invariance_enabled() &&
                       preference.place.is_cpu() && ListsMkldnn() &&
                       written_feed_cols.empty();
    // PDLITE_NARROW_RUNS=1 or =0 decides over the Config (for A/B runs).
    static const int kNarrowEnv = [] {
      const char* env = std::getenv("PDLITE_NARROW_RUNS");
      if (env == nullptr || *env == '\0') return -1;
      return std::string(env) == "0" ? 0 : 1;
    }();
    const bool narrow_wanted =
        kNarrowEnv < 0 ? config.narrow_runs_enabled() : kNarrowEnv == 1;
    narrow_policy =
        fw::NarrowRunPolicy(config.cpu_threads(), config.narrow_run_limit());
    narrow_possible = narrow_wanted && !config.batch_invariance_enabled() &&
                      preference.place.is_cpu() && config.cpu_threads() > 1;
  }

  // Whether the configured kernel libraries name MKLDNN: what the
  // generic kernels, make-ahead and the warm-up at load serve.
  bool ListsMkldnn() const {
    const auto& libraries = config.kernel_libraries();
    return std::find(libraries.begin(), libraries.end(), "MKLDNN") !=
           libraries.end();
  }

  // The cols of the inputs an op writes (a while loop's counter, an op in
  // place), directly or through a view of them (reshape2's Out, written in
  // place, writes its X). Each run of the executor gets copies of those
  // (WrittenInputCopies). The generic kernels stay off for such programs:
  // a generic run that failed part way would have to be tried again on
  // fresh copies, which is not worth it for them.
  std::vector<size_t> WrittenFeedCols() const {
    // The feed op's Out is the input itself, not a write of it.
    const std::map<std::string, std::string> written = fw::WrittenVars(
        *program, std::set<std::string>(feed_names.begin(), feed_names.end()),
        "feed");
    std::vector<size_t> cols;
    for (size_t col = 0; col < feed_names.size(); ++col) {
      if (written.count(feed_names[col]) != 0) cols.push_back(col);
    }
    return cols;
  }

  // Make-ahead needs it wanted, a CPU core the predictor's threads leave
  // free, and oneDNN kernels to make primitives for.
  bool MakeAheadPossible(const fw::KernelPreference& preference) const {
    static const bool kWanted = [] {
      const char* env = std::getenv("PDLITE_MAKE_AHEAD");
      return env == nullptr || std::string(env) != "0";
    }();
    if (!kWanted || !config.make_ahead_enabled() ||
        !preference.place.is_cpu() ||
        static_cast<unsigned>(config.cpu_threads()) >=
            std::thread::hardware_concurrency()) {
      return false;
    }
    return config.kernel_libraries().empty() || ListsMkldnn();
  }

  fw::TensorList& feeds() {
    return *scope->FindVar("feed")->GetMutable<fw::TensorList>();
  }
  // Gives a clone (generic, narrow) this run's inputs: the tensors share
  // their buffers, nothing is copied.
  void ShareFeedsWith(Impl* clone) {
    fw::TensorList& from = feeds();
    fw::TensorList& to = clone->feeds();
    for (size_t i = 0; i < from.size() && i < to.size(); ++i) to[i] = from[i];
  }
  fw::TensorList& fetches() {
    return *scope->FindVar("fetch")->GetMutable<fw::TensorList>();
  }
  // For one executor run: the inputs an op writes, copied, so that the
  // caller's memory keeps its values (ShareExternalData's may even be
  // read-only) and a next Run of the same inputs starts from them again;
  // the caller's tensors are back in the list once the run ends.
  class WrittenInputCopies {
   public:
    explicit WrittenInputCopies(Impl* impl) : feeds_(impl->feeds()) {
      try {
        for (size_t col : impl->written_feed_cols) {
          fw::Tensor copy;
          fw::TensorCopy(feeds_[col], feeds_[col].place(), &copy);
          given_.emplace_back(col, std::move(feeds_[col]));
          feeds_[col] = std::move(copy);
        }
      } catch (...) {
        Restore();
        throw;
      }
    }
    ~WrittenInputCopies() { Restore(); }
    WrittenInputCopies(const WrittenInputCopies&) = delete;
    WrittenInputCopies& operator=(const WrittenInputCopies&) = delete;

   private:
    void Restore() {
      for (auto& [col, tensor] : given_) feeds_[col] = std::move(tensor);
      given_.clear();
    }
    fw::TensorList& feeds_;
    std::vector<std::pair<size_t, fw::Tensor>> given_;
  };
  // Lets go of the last run's outputs, so that nothing reads them as the
  // next run's, and the next run (its memory limit) is not charged for the
  // buffers they share. A narrow or generic clone's list is cleared before
  // its run too: this list's copies of its outputs share them.
  void ClearOutputs() {
    for (auto& out : fetches()) out = fw::Tensor();
  }
  // The executor whose outputs the last run gave.
  const fw::Executor* LastRunExecutor() const {
    if (last_run_narrow) return narrow->LastRunExecutor();
    if (last_run_generic) return generic->LastRunExecutor();
    return executor.get();
  }
  // After a run: what the budget evicted from the other executors (this
  // Impl's and its clones') is freed now. An executor frees it as its next
  // run starts, and a clone may be idle for good (a generic clone once
  // every shape is made), holding memory the budget no longer counts.
  // A clone's own output list, which shares its arena, is cleared too: the
  // predictor's list holds the outputs the caller reads.
  void DropEvictedBesides(const fw::Executor* ran) {
    if (executor.get() != ran) executor->DropEvicted();
    for (Impl* clone : {generic.get(), narrow.get()}) {
      if (clone == nullptr) continue;
      clone->ClearOutputs();
      clone->DropEvictedBesides(ran);
    }
  }
};

// A new input shape costs its first run the making of every oneDNN
// primitive for it (about 40% more time for an OCR detector). When the
// predictor's threads leave a core free, a clone of it runs each new shape
// first on a thread of its own, only making the primitives
// (framework/make_only.h: the kernels skip their computation), while the
// real run starts at once; oneDNN's process-wide primitive cache hands
// what the clone made to the real run, which then finds most of them
// made. One shape at a time: a shape offered while the clone is busy is
// left to the real run.
class PrimitiveMaker {
 public:
  /// Primitives oneDNN's own cache holds for the hand-over (several
  /// detector shapes' worth; our caches keep what stays).
  static constexpr int kHandoverPrimitives = 512;

  explicit PrimitiveMaker(std::unique_ptr<Predictor::Impl> clone)
      : clone_(std::move(clone)) {
    HandOverThroughOneDnnCache();
    thread_ = std::thread([this] { Loop(); });
  }
  ~PrimitiveMaker() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  /// Shapes run ahead so far (to the end, or to an op it cannot run).
  size_t made() const { return made_; }

  /// Shapes waiting at most; a shape offered past it is left to the real
  /// run.
  static constexpr size_t kMaxWaiting = 32;

  /// Queues inputs of these dims and types to have their primitives made;
  /// the flag returned turns true once they are (null: not queued).
  std::shared_ptr<const std::atomic<bool>> Offer(
      std::vector<std::pair<fw::DDim, fw::DataType>> inputs) {
    auto made = std::make_shared<std::atomic<bool>>(false);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_ || jobs_.size() >= kMaxWaiting) return nullptr;
      jobs_.push_back(Job{std::move(inputs), made});
    }
    wake_.notify_one();
    return made;
  }

  /// oneDNN's cache is off unless asked for (MkldnnContext): a hand-over
  /// needs it on, at this size.
  static void HandOverThroughOneDnnCache() {
    fw::internal::primitive_handover = true;
    if (std::getenv("DNNL_PRIMITIVE_CACHE_CAPACITY") == nullptr &&
        dnnl::get_primitive_cache_capacity() < kHandoverPrimitives) {
      dnnl::set_primitive_cache_capacity(kHandoverPrimitives);
    }
  }

 private:
  struct Job {
    std::vector<std::pair<fw::DDim, fw::DataType>> inputs;
    std::shared_ptr<std::atomic<bool>> made;
  };

  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      Job job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      try {
        Make(job.inputs);
      } catch (...) {
        // It stopped at an op it cannot run without computing, or at an
        // error the real run will report: what it made until then stays.
      }
      ++made_;
      job.made->store(true, std::memory_order_release);
      lock.lock();
    }
  }

  void Make(const std::vector<std::pair<fw::DDim, fw::DataType>>& inputs) {
    fw::TensorList& feeds = clone_->feeds();
    for (size_t i = 0; i < inputs.size() && i < feeds.size(); ++i) {
      feeds[i].Resize(inputs[i].first);
      // Never written: its pages stay untouched.
      platform::ScopedHostAllocator pooled(clone_->input_pool);
      feeds[i].mutable_data(platform::CPUPlace{}, inputs[i].second);
    }
    fw::MakeOnlyScope making_only;
    clone_->executor->Run(0, clone_->scope);
  }

  std::unique_ptr<Predictor::Impl> clone_;
  std::atomic<size_t> made_{0};
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::deque<Job> jobs_;
  std::thread thread_;
};

Predictor::Impl::~Impl() {
  maker.reset();  // its clone shares the weights scope
  if (generic_warmer.joinable()) generic_warmer.join();
  generic.reset();
  narrow.reset();
  executor.reset();
  if (scope) weights->DeleteScope(scope);
  // It goes once the last input staged from it is freed.
  if (input_pool) input_pool->Close();
}

void Predictor::Impl::UpdateShapeKey() {
  fw::TensorList& inputs = feeds();
  bool same = last_inputs.size() == inputs.size();
  for (size_t i = 0; same && i < inputs.size(); ++i) {
    same = last_inputs[i].first == inputs[i].dims() &&
           last_inputs[i].second == inputs[i].dtype();
  }
  if (!same) {
    last_seen = nullptr;
    last_inputs.clear();
    last_key.clear();
    for (auto& t : inputs) {
      for (int64_t d : t.dims()) last_key += std::to_string(d) + 'x';
      last_key += std::to_string(static_cast<int>(t.dtype())) + ';';
      last_inputs.emplace_back(t.dims(), t.dtype());
    }
  }
}

Predictor::Impl::Route Predictor::Impl::RouteRun() {
  routed = nullptr;
  if (!make_ahead_possible && !generic_possible) return Route::kMade;
  UpdateShapeKey();
  fw::TensorList& inputs = feeds();
  auto input_bytes = [&inputs] {
    size_t bytes = 0;
    for (auto& t : inputs) bytes += t.memory_size();
    return bytes;
  };
  bool generic_first_run = false;
  if (!first_run_routed) {
    first_run_routed = true;
    // After a warm-up at load the first run is an ordinary first sight.
    const bool small = generic_possible && input_bytes() < kLargeInputBytes &&
                       kernels::plain::HasSgemmAvx2();
    generic_first_run = !warmed_up && small && FirstRunGeneric();
    // Small inputs make little per shape: a maker's clone would cost more
    // memory (3-5 MB for the classifier) than its making saves.
    if (generic_first_run || (warmed_up && small)) make_ahead_possible = false;
  }
  const bool generic_for_good = GenericReady() && policy.GenericForGood();
  bool first_sight = false;
  if (last_seen == nullptr) {
    auto found = seen_shapes.find(last_key);
    if (found == seen_shapes.end()) {
      first_sight = true;
      // Made when a new shape comes, not when the policy first wants it: a
      // service whose few shapes are all made never needs it.
      MaybeStartGeneric();
      found = seen_shapes.emplace(last_key, SeenShape{}).first;
      found->second.generic_for_good = generic_for_good;
      found->second.for_good_provisional = !policy.MadeRunTimed();
      seen_order.push_back(last_key);
      if (seen_order.size() > kSeenShapes) {
        seen_shapes.erase(seen_order.front());
        seen_order.pop_front();
      }
    }
    last_seen = &found->second;
  }
  // A shape not made goes to the maker at its first sight, or at a later
  // one (when the maker's queue was full, or the shape came while the
  // generic kernels were being measured).
  // The first shape is raced only when its inputs are large enough for
  // its run to outlast the clone's start: small runs end before the clone
  // has made anything, and the clone's memory would then be all a
  // fixed-shape service got from it.
  SeenShape& seen = *last_seen;
  routed = &seen;
  if (seen.generic_for_good && seen.for_good_provisional &&
      policy.MadeRunTimed()) {
    seen.for_good_provisional = false;
    seen.generic_for_good = generic_for_good;
  }
  // A shape neither made nor the generic kernels' for good (it ran on
  // them before the policy wanted them for good) takes the policy's
  // present answer.
  if (!seen.generic_for_good && !seen.ran_specialised && seen.made == nullptr &&
      generic_for_good) {
    seen.generic_for_good = true;
    seen.for_good_provisional = !policy.MadeRunTimed();
  }
  if (seen.generic_for_good || generic_first_run) return Route::kGeneric;
  if (make_ahead_possible && !generic_for_good && seen.made == nullptr &&
      !seen.ran_specialised) {
    bool offer = true;
    if (first_sight && seen_order.size() == 1) {
      offer = input_bytes() >= kLargeInputBytes;
    }
    if (offer) {
      if (!maker) {
        // What the clone makes lives on in oneDNN's cache and ours; what
        // it keeps itself (descriptors, plans) nobody reads.
        Config clone_config = config;
        clone_config.SetCacheBudget(kMakerCacheBytes);
        maker = std::make_unique<PrimitiveMaker>(CloneWith(clone_config));
      }
      seen.made = maker->Offer(last_inputs);
    }
  }
  if (seen.ran_specialised) return Route::kMade;
  if (seen.made != nullptr && seen.made->load(std::memory_order_acquire)) {
    seen.ran_specialised = true;
    return Route::kMade;
  }
  // Not made: the generic kernels take it while the maker makes it, when
  // faster, or to be measured again; otherwise this run makes it.
  if (GenericReady() &&
      ((seen.made != nullptr && policy.GenericWhileMaking()) ||
       (first_sight && policy.RetryGeneric()))) {
    return Route::kGeneric;
  }
  seen.ran_specialised = true;
  return Route::kSpecialised;
}

void Predictor::Impl::LearnFromSpecialised(double run_ms, double making_ms) {
  // The predictor's first specialised run (its first run, or the one
  // after a generic first run) also pays what no later shape does (the
  // weights' reorders and packing, oneDNN's first use): it would make
  // every small model look making-bound, and a service of one fixed shape
  // pay for a generic clone it never needs. The policy learns from the
  // next shape on.
  if (skip_first_specialised) {
    skip_first_specialised = false;
    return;
  }
  policy.RecordSpecialised(run_ms, making_ms, InputElements());
}

void Predictor::Impl::LearnFromMade(double run_ms) {
  policy.RecordMade(run_ms, InputElements());
  if (routed != nullptr && routed->generic_replay_ms > 0 &&
      executor->last_run_stats().replayed) {
    policy.RecordSameShape(routed->generic_replay_ms, run_ms);
  }
}

bool Predictor::Impl::FirstRunGeneric() {
  MaybeStartGeneric(/*first_run=*/true);
  return GenericReady();
}

void Predictor::Impl::MaybeStartGeneric(bool first_run) {
  if (generic != nullptr || !(first_run || policy.WantsGeneric())) return;
  Config generic_config = config;
  generic_config.SetKernelLibraries({"PLAIN"});
  generic_config.EnableMakeAhead(false);
  generic_config.EnableGenericKernels(false);
  // Its caches count in this predictor's budget. A program with an op the
  // plain library lacks keeps every run on the specialised kernels.
  try {
    generic = CloneWith(generic_config, cache_budget);
  } catch (const std::exception&) {
    generic_possible = false;
    return;
  }
  // Where the plain kernels' GEMM is oneDNN's sgemm (CPUs without AVX2:
  // kernels/cpu/plain/sgemm_util.h), oneDNN makes its code at the first
  // call in the process, tens of ms: that call goes on a thread of its
  // own, and the generic kernels are used once it is done. Only that: a
  // run of the clone there would add to the budget this predictor shares,
  // whose evictions would then reach the predictor's caches from another
  // thread.
  if (kernels::plain::HasSgemmAvx2()) {
    generic_ready.store(true, std::memory_order_release);
    return;
  }
  generic_warmer = std::thread([this] {
    std::vector<float> a(64 * 64, 0.f), b(64 * 64, 0.f), c(64 * 64, 0.f);
    for (float beta : {0.f, 1.f}) {
      kernels::plain::SgemmOneThread(64, 64, 64, a.data(), 64, b.data(), 64,
                                     beta, c.data(), 64);
    }
    generic_ready.store(true, std::memory_order_release);
  });
}

void Predictor::Impl::RunGeneric() {
  generic->ClearOutputs();
  ShareFeedsWith(generic.get());
  generic->executor->Run(0, generic->scope);
  generic->device_context->Wait();
  fetches() = generic->fetches();
}

struct Tensor::Impl {
  Predictor::Impl* predictor;
  bool is_input;
  size_t col;
  fw::DDim pending_shape;
  bool has_pending_shape = false;

  fw::Tensor& tensor() const {
    auto& list = is_input ? predictor->feeds() : predictor->fetches();
    PADDLE_ENFORCE(col < list.size(),
                   platform::errors::PreconditionNotMet(NoData()));
    return list[col];
  }
  const std::string& name() const {
    return is_input ? predictor->feed_names[col] : predictor->fetch_names[col];
  }
  // Why the tensor has no data to read.
  std::string NoData() const {
    if (is_input) return "Input '" + name() + "' has no data yet.";
    if (predictor->last_run_failed) {
      return "Output '" + name() + "' has no value: the last Run() failed.";
    }
    return "Output '" + name() + "' has no value yet: call Run() first.";
  }
  void CheckInput(const char* what) const {
    PADDLE_ENFORCE(is_input, platform::errors::PreconditionNotMet(
                                 what, ": '", name(),
                                 "' is an output; outputs are read-only."));
  }
};

Predictor::Predictor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Predictor::~Predictor() = default;

std::vector<std::string> Predictor::GetInputNames() const {
  return impl_->feed_names;
}

std::vector<std::string> Predictor::GetOutputNames() const {
  return impl_->fetch_names;
}

namespace {
size_t IndexOf(const std::vector<std::string>& names,
               const std::string& name,
               const char* what) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    std::string known;
    for (auto& n : names) known += (known.empty() ? "'" : ", '") + n + "'";
    PADDLE_THROW(platform::errors::NotFound("The model has no ", what, " '",
                                            name, "'; its ", what, "s are ",
                                            known, "."));
  }
  return static_cast<size_t>(it - names.begin());
}
}  // namespace

namespace {
std::vector<TensorInfo> DeclaredInfo(const fw::ProgramDesc& program,
                                     const std::vector<std::string>& names) {
  std::vector<TensorInfo> out;
  for (auto& name : names) {
    TensorInfo info;
    info.name = name;
    if (auto* var = program.FindVarRecursive(0, name)) {
      info.type = ToPublic(var->dtype, name);
      info.shape = var->dims;
      info.lod_level = var->lod_level;
    }
    out.push_back(std::move(info));
  }
  return out;
}
}  // namespace

bool Predictor::Impl::WarmUp(fw::NarrowRunPolicy* estimate) {
  static const bool kWanted = [] {
    const char* env = std::getenv("PDLITE_WARMUP");
    return env == nullptr || std::string(env) != "0";
  }();
  // Programs with sub-blocks (loops) are left alone: their run time at
  // load would not be bounded by their inputs.
  if (!kWanted || !config.warmup_enabled() || !TargetPlace().is_cpu() ||
      program->blocks.size() != 1 || !ListsMkldnn()) {
    return false;
  }
  // Only inputs whose declared shape is the shape (but for the batch): a
  // model declaring -1 for its image sizes would run on 1x1 images.
  std::vector<fw::DDim> dims;
  size_t bytes = 0;
  for (const auto& info : DeclaredInfo(*program, feed_names)) {
    if (info.lod_level > 0 || info.type != DataType::FLOAT32 ||
        info.shape.empty()) {
      return false;
    }
    fw::DDim d = info.shape;
    for (size_t i = 0; i < d.size(); ++i) {
      if (d[i] < 0 && i == 0) d[i] = 1;
      if (d[i] <= 0) return false;
    }
    bytes += static_cast<size_t>(fw::Product(d)) * sizeof(float);
    dims.push_back(std::move(d));
  }
  if (dims.empty() || bytes >= kLargeInputBytes) return false;
  fw::TensorList& inputs = feeds();
  const size_t fetch_count = fetches().size();
  bool ran = true;
  auto set_inputs = [&] {
    for (size_t i = 0; i < dims.size() && i < inputs.size(); ++i) {
      platform::ScopedHostAllocator pooled(input_pool);
      const fw::DDim& d = dims[i];
      inputs[i].Resize(d);
      float* data = inputs[i].mutable_data<float>(platform::CPUPlace{});
      std::fill(data, data + fw::Product(d), 0.f);
    }
  };
  // A run made before (its shape's code made): its time.
  auto timed_run = [&] {
    const auto start = std::chrono::steady_clock::now();
    executor->Run(0, scope);
    device_context->Wait();
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
        .count();
  };
  try {
    set_inputs();
    executor->Run(0, scope);
    device_context->Wait();
    if (estimate != nullptr) {
      estimate->RecordOneThread(timed_run(), InputElements());
    }
  } catch (const std::exception&) {
    // A model that cannot run at its declared shapes runs unwarmed; its
    // first real run reports what is wrong with the real inputs.
    ran = false;
  }
  // Nothing of it shows: no plan for the declared shapes (a first real run
  // of them records as any other shape's), inputs unset, no outputs.
  executor->ForgetPlans();
  // Real inputs are often larger than the declared shapes (the OCR
  // classifier declares 32x100 and serves 48xW crops, in batches): the
  // first run's buffers past the warm-up's would each fault in their pages,
  // 2.2-2.7 us a page on the project's VM, about 0.3 ms of a 2 ms first
  // run at batch 2. Made resident here, off the runs: at most 2 MB, free
  // pages the cache budget counts (and may take back) like the pool's
  // others.
  if (ran) {
    executor->KeepHostPagesResident(std::min(
        kWarmPagesPerPeakByte * executor->HostPeakBytes(), kWarmPagesBytes));
  }
  for (auto& t : inputs) t = fw::Tensor();
  fetches().clear();
  fetches().resize(fetch_count);
  return ran;
}

std::vector<TensorInfo> Predictor::GetInputInfo() const {
  return DeclaredInfo(*impl_->program, impl_->feed_names);
}

std::vector<TensorInfo> Predictor::GetOutputInfo() const {
  return DeclaredInfo(*impl_->program, impl_->fetch_names);
}

std::unique_ptr<Tensor> Predictor::GetInputHandle(const std::string& name) {
  size_t col = IndexOf(impl_->feed_names, name, "input");
  auto impl = std::make_unique<Tensor::Impl>(
      Tensor::Impl{impl_.get(), true, col, {}, false});
  return std::unique_ptr<Tensor>(new Tensor(name, std::move(impl)));
}

std::unique_ptr<Tensor> Predictor::GetOutputHandle(const std::string& name) {
  size_t col = IndexOf(impl_->fetch_names, name, "output");
  auto impl = std::make_unique<Tensor::Impl>(
      Tensor::Impl{impl_.get(), false, col, {}, false});
  return std::unique_ptr<Tensor>(new Tensor(name, std::move(impl)));
}

void Predictor::Run() {
  // No output of an earlier run outlives this one, however it ends (its
  // inputs refused included): after a run that throws, the outputs had
  // read the run before's values (or, after a replay that failed midway,
  // values partly overwritten) as if new.
  impl_->ClearOutputs();
  impl_->last_run_failed = true;
  for (size_t i = 0; i < impl_->feed_names.size(); ++i) {
    PADDLE_ENFORCE(impl_->feeds()[i].IsInitialized(),
                   platform::errors::PreconditionNotMet(
                       "Input '", impl_->feed_names[i],
                       "' has no data: Reshape it and CopyFromCpu before "
                       "Run()."));
    // Checked here, naming the input, rather than by the first op that
    // reads it (or not at all, when none does).
    const fw::Tensor& fed = impl_->feeds()[i];
    if (!fed.lod().empty()) {
      const std::string mismatch = fw::LoDMismatch(fed.lod(), fed.dims());
      PADDLE_ENFORCE(mismatch.empty(),
                     platform::errors::InvalidArgument(
                         "Input '", impl_->feed_names[i], "': ", mismatch,
                         " (Tensor::SetLoD)."));
    }
  }
  try {
    if (impl_->RunsNarrow()) {
      impl_->RunNarrow();
    } else {
      impl_->last_run_narrow = false;
      impl_->Run();
      if (impl_->narrow_trial) impl_->LearnFromWideTrial();
    }
  } catch (...) {
    // No outputs to keep. The run's own error is what the caller sees.
    try {
      impl_->DropEvictedBesides(nullptr);
    } catch (...) {
    }
    throw;
  }
  impl_->DetachOutputsFromInputs();
  impl_->DropEvictedBesides(impl_->LastRunExecutor());
  impl_->last_run_failed = false;
}

void Predictor::Impl::DetachOutputsFromInputs() {
  // An output that is an input, or a view of one (a program that fetches
  // its input reshaped), shares the input's buffer: the caller's own
  // memory (ShareExternalData, which need stay valid only until Run()
  // returns), or the staged input that the next CopyFromCpu or
  // mutable_data rewrites. Such an output gets a buffer of its own, on
  // its own place (a device input is the caller's device memory).
  const fw::TensorList& inputs = feeds();
  for (fw::Tensor& out : fetches()) {
    if (!out.IsInitialized()) continue;
    const bool shared =
        std::any_of(inputs.begin(), inputs.end(), [&](const fw::Tensor& in) {
          return in.IsInitialized() && in.holder() == out.holder();
        });
    if (!shared) continue;
    fw::Tensor own;
    fw::TensorCopy(out, out.place(), &own);
    out = std::move(own);
  }
}

bool Predictor::Impl::RunsNarrow() {
  narrow_trial = false;
  if (!narrow_possible) return false;
  UpdateShapeKey();
  if (narrow_shape != nullptr && last_key == narrow_previous_key) {
    ++narrow_streak;
  } else {
    narrow_streak = 1;
    narrow_previous_key = last_key;
    auto found = narrow_shapes.find(last_key);
    if (found == narrow_shapes.end()) {
      NarrowShape fresh;
      fresh.narrow = narrow_policy.Narrow(InputElements()) && MakeNarrow();
      found = narrow_shapes.emplace(last_key, fresh).first;
      narrow_order.push_back(last_key);
      if (narrow_order.size() > kSeenShapes) {
        narrow_shapes.erase(narrow_order.front());
        narrow_order.pop_front();
      }
    } else if (!found->second.narrow &&
               narrow_policy.Narrow(InputElements())) {
      // Put on all threads by a higher estimate (none yet, or first runs
      // slowed by other work on the cores). The estimate only falls, so a
      // shape moves at most once, and only to one thread.
      found->second.narrow = MakeNarrow();
    }
    narrow_shape = &found->second;
  }
  const NarrowShape& shape = *narrow_shape;
  if (!shape.narrow) return false;
  if (narrow_streak < kStreakRuns) return true;
  switch (shape.in_a_row) {
    case NarrowShape::InARow::kNarrow:
      return true;
    case NarrowShape::InARow::kWide:
      return false;
    case NarrowShape::InARow::kUndecided:
      break;
  }
  narrow_trial = true;
  return false;
}

void Predictor::Impl::LearnFromWideTrial() {
  NarrowShape& shape = *narrow_shape;
  // The first trial made the shape on all threads: not timed.
  if (shape.wide_trials > 0 && last_own_ms > 0) {
    NarrowShape::KeepBest(last_own_ms, &shape.wide_best_ms);
  }
  if (++shape.wide_trials < kWideTrials) return;
  // No narrow time to beat (its runs were all on the generic kernels): it
  // stays where it was put.
  const bool wide = shape.wide_best_ms > 0 && shape.narrow_best_ms > 0 &&
                    shape.wide_best_ms < shape.narrow_best_ms;
  shape.in_a_row =
      wide ? NarrowShape::InARow::kWide : NarrowShape::InARow::kNarrow;
}

bool Predictor::Impl::MakeNarrow() {
  if (narrow != nullptr) return true;
  Config narrow_config = config;
  narrow_config.SetCpuThreads(1);
  // Its caches count in this predictor's budget.
  try {
    narrow = CloneWith(narrow_config, cache_budget);
  } catch (const std::exception&) {
    narrow_possible = false;
    return false;
  }
  return true;
}

void Predictor::Impl::RunNarrow() {
  last_run_narrow = true;
  narrow->ClearOutputs();
  ShareFeedsWith(narrow.get());
  const int64_t making_before = fw::MakingTime();
  const auto start = std::chrono::steady_clock::now();
  narrow->Run();
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  const double own_ms =
      ms - static_cast<double>(fw::MakingTime() - making_before) / 1e6;
  narrow_policy.RecordOneThread(own_ms, InputElements());
  if (!narrow->last_run_generic) {
    NarrowShape::KeepBest(own_ms, &narrow_shape->narrow_best_ms);
  }
  fetches() = narrow->fetches();
}

void Predictor::Impl::Run() {
  using Clock = std::chrono::steady_clock;
  const Route route = RouteRun();
  const Clock::time_point start = Clock::now();
  last_run_generic = route == Route::kGeneric;
  last_own_ms = -1;
  bool generic_refused = false;
  if (route == Route::kGeneric) {
    try {
      RunGeneric();
      const double ms =
          std::chrono::duration<double, std::milli>(Clock::now() - start)
              .count();
      policy.RecordGeneric(ms, InputElements());
      if (narrow_possible) narrow_policy.RecordAllThreads(ms, InputElements());
      if (routed != nullptr && generic->executor->last_run_stats().replayed) {
        routed->generic_replay_ms = ms;
      }
      return;
    } catch (const std::exception&) {
      // Again where it would have gone otherwise. An input the model rejects
      // fails there too, as it should, and the generic kernels stay.
      generic_refused = true;
      last_run_generic = false;
    }
  }
  const int64_t making_before = fw::MakingTime();
  {
    WrittenInputCopies copies(this);
    executor->Run(0, scope);
    // Run() is synchronous: a device's queued work (and errors) end here,
    // and staged feeds may be reused once it returns.
    device_context->Wait();
  }
  if (generic_refused) {
    // The plain kernels refused what the specialised ones took: no more
    // generic runs. (On any failure, one request with a bad value had
    // turned them off for the predictor's life.)
    generic_possible = false;
    for (auto& kv : seen_shapes) kv.second.generic_for_good = false;
  }
  if (!generic_possible && !narrow_possible) return;
  const double run_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  const double making_ms =
      static_cast<double>(fw::MakingTime() - making_before) / 1e6;
  if (narrow_possible) {
    last_own_ms = run_ms - making_ms;
    narrow_policy.RecordAllThreads(last_own_ms, InputElements());
  }
  if (!generic_possible) return;
  if (route == Route::kSpecialised) {
    LearnFromSpecialised(run_ms, making_ms);
  } else {
    LearnFromMade(run_ms);
  }
}

RunStats Predictor::last_run_stats() const { return impl_->Stats(); }

RunStats Predictor::Impl::Stats() const {
  if (last_run_narrow) {
    RunStats out = narrow->Stats();
    if (maker) out.shapes_made_ahead += maker->made();
    return out;
  }
  const auto& s = last_run_generic ? generic->executor->last_run_stats()
                                   : executor->last_run_stats();
  RunStats out;
  out.threads = config.cpu_threads();
  out.ran_generic = last_run_generic;
  out.replayed = s.replayed;
  out.arena_bytes = s.arena_bytes;
  out.unplanned_bytes = s.unplanned_bytes;
  out.plans_cached = s.plans_cached;
  out.ops_inferred = s.ops_inferred;
  out.graph_replayed = s.graph_replayed;
  out.graph_refusal = s.graph_refusal;
  out.cache_bytes = cache_budget->UsedByCache();
  out.cache_budget_bytes = cache_budget->limit();
  out.shapes_made_ahead = maker ? maker->made() : 0;
  for (auto& t : s.op_timings) {
    out.op_times.push_back(OpTime{t.op_index, t.op_type, t.kernel, t.ms});
  }
  for (auto& t : s.transfers) {
    out.copies.push_back(CopyRecord{t.op_index, t.op_type, t.var, t.from, t.to,
                                    t.bytes, t.cached});
  }
  return out;
}

std::vector<OpPlacement> Predictor::GetOpPlacement() const {
  std::vector<OpPlacement> out;
  for (auto& p : impl_->executor->Prepare(0).ops) {
    OpPlacement placement{p.index, p.type, "", "", ""};
    if (p.op && p.op->IsKernelOp() && p.choice.kernel) {
      platform::Place place = p.choice.chosen.place;
      const platform::Place& wanted = impl_->executor->preference().place;
      if (platform::SameKind(place, wanted)) place = wanted;
      placement.place = place.ToString();
      placement.library = p.choice.chosen.library.name();
      placement.reason = p.choice.reason;
    }
    out.push_back(std::move(placement));
  }
  return out;
}

std::unique_ptr<Predictor> Predictor::Clone() const {
  auto impl = impl_->CloneWith(impl_->config);
  // Like the original: a clone's runs take the same kernels.
  if (impl_->warmed_up) impl->WarmUpAtLoad();
  return std::unique_ptr<Predictor>(new Predictor(std::move(impl)));
}

std::unique_ptr<Predictor> CreatePredictor(const Config& config) {
  fw::LoadPluginsFromEnvironment();
  for (auto& plugin : config.plugins()) fw::LoadPlugin(plugin);
  auto impl = std::make_unique<Predictor::Impl>();
  impl->config = config;
  // Built-in devices in their own library (CUDA) load before the model, so
  // a build or machine without one fails first and clearly.
  fw::EnsurePlaceAvailable(impl->TargetPlace());
  fw::Model model;
  if (config.model_from_memory()) {
    model = fw::LoadModelFromBuffers(config.program_buffer(),
                                     config.params_buffer());
  } else {
    PADDLE_ENFORCE(!config.model_path().empty(),
                   platform::errors::InvalidArgument(
                       "Config names no model: use Config(path) or "
                       "SetModelBuffer()."));
    model = fw::LoadModel(config.model_path(), config.params_file());
  }
  impl->weights = model.weights;
  if (config.ir_optim_enabled()) {
    // Passes rewrite a copy; the weights they add or fold go into the
    // predictor's weight scope, which clones then share read-only.
    auto optimized = std::make_shared<fw::ProgramDesc>(*model.program);
    fw::ApplyPasses(optimized.get(), impl->weights.get(), {},
                    impl->TargetPlace());
    impl->program = optimized;
  } else {
    impl->program = model.program;
  }
  impl->Init();
  impl->WarmUpAtLoad();
  return std::unique_ptr<Predictor>(new Predictor(std::move(impl)));
}

// ------------------------------------------------------------------ Tensor

Tensor::Tensor(std::string name, std::unique_ptr<Impl> impl)
    : name_(std::move(name)), impl_(std::move(impl)) {}
Tensor::~Tensor() = default;

void Tensor::Reshape(const std::vector<int64_t>& shape) {
  impl_->CheckInput("Reshape");
  for (auto d : shape) {
    PADDLE_ENFORCE(d >= 0, platform::errors::InvalidArgument(
                               "Reshape of input '", name_, "' to ", shape,
                               ": dims must be >= 0."));
  }
  impl_->pending_shape = shape;
  impl_->has_pending_shape = true;
}

template <typename T>
T* Tensor::mutable_data() {
  impl_->CheckInput("mutable_data");
  PADDLE_ENFORCE(
      impl_->has_pending_shape,
      platform::errors::PreconditionNotMet(
          "Input '", name_, "': call Reshape() before writing its data."));
  // A fresh tensor each time: the previous one may still be shared with a
  // caller's output handle or an intermediate buffer.
  fw::Tensor fresh;
  fresh.Resize(impl_->pending_shape);
  fresh.set_lod(impl_->tensor().lod());
  const size_t limit = impl_->predictor->config.max_tensor_bytes();
  int64_t bytes = 0;
  PADDLE_ENFORCE(
      !__builtin_mul_overflow(fresh.numel(), static_cast<int64_t>(sizeof(T)),
                              &bytes) &&
          static_cast<size_t>(bytes) <= limit,
      platform::errors::ResourceExhausted(
          "Input '", name_, "' of shape ", impl_->pending_shape, " needs ",
          bytes, " bytes, over the limit for one tensor (", limit,
          " bytes; Config::SetMemoryLimits)."));
  // On the host, from the predictor's pool of inputs (see input_pool).
  platform::ScopedHostAllocator pooled(impl_->predictor->input_pool);
  T* data = fresh.mutable_data<T>(impl_->predictor->staging_place);
  impl_->tensor() = std::move(fresh);
  return data;
}

template <typename T>
void Tensor::ShareExternalData(const T* data,
                               const std::vector<int64_t>& shape,
                               PlaceType place) {
  impl_->CheckInput("ShareExternalData");
  // Of no elements when any dim is 0, whatever the others.
  const bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  int64_t elements = empty ? 0 : 1;
  for (auto d : shape) {
    PADDLE_ENFORCE(d >= 0, platform::errors::InvalidArgument(
                               "ShareExternalData of input '", name_,
                               "' with shape ", shape, ": dims must be >= 0."));
    // Its bytes described as a wrapped-around size would let kernels read
    // past the caller's memory.
    PADDLE_ENFORCE(
        empty || (!__builtin_mul_overflow(elements, d, &elements) &&
                  elements <= static_cast<int64_t>(PTRDIFF_MAX / sizeof(T))),
        platform::errors::InvalidArgument("ShareExternalData of input '", name_,
                                          "' with shape ", shape,
                                          ": more bytes than memory holds."));
  }
  // Null only for no elements: a rank-0 shape holds one.
  PADDLE_ENFORCE(data != nullptr || empty,
                 platform::errors::InvalidArgument(
                     "ShareExternalData of input '", name_, "' with shape ",
                     shape, ": data is null."));
  platform::Place where = platform::CPUPlace{};
  if (place == PlaceType::kGPU) {
    where = impl_->predictor->executor->preference().place;
    PADDLE_ENFORCE(where.is_cuda(),
                   platform::errors::PreconditionNotMet(
                       "ShareExternalData of input '", name_,
                       "' with GPU memory, but the predictor runs on ", where,
                       ": SetDevice(\"cuda:N\") first."));
  }
  fw::Tensor shared;
  shared.Resize(shape);
  shared.set_lod(impl_->tensor().lod());
  const size_t bytes = static_cast<size_t>(elements) * sizeof(T);
  // Not owned: the Allocation only describes the caller's memory.
  auto holder = std::make_shared<platform::Allocation>(const_cast<T*>(data),
                                                       bytes, where);
  shared.ResetHolder(holder, 0, fw::ToDataType<T>(), where);
  impl_->tensor() = std::move(shared);
  impl_->pending_shape = shape;
  impl_->has_pending_shape = true;
}

template <typename T>
const T* Tensor::data(PlaceType place, int64_t* size) const {
  if (place == PlaceType::kCPU) return data<T>(size);
  PADDLE_ENFORCE(!impl_->is_input,
                 platform::errors::PreconditionNotMet(
                     "data(kGPU) of input '", name_,
                     "': inputs are read on the host; use ShareExternalData "
                     "to pass device memory."));
  // Not the run before's result, which the variable still holds.
  PADDLE_ENFORCE(!impl_->predictor->last_run_failed,
                 platform::errors::PreconditionNotMet(impl_->NoData()));
  // The fetch list holds a host copy; the output variable itself still
  // holds the device result of the last run.
  const auto& program = *impl_->predictor->program;
  const fw::Tensor* device_tensor = nullptr;
  for (auto& op : program.blocks[0].ops) {
    if (op.type != "fetch") continue;
    auto col = op.attrs.find("col");
    if (col == op.attrs.end() ||
        fw::AttrCast<int>(col->second) != static_cast<int>(impl_->col)) {
      continue;
    }
    const auto x = op.Input("X");
    if (x.empty()) break;
    auto* var = impl_->predictor->scope->FindVar(x[0]);
    if (var != nullptr && var->IsType<fw::Tensor>()) {
      device_tensor = &var->Get<fw::Tensor>();
    }
    break;
  }
  PADDLE_ENFORCE(
      device_tensor != nullptr && device_tensor->IsInitialized() &&
          device_tensor->place().is_cuda(),
      platform::errors::PreconditionNotMet(
          "Output '", name_, "' is not in GPU memory",
          device_tensor && device_tensor->IsInitialized()
              ? " (computed on " + device_tensor->place().ToString() + ")"
              : std::string(" (call Run() first)"),
          "; read it with data<T>() or CopyToCpu()."));
  PADDLE_ENFORCE(device_tensor->dtype() == fw::ToDataType<T>(),
                 platform::errors::InvalidArgument(
                     "Tensor '", name_, "' holds ", device_tensor->dtype(),
                     " data, read as ", fw::ToDataType<T>(), "."));
  if (size) *size = device_tensor->numel();
  return device_tensor->data<T>();
}

template <typename T>
void Tensor::CopyFromCpu(const T* data) {
  T* dst = mutable_data<T>();
  std::copy(data, data + impl_->tensor().numel(), dst);
}

void Tensor::SetLoD(const LoD& lod) {
  impl_->CheckInput("SetLoD");
  impl_->tensor().set_lod(lod);
}

template <typename T>
const T* Tensor::data(int64_t* size) const {
  const fw::Tensor& t = impl_->tensor();
  PADDLE_ENFORCE(t.IsInitialized(),
                 platform::errors::PreconditionNotMet(impl_->NoData()));
  PADDLE_ENFORCE(t.dtype() == fw::ToDataType<T>(),
                 platform::errors::InvalidArgument(
                     "Tensor '", name_, "' holds ", t.dtype(),
                     " data, read as ", fw::ToDataType<T>(), "."));
  if (size) *size = t.numel();
  return t.data<T>();
}

template <typename T>
void Tensor::CopyToCpu(T* data) const {
  int64_t n = 0;
  const T* src = this->data<T>(&n);
  std::copy(src, src + n, data);
}

std::vector<int64_t> Tensor::shape() const {
  if (impl_->is_input && impl_->has_pending_shape &&
      !impl_->tensor().IsInitialized()) {
    return impl_->pending_shape;
  }
  return impl_->tensor().dims();
}

DataType Tensor::type() const {
  const fw::Tensor& t = impl_->tensor();
  if (!t.IsInitialized() && impl_->is_input) {
    const auto* desc =
        impl_->predictor->program->FindVarRecursive(0, impl_->name());
    if (desc) return ToPublic(desc->dtype, impl_->name());
  }
  // An output with no value has no type yet (not an "undefined" one).
  PADDLE_ENFORCE(t.IsInitialized() || impl_->is_input,
                 platform::errors::PreconditionNotMet(impl_->NoData()));
  return ToPublic(t.dtype(), impl_->name());
}

LoD Tensor::lod() const { return impl_->tensor().lod(); }

#define PDLITE_INSTANTIATE_TENSOR_ACCESS(T)                               \
  template void Tensor::CopyFromCpu<T>(const T* data);                    \
  template T* Tensor::mutable_data<T>();                                  \
  template void Tensor::CopyToCpu<T>(T * data) const;                     \
  template const T* Tensor::data<T>(int64_t * size) const;                \
  template void Tensor::ShareExternalData<T>(                             \
      const T* data, const std::vector<int64_t>& shape, PlaceType place); \
  template const T* Tensor::data<T>(PlaceType place, int64_t * size) const;
PDLITE_INSTANTIATE_TENSOR_ACCESS(float)
PDLITE_INSTANTIATE_TENSOR_ACCESS(double)
PDLITE_INSTANTIATE_TENSOR_ACCESS(int8_t)
PDLITE_INSTANTIATE_TENSOR_ACCESS(uint8_t)
PDLITE_INSTANTIATE_TENSOR_ACCESS(int16_t)
PDLITE_INSTANTIATE_TENSOR_ACCESS(int32_t)
PDLITE_INSTANTIATE_TENSOR_ACCESS(int64_t)
PDLITE_INSTANTIATE_TENSOR_ACCESS(bool)
PDLITE_INSTANTIATE_TENSOR_ACCESS(float16)
PDLITE_INSTANTIATE_TENSOR_ACCESS(bfloat16)
#undef PDLITE_INSTANTIATE_TENSOR_ACCESS

}  // namespace paddle_lite
