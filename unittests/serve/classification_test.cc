// The classification extension: ranking (order, ties, NaN, rows, counts
// past the classes), values written as Triton writes them, labels files,
// and the BYTES answers it gives over HTTP (JSON and binary) and gRPC.
#include "serve/classification.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "serve/grpc_frontend.h"
#include "serve/grpc_predict_v2.pb.h"
#include "serve/http_codec.h"
#include "unittests/test_utils/scratch_dir.h"

namespace pdlite {
namespace serve {
namespace {

using paddle_lite::DataType;

template <typename T>
TensorData Scores(DataType type,
                  std::vector<int64_t> shape,
                  const std::vector<T>& values) {
  TensorData t;
  t.name = "prob";
  t.type = type;
  t.shape = std::move(shape);
  t.bytes.assign(reinterpret_cast<const char*>(values.data()),
                 values.size() * sizeof(T));
  return t;
}

std::vector<std::string> Strings(const TensorData& t) {
  std::vector<std::string_view> views;
  EXPECT_TRUE(SplitBytesElements(t.bytes, &views));
  return std::vector<std::string>(views.begin(), views.end());
}

TensorData Classified(const TensorData& scores,
                      int64_t count,
                      bool per_row,
                      const std::vector<std::string>& labels = {}) {
  TensorData out;
  Status s = Classify(scores, count, per_row, labels, &out);
  EXPECT_TRUE(s.ok()) << s.message;
  EXPECT_TRUE(out.is_bytes);
  EXPECT_STREQ(DatatypeName(out), "BYTES");
  return out;
}

TEST(Classification, HighestFirstEqualValuesByIndexNaNLast) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // The extension's own example, [1, 5, 10, 4], with a tie and a NaN.
  auto scores = Scores<float>(DataType::FLOAT32, {6}, {1, 5, 10, 4, 10, nan});
  TensorData out = Classified(scores, 3, false);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(Strings(out), (std::vector<std::string>{
                              "10.000000:2", "10.000000:4", "5.000000:1"}));
  out = Classified(scores, 6, false);
  EXPECT_EQ(Strings(out).back().substr(Strings(out).back().find(':')), ":5");
  // More classes asked for than there are: all of them.
  out = Classified(scores, 100, false);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{6}));
  EXPECT_EQ(Strings(out).size(), 6u);
  // -inf ranks above NaN, below every number.
  const float inf = std::numeric_limits<float>::infinity();
  out = Classified(Scores<float>(DataType::FLOAT32, {3}, {nan, -inf, -1e30f}),
                   3, false);
  EXPECT_EQ(Strings(out)[0].substr(Strings(out)[0].rfind(':')), ":2");
  EXPECT_EQ(Strings(out)[1].substr(Strings(out)[1].rfind(':')), ":1");
  EXPECT_EQ(Strings(out)[2].substr(Strings(out)[2].rfind(':')), ":0");
}

TEST(Classification, RowsAreRankedAloneWhenBatched) {
  auto scores = Scores<float>(DataType::FLOAT32, {2, 3},
                              {0.1f, 0.7f, 0.2f, 0.5f, 0.25f, 0.25f});
  TensorData out = Classified(scores, 2, true);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Strings(out),
            (std::vector<std::string>{"0.700000:1", "0.200000:2", "0.500000:0",
                                      "0.250000:1"}));
  // Not batched: the whole tensor is one set of scores.
  out = Classified(scores, 2, false);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(Strings(out),
            (std::vector<std::string>{"0.700000:1", "0.500000:3"}));
  // Rows of several dims, flattened; no rows, and rows with no scores.
  scores = Scores<float>(DataType::FLOAT32, {1, 2, 2}, {1, 4, 3, 2});
  EXPECT_EQ(Strings(Classified(scores, 2, true)),
            (std::vector<std::string>{"4.000000:1", "3.000000:2"}));
  out = Classified(Scores<float>(DataType::FLOAT32, {0, 5}, {}), 3, true);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{0, 0}));
  EXPECT_TRUE(out.bytes.empty());
  out = Classified(Scores<float>(DataType::FLOAT32, {2, 0}, {}), 3, true);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{2, 0}));
  out = Classified(Scores<float>(DataType::FLOAT32, {}, {7}), 3, false);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{1}));
  EXPECT_EQ(Strings(out), (std::vector<std::string>{"7.000000:0"}));
}

