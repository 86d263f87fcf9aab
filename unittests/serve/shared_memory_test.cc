// The system shared-memory extension without a socket: registering regions
// (and every refusal), reading and writing them, an object that shrinks
// under a registered region, and inference with inputs and outputs in
// shared memory through the server core and the HTTP codec.
#include "serve/shared_memory.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "framework/npy.h"
#include "serve/classification.h"
#include "serve/grpc_frontend.h"
#include "serve/grpc_predict_v2.pb.h"
#include "serve/http_codec.h"
#include "serve/server.h"
#include "unittests/test_utils/half_model.h"
#include "unittests/test_utils/model_paths.h"
#include "unittests/test_utils/scratch_dir.h"

namespace pdlite {
namespace serve {
namespace {

namespace fs = std::filesystem;
using paddle_lite::DataType;

// A POSIX shared-memory object of this test, unlinked when it goes.
class ShmObject {
 public:
  explicit ShmObject(size_t size) {
    static std::atomic<int> made{0};
    key_ = "/pdlite_test_" + std::to_string(::getpid()) + "_" +
           std::to_string(made++);
    fd_ = ::shm_open(key_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    EXPECT_GE(fd_, 0) << key_ << ": " << std::strerror(errno);
    EXPECT_EQ(::ftruncate(fd_, static_cast<off_t>(size)), 0);
  }
  ~ShmObject() {
    ::close(fd_);
    ::shm_unlink(key_.c_str());
  }
  const std::string& key() const { return key_; }
  void Put(size_t offset, const void* data, size_t size) {
    ASSERT_EQ(::pwrite(fd_, data, size, static_cast<off_t>(offset)),
              static_cast<ssize_t>(size));
  }
  std::string Get(size_t offset, size_t size) {
    std::string out(size, '\0');
    EXPECT_EQ(::pread(fd_, out.data(), size, static_cast<off_t>(offset)),
              static_cast<ssize_t>(size));
    return out;
  }
  void Resize(size_t size) {
    ASSERT_EQ(::ftruncate(fd_, static_cast<off_t>(size)), 0);
  }

 private:
  std::string key_;
  int fd_ = -1;
};

bool Has(const Status& s, const std::string& text) {
  return s.message.find(text) != std::string::npos;
}

TEST(SharedMemory, EverythingIsRefusedWhenOff) {
  ShmObject object(64);
  SharedMemoryRegistry off(false);
  Status s = off.Register("r", object.key(), 0, 64);
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(s, "--shared-memory system")) << s.message;
  std::vector<SharedMemoryRegionInfo> all;
  EXPECT_FALSE(off.Describe("", &all).ok());
  EXPECT_FALSE(off.Unregister("").ok());
  std::shared_ptr<const SharedMemoryRegion> region;
  EXPECT_FALSE(off.Find("r", &region).ok());
}

TEST(SharedMemory, RegistrationRefusalsSayWhy) {
  ShmObject object(64);
  SharedMemoryRegistry registry(true);
  struct Case {
    std::string name, key;
    uint64_t offset, size;
    std::string why;
  };
  const std::vector<Case> cases = {
      {"", object.key(), 0, 64, "1 to 255 printable ASCII"},
      {"a/b", object.key(), 0, 64, "without '/'"},
      {std::string(256, 'n'), object.key(), 0, 64, "1 to 255 printable"},
      {"caf\xc3\xa9", object.key(), 0, 64, "printable ASCII"},
      {"a\nb", object.key(), 0, 64, "printable ASCII"},
      {"r", "no-slash", 0, 64, "POSIX shared-memory object"},
      {"r", "/", 0, 64, "POSIX shared-memory object"},
      {"r", "/a/b", 0, 64, "POSIX shared-memory object"},
      {"r", "/..", 0, 64, "POSIX shared-memory object"},
      {"r", std::string("/a\0b", 4), 0, 64, "POSIX shared-memory object"},
      {"r", object.key(), 0, 0, "byte_size must be > 0"},
      {"r", object.key(), UINT64_MAX, 2, "below 2^63"},
      {"r", object.key(), 8, 64, "fewer than offset 8 + byte_size 64"},
      {"r", object.key() + "_none", 0, 64, "cannot open"},
  };
  for (const Case& c : cases) {
    Status s = registry.Register(c.name, c.key, c.offset, c.size);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << c.name << " " << c.key;
    EXPECT_TRUE(Has(s, c.why)) << s.message;
  }
  std::vector<SharedMemoryRegionInfo> all;
  ASSERT_TRUE(registry.Describe("", &all).ok());
  EXPECT_TRUE(all.empty());

  ASSERT_TRUE(registry.Register("r", object.key(), 8, 56).ok());
  Status twice = registry.Register("r", object.key(), 0, 8);
  EXPECT_EQ(twice.code, StatusCode::kAlreadyExists);
  EXPECT_TRUE(Has(twice, "already registered")) << twice.message;
}

TEST(SharedMemory, AFifoIsRefusedWithoutBlocking) {
  // Read-only for its owner: a server not run as root can open it only for
  // reading, an open that waits for a writer unless asked not to (as root
  // the read-write open succeeds, and does not wait). Either way the
  // registration must answer at once, refusing it.
  const std::string key = "/pdlite_test_fifo_" + std::to_string(::getpid());
  ASSERT_EQ(::mkfifo(("/dev/shm" + key).c_str(), 0400), 0)
      << std::strerror(errno);
  SharedMemoryRegistry registry(true);
  Status s = registry.Register("f", key, 0, 8);
  ::unlink(("/dev/shm" + key).c_str());
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(s, "not a shared-memory object")) << s.message;
}

TEST(SharedMemory, RegionsAreBoundedInNumber) {
  ShmObject object(8);
  SharedMemoryRegistry registry(true);
  for (size_t i = 0; i < SharedMemoryRegistry::kMaxRegions; ++i) {
    ASSERT_TRUE(
        registry.Register("r" + std::to_string(i), object.key(), 0, 8).ok());
  }
  Status s = registry.Register("one more", object.key(), 0, 8);
  EXPECT_EQ(s.code, StatusCode::kResourceExhausted);
  ASSERT_TRUE(registry.Unregister("r0").ok());
  EXPECT_TRUE(registry.Register("one more", object.key(), 0, 8).ok());
  ASSERT_TRUE(registry.Unregister("").ok());
  std::vector<SharedMemoryRegionInfo> all;
  ASSERT_TRUE(registry.Describe("", &all).ok());
  EXPECT_TRUE(all.empty());
}

TEST(SharedMemory, ReadsAndWritesStayInsideTheRegion) {
  ShmObject object(64);
  std::vector<char> pattern(64);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<char>(i);
  object.Put(0, pattern.data(), pattern.size());
  SharedMemoryRegistry registry(true);
  ASSERT_TRUE(registry.Register("r", object.key(), 16, 32).ok());
  std::vector<SharedMemoryRegionInfo> info;
  ASSERT_TRUE(registry.Describe("r", &info).ok());
  ASSERT_EQ(info.size(), 1u);
  EXPECT_EQ(info[0].key, object.key());
  EXPECT_EQ(info[0].offset, 16u);
  EXPECT_EQ(info[0].byte_size, 32u);
  EXPECT_EQ(registry.Describe("other", &info).code, StatusCode::kNotFound);

  std::shared_ptr<const SharedMemoryRegion> region;
  ASSERT_TRUE(registry.Find("r", &region).ok());
  char got[8];
  ASSERT_TRUE(region->Read("x", 4, 8, got).ok());
  EXPECT_EQ(std::memcmp(got, pattern.data() + 20, 8), 0);
  Status past = region->Read("input 'x'", 30, 4, got);
  EXPECT_FALSE(past.ok());
  EXPECT_TRUE(Has(past, "input 'x'") && Has(past, "run past the end"))
      << past.message;
  EXPECT_FALSE(region->Read("x", UINT64_MAX, 2, got).ok());

  ASSERT_TRUE(region->Write("y", 0, "abcd").ok());
  EXPECT_EQ(object.Get(16, 4), "abcd");
  EXPECT_EQ(object.Get(12, 4), std::string(pattern.data() + 12, 4));
  EXPECT_FALSE(region->Write("y", 30, "abcd").ok());

  // Unregistered while held: the holder still reads and writes it.
  ASSERT_TRUE(registry.Unregister("r").ok());
  EXPECT_FALSE(registry.Find("r", &region).ok());
  EXPECT_TRUE(region->Read("x", 0, 8, got).ok());
  EXPECT_TRUE(region->Write("y", 4, "wxyz").ok());
  EXPECT_EQ(object.Get(20, 4), "wxyz");
  // Unregistering a name that is not registered is not an error.
  EXPECT_TRUE(registry.Unregister("r").ok());
}

TEST(SharedMemory, AnObjectThatShrankIsAnErrorNotACrash) {
  ShmObject object(4096);
  SharedMemoryRegistry registry(true);
  ASSERT_TRUE(registry.Register("r", object.key(), 1024, 2048).ok());
  std::shared_ptr<const SharedMemoryRegion> region;
  ASSERT_TRUE(registry.Find("r", &region).ok());
  object.Resize(1500);
  std::vector<char> buffer(2048);
  Status read = region->Read("input 'x'", 0, 2048, buffer.data());
  EXPECT_EQ(read.code, StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(read, "smaller than when it was registered")) << read.message;
  Status write = region->Write("output 'y'", 0, std::string(2048, 'z'));
  EXPECT_EQ(write.code, StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(write, "smaller than when it was registered"))
      << write.message;
  // Not grown back by the refused write.
  struct stat st;
  ASSERT_EQ(::stat(("/dev/shm" + object.key()).c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 1500);
}

// ------------------------------------------------- through the server core

class SharedMemoryInference : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(repo_.path() + "/demo");
    fs::create_directory_symlink(paddle_lite::testing::DemoModelDir(),
                                 repo_.path() + "/demo/1");
    fs::create_directories(repo_.path() + "/batched");
    fs::create_directory_symlink(paddle_lite::testing::DemoModelDir(),
                                 repo_.path() + "/batched/1");
    std::ofstream(repo_.path() + "/batched/config.json")
        << R"({"max_batch_size": 8, "batch_delay_us": 20000})";
    // Requests wait a second for others to batch with.
    fs::create_directories(repo_.path() + "/late");
    fs::create_directory_symlink(paddle_lite::testing::DemoModelDir(),
                                 repo_.path() + "/late/1");
    std::ofstream(repo_.path() + "/late/config.json")
        << R"({"max_batch_size": 8, "batch_delay_us": 1000000})";
    ServerOptions options;
    options.shared_memory = true;
    options.max_shared_memory_input_bytes = 1 << 20;
    server_ = std::make_unique<InferenceServer>(repo_.path(), options);
    auto x = paddle_lite::framework::ReadNpy(
        paddle_lite::testing::DemoModelDir() + "/input_x.npy");
    input_.assign(reinterpret_cast<const char*>(x.data<float>()),
                  x.numel() * sizeof(float));
    // Rows of [2,3,32,32].
    row_bytes_ = input_.size() / 2;
  }

