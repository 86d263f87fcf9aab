#include "platform/place.h"

#include <cmath>
#include <unordered_set>

#include "gtest/gtest.h"
#include "platform/allocator.h"
#include "platform/device_context.h"
#include "platform/enforce.h"
#include "platform/float16.h"

namespace paddle_lite {
namespace platform {
namespace {

TEST(Place, PrintsAndParsesEveryKind) {
  EXPECT_EQ(Place(CPUPlace{}).ToString(), "cpu");
  EXPECT_EQ(Place(CUDAPlace{0}).ToString(), "cuda:0");
  EXPECT_EQ(Place(CUDAPlace{3}).ToString(), "cuda:3");
  EXPECT_EQ(Place(CUDAPinnedPlace{}).ToString(), "cuda_pinned");
  EXPECT_EQ(Place(CustomPlace{"npu", 1}).ToString(), "npu:1");
  for (const char* text :
       {"cpu", "cuda:0", "cuda:7", "cuda_pinned", "npu:1", "emu:0"}) {
    EXPECT_EQ(ParsePlace(text).ToString(), text);
  }
  EXPECT_EQ(ParsePlace("gpu:2"), Place(CUDAPlace{2}));
  EXPECT_EQ(ParsePlace("CPU"), Place(CPUPlace{}));
  EXPECT_EQ(ParsePlace("npu"), Place(CustomPlace{"npu", 0}));
  EXPECT_TRUE(ParsePlace("npu:1").is_custom());
}

TEST(Place, RejectsMalformedStrings) {
  for (const char* text : {"", ":1", "cuda:", "cuda:x", "cuda:-1", "cpu:1",
                           "1npu:0", "np u:0", "cuda:1234567"}) {
    try {
      ParsePlace(text);
      ADD_FAILURE() << "'" << text << "' parsed";
    } catch (const Exception& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(e.message().find("place"), std::string::npos) << e.what();
    }
  }
}

TEST(Place, EqualityAndHashing) {
  EXPECT_EQ(Place(CUDAPlace{1}), Place(CUDAPlace{1}));
  EXPECT_NE(Place(CUDAPlace{1}), Place(CUDAPlace{2}));
  EXPECT_NE(Place(CustomPlace{"npu", 0}), Place(CustomPlace{"emu", 0}));
  EXPECT_NE(Place(CPUPlace{}), Place(CUDAPinnedPlace{}));
  EXPECT_TRUE(SameKind(CUDAPlace{1}, CUDAPlace{2}));
  EXPECT_FALSE(SameKind(CustomPlace{"npu", 0}, CustomPlace{"emu", 0}));
  std::unordered_set<Place, PlaceHash> set = {
      CPUPlace{}, CUDAPlace{0}, CUDAPlace{1}, CustomPlace{"npu", 0},
      CustomPlace{"npu", 0}};
  EXPECT_EQ(set.size(), 4u);
  EXPECT_TRUE(Place(CPUPlace{}).is_host());
  EXPECT_TRUE(Place(CUDAPinnedPlace{}).is_host());
  EXPECT_FALSE(Place(CUDAPlace{0}).is_host());
}

TEST(Allocator, AlignedAndEmptyAllocations) {
  Allocator* cpu = GetAllocator(CPUPlace{});
  for (size_t bytes : {0, 1, 63, 64, 1000, 1 << 20}) {
    auto a = cpu->Allocate(bytes);
    ASSERT_NE(a->ptr(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a->ptr()) % 64, 0u);
    EXPECT_EQ(a->size(), bytes);
    EXPECT_TRUE(a->place().is_cpu());
  }
}

TEST(Allocator, UnknownDeviceIsNotFound) {
  try {
    GetAllocator(CustomPlace{"nodev", 0});
    ADD_FAILURE();
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(e.message().find("nodev:0"), std::string::npos);
  }
  char a[4] = {1, 2, 3, 4}, b[4] = {};
  EXPECT_THROW(Memcpy(CustomPlace{"nodev", 0}, b, CPUPlace{}, a, 4), Exception);
  Memcpy(CPUPlace{}, b, CPUPlace{}, a, 4);
  EXPECT_EQ(b[3], 4);
}

TEST(DeviceContext, PoolGivesOneContextPerPlaceAndItsThreads) {
  DeviceContextPool pool(DeviceContextOptions::WithThreads(3));
  auto* a = pool.Get(CPUPlace{});
  EXPECT_EQ(a, pool.Get(CPUPlace{}));
  auto* cpu = static_cast<CPUDeviceContext*>(a);
  EXPECT_EQ(cpu->num_threads(), 3);
  std::vector<int> hits(10000, 0);
  cpu->ParallelFor(10000, 1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[i]++;
  });
  for (int h : hits) ASSERT_EQ(h, 1);
  EXPECT_THROW(pool.Get(CustomPlace{"nodev", 0}), Exception);
}

TEST(Float16, RoundTripsAndRounds) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f,
                  0.333251953125f}) {
    EXPECT_EQ(static_cast<float>(float16(f)), f) << f;
  }
  EXPECT_TRUE(std::isinf(static_cast<float>(float16(1e6f))));
  EXPECT_EQ(float16(1.0f).bits, 0x3c00);
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f)), 1.0f);
  EXPECT_EQ(bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(static_cast<float>(bfloat16(3.140625f)), 3.140625f);
}

TEST(Errors, CodeAndMessage) {
  try {
    PADDLE_ENFORCE_EQ(1, 2, errors::InvalidArgument("shape ", 3, " vs ", 4));
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(e.message(), "shape 3 vs 4");
    EXPECT_STREQ(e.what(), "InvalidArgument: shape 3 vs 4");
  }
}

}  // namespace
}  // namespace platform
}  // namespace paddle_lite
