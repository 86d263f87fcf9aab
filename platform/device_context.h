// A DeviceContext owns what kernels need on one place: threads on the CPU;
// streams and library handles on accelerators (later issues). Contexts are
// created per predictor, so thread counts never leak between predictors.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <typeindex>
#include <unordered_map>

#include "platform/place.h"

namespace Eigen {
struct ThreadPoolDevice;
}  // namespace Eigen

namespace paddle_lite {
namespace platform {

class CacheBudget;

/// Interface every place's context implements.
class DeviceContext {
 public:
  virtual ~DeviceContext() = default;
  virtual Place GetPlace() const = 0;
  /// Blocks until all work queued on this context is done.
  virtual void Wait() const {}
  /// Called on the running thread before a kernel of this context runs
  /// and before the runtime copies data to or from its place: an
  /// accelerator binds its device and stream to the thread here, so the
  /// runtime's own allocations and copies are ordered with the kernels.
  virtual void MakeCurrent() const {}

  /// Device graphs (CUDA graphs): work queued on this context between
  /// BeginCapture() and EndCapture() is recorded instead of run, and
  /// LaunchGraph() replays it with one call. Contexts that cannot capture
  /// keep the default (false) and the executor runs every op itself.
  virtual bool SupportsGraphs() const { return false; }
  virtual void BeginCapture() const {}
  /// Ends the capture and returns the graph, ready to launch. Throws when
  /// something queued during the capture could not be recorded; the
  /// context is usable again either way.
  virtual std::shared_ptr<void> EndCapture() const { return nullptr; }
  /// Ends a capture that failed, discarding what was recorded. Never
  /// throws.
  virtual void AbortCapture() const {}
  virtual void LaunchGraph(const std::shared_ptr<void>& graph) const {}
  /// Changes whenever memory a captured graph may point at is replaced
  /// (a workspace that grew): a graph captured at another epoch must be
  /// captured again.
  virtual uint64_t GraphEpoch() const { return 0; }

  /// Device clocks (CUDA events), for profiling: a mark queued behind the
  /// work queued so far, or null when the context has no device clock.
  virtual std::shared_ptr<void> MarkTime() const { return nullptr; }
  /// Device milliseconds between two marks; waits for the later one.
  virtual double ElapsedMs(const std::shared_ptr<void>& from,
                           const std::shared_ptr<void>& to) const {
    return 0;
  }

  /// The predictor's byte budget for caches that grow with input shapes
  /// (platform/cache_budget.h): a kernel library counts its primitive and
  /// weight caches here. Null for contexts made outside a predictor.
  CacheBudget* cache_budget() const { return cache_budget_.get(); }
  void set_cache_budget(std::shared_ptr<CacheBudget> budget) {
    cache_budget_ = std::move(budget);
  }

  /// Kernels compute each row of a product on its own, never blocked over
  /// rows, so that a row comes out the same whatever rows run beside it
  /// (Config::EnableBatchInvariance).
  bool batch_invariant() const { return batch_invariant_; }
  void set_batch_invariant(bool on) { batch_invariant_ = on; }

  /// State a kernel library keeps per context (a oneDNN engine, stream and
  /// primitive cache; a plugin's handles), made on first use as
  /// `T(args...)`, owned by the context and freed with it. One per type.
  template <typename T, typename... Args>
  T& GetResource(Args&&... args) const {
    std::lock_guard<std::mutex> lock(resources_mu_);
    auto& slot = resources_[std::type_index(typeid(T))];
    if (!slot) slot = std::make_shared<T>(std::forward<Args>(args)...);
    return *static_cast<T*>(slot.get());
  }

 private:
  std::shared_ptr<CacheBudget> cache_budget_;
  bool batch_invariant_ = false;
  mutable std::mutex resources_mu_;
  mutable std::unordered_map<std::type_index, std::shared_ptr<void>> resources_;
};

/// Options a predictor passes when it creates its contexts.
struct DeviceContextOptions {
  /// Threads for intra-op parallelism; 1 runs everything on the caller.
  int num_threads = 1;
  /// Accelerators (the CUDA place): TF32 math for fp32 matmul and
  /// convolution; off keeps fp32 results in fp32.
  bool allow_tf32 = false;
  /// cuDNN: time every convolution algorithm once per shape (cached)
  /// instead of taking the heuristics' first choice.
  bool cudnn_exhaustive_search = false;
  /// Bytes of device memory the place's allocator may hold (in use plus
  /// cached) for this process; 0: the device's own limit.
  size_t device_memory_limit = 0;
  /// Given to every context of the pool (DeviceContext::cache_budget).
  std::shared_ptr<CacheBudget> cache_budget;
  /// DeviceContext::batch_invariant of every context of the pool.
  bool batch_invariant = false;

  /// `threads` threads, everything else at its default.
  static DeviceContextOptions WithThreads(int threads) {
    DeviceContextOptions options;
    options.num_threads = threads;
    return options;
  }
};

/// The CPU context: `num_threads` threads, the calling thread's OpenMP
/// team (which oneDNN's kernels use too). Not shared between predictors;
/// one Run at a time.
class CPUDeviceContext : public DeviceContext {
 public:
  explicit CPUDeviceContext(const DeviceContextOptions& options = {});
  ~CPUDeviceContext() override;

  Place GetPlace() const override { return CPUPlace{}; }
  int num_threads() const { return num_threads_; }

  /// Runs fn(begin, end) over [0, n) split into blocks across the threads.
  /// `cost_per_unit` is a rough count of cycles per index; small totals run
  /// inline on the caller.
  void ParallelFor(int64_t n,
                   double cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn) const;

  /// Eigen's device for tensor expressions and contractions (include
  /// platform/eigen.h to use it).
  Eigen::ThreadPoolDevice* eigen_device() const;

 private:
  struct Impl;
  int num_threads_;
  std::unique_ptr<Impl> impl_;
};

using DeviceContextFactory = std::function<std::unique_ptr<DeviceContext>(
    const Place&, const DeviceContextOptions&)>;

/// Registers how contexts of a place kind are made ("cpu" is built in).
void RegisterDeviceContextFactory(const std::string& place_kind,
                                  DeviceContextFactory factory);
void UnregisterDeviceContextFactory(const std::string& place_kind);
/// True when a device context factory is registered for the kind.
bool HasDeviceContextFactory(const std::string& place_kind);

/// One context per place, created on first use. Owned by a predictor;
/// Get() is thread-safe.
class DeviceContextPool {
 public:
  explicit DeviceContextPool(DeviceContextOptions options)
      : options_(options) {}
  /// Throws NotFound naming the place when its kind has no factory.
  DeviceContext* Get(const Place& place);
  const DeviceContextOptions& options() const { return options_; }

 private:
  DeviceContextOptions options_;
  std::mutex mu_;
  std::unordered_map<Place, std::unique_ptr<DeviceContext>, PlaceHash>
      contexts_;
};

}  // namespace platform
}  // namespace paddle_lite