TEST(Classification, ValuesAreWrittenInTheirTypesAndLabelsAppended) {
  EXPECT_EQ(Strings(Classified(Scores<int64_t>(DataType::INT64, {3},
                                               {-3, int64_t{1} << 40, 7}),
                               3, false)),
            (std::vector<std::string>{"1099511627776:1", "7:2", "-3:0"}));
  // A number, not a character.
  EXPECT_EQ(Strings(Classified(Scores<int8_t>(DataType::INT8, {2}, {-5, 65}), 2,
                               false)),
            (std::vector<std::string>{"65:1", "-5:0"}));
  EXPECT_EQ(Strings(Classified(
                Scores<paddle_lite::float16>(
                    DataType::FLOAT16, {2},
                    {paddle_lite::float16(1.5f), paddle_lite::float16(-2.f)}),
                1, false)),
            (std::vector<std::string>{"1.500000:0"}));
  EXPECT_EQ(
      Strings(Classified(Scores<double>(DataType::FLOAT64, {2}, {0.25, 1e-9}),
                         2, false)),
      (std::vector<std::string>{"0.250000:0", "0.000000:1"}));
  // Labels for the indices a file has; none past its end, and none for an
  // empty line (as Triton: no third ':').
  EXPECT_EQ(Strings(Classified(
                Scores<float>(DataType::FLOAT32, {3}, {0.2f, 0.3f, 0.5f}), 3,
                false, {"cat", "dog"})),
            (std::vector<std::string>{"0.500000:2", "0.300000:1:dog",
                                      "0.200000:0:cat"}));
  EXPECT_EQ(
      Strings(Classified(Scores<float>(DataType::FLOAT32, {2}, {0.2f, 0.3f}), 2,
                         false, {"", "dog"})),
      (std::vector<std::string>{"0.300000:1:dog", "0.200000:0"}));
}

TEST(Classification, RefusesCountsBelowOneAndAnswersTooLarge) {
  TensorData out;
  auto scores = Scores<float>(DataType::FLOAT32, {2}, {1, 2});
  Status s = Classify(scores, 0, false, {}, &out);
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
  EXPECT_NE(s.message.find("output 'prob'"), std::string::npos) << s.message;
  // Every class of a large output: refused before a string is made.
  const std::vector<float> many(kMaxClassesPerAnswer + 1, 0.5f);
  s = Classify(Scores<float>(DataType::FLOAT32,
                             {static_cast<int64_t>(many.size())}, many),
               INT64_MAX, false, {}, &out);
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
  EXPECT_NE(s.message.find("more than the 1048576 an answer may hold"),
            std::string::npos)
      << s.message;
  // As many, over rows: the same.
  s = Classify(Scores<float>(DataType::FLOAT32,
                             {static_cast<int64_t>(many.size() - 1) / 2 + 1, 2},
                             std::vector<float>(many.size() + 1, 0.5f)),
               2, true, {}, &out);
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << s.message;
  // At the limit: answered.
  s = Classify(Scores<float>(DataType::FLOAT32,
                             {static_cast<int64_t>(kMaxClassesPerAnswer)},
                             std::vector<float>(kMaxClassesPerAnswer, 0.5f)),
               INT64_MAX, false, {}, &out);
  EXPECT_TRUE(s.ok()) << s.message;
}

// Long labels, repeated in every row, cannot make an answer of any size:
// its classes' bytes are bounded too.
TEST(Classification, LongLabelsOverManyRowsAreRefusedPastTheBytesBound) {
  const std::vector<std::string> labels(10, std::string(1 << 20, 'L'));
  const int64_t rows = 8;  // 8 rows x 10 classes of 1 MB: 80 MB
  TensorData out;
  Status s = Classify(Scores<float>(DataType::FLOAT32, {rows, 10},
                                    std::vector<float>(rows * 10, 0.5f)),
                      10, true, labels, &out);
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
  EXPECT_NE(s.message.find("output 'prob': 10 classes for each of 8 rows, "
                           "with their labels, take more than the 67108864 "
                           "bytes"),
            std::string::npos)
      << s.message;
  EXPECT_LT(out.bytes.capacity(), size_t{1} << 20);  // given back
  // 6 rows (60 MB): answered.
  s = Classify(
      Scores<float>(DataType::FLOAT32, {6, 10}, std::vector<float>(60, 0.5f)),
      10, true, labels, &out);
  EXPECT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(Strings(out).size(), 60u);
}

