#include "platform/device_context.h"

#include <algorithm>
#include <map>

#include "platform/eigen.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace platform {

// Idle workers sleep rather than spin: spinning steals the cores other
// predictors (or processes) could use, and buys latency only on an idle box.
struct CPUDeviceContext::Impl {
  explicit Impl(int threads)
      : pool(std::max(threads - 1, 1), /*allow_spinning=*/false),
        device(&pool, threads) {}
  Eigen::ThreadPool pool;
  Eigen::ThreadPoolDevice device;
};

CPUDeviceContext::CPUDeviceContext(const DeviceContextOptions& options)
    : num_threads_(std::max(options.num_threads, 1)),
      impl_(new Impl(num_threads_)) {}

CPUDeviceContext::~CPUDeviceContext() = default;

Eigen::ThreadPoolDevice* CPUDeviceContext::eigen_device() const {
  return &impl_->device;
}

void CPUDeviceContext::ParallelFor(
    int64_t n,
    double cost_per_unit,
    const std::function<void(int64_t, int64_t)>& fn) const {
  if (n <= 0) return;
  // Below ~20k cycles the hand-off to the pool costs more than it saves.
  if (num_threads_ == 1 || static_cast<double>(n) * cost_per_unit < 2e4) {
    fn(0, n);
    return;
  }
  impl_->device.parallelFor(
      n, Eigen::TensorOpCost(0, 0, cost_per_unit),
      [&fn](Eigen::Index begin, Eigen::Index end) { fn(begin, end); });
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
  auto* raw = ctx.get();
  contexts_.emplace(place, std::move(ctx));
  return raw;
}

}  // namespace platform
}  // namespace paddle_lite
