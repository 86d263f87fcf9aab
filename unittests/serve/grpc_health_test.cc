// gRPC's health checking service (serve/grpc_health.h) on a real gRPC
// server on loopback, with a readiness the test sets: Check, Watch's
// changes, the restriction, the bound on watches and the close at
// shutdown. serve_test.py checks it in `pdlite serve` with gRPC's Python
// client.
#include "serve/grpc_health.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "serve/grpc_health.grpc.pb.h"

namespace pdlite {
namespace serve {
namespace {

using grpc::health::v1::Health;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

class GrpcHealthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    health_ = std::make_unique<GrpcHealthService>(
        [this] { return ready_.load(); },
        [this](grpc::CallbackServerContext*, std::string* why) {
          if (allowed_.load()) return true;
          *why = "not allowed";
          return false;
        });
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(health_->service());
    server_ = builder.BuildAndStart();
    ASSERT_TRUE(server_ != nullptr);
    ASSERT_GT(port, 0);
    stub_ = Health::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                            grpc::InsecureChannelCredentials()));
  }

  void TearDown() override {
    health_->Close();
    server_->Shutdown();
    server_->Wait();
  }

  // Check(name): its status, and the call's status in `call`.
  HealthCheckResponse::ServingStatus Check(const std::string& name,
                                           grpc::Status* call) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    HealthCheckRequest request;
    request.set_service(name);
    HealthCheckResponse response;
    *call = stub_->Check(&context, request, &response);
    return response.status();
  }

  std::atomic<bool> ready_{true};
  std::atomic<bool> allowed_{true};
  std::unique_ptr<GrpcHealthService> health_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<Health::Stub> stub_;
};

// A Watch call held open by the test.
struct Watching {
  Watching(Health::Stub* stub, const std::string& name) {
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    HealthCheckRequest request;
    request.set_service(name);
    reader = stub->Watch(&context, request);
  }
  // The next status, or -1 when the stream ended.
  int Next() {
    HealthCheckResponse response;
    return reader->Read(&response) ? response.status() : -1;
  }
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<HealthCheckResponse>> reader;
};

TEST_F(GrpcHealthTest, CheckAnswersTheServersReadiness) {
  grpc::Status call;
  for (const std::string name :
       {"", GrpcHealthService::kInferenceServiceName}) {
    ready_ = true;
    EXPECT_EQ(Check(name, &call), HealthCheckResponse::SERVING) << name;
    EXPECT_TRUE(call.ok()) << call.error_message();
    ready_ = false;
    EXPECT_EQ(Check(name, &call), HealthCheckResponse::NOT_SERVING) << name;
    EXPECT_TRUE(call.ok()) << call.error_message();
  }
}

TEST_F(GrpcHealthTest, CheckOfAnUnknownNameIsNotFoundNamingIt) {
  grpc::Status call;
  Check("grpc.health.v1.Health", &call);
  EXPECT_EQ(call.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(call.error_message().find("'grpc.health.v1.Health'"),
            std::string::npos)
      << call.error_message();
  // A long name is cut in the message.
  Check(std::string(100000, 'x'), &call);
  EXPECT_EQ(call.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_LT(call.error_message().size(), 300u);
}

TEST_F(GrpcHealthTest, CallsNotAllowedAreRefused) {
  allowed_ = false;
  grpc::Status call;
  Check("", &call);
  EXPECT_EQ(call.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  Watching watch(stub_.get(), "");
  EXPECT_EQ(watch.Next(), -1);
  EXPECT_EQ(watch.reader->Finish().error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
}

TEST_F(GrpcHealthTest, WatchSendsTheStatusThenEachChange) {
  Watching watch(stub_.get(), "");
  EXPECT_EQ(watch.Next(), HealthCheckResponse::SERVING);
  ready_ = false;
  EXPECT_EQ(watch.Next(), HealthCheckResponse::NOT_SERVING);
  ready_ = true;
  EXPECT_EQ(watch.Next(), HealthCheckResponse::SERVING);
  // Closed by the server: NOT_SERVING, then the end.
  health_->Close();
  EXPECT_EQ(watch.Next(), HealthCheckResponse::NOT_SERVING);
  EXPECT_EQ(watch.Next(), -1);
  const grpc::Status end = watch.reader->Finish();
  EXPECT_EQ(end.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(end.error_message().find("shutting down"), std::string::npos);
  // And later watches are refused.
  Watching late(stub_.get(), "");
  EXPECT_EQ(late.Next(), -1);
  EXPECT_EQ(late.reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(GrpcHealthTest, WatchOfAnUnknownNameSaysSoAndStaysOpen) {
  Watching watch(stub_.get(), "nope");
  EXPECT_EQ(watch.Next(), HealthCheckResponse::SERVICE_UNKNOWN);
  ready_ = false;  // not a change for a name it does not know
  std::this_thread::sleep_for(
      std::chrono::milliseconds(3 * GrpcHealthService::kWatchPollMs));
  health_->Close();
  // Still open until then: ended by the close, not before it.
  EXPECT_EQ(watch.Next(), -1);
  const grpc::Status end = watch.reader->Finish();
  EXPECT_EQ(end.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(end.error_message().find("shutting down"), std::string::npos)
      << end.error_message();
}

TEST_F(GrpcHealthTest, WatchesAreBounded) {
  std::vector<std::unique_ptr<Watching>> watches;
  for (int i = 0; i < GrpcHealthService::kMaxWatches; ++i) {
    watches.push_back(std::make_unique<Watching>(stub_.get(), ""));
    ASSERT_EQ(watches.back()->Next(), HealthCheckResponse::SERVING) << i;
  }
  Watching one_more(stub_.get(), "");
  EXPECT_EQ(one_more.Next(), -1);
  EXPECT_EQ(one_more.reader->Finish().error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  // A watch that ends makes room.
  watches.front()->context.TryCancel();
  watches.front()->reader->Finish();
  watches.erase(watches.begin());
  bool admitted = false;
  for (int attempt = 0; attempt < 100 && !admitted; ++attempt) {
    Watching again(stub_.get(), "");
    admitted = again.Next() == HealthCheckResponse::SERVING;
    again.context.TryCancel();
    again.reader->Finish();
    if (!admitted) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(admitted);
  for (auto& watch : watches) {
    watch->context.TryCancel();
    watch->reader->Finish();
  }
}

}  // namespace
}  // namespace serve
}  // namespace pdlite
