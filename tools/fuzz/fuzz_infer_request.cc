// libFuzzer entry of the infer request fuzzer: bytes as an infer call to
// `pdlite serve`, through its wire format and its core with a real model,
// as a client could send them. The first byte picks how the rest is read:
//   bit 0: HTTP binary framed: two more bytes (little endian) give the
//          Inference-Header-Content-Length, the body follows; else the
//          rest is all JSON;
//   bit 1: a gRPC ModelInferRequest (protobuf) instead of an HTTP body;
//   bit 2: the demo model with dynamic batching, else without;
//   bit 3: an HTTP body with the spare capacity the server gives it (the
//          JSON is parsed in place), else without (parsed from a copy);
//   bit 4: an HTTP body compressed (gzip, or deflate with bit 5), which
//          the server decompresses first (serve/http_compression.h) under
//          a limit of 1 MB, holding at most 2 MB.
// A request that decodes runs on the model (models/demo_convnet, from a
// repository of symlinks made in the build tree), and its answer is
// encoded back; an HTTP answer must be valid JSON. Shared memory is on,
// with a region "r" of kRegionBytes registered (a POSIX shared-memory
// object of this process, filled with 0.5f), for inputs and outputs to
// name (its object unlinked once registered). Refusals are fine; a crash, a
// sanitizer report or a hang is a bug.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "serve/grpc_frontend.h"
#include "serve/grpc_predict_v2.pb.h"
#include "serve/http_codec.h"
#include "serve/http_compression.h"
#include "serve/server.h"

namespace {

namespace fs = std::filesystem;
using pdlite::serve::InferenceServer;
using pdlite::serve::InferRequest;
using pdlite::serve::InferResponse;
using pdlite::serve::Status;
using pdlite::serve::WireOptions;

constexpr size_t kRegionBytes = 64 << 10;
// The name of this process's shared-memory object.
// This process's shared-memory object, unlinked at exit.
const std::string& RegionKey() {
  static const std::string key =
      "/pdlite_fuzz_infer_" + std::to_string(::getpid());
  return key;
}

// Makes the object and registers it as "r".
void RegisterRegion(InferenceServer* server) {
  const int fd = ::shm_open(RegionKey().c_str(), O_CREAT | O_RDWR, 0600);
  if (fd < 0) std::abort();
  const std::vector<float> halves(kRegionBytes / sizeof(float), 0.5f);
  if (::pwrite(fd, halves.data(), kRegionBytes, 0) !=
      static_cast<ssize_t>(kRegionBytes)) {
    std::abort();
  }
  ::close(fd);
  if (!server->shared_memory().Register("r", RegionKey(), 0, kRegionBytes).ok())
    std::abort();
  // The region keeps its descriptor: the name can go now, so that a crash
  // leaves nothing in /dev/shm.
  ::shm_unlink(RegionKey().c_str());
}

// The repository, made once per process: the demo model twice, with and
// without batching. Queued requests time out rather than wait long.
InferenceServer* Server() {
  static InferenceServer* server = [] {
    const fs::path repo = PDLITE_FUZZ_REPO_DIR;
    fs::remove_all(repo);
    for (const char* name : {"demo", "demo_batched"}) {
      fs::create_directories(repo / name);
      fs::create_directory_symlink(PDLITE_SOURCE_DIR "/models/demo_convnet",
                                   repo / name / "1");
    }
    std::ofstream(repo / "demo" / "config.json") << R"({"timeout_ms": 5000})";
    std::ofstream(repo / "demo_batched" / "config.json")
        << R"({"max_batch_size": 4, "batch_delay_us": 0, "timeout_ms": 5000})";
    pdlite::serve::ServerOptions options;
    options.shared_memory = true;
    options.max_shared_memory_input_bytes = kRegionBytes;
    auto* made = new InferenceServer(repo.string(), options);
    RegisterRegion(made);
    // At a normal exit (not a crash's): the workers joined, the
    // repository removed.
    std::atexit([] {
      Server()->Stop();
      delete Server();
      fs::remove_all(PDLITE_FUZZ_REPO_DIR);
    });
    return made;
  }();
  return server;
}

void Check(bool ok) {
  if (!ok) std::abort();
}

// With PDLITE_FUZZ_VERBOSE set, how each input ended, for triage.
bool Ended(const char* where, const Status& status) {
  static const bool verbose = std::getenv("PDLITE_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::fprintf(stderr, "%s: %s\n", where,
                 status.ok() ? "ok" : status.message.c_str());
  }
  return status.ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool framed = (data[0] & 1) != 0;
  const bool grpc = (data[0] & 2) != 0;
  const std::string model = (data[0] & 4) != 0 ? "demo_batched" : "demo";
  size_t skip = 1;
  int64_t json_length = -1;
  if (framed && !grpc) {
    if (size < 3) return 0;
    json_length = data[1] | (data[2] << 8);
    skip = 3;
  }
  std::string body;
  if ((data[0] & 8) != 0) {
    body.reserve(size - skip + pdlite::serve::kBodyPaddingBytes);
  }
  body.assign(reinterpret_cast<const char*>(data) + skip, size - skip);
  InferenceServer* server = Server();

  if (grpc) {
    inference::ModelInferRequest wire;
    if (!wire.ParseFromString(body)) return 0;
    InferRequest request;
    if (!Ended("grpc decode",
               pdlite::serve::DecodeGrpcInferRequest(wire, &request))) {
      return 0;
    }
    request.model = model;
    request.version.clear();
    const std::string id = request.id;
    InferResponse response = server->Infer(std::move(request));
    if (!Ended("grpc infer", response.status)) return 0;
    inference::ModelInferResponse answer;
    pdlite::serve::EncodeGrpcInferResponse(response, id, &answer);
    std::string bytes;
    Check(answer.SerializeToString(&bytes));
    return 0;
  }

  if ((data[0] & 16) != 0) {
    using pdlite::serve::BodyCoding;
    std::string inflated;
    bool too_large = false;
    const Status status = pdlite::serve::Inflate(
        (data[0] & 32) != 0 ? BodyCoding::kDeflate : BodyCoding::kGzip, body,
        size_t{1} << 20, pdlite::serve::kBodyPaddingBytes,
        [](size_t bytes) { return bytes <= (size_t{2} << 20); }, &inflated,
        &too_large);
    if (too_large || !Ended("inflate", status)) return 0;
    Check(inflated.size() <= (size_t{1} << 20));
    body.swap(inflated);
  }
  InferRequest request;
  WireOptions options;
  if (!Ended("http decode", pdlite::serve::DecodeInferRequest(
                                body, json_length, &request, &options))) {
    return 0;
  }
  request.model = model;
  const std::string id = request.id;
  InferResponse response = server->Infer(std::move(request));
  if (!Ended("http infer", response.status)) return 0;
  int64_t header_length = -1;
  const std::string answer =
      pdlite::serve::EncodeInferResponse(response, id, options, &header_length);
  const size_t json_size =
      header_length < 0 ? answer.size() : static_cast<size_t>(header_length);
  // NaN and infinities are written as Triton writes them (NaN, Infinity,
  // -Infinity), which nlohmann-json does not read: as null, the rest must
  // be JSON. (In a string the replacement keeps it a string.)
  std::string json_text = answer.substr(0, json_size);
  for (const std::string token : {"-Infinity", "Infinity", "NaN"}) {
    for (size_t at = json_text.find(token); at != std::string::npos;
         at = json_text.find(token, at)) {
      json_text.replace(at, token.size(), "null");
    }
  }
  Check(nlohmann::json::accept(json_text));
  return 0;
}
