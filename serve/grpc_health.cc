#include "serve/grpc_health.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "serve/callback_order.h"
#include "serve/grpc_health.grpc.pb.h"

namespace pdlite {
namespace serve {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;
using ServingStatus = HealthCheckResponse::ServingStatus;

namespace {

// The names this server answers for: the whole server, and the one
// service a client calls. Anything else is a name it does not know.
bool Known(const std::string& name) {
  return name.empty() || name == GrpcHealthService::kInferenceServiceName;
}

std::string UnknownService(const std::string& name) {
  constexpr size_t kShownBytes = 80;
  const std::string shown =
      name.size() > kShownBytes ? name.substr(0, kShownBytes) + "..." : name;
  return "unknown service '" + shown + "'; this server answers \"\" (the " +
         "whole server) and \"" + GrpcHealthService::kInferenceServiceName +
         "\"";
}

}  // namespace

class GrpcHealthService::Impl final
    : public grpc::health::v1::Health::CallbackService {
 public:
  Impl(std::function<bool()> ready, Allowed allowed)
      : ready_(std::move(ready)), allowed_(std::move(allowed)) {
    poller_ = std::thread([this] { Poll(); });
  }

  ~Impl() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    poller_.join();
  }

  grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext* context,
                                  const HealthCheckRequest* request,
                                  HealthCheckResponse* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    std::string why;
    if (!allowed_(context, &why)) {
      reactor->Finish(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, why));
    } else if (!Known(request->service())) {
      // The protocol's answer to a name the server does not know.
      reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND,
                                   UnknownService(request->service())));
    } else {
      response->set_status(Current());
      reactor->Finish(grpc::Status::OK);
    }
    return reactor;
  }

  grpc::ServerWriteReactor<HealthCheckResponse>* Watch(
      grpc::CallbackServerContext* context,
      const HealthCheckRequest* request) override {
    return new WatchCall(this, context, request->service());
  }

  // Every watch gets NOT_SERVING and ends; later ones are refused.
  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    for (WatchCall* watch : watches_) watch->Close();
  }

 private:
  // One Watch call: the status at once, then each change, one write at a
  // time; a change while a write is out replaces what is still to send,
  // so a client that does not read holds one answer, not a queue.
  class WatchCall final : public grpc::ServerWriteReactor<HealthCheckResponse> {
   public:
    WatchCall(Impl* service,
              grpc::CallbackServerContext* context,
              const std::string& name)
        : service_(service),
          known_(Known(name)),
          // Set before the watch is registered, where Close() may see it.
          wanted_(known_ ? HealthCheckResponse::NOT_SERVING
                         : HealthCheckResponse::SERVICE_UNKNOWN) {
      CallbackOrder in_order(this);
      std::string why;
      grpc::Status refused;
      if (!service_->allowed_(context, &why)) {
        refused = grpc::Status(grpc::StatusCode::PERMISSION_DENIED, why);
      } else {
        refused = service_->Register(this);
        registered_ = refused.ok();
      }
      if (!refused.ok()) {
        finished_ = true;
        Finish(refused);
        return;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      // A name the server does not know may become known later, the
      // protocol says, so its watch stays open; here none ever does.
      if (known_ && !closing_) wanted_ = service_->Current();
      Pump(&lock);
    }

    // The server's status now (polled).
    void Update(ServingStatus status) {
      std::unique_lock<std::mutex> lock(mutex_);
      // A poll that began before the close must not undo its NOT_SERVING.
      if (!known_ || closing_) return;
      wanted_ = status;
      Pump(&lock);
    }

    void Close() {
      std::unique_lock<std::mutex> lock(mutex_);
      if (known_) wanted_ = HealthCheckResponse::NOT_SERVING;
      closing_ = true;
      Pump(&lock);
    }

    void OnWriteDone(bool ok) override {
      CallbackOrder in_order(this);
      std::unique_lock<std::mutex> lock(mutex_);
      writing_ = false;
      if (!ok) gone_ = true;
      Pump(&lock);
    }

    void OnCancel() override {
      CallbackOrder in_order(this);
      std::unique_lock<std::mutex> lock(mutex_);
      gone_ = true;
      Pump(&lock);
    }

    void OnDone() override {
      // After every other callback (what it frees, they touched).
      { CallbackOrder in_order(this); }
      if (registered_) service_->Unregister(this);
      delete this;
    }

   private:
    // Writes the status wanted when it is not the last one sent, or
    // finishes the call once the client is gone or the server closes it
    // and nothing is being written; with `lock` (on mutex_) held. Finish
    // releases the lock first: gRPC may delete this once it is finished.
    void Pump(std::unique_lock<std::mutex>* lock) {
      if (finished_ || writing_) return;
      if (!gone_ && static_cast<int>(wanted_) != sent_) {
        sent_ = static_cast<int>(wanted_);
        response_.set_status(wanted_);
        writing_ = true;
        StartWrite(&response_);
        return;
      }
      if (!gone_ && !closing_) return;
      finished_ = true;
      const grpc::Status status =
          gone_ ? grpc::Status::CANCELLED
                : grpc::Status(grpc::StatusCode::UNAVAILABLE,
                               "the server is shutting down");
      lock->unlock();
      Finish(status);
    }

    Impl* const service_;
    const bool known_;
    bool registered_ = false;
    std::mutex mutex_;
    HealthCheckResponse response_;  // the one being written
    ServingStatus wanted_;
    int sent_ = -1;  // none yet
    bool writing_ = false;
    bool gone_ = false;
    bool closing_ = false;
    bool finished_ = false;
  };

  ServingStatus Current() const {
    if (closing_.load()) return HealthCheckResponse::NOT_SERVING;
    return ready_() ? HealthCheckResponse::SERVING
                    : HealthCheckResponse::NOT_SERVING;
  }

  grpc::Status Register(WatchCall* watch) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "the server is shutting down");
    }
    if (watches_.size() >= static_cast<size_t>(kMaxWatches)) {
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          "the server has " + std::to_string(kMaxWatches) +
                              " health watches open already");
    }
    watches_.insert(watch);
    wake_.notify_all();
    return grpc::Status::OK;
  }

  void Unregister(WatchCall* watch) {
    std::lock_guard<std::mutex> lock(mutex_);
    watches_.erase(watch);
  }

  // While watches are open, looks at the server's readiness every
  // kWatchPollMs and hands it to each (which writes only a change). A
  // model's load or the server's shutdown reaches watchers within that.
  void Poll() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      if (watches_.empty() || closing_) {
        wake_.wait(lock, [this] {
          return stopping_ || (!watches_.empty() && !closing_);
        });
        continue;
      }
      wake_.wait_for(lock, std::chrono::milliseconds(kWatchPollMs));
      if (stopping_ || closing_ || watches_.empty()) continue;
      // Not under mutex_: readiness takes the server's own locks.
      lock.unlock();
      const ServingStatus now = Current();
      lock.lock();
      if (stopping_ || closing_) continue;
      // Under mutex_, so no watch is deleted meanwhile (OnDone waits).
      for (WatchCall* watch : watches_) watch->Update(now);
    }
  }

  const std::function<bool()> ready_;
  const Allowed allowed_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::set<WatchCall*> watches_;
  // Set under mutex_ (with the watches told); Current() reads it without.
  std::atomic<bool> closing_{false};
  bool stopping_ = false;
  std::thread poller_;  // last: started once the members above exist
};

GrpcHealthService::GrpcHealthService(std::function<bool()> ready,
                                     Allowed allowed)
    : impl_(std::make_unique<Impl>(std::move(ready), std::move(allowed))) {}

GrpcHealthService::~GrpcHealthService() = default;

grpc::Service* GrpcHealthService::service() { return impl_.get(); }

void GrpcHealthService::Close() { impl_->Close(); }

}  // namespace serve
}  // namespace pdlite