  // The demo's answer for row `row`, sent as bytes.
  InferResponse Direct(int row) {
    InferRequest r;
    r.model = "demo";
    TensorData t;
    t.name = "x";
    t.shape = {1, 3, 32, 32};
    t.bytes = input_.substr(row * row_bytes_, row_bytes_);
    r.inputs.push_back(std::move(t));
    return server_->Infer(std::move(r));
  }

  InferRequest FromRegion(const std::string& model,
                          const std::string& region,
                          uint64_t offset,
                          uint64_t byte_size) {
    InferRequest r;
    r.model = model;
    TensorData t;
    t.name = "x";
    t.shape = {1, 3, 32, 32};
    t.shared_memory = {region, offset, byte_size};
    r.inputs.push_back(std::move(t));
    return r;
  }

  paddle_lite::testing::ScratchDir repo_{"serve_shm_repo"};
  std::unique_ptr<InferenceServer> server_;
  std::string input_;
  size_t row_bytes_ = 0;
};

TEST_F(SharedMemoryInference, InputsAndOutputsInRegionsMatchTheBytesSent) {
  ShmObject in(2 * row_bytes_ + 100), out(256);
  in.Put(100, input_.data(), input_.size());
  ASSERT_TRUE(server_->shared_memory()
                  .Register("in", in.key(), 100, 2 * row_bytes_)
                  .ok());
  ASSERT_TRUE(server_->shared_memory().Register("out", out.key(), 0, 256).ok());
  for (int row = 0; row < 2; ++row) {
    const InferResponse want = Direct(row);
    ASSERT_TRUE(want.status.ok()) << want.status.message;
    InferRequest r = FromRegion("demo", "in", row * row_bytes_, row_bytes_);
    const std::string output = want.outputs[0].name;
    r.output_shared_memory[output] = {"out", 16, 200};
    InferResponse got = server_->Infer(std::move(r));
    ASSERT_TRUE(got.status.ok()) << got.status.message;
    ASSERT_EQ(got.outputs.size(), 1u);
    const TensorData& o = got.outputs[0];
    EXPECT_EQ(o.shape, want.outputs[0].shape);
    EXPECT_TRUE(o.elements().empty());
    EXPECT_EQ(o.shared_memory.region, "out");
    EXPECT_EQ(o.shared_memory.offset, 16u);
    EXPECT_EQ(o.shared_memory.byte_size, want.outputs[0].bytes.size());
    EXPECT_EQ(out.Get(16, o.shared_memory.byte_size), want.outputs[0].bytes);

    // Input from the region, output in the answer.
    got =
        server_->Infer(FromRegion("demo", "in", row * row_bytes_, row_bytes_));
    ASSERT_TRUE(got.status.ok()) << got.status.message;
    EXPECT_EQ(got.outputs[0].bytes, want.outputs[0].bytes);
  }
}

TEST_F(SharedMemoryInference, BatchedRequestsFromRegionsAnswerAsUnbatched) {
  ShmObject in(input_.size()), out(4096);
  in.Put(0, input_.data(), input_.size());
  SharedMemoryRegistry& registry = server_->shared_memory();
  ASSERT_TRUE(registry.Register("in", in.key(), 0, input_.size()).ok());
  ASSERT_TRUE(registry.Register("out", out.key(), 0, 4096).ok());
  const InferResponse direct0 = Direct(0);
  const std::string want0 = direct0.outputs[0].bytes;
  const std::string want1 = Direct(1).outputs[0].bytes;
  const std::string output = direct0.outputs[0].name;
  const uint64_t slot = 256;  // each request's output at its own offset
  ASSERT_LE(want0.size(), slot);
  // Half the requests have their output written to the region.
  constexpr int kRequests = 8;
  std::vector<std::thread> threads;
  std::atomic<int> right{0};
  for (int i = 0; i < kRequests; ++i) {
    threads.emplace_back([&, i] {
      const int row = i % 2;
      InferRequest r =
          FromRegion("batched", "in", row * row_bytes_, row_bytes_);
      const bool to_region = i % 4 < 2;
      if (to_region) r.output_shared_memory[output] = {"out", i * slot, slot};
      InferResponse got = server_->Infer(std::move(r));
      const std::string& want = row == 0 ? want0 : want1;
      if (got.status.ok() &&
          (to_region ? out.Get(i * slot, want.size()) == want &&
                           got.outputs[0].elements().empty()
                     : got.outputs[0].bytes == want)) {
        ++right;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(right.load(), kRequests);
  // Batched indeed: fewer runs than requests.
  std::vector<VersionStatistics> stats;
  ASSERT_TRUE(server_->Statistics("batched", "", &stats).ok());
  EXPECT_LT(stats.at(0).execution_count, uint64_t{kRequests});
}

// An input in shared memory is read when its request runs, straight into
// the model's input: a request waiting to run holds no copy of it.
TEST_F(SharedMemoryInference, InputsAreReadWhenTheRequestRuns) {
  ShmObject a(row_bytes_), b(row_bytes_), c(row_bytes_);
  a.Put(0, input_.data(), row_bytes_);
  b.Put(0, input_.data(), row_bytes_);
  c.Put(0, input_.data(), row_bytes_);
  SharedMemoryRegistry& registry = server_->shared_memory();
  ASSERT_TRUE(registry.Register("a", a.key(), 0, row_bytes_).ok());
  ASSERT_TRUE(registry.Register("b", b.key(), 0, row_bytes_).ok());
  ASSERT_TRUE(registry.Register("c", c.key(), 0, row_bytes_).ok());
  const std::string want1 = Direct(1).outputs.at(0).bytes;
  const std::string want0 = Direct(0).outputs.at(0).bytes;
  ASSERT_NE(want0, want1);
  // Row 0 when sent, row 1 by the time it runs (its batch waits 1 s).
  auto late = std::async(std::launch::async, [&] {
    return server_->Infer(FromRegion("late", "a", 0, row_bytes_));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  a.Put(0, input_.data() + row_bytes_, row_bytes_);
  InferResponse got = late.get();
  ASSERT_TRUE(got.status.ok()) << got.status.message;
  EXPECT_EQ(got.outputs.at(0).bytes, want1);
  // Two requests batched; one's object shrinks before they run: that one
  // fails, the other is answered. Read before the batch is joined, so the
  // model runs once, for the other alone (twice were they not batched).
  auto runs = [&] {
    const std::string metrics = server_->metrics().Render();
    const std::string key =
        "pdlite_batch_size_count{model=\"late\",version=\"1\"} ";
    const size_t at = metrics.find(key);
    return at == std::string::npos ? -1
                                   : std::stoi(metrics.substr(at + key.size()));
  };
  const int runs_before = runs();
  auto from_b = std::async(std::launch::async, [&] {
    return server_->Infer(FromRegion("late", "b", 0, row_bytes_));
  });
  auto from_c = std::async(std::launch::async, [&] {
    return server_->Infer(FromRegion("late", "c", 0, row_bytes_));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  c.Resize(16);
  got = from_b.get();
  ASSERT_TRUE(got.status.ok()) << got.status.message;
  EXPECT_EQ(got.outputs.at(0).bytes, want0);
  got = from_c.get();
  EXPECT_EQ(got.status.code, StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(got.status, "input 'x'")) << got.status.message;
  EXPECT_TRUE(Has(got.status, "smaller than when it was registered"))
      << got.status.message;
  EXPECT_EQ(runs(), runs_before + 1);
}

// An output asked for as classes and in a region: the region gets the
// classes' BYTES serialization, and the answer says BYTES and its size.
TEST_F(SharedMemoryInference, ClassesOfAnOutputGoToItsRegion) {
  ShmObject in(row_bytes_), out(4096);
  in.Put(0, input_.data(), row_bytes_);
  SharedMemoryRegistry& registry = server_->shared_memory();
  ASSERT_TRUE(registry.Register("in", in.key(), 0, row_bytes_).ok());
  ASSERT_TRUE(registry.Register("out", out.key(), 0, 4096).ok());
  const InferResponse direct = Direct(0);
  ASSERT_TRUE(direct.status.ok()) << direct.status.message;
  const std::string output = direct.outputs[0].name;
  TensorData want;
  ASSERT_TRUE(Classify(direct.outputs[0], 3, false, {}, &want).ok());
  InferRequest r = FromRegion("demo", "in", 0, row_bytes_);
  r.classification[output] = 3;
  r.output_shared_memory[output] = {"out", 0, 4096};
  InferResponse got = server_->Infer(std::move(r));
  ASSERT_TRUE(got.status.ok()) << got.status.message;
  ASSERT_EQ(got.outputs.size(), 1u);
  EXPECT_STREQ(DatatypeName(got.outputs[0]), "BYTES");
  EXPECT_EQ(got.outputs[0].shape, (std::vector<int64_t>{3}));
  EXPECT_TRUE(got.outputs[0].elements().empty());
  ASSERT_EQ(got.outputs[0].shared_memory.byte_size, want.bytes.size());
  EXPECT_EQ(out.Get(0, want.bytes.size()), want.bytes);
}

TEST_F(SharedMemoryInference, BadReferencesAreRefusedNamingTheInput) {
  ShmObject in(row_bytes_), out(4);
  in.Put(0, input_.data(), row_bytes_);
  SharedMemoryRegistry& registry = server_->shared_memory();
  ASSERT_TRUE(registry.Register("in", in.key(), 0, row_bytes_).ok());
  ASSERT_TRUE(registry.Register("out", out.key(), 0, 4).ok());
  auto refusal = [&](InferRequest r) {
    InferResponse got = server_->Infer(std::move(r));
    EXPECT_EQ(got.status.code, StatusCode::kInvalidArgument);
    return got.status.message;
  };
  EXPECT_NE(refusal(FromRegion("demo", "nope", 0, row_bytes_))
                .find("input 'x': no shared-memory region 'nope'"),
            std::string::npos);
  // The shape's bytes and the byte size disagree: refused before reading.
  std::string m = refusal(FromRegion("demo", "in", 0, row_bytes_ - 4));
  EXPECT_NE(m.find("shape [1,3,32,32] of FP32 needs " +
                   std::to_string(row_bytes_) + " bytes"),
            std::string::npos)
      << m;
  InferRequest huge = FromRegion("demo", "in", 0, row_bytes_);
  huge.inputs[0].shape = {1, 3, 32, int64_t{1} << 40};
  m = refusal(std::move(huge));
  EXPECT_NE(m.find("shared_memory_byte_size is " + std::to_string(row_bytes_) +
                   " in region 'in'"),
            std::string::npos)
      << m;
  m = refusal(FromRegion("demo", "in", 8, row_bytes_));
  EXPECT_NE(m.find("run past the end"), std::string::npos) << m;
  // More than a request may take, though the region holds it.
  ShmObject big(2 << 20);
  ASSERT_TRUE(registry.Register("big", big.key(), 0, 2 << 20).ok());
  InferRequest over = FromRegion("demo", "big", 0, 3 * 32 * 32 * 4 * 100);
  over.inputs[0].shape = {100, 3, 32, 32};
  m = refusal(std::move(over));
  EXPECT_NE(m.find("input 'x' (region 'big'): "), std::string::npos) << m;
  EXPECT_NE(m.find("the most a request may take"), std::string::npos) << m;
  // An output larger than its region's share: refused after the run, and
  // counted as a failure, not a success.
  const std::string output = Direct(0).outputs[0].name;
  std::vector<VersionStatistics> before, after;
  ASSERT_TRUE(server_->Statistics("demo", "", &before).ok());
  InferRequest r = FromRegion("demo", "in", 0, row_bytes_);
  r.output_shared_memory[output] = {"out", 0, 4};
  m = refusal(std::move(r));
  EXPECT_NE(m.find("more than its shared_memory_byte_size 4"),
            std::string::npos)
      << m;
  ASSERT_TRUE(server_->Statistics("demo", "", &after).ok());
  EXPECT_EQ(after.at(0).fail.count, before.at(0).fail.count + 1);
  EXPECT_EQ(after.at(0).success.count, before.at(0).success.count);
  // An output range past its region: refused before the model runs.
  r = FromRegion("demo", "in", 0, row_bytes_);
  r.output_shared_memory[output] = {"out", 2, 4};
  m = refusal(std::move(r));
  EXPECT_NE(m.find("output '" + output + "': shared_memory_offset 2"),
            std::string::npos)
      << m;
  ASSERT_TRUE(server_->Statistics("demo", "", &before).ok());
  EXPECT_EQ(before.at(0).execution_count, after.at(0).execution_count);
  // The object shrank after it was registered.
  in.Resize(16);
  m = refusal(FromRegion("demo", "in", 0, row_bytes_));
  EXPECT_NE(m.find("smaller than when it was registered"), std::string::npos)
      << m;
  // And the server still answers.
  EXPECT_TRUE(Direct(0).status.ok());
}

TEST(SharedMemoryServer, RefusedWithoutTheOption) {
  paddle_lite::testing::ScratchDir repo("serve_shm_off");
  fs::create_directories(repo.path() + "/demo");
  fs::create_directory_symlink(paddle_lite::testing::DemoModelDir(),
                               repo.path() + "/demo/1");
  InferenceServer server(repo.path());
  for (const std::string& e : server.Extensions()) {
    EXPECT_NE(e, "system_shared_memory");
  }
  InferRequest r;
  r.model = "demo";
  TensorData t;
  t.name = "x";
  t.shape = {1, 3, 32, 32};
  t.shared_memory = {"in", 0, 3 * 32 * 32 * 4};
  r.inputs.push_back(std::move(t));
  InferResponse got = server.Infer(std::move(r));
  EXPECT_EQ(got.status.code, StatusCode::kInvalidArgument);
  EXPECT_NE(got.status.message.find("--shared-memory system"),
            std::string::npos)
      << got.status.message;
}

// ------------------------------------------------------------ the HTTP codec

TEST(SharedMemoryCodec, ParametersAreDecodedAndChecked) {
  InferRequest r;
  WireOptions o;
  Status s = DecodeInferRequest(
      R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1,2],
          "parameters":{"shared_memory_region":"in",
                        "shared_memory_byte_size":8,
                        "shared_memory_offset":16}}],
          "outputs":[{"name":"y","parameters":{
                        "shared_memory_region":"out",
                        "shared_memory_byte_size":64}}]})",
      -1, &r, &o);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].shared_memory.region, "in");
  EXPECT_EQ(r.inputs[0].shared_memory.offset, 16u);
  EXPECT_EQ(r.inputs[0].shared_memory.byte_size, 8u);
  EXPECT_TRUE(r.inputs[0].elements().empty());
  ASSERT_EQ(r.output_shared_memory.count("y"), 1u);
  EXPECT_EQ(r.output_shared_memory["y"].region, "out");
  EXPECT_EQ(r.output_shared_memory["y"].byte_size, 64u);
  EXPECT_EQ(r.outputs, std::vector<std::string>{"y"});

  const std::string x =
      R"({"name":"x","datatype":"FP32","shape":[1,2],"parameters":)";
  const std::vector<std::pair<std::string, std::string>> refused = {
      {x + R"({"shared_memory_region":"in"}}]})", "go together"},
      {x + R"({"shared_memory_byte_size":8}}]})", "go together"},
      {x + R"({"shared_memory_offset":8}}]})", "go together"},
      {x + R"({"shared_memory_region":3,"shared_memory_byte_size":8}}]})",
       "must be a region's name"},
      {x + R"({"shared_memory_region":"in","shared_memory_byte_size":-1}}]})",
       "must be an integer >= 0"},
      {x + R"({"shared_memory_region":"in","shared_memory_byte_size":8},
               "data":[1,2]}]})",
       "send the elements one way"},
  };
  for (const auto& [body, why] : refused) {
    InferRequest bad;
    WireOptions bad_options;
    Status refusal =
        DecodeInferRequest(R"({"inputs":[)" + body, -1, &bad, &bad_options);
    EXPECT_FALSE(refusal.ok()) << body;
    EXPECT_TRUE(Has(refusal, why) && Has(refusal, "input 'x'"))
        << refusal.message;
  }
  InferRequest bad;
  Status both = DecodeInferRequest(
      R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}],
          "outputs":[{"name":"y","parameters":{"binary_data":true,
              "shared_memory_region":"out","shared_memory_byte_size":4}}]})",
      -1, &bad, &o);
  EXPECT_TRUE(Has(both, "output 'y'") && Has(both, "binary_data"))
      << both.message;
}

