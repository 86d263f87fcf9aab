// A bound on the bytes that concurrent requests may hold at once, all
// together, for memory whose size is known before it is taken (the JSON of
// infer requests being decoded). A take that does not fit beside what the
// others hold is refused at once, never waited for: the client retries.
#pragma once

#include <atomic>
#include <cstddef>

namespace pdlite {
namespace serve {

class ByteBudget {
 public:
  explicit ByteBudget(size_t limit) : limit_(limit) {}
  ByteBudget(const ByteBudget&) = delete;
  ByteBudget& operator=(const ByteBudget&) = delete;

  /// Bytes held until it ends; empty (false) when the take was refused.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept
        : budget_(other.budget_), bytes_(other.bytes_) {
      other.budget_ = nullptr;
    }
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    ~Lease() {
      if (budget_ != nullptr) budget_->held_.fetch_sub(bytes_);
    }
    explicit operator bool() const { return budget_ != nullptr; }

   private:
    friend class ByteBudget;
    Lease(ByteBudget* budget, size_t bytes) : budget_(budget), bytes_(bytes) {}
    ByteBudget* budget_ = nullptr;
    size_t bytes_ = 0;
  };

  /// Takes `bytes` if they fit beside what the others hold. A refused take
  /// holds nothing, even for a moment, so it cannot refuse another.
  Lease TryTake(size_t bytes);

  size_t limit() const { return limit_; }
  size_t held() const { return held_.load(); }

 private:
  const size_t limit_;
  std::atomic<size_t> held_{0};  // never above limit_
};

}  // namespace serve
}  // namespace pdlite
