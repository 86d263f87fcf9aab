// pdlite_serve_load: a closed-loop load client for `pdlite serve` (or any
// Open Inference Protocol server), for bench/serve_bench.py.
//
// The Python clients of serve_bench.py spend more time per request than
// the server does (building and parsing the request in the interpreter),
// so their latency cannot say what the server adds, and 64 of them take a
// core from the server. This client builds each request once, then each of
// --clients threads sends it back to back on its own connection (HTTP
// keep-alive, or its own gRPC channel), checks the answer against --expect,
// and records the latency. It prints one JSON line.
//
//   pdlite_serve_load --transport http-binary|http-json|grpc
//       --port N --model NAME --input NAME:FP32:1x3x48x192:FILE
//       --output NAME [--expect FILE] [--clients 1] [--warmup 1]
//       [--seconds 10] [--host 127.0.0.1] [--expect-refusal 1]
//
// FILE holds the tensor's bytes, little-endian, row-major; --expect the
// output's (FP32) for the answer check.
#include <grpcpp/grpcpp.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/percentile.h"
#include "serve/grpc_predict_v2.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct Options {
  std::string transport = "http-binary";
  std::string host = "127.0.0.1";
  int port = 0;
  std::string model;
  std::string input_name, input_datatype;
  std::vector<int64_t> input_shape;
  std::string input_bytes;
  std::string output_name;
  std::vector<float> expect;
  bool check = false;
  // Count the server's refusal (HTTP 400, gRPC INVALID_ARGUMENT) as the
  // answer: with an output the model lacks, the server decodes and checks
  // the request and answers without running the model, which times the
  // round trip without the model.
  bool expect_refusal = false;
  int clients = 1;
  double warmup_s = 1, seconds = 10;
};

// What one client thread saw inside the measured window.
struct ClientResult {
  std::vector<double> latencies_ms;
  std::map<std::string, int64_t> errors;
};

[[noreturn]] void Fail(const std::string& why) {
  std::cerr << "pdlite_serve_load: " << why << "\n";
  std::exit(2);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail("cannot read " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t from = 0;
  while (true) {
    size_t at = text.find(sep, from);
    parts.push_back(text.substr(from, at - from));
    if (at == std::string::npos) return parts;
    from = at + 1;
  }
}

// NAME:DATATYPE:DIMxDIM...:FILE
void ParseInput(const std::string& spec, Options* options) {
  std::vector<std::string> parts = Split(spec, ':');
  if (parts.size() != 4) Fail("--input wants NAME:DATATYPE:SHAPE:FILE");
  options->input_name = parts[0];
  options->input_datatype = parts[1];
  int64_t elements = 1;
  for (const std::string& dim : Split(parts[2], 'x')) {
    options->input_shape.push_back(std::stoll(dim));
    elements *= options->input_shape.back();
  }
  options->input_bytes = ReadFile(parts[3]);
  if (options->input_datatype != "FP32" ||
      static_cast<int64_t>(options->input_bytes.size()) != elements * 4) {
    Fail("--input: FP32 only, and " + parts[3] + " must hold " +
         std::to_string(elements * 4) + " bytes");
  }
}

void ParseFlag(const std::string& flag,
               const std::string& value,
               Options* options) {
  if (flag == "--transport") {
    options->transport = value;
  } else if (flag == "--host") {
    options->host = value;
  } else if (flag == "--port") {
    options->port = std::stoi(value);
  } else if (flag == "--model") {
    options->model = value;
  } else if (flag == "--input") {
    ParseInput(value, options);
  } else if (flag == "--output") {
    options->output_name = value;
  } else if (flag == "--expect") {
    std::string bytes = ReadFile(value);
    options->expect.resize(bytes.size() / sizeof(float));
    std::memcpy(options->expect.data(), bytes.data(),
                options->expect.size() * sizeof(float));
    options->check = true;
  } else if (flag == "--expect-refusal") {
    options->expect_refusal = value == "1" || value == "true";
  } else if (flag == "--clients") {
    options->clients = std::stoi(value);
  } else if (flag == "--warmup") {
    options->warmup_s = std::stod(value);
  } else if (flag == "--seconds") {
    options->seconds = std::stod(value);
  } else {
    Fail("unknown flag " + flag);
  }
}

Options ParseArgs(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) Fail("missing value after " + flag);
    std::string value = argv[++i];
    try {
      ParseFlag(flag, value, &options);
    } catch (const std::logic_error&) {  // from std::stoi and std::stod
      Fail("bad value '" + value + "' for " + flag);
    }
  }
  if (options.port <= 0 || options.model.empty() ||
      options.input_name.empty() || options.output_name.empty() ||
      options.clients < 1) {
    Fail("--port, --model, --input and --output are required");
  }
  if (options.transport != "http-binary" && options.transport != "http-json" &&
      options.transport != "grpc") {
    Fail("--transport is http-binary, http-json or grpc");
  }
  return options;
}