// The bounds are an answer's, all its classified outputs together: each
// output takes from what the ones before it left.
TEST(Classification, AnAnswersOutputsShareItsBounds) {
  const std::vector<std::string> labels(10, std::string(1 << 20, 'L'));
  auto rows_of = [](int64_t rows) {
    return Scores<float>(DataType::FLOAT32, {rows, 10},
                         std::vector<float>(rows * 10, 0.5f));
  };
  ClassLimits left;
  TensorData out;
  ASSERT_TRUE(Classify(rows_of(4), 10, true, labels, &out, &left).ok());
  EXPECT_EQ(left.classes, kMaxClassesPerAnswer - 40);
  EXPECT_EQ(left.bytes, kMaxClassBytesPerAnswer - out.bytes.size());
  // 40 MB taken: 30 MB more do not fit, though alone they would.
  Status s = Classify(rows_of(3), 10, true, labels, &out, &left);
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
  EXPECT_NE(s.message.find("take more than the " + std::to_string(left.bytes) +
                           " left of the " +
                           std::to_string(kMaxClassBytesPerAnswer) + " bytes"),
            std::string::npos)
      << s.message;
  EXPECT_TRUE(Classify(rows_of(3), 10, true, labels, &out).ok());
  // Classes likewise.
  left = ClassLimits();
  left.classes = 25;
  s = Classify(rows_of(3), 10, true, {}, &out, &left);
  EXPECT_NE(s.message.find("more than the 25 left of the 1048576 an answer "
                           "may hold"),
            std::string::npos)
      << s.message;
}

TEST(Classification, BytesElementsSplitOnlyWhenWhole) {
  std::string elements;
  AppendBytesElement(&elements, "ab");
  AppendBytesElement(&elements, "");
  AppendBytesElement(&elements, std::string(300, 'x'));
  std::vector<std::string_view> views;
  ASSERT_TRUE(SplitBytesElements(elements, &views));
  ASSERT_EQ(views.size(), 3u);
  EXPECT_EQ(views[0], "ab");
  EXPECT_EQ(views[1], "");
  EXPECT_EQ(views[2].size(), 300u);
  EXPECT_EQ(elements.substr(10, 4), std::string("\x2c\x01\0\0", 4));
  EXPECT_FALSE(
      SplitBytesElements(elements.substr(0, elements.size() - 1), &views));
  EXPECT_FALSE(SplitBytesElements(std::string("\x01\0\0", 3), &views));
  EXPECT_TRUE(SplitBytesElements("", &views));
  EXPECT_TRUE(views.empty());
}

TEST(Classification, LabelsFilesAreLinesOfUtf8Text) {
  paddle_lite::testing::ScratchDir dir("labels");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.path() + "/" + name, std::ios::binary) << text;
    return dir.path() + "/" + name;
  };
  std::vector<std::string> labels;
  std::string error;
  ASSERT_TRUE(ReadLabelsFile(write("a", "cat\r\ndog\n\nb\xc3\xa4r"), 1 << 20,
                             &labels, &error))
      << error;
  EXPECT_EQ(labels, (std::vector<std::string>{"cat", "dog", "", "b\xc3\xa4r"}));
  ASSERT_TRUE(ReadLabelsFile(write("empty", ""), 1 << 20, &labels, &error));
  EXPECT_TRUE(labels.empty());
  EXPECT_FALSE(
      ReadLabelsFile(write("bad", "ok\n\xff\n"), 1 << 20, &labels, &error));
  EXPECT_NE(error.find("not UTF-8"), std::string::npos) << error;
  EXPECT_FALSE(
      ReadLabelsFile(write("tab", "a\tb\n"), 1 << 20, &labels, &error));
  EXPECT_NE(error.find("line 1 has a control character"), std::string::npos)
      << error;
  EXPECT_FALSE(ReadLabelsFile(write("big", std::string(2000, 'a')), 1000,
                              &labels, &error));
  EXPECT_NE(error.find("larger than 1000 bytes"), std::string::npos) << error;
  // Lines are strings in memory: bounded in number, not just in bytes.
  ASSERT_TRUE(ReadLabelsFile(write("most", std::string(kMaxLabels, '\n')),
                             4 << 20, &labels, &error))
      << error;
  EXPECT_EQ(labels.size(), kMaxLabels);
  EXPECT_FALSE(ReadLabelsFile(write("lines", std::string(kMaxLabels + 1, '\n')),
                              4 << 20, &labels, &error));
  EXPECT_NE(error.find("more than 1048576 lines"), std::string::npos) << error;
  EXPECT_FALSE(ReadLabelsFile(dir.path() + "/none", 1 << 20, &labels, &error));
  EXPECT_NE(error.find(dir.path() + "/none"), std::string::npos) << error;
  EXPECT_FALSE(ReadLabelsFile(dir.path(), 1 << 20, &labels, &error));
  // A FIFO is refused, not opened (which would wait for a writer).
  ASSERT_EQ(mkfifo((dir.path() + "/fifo").c_str(), 0600), 0);
  EXPECT_FALSE(ReadLabelsFile(dir.path() + "/fifo", 1 << 20, &labels, &error));
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
}