TEST(SharedMemoryCodec, AnOutputInARegionHasNoElementsInTheAnswer) {
  InferResponse response;
  response.model = "m";
  response.version = "1";
  TensorData in_region;
  in_region.name = "y";
  in_region.shape = {1, 2};
  in_region.shared_memory = {"out", 8, 8};
  TensorData sent;
  sent.name = "z";
  sent.shape = {1};
  const float one = 1.0f;
  sent.bytes.assign(reinterpret_cast<const char*>(&one), sizeof one);
  response.outputs = {in_region, sent};
  for (const bool binary : {false, true}) {
    WireOptions options;
    options.binary_default = binary;
    int64_t json_length = 0;
    const std::string body =
        EncodeInferResponse(response, "", options, &json_length);
    const auto j = nlohmann::json::parse(
        json_length < 0 ? body : body.substr(0, json_length));
    const auto& y = j["outputs"][0];
    EXPECT_FALSE(y.contains("data"));
    EXPECT_EQ(y["parameters"]["shared_memory_region"], "out");
    EXPECT_EQ(y["parameters"]["shared_memory_byte_size"], 8);
    EXPECT_EQ(y["parameters"]["shared_memory_offset"], 8);
    EXPECT_FALSE(y["parameters"].contains("binary_data_size"));
    const auto& z = j["outputs"][1];
    if (binary) {
      EXPECT_EQ(z["parameters"]["binary_data_size"], 4);
      EXPECT_EQ(body.size(), static_cast<size_t>(json_length) + 4);
    } else {
      EXPECT_EQ(z["data"][0], 1.0);
    }
  }
}

