#include "framework/tensor.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace paddle_lite {
namespace framework {

const char* DataLayoutName(DataLayout layout) {
  switch (layout) {
    case DataLayout::kAnyLayout:
      return "AnyLayout";
    case DataLayout::kNCHW:
      return "NCHW";
    case DataLayout::kNHWC:
      return "NHWC";
  }
  return "?";
}

size_t Tensor::memory_size() const {
  if (dtype_ == DataType::kUndefined) return 0;
  size_t plain = 0;
  PADDLE_ENFORCE(
      !__builtin_mul_overflow(static_cast<size_t>(numel()), SizeOf(dtype_),
                              &plain),
      errors::InvalidArgument("The bytes of tensor ", TensorSummary(*this),
                              " overflow 64 bits."));
  return opaque_layout_ ? std::max(plain, opaque_layout_->bytes()) : plain;
}

void* Tensor::mutable_data(const platform::Place& place, DataType type) {
  PADDLE_ENFORCE(
      type != DataType::kUndefined,
      errors::InvalidArgument("mutable_data needs a defined data type."));
  dtype_ = type;
  const size_t bytes = memory_size();
  if (holder_ == nullptr || !(place_ == place) ||
      holder_->size() < offset_ + bytes) {
    try {
      holder_ = platform::GetAllocator(place)->Allocate(bytes);
    } catch (const Exception& e) {
      // A limit or a failed allocation: say which tensor asked.
      platform::RethrowWithContext(e, "tensor " + TensorSummary(*this) + ": ");
    }
    offset_ = 0;
    place_ = place;
  }
  return static_cast<char*>(holder_->ptr()) + offset_;
}

const void* Tensor::raw_data() const {
  PADDLE_ENFORCE(
      holder_ != nullptr,
      errors::PreconditionNotMet("Tensor ", TensorSummary(*this),
                                 " has no memory: it was never written."));
  return static_cast<const char*>(holder_->ptr()) + offset_;
}

void* Tensor::raw_data() {
  return const_cast<void*>(static_cast<const Tensor*>(this)->raw_data());
}

void Tensor::CheckAccess(DataType requested) const {
  PADDLE_ENFORCE(
      requested == dtype_,
      errors::InvalidArgument("Tensor holds ", dtype_, " data but was read as ",
                              requested, "."));
}

void Tensor::ShareDataWith(const Tensor& other) { *this = other; }

Tensor Tensor::Slice(int64_t begin, int64_t end) const {
  PADDLE_ENFORCE(rank() >= 1 && begin >= 0 && begin <= end && end <= dims_[0],
                 errors::OutOfRange("Slice [", begin, ", ", end,
                                    ") is out of range for dims ", dims_, "."));
  Tensor out = *this;
  out.lod_.clear();
  out.dims_[0] = end - begin;
  int64_t row = dims_.empty() ? 0 : Product(dims_, 1, rank());
  out.offset_ = offset_ + static_cast<size_t>(begin * row) * SizeOf(dtype_);
  return out;
}

void Tensor::ResetHolder(platform::AllocationPtr holder,
                         size_t offset,
                         DataType type,
                         const platform::Place& place) {
  holder_ = std::move(holder);
  offset_ = offset;
  dtype_ = type;
  place_ = place;
}

void ConvertToPlainLayout(Tensor* t, platform::AllocationPtr* scratch) {
  if (t->opaque_layout() == nullptr) return;
  std::shared_ptr<const OpaqueLayout> layout = t->shared_opaque_layout();
  t->set_opaque_layout(nullptr);
  if (!t->IsInitialized()) return;
  PADDLE_ENFORCE(
      t->place().is_host(),
      errors::Unimplemented("Converting ", TensorSummary(*t), " from layout ",
                            layout->ToString(), " on ", t->place(),
                            ": only host tensors can be."));
  const size_t plain_bytes = t->memory_size();
  platform::AllocationPtr local;
  if (scratch == nullptr) scratch = &local;
  if (*scratch == nullptr || (*scratch)->size() < plain_bytes) {
    scratch->reset();
    // A kept one is no run's tensor (platform::AllocateKeptHostBuffer).
    *scratch = scratch != &local && t->place().is_cpu()
                   ? platform::AllocateKeptHostBuffer(plain_bytes)
                   : platform::GetAllocator(t->place())->Allocate(plain_bytes);
  }
  layout->ToPlain(t->raw_data(), (*scratch)->ptr());
  std::memcpy(t->raw_data(), (*scratch)->ptr(), plain_bytes);
}

void TensorCopy(const Tensor& src,
                const platform::Place& dst_place,
                Tensor* dst) {
  PADDLE_ENFORCE(dst != &src, errors::InvalidArgument(
                                  "TensorCopy: source and destination are "
                                  "the same tensor."));
  dst->Resize(src.dims());
  dst->set_lod(src.lod());
  dst->set_layout(src.layout());
  // Always a fresh buffer: dst may share its old one with someone else.
  *dst = Tensor();
  dst->Resize(src.dims());
  dst->set_lod(src.lod());
  dst->set_layout(src.layout());
  dst->set_opaque_layout(src.shared_opaque_layout());
  void* out = dst->mutable_data(dst_place, src.dtype());
  if (src.memory_size() > 0) {
    platform::Memcpy(dst_place, out, src.place(), src.raw_data(),
                     src.memory_size());
  }
}

std::string TensorSummary(const Tensor& t) {
  std::ostringstream os;
  os << t.dtype() << DimsToString(t.dims());
  return os.str();
}

namespace {

// A level's offsets for a message: all of a short level, else the first
// few, the last and the count (a level may hold billions).
std::string OffsetsText(const std::vector<size_t>& offsets) {
  constexpr size_t kShown = 8;
  if (offsets.size() <= kShown) {
    return DimsToString(DDim(offsets.begin(), offsets.end()));
  }
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i + 1 < kShown; ++i) os << offsets[i] << ", ";
  os << "..., " << offsets.back() << "] (" << offsets.size() << " offsets)";
  return os.str();
}

}  // namespace

std::string LoDMismatch(const LoD& lod, const DDim& dims) {
  if (dims.empty()) return "a tensor of rank 0 has no rows to split";
  for (size_t level = 0; level < lod.size(); ++level) {
    const std::vector<size_t>& offsets = lod[level];
    const bool lowest = level + 1 == lod.size();
    // An empty lower level has no offsets to index: nothing fits it.
    const bool lower_empty = !lowest && lod[level + 1].empty();
    const size_t end = lowest        ? static_cast<size_t>(dims[0])
                       : lower_empty ? 0
                                     : lod[level + 1].size() - 1;
    bool ok = !lower_empty && !offsets.empty() && offsets.front() == 0 &&
              offsets.back() == end;
    for (size_t i = 1; ok && i < offsets.size(); ++i) {
      ok = offsets[i - 1] <= offsets[i];
    }
    if (!ok) {
      std::ostringstream os;
      os << "LoD level " << level << " " << OffsetsText(offsets) << " (of "
         << lod.size() << " levels) is not valid for " << DimsToString(dims)
         << ": offsets must start at 0, never decrease and end at " << end;
      return os.str();
    }
  }
  return "";
}

}  // namespace framework
}  // namespace paddle_lite
