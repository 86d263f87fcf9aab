// A dense tensor: dims, element type, place, level-of-detail (sequence
// offsets) and a shared buffer with a byte offset. Copying a Tensor shares
// its buffer; TensorCopy() makes a deep copy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "framework/data_type.h"
#include "framework/ddim.h"
#include "platform/allocator.h"
#include "platform/enforce.h"
#include "platform/place.h"

namespace paddle_lite {
namespace framework {

/// Level-of-detail: per level, offsets into the next level (or rows),
/// starting at 0. Level-1 LoD {{0, 3, 5}} = two sequences of 3 and 2 rows.
using LoD = std::vector<std::vector<size_t>>;

enum class DataLayout { kAnyLayout = 0, kNCHW = 1, kNHWC = 2 };
const char* DataLayoutName(DataLayout layout);

/// A kernel library's own arrangement of a tensor's buffer (oneDNN's
/// blocked layouts), set by that library's kernels on their outputs so
/// that the next kernel of the same library reads it without a reorder.
/// Opaque to everything else: the executor converts such a tensor to its
/// plain layout (ConvertToPlainLayout) before any kernel of another
/// library, and before feed/fetch and sub-blocks, reads it.
class OpaqueLayout {
 public:
  virtual ~OpaqueLayout() = default;
  /// The name of the kernel library that reads and writes it ("MKLDNN").
  virtual const std::string& library() const = 0;
  /// Bytes the buffer needs (at least the plain size: blocks are padded).
  virtual size_t bytes() const = 0;
  /// Writes the values held at `src` to `plain`, in the tensor's plain
  /// layout (row-major over dims, or whatever plain layout it had).
  virtual void ToPlain(const void* src, void* plain) const = 0;
  /// For messages: "MKLDNN:nChw16c".
  virtual std::string ToString() const = 0;
};

class Tensor {
 public:
  Tensor() = default;

  const DDim& dims() const { return dims_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t numel() const { return Product(dims_); }
  DataType dtype() const { return dtype_; }
  const platform::Place& place() const { return place_; }
  DataLayout layout() const { return layout_; }
  void set_layout(DataLayout layout) { layout_ = layout; }
  const LoD& lod() const { return lod_; }
  void set_lod(LoD lod) { lod_ = std::move(lod); }
  /// The library layout of the buffer, or nullptr when it is plain.
  const OpaqueLayout* opaque_layout() const { return opaque_layout_.get(); }
  const std::shared_ptr<const OpaqueLayout>& shared_opaque_layout() const {
    return opaque_layout_;
  }
  /// Declares the buffer's layout; set it before mutable_data(), which
  /// sizes the buffer by it. nullptr: plain.
  void set_opaque_layout(std::shared_ptr<const OpaqueLayout> layout) {
    opaque_layout_ = std::move(layout);
  }

  /// Sets the dims; memory is (re)allocated by the next mutable_data().
  /// Copied into the dims held (no allocation for the same rank: shape
  /// inference sets every output's dims at each new input shape).
  Tensor& Resize(const DDim& dims) {
    dims_ = dims;
    return *this;
  }
  Tensor& Resize(DDim&& dims) {
    dims_ = std::move(dims);
    return *this;
  }

  /// True once memory has been allocated (or shared).
  bool IsInitialized() const { return holder_ != nullptr; }
  /// Bytes the current dims and dtype need (in the opaque layout, if set).
  size_t memory_size() const;

  /// Allocates for the current dims on `place` unless the held buffer is
  /// already there and large enough; sets the dtype. Returns the data.
  void* mutable_data(const platform::Place& place, DataType type);
  template <typename T>
  T* mutable_data(const platform::Place& place) {
    return static_cast<T*>(mutable_data(place, ToDataType<T>()));
  }
  /// Same on CPU with explicit dims.
  template <typename T>
  T* mutable_data(const DDim& dims, const platform::Place& place) {
    Resize(dims);
    return mutable_data<T>(place);
  }

  /// Typed read access; throws PreconditionNotMet if uninitialized and
  /// InvalidArgument if T is not the element type.
  template <typename T>
  const T* data() const {
    CheckAccess(ToDataType<T>());
    return reinterpret_cast<const T*>(raw_data());
  }
  template <typename T>
  T* data() {
    CheckAccess(ToDataType<T>());
    return reinterpret_cast<T*>(raw_data());
  }
  const void* raw_data() const;
  void* raw_data();

  /// Shares the buffer, dims, dtype, place, layout and LoD of `other`.
  void ShareDataWith(const Tensor& other);
  /// A view of rows [begin, end) of dim 0 sharing the buffer (LoD dropped).
  Tensor Slice(int64_t begin, int64_t end) const;

  const platform::AllocationPtr& holder() const { return holder_; }
  size_t offset() const { return offset_; }
  /// Points the tensor at an existing allocation (used by loaders and
  /// allocators that hand out views).
  void ResetHolder(platform::AllocationPtr holder,
                   size_t offset,
                   DataType type,
                   const platform::Place& place);

 private:
  void CheckAccess(DataType requested) const;

  DDim dims_;
  DataType dtype_ = DataType::kUndefined;
  platform::Place place_;
  DataLayout layout_ = DataLayout::kNCHW;
  LoD lod_;
  std::shared_ptr<const OpaqueLayout> opaque_layout_;
  platform::AllocationPtr holder_;
  size_t offset_ = 0;
};

/// Rewrites `t`'s buffer in its plain layout, in place, and clears its
/// opaque layout; a no-op for a plain tensor. `scratch` holds the
/// intermediate copy and grows as needed (pass the same one each time to
/// avoid allocations); nullptr uses a temporary.
void ConvertToPlainLayout(Tensor* t,
                          platform::AllocationPtr* scratch = nullptr);

/// Deep copy of `src` (dims, dtype, LoD, data) onto `dst_place`.
void TensorCopy(const Tensor& src,
                const platform::Place& dst_place,
                Tensor* dst);

/// "float32[2, 3, 48, 192]" for error messages.
std::string TensorSummary(const Tensor& t);

/// Why `lod` does not describe the rows of a tensor of `dims` ("" when it
/// does): each level starts at 0 and never decreases, each level ends at
/// the number of entries of the level below (minus one), and the last
/// level ends at dims[0]. Names the level, its offsets and the end wanted.
std::string LoDMismatch(const LoD& lod, const DDim& dims);

}  // namespace framework
}  // namespace paddle_lite