// ------------------------------------------------------------- the gRPC codec

TEST(SharedMemoryCodec, GrpcRawContentsSkipInputsInRegionsAndKeepPositions) {
  inference::ModelInferRequest wire;
  wire.set_model_name("m");
  for (const char* name : {"a", "b", "c"}) {
    auto* in = wire.add_inputs();
    in->set_name(name);
    in->set_datatype("FP32");
    in->add_shape(1);
  }
  // "a" and "c" in regions (c's sizes as uint64), "b" in the only raw entry.
  auto& a = *wire.mutable_inputs(0)->mutable_parameters();
  a["shared_memory_region"].set_string_param("ra");
  a["shared_memory_byte_size"].set_int64_param(4);
  auto& c = *wire.mutable_inputs(2)->mutable_parameters();
  c["shared_memory_region"].set_string_param("rc");
  c["shared_memory_byte_size"].set_uint64_param(4);
  c["shared_memory_offset"].set_uint64_param(12);
  const float b = 2.5f;
  wire.add_raw_input_contents(reinterpret_cast<const char*>(&b), sizeof b);
  auto* out = wire.add_outputs();
  out->set_name("y");
  (*out->mutable_parameters())["shared_memory_region"].set_string_param("ry");
  (*out->mutable_parameters())["shared_memory_byte_size"].set_int64_param(8);
  wire.add_outputs()->set_name("z");
  InferRequest r;
  Status s = DecodeGrpcInferRequest(wire, &r);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(r.inputs.size(), 3u);
  EXPECT_EQ(r.inputs[0].shared_memory.region, "ra");
  EXPECT_TRUE(r.inputs[0].elements().empty());
  EXPECT_FALSE(r.inputs[1].shared_memory.used());
  EXPECT_EQ(r.inputs[1].elements(),
            std::string(reinterpret_cast<const char*>(&b), sizeof b));
  EXPECT_EQ(r.inputs[2].shared_memory.region, "rc");
  EXPECT_EQ(r.inputs[2].shared_memory.offset, 12u);
  EXPECT_EQ(r.output_shared_memory.at("y").byte_size, 8u);
  EXPECT_EQ(r.output_shared_memory.count("z"), 0u);

  // One raw entry per input, counting those in regions: refused.
  wire.add_raw_input_contents("xxxx");
  InferRequest bad;
  s = DecodeGrpcInferRequest(wire, &bad);
  EXPECT_NE(s.message.find("2 entries for 1 inputs not in shared memory"),
            std::string::npos)
      << s.message;
  // A region without its byte size; a byte size that is negative.
  wire.mutable_raw_input_contents()->RemoveLast();
  a.erase("shared_memory_byte_size");
  s = DecodeGrpcInferRequest(wire, &bad);
  EXPECT_NE(s.message.find("input 'a': parameters \"shared_memory_region\" "
                           "and \"shared_memory_byte_size\" go together"),
            std::string::npos)
      << s.message;
  a["shared_memory_byte_size"].set_int64_param(-4);
  s = DecodeGrpcInferRequest(wire, &bad);
  EXPECT_NE(s.message.find("must be an int64 (or uint64) >= 0"),
            std::string::npos)
      << s.message;

  // The answer: the output in a region has its parameters and an empty
  // raw entry, so that the next output's entry stays second.
  InferResponse response;
  TensorData y, z;
  y.name = "y";
  y.shape = {1, 2};
  y.shared_memory = {"ry", 0, 8};
  z.name = "z";
  z.shape = {1};
  z.bytes = "abcd";
  response.outputs = {y, z};
  inference::ModelInferResponse answer;
  EncodeGrpcInferResponse(response, "id", &answer);
  ASSERT_EQ(answer.raw_output_contents_size(), 2);
  EXPECT_EQ(answer.raw_output_contents(0), "");
  EXPECT_EQ(answer.raw_output_contents(1), "abcd");
  const auto& p = answer.outputs(0).parameters();
  EXPECT_EQ(p.at("shared_memory_region").string_param(), "ry");
  EXPECT_EQ(p.at("shared_memory_byte_size").int64_param(), 8);
  EXPECT_EQ(p.count("shared_memory_offset"), 0u);
  EXPECT_EQ(answer.outputs(1).parameters().count("shared_memory_region"), 0u);
}