// Empty when `got` matches --expect (or there is nothing to check).
std::string CheckAnswer(const Options& options,
                        const float* got,
                        size_t count) {
  if (!options.check) return "";
  if (count != options.expect.size()) {
    return "answer has " + std::to_string(count) + " values, expected " +
           std::to_string(options.expect.size());
  }
  for (size_t i = 0; i < count; ++i) {
    float want = options.expect[i];
    if (!(std::fabs(got[i] - want) <= 1e-4f + 1e-3f * std::fabs(want))) {
      return "answer differs from --expect";
    }
  }
  return "";
}

// One request's body and headers, built once; the answer's check.
class HttpCall {
 public:
  explicit HttpCall(const Options& options) : options_(options) {
    path_ = "/v2/models/" + options.model + "/infer";
    json input = {{"name", options.input_name},
                  {"shape", options.input_shape},
                  {"datatype", options.input_datatype}};
    bool binary = options.transport == "http-binary";
    json output = {{"name", options.output_name},
                   {"parameters", {{"binary_data", binary}}}};
    if (binary) {
      input["parameters"] = {{"binary_data_size", options.input_bytes.size()}};
      std::string header =
          json{{"inputs", {input}}, {"outputs", {output}}}.dump();
      body_ = header + options.input_bytes;
      content_type_ = "application/octet-stream";
      headers_ = {
          {"Inference-Header-Content-Length", std::to_string(header.size())}};
    } else {
      std::vector<float> values(options.input_bytes.size() / sizeof(float));
      std::memcpy(values.data(), options.input_bytes.data(),
                  options.input_bytes.size());
      input["data"] = values;
      body_ = json{{"inputs", {input}}, {"outputs", {output}}}.dump();
      content_type_ = "application/json";
    }
  }

  // Empty on success, else why it failed.
  std::string operator()(httplib::Client* client) const {
    httplib::Result result = client->Post(path_.c_str(), headers_, body_.data(),
                                          body_.size(), content_type_.c_str());
    if (!result) return "HTTP " + httplib::to_string(result.error());
    if (options_.expect_refusal) {
      return result->status == 400
                 ? ""
                 : "HTTP " + std::to_string(result->status) + ", expected 400";
    }
    if (result->status != 200) {
      return "HTTP " + std::to_string(result->status) + " " +
             result->body.substr(0, 120);
    }
    const std::string& body = result->body;
    if (options_.transport == "http-binary") {
      std::string length =
          result->get_header_value("Inference-Header-Content-Length");
      size_t header_size = length.empty() ? 0 : std::stoull(length);
      if (header_size == 0 || header_size > body.size()) {
        return "answer without its binary output";
      }
      return CheckAnswer(
          options_, reinterpret_cast<const float*>(body.data() + header_size),
          (body.size() - header_size) / sizeof(float));
    }
    json answer = json::parse(body, nullptr, false);
    if (answer.is_discarded() || !answer.contains("outputs")) {
      return "answer is not an inference response";
    }
    std::vector<float> values =
        answer["outputs"][0]["data"].get<std::vector<float>>();
    return CheckAnswer(options_, values.data(), values.size());
  }

 private:
  const Options& options_;
  std::string path_, body_, content_type_;
  httplib::Headers headers_;
};

class GrpcCall {
 public:
  explicit GrpcCall(const Options& options) : options_(options) {
    request_.set_model_name(options.model);
    inference::ModelInferRequest::InferInputTensor* input =
        request_.add_inputs();
    input->set_name(options.input_name);
    input->set_datatype(options.input_datatype);
    for (int64_t dim : options.input_shape) input->add_shape(dim);
    request_.add_raw_input_contents(options.input_bytes);
    request_.add_outputs()->set_name(options.output_name);
  }

