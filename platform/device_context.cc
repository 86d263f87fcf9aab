#include "platform/device_context.h"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <map>
#include <memory>
#include <mutex>

#include "platform/eigen.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace platform {

// The context's work runs on OpenMP's team of the calling thread, the team
// oneDNN's kernels run on: one set of threads, handed work in about a
// microsecond (its workers wait briefly before they sleep), where Eigen's
// pool, whose workers sleep at once, took tens of microseconds to wake per
// op (the OCR classifier's plain run at 2 threads: 4.8 ms against 0.9).
// ThreadSanitizer cannot see libgomp's synchronization, so its builds run
// ParallelFor on Eigen's pool, which it can. Eigen's pool also serves
// eigen_device(), made when first asked for.
struct CPUDeviceContext::Impl {
  explicit Impl(int threads) : threads(threads) {}
  Eigen::ThreadPoolDevice* device() {
    std::call_once(made, [this] {
      pool = std::make_unique<Eigen::ThreadPool>(std::max(threads - 1, 1),
                                                 /*allow_spinning=*/false);
      eigen = std::make_unique<Eigen::ThreadPoolDevice>(pool.get(), threads);
    });
    return eigen.get();
  }
  int threads;
  std::once_flag made;
  std::unique_ptr<Eigen::ThreadPool> pool;
  std::unique_ptr<Eigen::ThreadPoolDevice> eigen;
};

CPUDeviceContext::CPUDeviceContext(const DeviceContextOptions& options)
    : num_threads_(std::max(options.num_threads, 1)),
      impl_(new Impl(num_threads_)) {}

CPUDeviceContext::~CPUDeviceContext() = default;

Eigen::ThreadPoolDevice* CPUDeviceContext::eigen_device() const {
  return impl_->device();
}

void CPUDeviceContext::ParallelFor(
    int64_t n,
    double cost_per_unit,
    const std::function<void(int64_t, int64_t)>& fn) const {
  if (n <= 0) return;
  // Below ~20k cycles the hand-off to other threads costs more than it
  // saves.
  if (num_threads_ == 1 || static_cast<double>(n) * cost_per_unit < 2e4) {
    fn(0, n);
    return;
  }
#ifdef PDLITE_TSAN_ONE_OPENMP_THREAD
  impl_->device()->parallelFor(
      n, Eigen::TensorOpCost(0, 0, cost_per_unit),
      [&fn](Eigen::Index begin, Eigen::Index end) { fn(begin, end); });
#else
  // Equal contiguous parts, one per thread; an exception must not leave
  // the parallel region, so the first is carried out of it.
  const int threads = static_cast<int>(std::min<int64_t>(num_threads_, n));
  std::exception_ptr error;
  std::mutex error_mu;
#pragma omp parallel num_threads(threads)
  {
    const int64_t part = omp_get_thread_num();
    const int64_t parts = omp_get_num_threads();
    const int64_t begin = n * part / parts;
    const int64_t end = n * (part + 1) / parts;
    try {
      if (begin < end) fn(begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
#endif
}

namespace {

struct FactoryRegistry {
  std::mutex mu;
  std::map<std::string, DeviceContextFactory> factories;
};

FactoryRegistry& Factories() {
  static FactoryRegistry* registry = [] {
    auto* r = new FactoryRegistry;
    r->factories["cpu"] = [](const Place&, const DeviceContextOptions& o) {
      return std::unique_ptr<DeviceContext>(new CPUDeviceContext(o));
    };
    return r;
  }();
  return *registry;
}

}  // namespace

void RegisterDeviceContextFactory(const std::string& place_kind,
                                  DeviceContextFactory factory) {
  auto& r = Factories();
  std::lock_guard<std::mutex> lock(r.mu);
  PADDLE_ENFORCE(r.factories.count(place_kind) == 0,
                 errors::AlreadyExists("A device context for place kind '",
                                       place_kind, "' is already registered."));
  r.factories[place_kind] = std::move(factory);
}

void UnregisterDeviceContextFactory(const std::string& place_kind) {
  auto& r = Factories();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories.erase(place_kind);
}

bool HasDeviceContextFactory(const std::string& place_kind) {
  if (place_kind == "cpu") return true;
  auto& r = Factories();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.factories.count(place_kind) != 0;
}

DeviceContext* DeviceContextPool::Get(const Place& place) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = contexts_.find(place);
  if (it != contexts_.end()) return it->second.get();
  DeviceContextFactory factory;
  {
    auto& r = Factories();
    std::lock_guard<std::mutex> registry_lock(r.mu);
    auto f = r.factories.find(place.KindName());
    PADDLE_ENFORCE(
        f != r.factories.end(),
        errors::NotFound("No device context is registered for "
                         "place ",
                         place, ": load the plugin that provides it."));
    factory = f->second;
  }
  auto ctx = factory(place, options_);
  ctx->set_cache_budget(options_.cache_budget);
  ctx->set_batch_invariant(options_.batch_invariant);
  auto* raw = ctx.get();
  contexts_.emplace(place, std::move(ctx));
  return raw;
}

}  // namespace platform
}  // namespace paddle_lite
