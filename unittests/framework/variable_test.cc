// Variable: the held value's type, checked on every read, and what moving
// and clearing a variable leave behind.
#include "framework/variable.h"

#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace paddle_lite {
namespace framework {
namespace {

TEST(Variable, ReadsTheHeldTypeAndRefusesAnother) {
  Variable v;
  EXPECT_FALSE(v.IsInitialized());
  EXPECT_FALSE(v.IsType<Tensor>());
  EXPECT_THROW(v.Get<Tensor>(), Exception);  // not initialized

  v.GetMutable<Tensor>()->Resize({2, 3});
  EXPECT_TRUE(v.IsType<Tensor>());
  EXPECT_FALSE(v.IsType<TensorList>());
  EXPECT_EQ(v.Get<Tensor>().dims(), (DDim{2, 3}));
  EXPECT_EQ(v.GetMutable<Tensor>(), &v.Get<Tensor>());
  try {
    v.Get<TensorList>();
    FAIL() << "read a Tensor as a TensorList";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("was asked for"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(v.GetMutable<TensorList>(), Exception);
}

TEST(Variable, ClearAndMoveLeaveNothingBehind) {
  Variable v;
  v.GetMutable<Tensor>()->Resize({4});
  Variable moved(std::move(v));
  EXPECT_FALSE(v.IsInitialized());  // NOLINT(bugprone-use-after-move)
  EXPECT_FALSE(v.IsType<Tensor>());
  EXPECT_THROW(v.Get<Tensor>(), Exception);
  EXPECT_EQ(moved.Get<Tensor>().dims(), (DDim{4}));

  Variable assigned;
  assigned.GetMutable<TensorList>()->resize(2);
  assigned = std::move(moved);
  EXPECT_TRUE(assigned.IsType<Tensor>());
  EXPECT_FALSE(assigned.IsType<TensorList>());
  EXPECT_FALSE(moved.IsType<Tensor>());  // NOLINT(bugprone-use-after-move)

  assigned.Clear();
  EXPECT_FALSE(assigned.IsInitialized());
  EXPECT_FALSE(assigned.IsType<Tensor>());
  // Holds another type after being cleared.
  EXPECT_EQ(assigned.GetMutable<TensorList>()->size(), 0u);
  EXPECT_TRUE(assigned.IsType<TensorList>());
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