// When one asked output does not fit its region, none is written: the
// regions hold what they held, though an output before it fitted.
TEST(SharedMemoryOutputs, NoneIsWrittenWhenOneDoesNotFit) {
  paddle_lite::testing::ScratchDir model_dir("half_model");
  fs::create_directories(model_dir.path() + "/1");
  paddle_lite::testing::SaveHalfPrecisionModel(model_dir.path() + "/1/model");
  ServerOptions options;
  options.shared_memory = true;
  paddle_lite::testing::ScratchDir repo("serve_shm_outputs");
  fs::create_directory_symlink(model_dir.path(), repo.path() + "/half");
  InferenceServer server(repo.path(), options);
  ShmObject out(64);
  const std::string before(64, '\xAB');
  out.Put(0, before.data(), before.size());
  ASSERT_TRUE(server.shared_memory().Register("out", out.key(), 0, 64).ok());
  auto request = [] {
    InferRequest r;
    r.model = "half";
    for (auto [name, type] : {std::make_pair("x16", DataType::FLOAT16),
                              std::make_pair("xb16", DataType::BFLOAT16)}) {
      TensorData t;
      t.name = name;
      t.type = type;
      t.shape = {1, 3};
      t.bytes.assign(6, '\0');
      r.inputs.push_back(std::move(t));
    }
    return r;
  };
  // "sum" (12 bytes of FP32) comes before "sum16" (6 bytes) in the
  // answer; "sum16" is given 4.
  InferRequest r = request();
  r.output_shared_memory["sum"] = {"out", 0, 12};
  r.output_shared_memory["sum16"] = {"out", 16, 4};
  InferResponse got = server.Infer(std::move(r));
  EXPECT_EQ(got.status.code, StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(got.status, "output 'sum16' has 6 bytes"))
      << got.status.message;
  EXPECT_EQ(out.Get(0, 64), before);
  // "sum16"'s object shrank after it was registered.
  ShmObject shrunk(64);
  ASSERT_TRUE(
      server.shared_memory().Register("shrunk", shrunk.key(), 0, 64).ok());
  shrunk.Resize(4);
  r = request();
  r.output_shared_memory["sum"] = {"out", 0, 12};
  r.output_shared_memory["sum16"] = {"shrunk", 0, 6};
  got = server.Infer(std::move(r));
  EXPECT_EQ(got.status.code, StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(got.status, "smaller than when it was registered"))
      << got.status.message;
  EXPECT_EQ(out.Get(0, 64), before);
}

}  // namespace
}  // namespace serve
}  // namespace pdlite