  std::string operator()(inference::GRPCInferenceService::Stub* stub) const {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(60));
    inference::ModelInferResponse response;
    grpc::Status status = stub->ModelInfer(&context, request_, &response);
    if (options_.expect_refusal) {
      return status.error_code() == grpc::StatusCode::INVALID_ARGUMENT
                 ? ""
                 : "gRPC " + std::to_string(status.error_code()) +
                       ", expected INVALID_ARGUMENT";
    }
    if (!status.ok()) {
      return "gRPC " + std::to_string(status.error_code()) + " " +
             status.error_message().substr(0, 120);
    }
    if (response.raw_output_contents_size() != 1) {
      return "answer without its raw output";
    }
    const std::string& raw = response.raw_output_contents(0);
    return CheckAnswer(options_, reinterpret_cast<const float*>(raw.data()),
                       raw.size() / sizeof(float));
  }

 private:
  const Options& options_;
  inference::ModelInferRequest request_;
};

// Calls `call` back to back until `end`; keeps what ended inside
// [measure_from, end].
template <typename Call>
void TimedLoop(const Call& call,
               Clock::time_point measure_from,
               Clock::time_point end,
               ClientResult* out) {
  while (true) {
    Clock::time_point start = Clock::now();
    if (start >= end) return;
    std::string why;
    try {
      why = call();
    } catch (const std::exception& e) {  // a malformed answer
      why = std::string("bad answer: ") + e.what();
    }
    Clock::time_point done = Clock::now();
    if (start < measure_from || done > end) continue;
    if (why.empty()) {
      out->latencies_ms.push_back(
          std::chrono::duration<double, std::milli>(done - start).count());
    } else {
      ++out->errors[why];
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options = ParseArgs(argc, argv);
  std::string target = options.host + ":" + std::to_string(options.port);
  std::unique_ptr<HttpCall> http;
  std::unique_ptr<GrpcCall> grpc_call;
  if (options.transport == "grpc") {
    grpc_call = std::make_unique<GrpcCall>(options);
  } else {
    http = std::make_unique<HttpCall>(options);
  }

  // Every client connects first, then all start together.
  Clock::time_point start = Clock::now() + std::chrono::milliseconds(500);
  Clock::time_point measure_from =
      start +
      std::chrono::microseconds(static_cast<int64_t>(options.warmup_s * 1e6));
  Clock::time_point end =
      measure_from +
      std::chrono::microseconds(static_cast<int64_t>(options.seconds * 1e6));
  std::vector<ClientResult> results(options.clients);
  std::vector<std::thread> clients;
  for (int i = 0; i < options.clients; ++i) {
    clients.emplace_back([&, i] {
      ClientResult* out = &results[i];
      if (grpc_call) {
        // Its own channel and connection, as a separate client would have.
        grpc::ChannelArguments args;
        args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
        args.SetMaxReceiveMessageSize(64 << 20);
        auto stub =
            inference::GRPCInferenceService::NewStub(grpc::CreateCustomChannel(
                target, grpc::InsecureChannelCredentials(), args));
        std::this_thread::sleep_until(start);
        TimedLoop([&] { return (*grpc_call)(stub.get()); }, measure_from, end,
                  out);
      } else {
        httplib::Client client(options.host, options.port);
        client.set_keep_alive(true);
        client.set_read_timeout(60, 0);
        std::this_thread::sleep_until(start);
        TimedLoop([&] { return (*http)(&client); }, measure_from, end, out);
      }
    });
  }
  for (std::thread& client : clients) client.join();

  std::vector<double> latencies;
  std::map<std::string, int64_t> errors;
  int64_t error_count = 0;
  for (const ClientResult& result : results) {
    latencies.insert(latencies.end(), result.latencies_ms.begin(),
                     result.latencies_ms.end());
    for (const auto& kind : result.errors) {
      errors[kind.first] += kind.second;
      error_count += kind.second;
    }
  }
  std::sort(latencies.begin(), latencies.end());
  json report = {
      {"requests", latencies.size()},
      {"errors", error_count},
      {"error_kinds", errors},
      {"throughput_rps", latencies.size() / options.seconds},
      {"p50_ms", pdlite_bench::Percentile(latencies, 50)},
      {"p99_ms", pdlite_bench::Percentile(latencies, 99)},
      {"checked", options.check},
  };
  std::cout << report.dump() << std::endl;
  return 0;
}