// A response whose one output is classes.
InferResponse ClassesResponse() {
  InferResponse response;
  response.model = "m";
  response.version = "1";
  TensorData classes;
  classes.name = "prob";
  classes.is_bytes = true;
  classes.shape = {2};
  AppendBytesElement(&classes.bytes, "0.900000:3:caf\xc3\xa9 \"x\"");
  AppendBytesElement(&classes.bytes, "0.100000:0");
  response.outputs.push_back(std::move(classes));
  return response;
}

TEST(Classification, HttpRequestsAskAndAnswersCarryBytes) {
  const std::string inputs =
      R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1]}],)";
  InferRequest r;
  WireOptions o;
  ASSERT_TRUE(
      DecodeInferRequest(inputs + R"("outputs":[{"name":"prob","parameters":)"
                                  R"({"classification":5}},{"name":"b"}]})",
                         -1, &r, &o)
          .ok());
  EXPECT_EQ(r.classification, (std::map<std::string, int64_t>{{"prob", 5}}));
  EXPECT_EQ(r.outputs, (std::vector<std::string>{"prob", "b"}));
  for (const char* bad : {"0", "-1", "1.5", "\"2\"", "true"}) {
    InferRequest refused;
    Status s = DecodeInferRequest(
        inputs +
            R"("outputs":[{"name":"prob","parameters":{"classification":)" +
            bad + "}}]}",
        -1, &refused, &o);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message.find("output 'prob': \"classification\" must be an "
                             "integer >= 1"),
              std::string::npos)
        << s.message;
  }
  // JSON: the strings; binary: the serialized bytes after the header.
  int64_t json_length = 0;
  std::string body =
      EncodeInferResponse(ClassesResponse(), "", WireOptions{}, &json_length);
  EXPECT_EQ(json_length, -1);
  auto j = nlohmann::json::parse(body);
  EXPECT_EQ(j["outputs"][0]["datatype"], "BYTES");
  EXPECT_EQ(j["outputs"][0]["shape"], nlohmann::json::array({2}));
  EXPECT_EQ(
      j["outputs"][0]["data"],
      nlohmann::json::array({"0.900000:3:caf\xc3\xa9 \"x\"", "0.100000:0"}));
  WireOptions binary;
  binary.binary_default = true;
  body = EncodeInferResponse(ClassesResponse(), "", binary, &json_length);
  ASSERT_GT(json_length, 0);
  j = nlohmann::json::parse(body.substr(0, json_length));
  EXPECT_EQ(j["outputs"][0]["datatype"], "BYTES");
  EXPECT_EQ(body.substr(json_length), ClassesResponse().outputs[0].bytes);
  EXPECT_EQ(j["outputs"][0]["parameters"]["binary_data_size"],
            ClassesResponse().outputs[0].bytes.size());
}

TEST(Classification, GrpcRequestsAskAndAnswersCarryBytes) {
  inference::ModelInferRequest wire;
  wire.set_model_name("m");
  auto* in = wire.add_inputs();
  in->set_name("x");
  in->set_datatype("FP32");
  in->add_shape(1);
  in->mutable_contents()->add_fp32_contents(1);
  auto* out = wire.add_outputs();
  out->set_name("prob");
  (*out->mutable_parameters())["classification"].set_int64_param(2);
  InferRequest r;
  ASSERT_TRUE(DecodeGrpcInferRequest(wire, &r).ok());
  EXPECT_EQ(r.classification, (std::map<std::string, int64_t>{{"prob", 2}}));
  for (int64_t bad : {0, -3}) {
    (*out->mutable_parameters())["classification"].set_int64_param(bad);
    InferRequest refused;
    Status s = DecodeGrpcInferRequest(wire, &refused);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    EXPECT_NE(s.message.find("\"classification\" must be an int64 >= 1"),
              std::string::npos)
        << s.message;
  }
  (*out->mutable_parameters())["classification"].set_string_param("2");
  InferRequest refused;
  EXPECT_EQ(DecodeGrpcInferRequest(wire, &refused).code,
            StatusCode::kInvalidArgument);

  inference::ModelInferResponse answer;
  EncodeGrpcInferResponse(ClassesResponse(), "id", &answer);
  ASSERT_EQ(answer.outputs_size(), 1);
  EXPECT_EQ(answer.outputs(0).datatype(), "BYTES");
  ASSERT_EQ(answer.raw_output_contents_size(), 1);
  EXPECT_EQ(answer.raw_output_contents(0), ClassesResponse().outputs[0].bytes);
}

}  // namespace
}  // namespace serve
}  // namespace pdlite
