// Makes the order gRPC gives a reactor's callbacks visible to
// ThreadSanitizer.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define PDLITE_SERVE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PDLITE_SERVE_TSAN 1
#endif
#endif

#ifdef PDLITE_SERVE_TSAN
// ThreadSanitizer's annotations (its runtime defines them).
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace pdlite {
namespace serve {

/// gRPC runs a reactor's constructor before its callbacks and each
/// callback after what it reacts to, but hands them between its threads in
/// code ThreadSanitizer does not see (Debian's gRPC is not built with it).
/// Entering each (the constructor too) acquires, and leaving it releases,
/// the reactor's address, which tells it that order. An atomic member
/// would not: ThreadSanitizer checks an atomic's own access before its
/// acquire, so a callback's first add on a new gRPC thread raced with the
/// allocation's write of the member. Outside ThreadSanitizer it is empty.
class CallbackOrder {
 public:
  explicit CallbackOrder(const void* reactor) : reactor_(reactor) {
#ifdef PDLITE_SERVE_TSAN
    __tsan_acquire(const_cast<void*>(reactor_));
#endif
  }
  ~CallbackOrder() {
#ifdef PDLITE_SERVE_TSAN
    __tsan_release(const_cast<void*>(reactor_));
#endif
  }
  CallbackOrder(const CallbackOrder&) = delete;
  CallbackOrder& operator=(const CallbackOrder&) = delete;

 private:
  [[maybe_unused]] const void* const reactor_;
};

}  // namespace serve
}  // namespace pdlite
