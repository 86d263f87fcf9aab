// The HTTP/REST wire format without a socket: JSON tensor data of every
// type in and out, the refusals naming what was wrong, and the binary
// tensor data extension's framing. Responses are read back with
// nlohmann-json, a parser the codec does not use for them.
#include "serve/http_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace pdlite {
namespace serve {
namespace {

using json = nlohmann::json;
using paddle_lite::DataType;

// A request of one input, all JSON.
std::string OneInput(const std::string& datatype,
                     const std::string& shape,
                     const std::string& data) {
  return R"({"inputs":[{"name":"x","shape":)" + shape + R"(,"datatype":")" +
         datatype + R"(","data":)" + data + "}]}";
}

// The elements of a decoded input, as T.
template <typename T>
std::vector<T> Values(const TensorData& t) {
  std::vector<T> values(t.elements().size() / sizeof(T));
  if (!values.empty()) {
    std::memcpy(values.data(), t.elements().data(), values.size() * sizeof(T));
  }
  return values;
}

template <typename T>
std::vector<T> Decoded(const std::string& datatype,
                       const std::string& shape,
                       const std::string& data) {
  InferRequest r;
  WireOptions o;
  Status s = DecodeInferRequest(OneInput(datatype, shape, data), -1, &r, &o);
  EXPECT_TRUE(s.ok()) << s.message;
  if (!s.ok() || r.inputs.size() != 1) return {};
  return Values<T>(r.inputs[0]);
}

// The message of a refused request; empty when it was taken.
std::string Refusal(const std::string& body, int64_t json_length = -1) {
  InferRequest r;
  WireOptions o;
  Status s = DecodeInferRequest(body, json_length, &r, &o);
  if (s.ok()) return "";
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
  return s.message;
}

#define EXPECT_REFUSED(body, needle)                   \
  do {                                                 \
    const std::string message = Refusal(body);         \
    EXPECT_NE(message.find(needle), std::string::npos) \
        << "message: " << message;                     \
  } while (0)

TEST(HttpCodec, JsonDataOfEveryTypeReadsBackExactly) {
  EXPECT_EQ(
      Decoded<float>("FP32", "[5]",
                     "[0.1, -3.4028234663852886e38, 1, "
                     "1e-45, -0.0]"),
      (std::vector<float>{0.1f, -std::numeric_limits<float>::max(), 1.f,
                          std::numeric_limits<float>::denorm_min(), -0.f}));
  EXPECT_EQ(Decoded<double>("FP64", "[3]", "[0.1, 1e308, -7]"),
            (std::vector<double>{0.1, 1e308, -7}));
  EXPECT_EQ(Decoded<int8_t>("INT8", "[2]", "[-128, 127]"),
            (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Decoded<uint8_t>("UINT8", "[2]", "[0, 255]"),
            (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(Decoded<int16_t>("INT16", "[2]", "[-32768, 32767]"),
            (std::vector<int16_t>{-32768, 32767}));
  EXPECT_EQ(Decoded<int32_t>("INT32", "[2]", "[-2147483648, 2147483647]"),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(),
                                  std::numeric_limits<int32_t>::max()}));
  EXPECT_EQ(Decoded<int64_t>("INT64", "[2]",
                             "[-9223372036854775808, 9223372036854775807]"),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(Decoded<uint8_t>("BOOL", "[3]", "[true, false, true]"),
            (std::vector<uint8_t>{1, 0, 1}));
  // The largest float's shortest text is past it as a double, and reads
  // as it; a text that rounds to infinity is refused (below). Integers
  // are FP32 values too; -0.0 keeps its sign.
  EXPECT_EQ(Decoded<float>("FP32", "[2]", "[3.4028235e+38, -3.4028235e+38]"),
            (std::vector<float>{std::numeric_limits<float>::max(),
                                -std::numeric_limits<float>::max()}));
  const std::vector<float> zero = Decoded<float>("FP32", "[1]", "[-0.0]");
  ASSERT_EQ(zero.size(), 1u);
  EXPECT_TRUE(std::signbit(zero[0]));
  EXPECT_EQ(Decoded<float>("FP32", "[2]", "[16777217, -9223372036854775808]"),
            (std::vector<float>{16777216.f, -9223372036854775808.f}));
  // A UTF-8 byte order mark before the JSON is skipped.
  {
    InferRequest r;
    WireOptions o;
    EXPECT_TRUE(DecodeInferRequest(
                    "\xEF\xBB\xBF" + OneInput("FP32", "[1]", "[1]"), -1, &r, &o)
                    .ok());
  }
  // Arrays nest up to 64 deep.
  EXPECT_EQ(Decoded<float>("FP32", "[1]",
                           std::string(64, '[') + "7" + std::string(64, ']')),
            (std::vector<float>{7.f}));
  // Nested arrays flatten row major; an empty tensor has no elements.
  EXPECT_EQ(Decoded<int64_t>("INT64", "[2,2]", "[[1,2],[3,4]]"),
            (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_TRUE(Decoded<float>("FP32", "[0,3]", "[]").empty());
  EXPECT_TRUE(Decoded<float>("FP32", "[2,0]", "[[],[]]").empty());
}

TEST(HttpCodec, MembersMayComeInAnyOrder) {
  InferRequest r;
  WireOptions o;
  ASSERT_TRUE(
      DecodeInferRequest(R"({"outputs":[{"parameters":{"binary_data":true},)"
                         R"("name":"y"}],"inputs":[{"data":[[1],[2]],)"
                         R"("parameters":{"lod":[[0,1,2]]},"datatype":"INT32",)"
                         R"("shape":[2,1],"name":"w\u00f6rds"}],"id":"a\"b"})",
                         -1, &r, &o)
          .ok());
  EXPECT_EQ(r.id, "a\"b");
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].name, "w\xc3\xb6rds");
  EXPECT_EQ(r.inputs[0].type, DataType::INT32);
  EXPECT_EQ(r.inputs[0].shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(r.inputs[0].lod, (paddle_lite::LoD{{0, 1, 2}}));
  EXPECT_EQ(Values<int32_t>(r.inputs[0]), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(r.outputs, (std::vector<std::string>{"y"}));
  EXPECT_TRUE(o.binary_output["y"]);
  // A repeated member counts as its first, as in Triton (and in control
  // calls: ParseJson).
  InferRequest twice;
  ASSERT_TRUE(DecodeInferRequest(
                  R"({"id":"a","inputs":[{"name":"x","shape":[1],)"
                  R"("datatype":"FP32","data":[1],"data":[2,3]}],"id":"b"})",
                  -1, &twice, &o)
                  .ok());
  EXPECT_EQ(twice.id, "a");
  ASSERT_EQ(twice.inputs.size(), 1u);
  EXPECT_EQ(Values<float>(twice.inputs[0]), (std::vector<float>{1}));
}

TEST(HttpCodec, RefusalsNameTheInputAndTheBadElement) {
  EXPECT_REFUSED(OneInput("FP32", "[3]", R"([1, 2, "a"])"),
                 R"(input 'x': "data" must be an array of FP32 values; )"
                 R"(element 2 (row major) is "a")");
  EXPECT_REFUSED(OneInput("FP32", "[2,2]", "[[1,2],[3,null]]"),
                 "element 3 (row major) is null");
  EXPECT_REFUSED(OneInput("FP32", "[1]", "[1e39]"), "is 1e+39");
  EXPECT_REFUSED(OneInput("FP32", "[1]", "[3.4028236e+38]"),
                 "is 3.4028236e+38");
  EXPECT_REFUSED(OneInput("FP64", "[1]", "[100000000000000000000]"),
                 "write 1e20, not 100000000000000000000");
  EXPECT_REFUSED(OneInput("FP32", "[1]", "[true]"), "is true");
  EXPECT_REFUSED(OneInput("FP32", "[1]", "5"), "must be an array of FP32");
  EXPECT_REFUSED(OneInput("INT32", "[1]", "[1.5]"), "is 1.5");
  EXPECT_REFUSED(OneInput("INT32", "[1]", "[2147483648]"), "is 2147483648");
  EXPECT_REFUSED(OneInput("INT64", "[1]", "[9223372036854775808]"),
                 "is 9223372036854775808");
  EXPECT_REFUSED(OneInput("UINT8", "[1]", "[-1]"), "is -1");
  EXPECT_REFUSED(OneInput("INT8", "[1]", "[300]"), "array of INT8 values");
  EXPECT_REFUSED(OneInput("BOOL", "[1]", "[1]"), "is 1");
  EXPECT_REFUSED(OneInput("FP32", "[1]",
                          std::string(65, '[') + "1" + std::string(65, ']')),
                 "it nests more than 64 arrays deep");
  // A ragged array has no one row-major order; a regular one of other
  // dims is read as a reshape.
  for (const char* ragged :
       {"[[1,2],[3]]", "[[],[1],[[2]],[],[3]]", "[[1,2],3]", "[1,[2,3]]"}) {
    EXPECT_REFUSED(OneInput("FP32", "[1,3]", ragged),
                   "input 'x': \"data\" is ragged");
  }
  EXPECT_EQ(Decoded<float>("FP32", "[1,3]", "[[1],[2],[3]]"),
            (std::vector<float>{1, 2, 3}));
  EXPECT_REFUSED(OneInput("FP32", "[-2]", "[]"), "integers >= 0, got [-2]");
  EXPECT_REFUSED(OneInput("FP32", "[1.5]", "[]"), "integers >= 0, got [1.5]");
  EXPECT_REFUSED(OneInput("BYTES", "[1]", R"(["a"])"),
                 "datatype 'BYTES' is not supported");
  EXPECT_REFUSED(R"({"inputs":[{"name":"x","shape":[1],"data":[1]}]})",
                 "input 'x': needs a \"datatype\" string");
  EXPECT_REFUSED(R"({"inputs":[{"name":"x","datatype":"FP32","data":[1]}]})",
                 "input 'x': needs a \"shape\" array");
  EXPECT_REFUSED(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1]}]})",
                 "input 'x': needs \"data\" or parameters.binary_data_size");
  EXPECT_REFUSED(R"({"inputs":[{"shape":[1],"datatype":"FP32","data":[1]}]})",
                 "every input needs a \"name\" string");
  EXPECT_REFUSED(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32",)"
                 R"("data":[1],"parameters":{"lod":[[0,"a"]]}}]})",
                 "\"lod\" must be a list of levels of offsets");
  EXPECT_REFUSED(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32",)"
                 R"("data":[1],"parameters":{"lod":[]}}]})",
                 "\"lod\" must be a list of levels of offsets");
  EXPECT_REFUSED(R"({"inputs":{}})", "needs \"inputs\", an array");
  EXPECT_REFUSED(R"({"inputs":[],"outputs":[{"name":1}]})",
                 "every requested output needs a \"name\" string");
  EXPECT_REFUSED(R"({"inputs":[],"outputs":[{"name":"y","parameters":)"
                 R"({"binary_data":1}}]})",
                 "output 'y': \"binary_data\" must be a boolean");
  EXPECT_REFUSED(R"({"inputs":[],"parameters":{"timeout":-1}})",
                 "\"timeout\" must be microseconds");
  EXPECT_REFUSED(R"({"inputs":[],"id":7})", "\"id\" must be a string");
  EXPECT_REFUSED("[1]", "must be a JSON object");
  EXPECT_REFUSED(R"({"inputs":[)", "not valid JSON");
  EXPECT_REFUSED("{\"inputs\":[],\"id\":\"\xff\"}", "not valid JSON");
  EXPECT_REFUSED("", "not valid JSON");
  // A body without spare capacity past its end is parsed as well (the
  // parser copies it first).
  std::string tight = OneInput("FP32", "[1]", "[2]");
  tight.shrink_to_fit();
  EXPECT_EQ(Refusal(tight), "");
}

// The binary tensor data extension, with the JSON header followed by the
// inputs' bytes.
TEST(HttpCodec, BinaryFramingMustAddUp) {
  const std::string header =
      R"({"id":"7","inputs":[{"name":"x","shape":[2],"datatype":"FP32",)"
      R"("parameters":{"binary_data_size":8}}],)"
      R"("outputs":[{"name":"y","parameters":{"binary_data":true}}]})";
  const std::string data(8, '\0');
  InferRequest r;
  WireOptions o;
  const std::string body = header + data;
  ASSERT_TRUE(DecodeInferRequest(body, header.size(), &r, &o).ok());
  EXPECT_EQ(r.id, "7");
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].elements().size(), 8u);
  // Binary data stays in the body, not copied.
  EXPECT_EQ(r.inputs[0].elements().data(), body.data() + header.size());
  EXPECT_TRUE(o.binary_output["y"]);
  auto fails = [&](const std::string& body, int64_t length,
                   const std::string& needle) {
    const std::string message = Refusal(body, length);
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  };
  fails(header + data.substr(0, 4), header.size(), "runs past the end");
  fails(header + data + "xx", header.size(), "2 bytes after the JSON header");
  fails(header + data, header.size() + 100, "Inference-Header-Content-Length");
  fails(header + data, 10, "not valid JSON");
  fails(header, -1, "without the Inference-Header-Content-Length");
  const std::string both =
      R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[1,2],)"
      R"("parameters":{"binary_data_size":8}}]})";
  fails(both + data, both.size(), "has both \"data\" and \"binary_data_size\"");
}

// NaN and infinities as null: nlohmann-json reads no NaN or Infinity.
std::string ReadableByNlohmann(std::string text) {
  for (const std::string token : {"-Infinity", "Infinity", "NaN"}) {
    for (size_t at = text.find(token); at != std::string::npos;
         at = text.find(token, at)) {
      text.replace(at, token.size(), "null");
    }
  }
  return text;
}

TEST(HttpCodec, ResponsesReadBackAsTheSameValues) {
  InferResponse response;
  response.model = "m\"odel";
  response.version = "2";
  TensorData f;
  f.name = "f";
  f.type = DataType::FLOAT32;
  f.shape = {2, 3};
  const std::vector<float> floats = {0.1f,
                                     -1.5f,
                                     std::numeric_limits<float>::denorm_min(),
                                     std::numeric_limits<float>::max(),
                                     std::nanf(""),
                                     -std::numeric_limits<float>::infinity()};
  f.bytes.assign(reinterpret_cast<const char*>(floats.data()),
                 floats.size() * sizeof(float));
  f.lod = {{0, 1, 2}};
  TensorData i8;
  i8.name = "i8";
  i8.type = DataType::INT8;
  i8.shape = {2};
  i8.bytes = std::string("\xfb\x07", 2);
  TensorData b;
  b.name = "b";
  b.type = DataType::BOOL;
  b.shape = {2};
  b.bytes = std::string("\x01\x00", 2);
  TensorData bin;
  bin.name = "bin";
  bin.type = DataType::INT64;
  bin.shape = {1};
  bin.bytes = std::string(8, '\x01');
  response.outputs = {f, i8, b, bin};
  WireOptions options;
  options.binary_output["bin"] = true;
  options.binary_output["b"] = true;
  int64_t json_length = 0;
  const std::string body =
      EncodeInferResponse(response, "id\n1", options, &json_length);
  ASSERT_GT(json_length, 0);
  // The binary outputs after the JSON, in the outputs' order.
  ASSERT_EQ(body.size(), static_cast<size_t>(json_length) + 2 + 8);
  EXPECT_EQ(body.substr(json_length), b.bytes + bin.bytes);
  // NaN and infinities as Triton writes them (JSON has none): Python's
  // json reads them; this test's reader does not, so they become null.
  std::string text = body.substr(0, json_length);
  ASSERT_NE(text.find("3.4028235e+38,NaN,-Infinity]"), std::string::npos)
      << text;
  text = ReadableByNlohmann(text);
  const json j = json::parse(text);
  EXPECT_EQ(j["id"], "id\n1");
  EXPECT_EQ(j["model_name"], "m\"odel");
  EXPECT_EQ(j["model_version"], "2");
  ASSERT_EQ(j["outputs"].size(), 4u);
  const json& out = j["outputs"][0];
  EXPECT_EQ(out["name"], "f");
  EXPECT_EQ(out["datatype"], "FP32");
  EXPECT_EQ(out["shape"], json::array({2, 3}));
  EXPECT_EQ(out["parameters"]["lod"], json::parse("[[0,1,2]]"));
  ASSERT_EQ(out["data"].size(), 6u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(static_cast<float>(out["data"][k].get<double>()), floats[k]);
  }
  EXPECT_EQ(j["outputs"][1]["data"], json::array({-5, 7}));
  EXPECT_EQ(j["outputs"][2]["parameters"]["binary_data_size"], 2);
  EXPECT_FALSE(j["outputs"][2].contains("data"));
  EXPECT_EQ(j["outputs"][3]["parameters"]["binary_data_size"], 8);
  EXPECT_FALSE(j["outputs"][3].contains("data"));
  // All JSON when no output is binary.
  const std::string all_json =
      EncodeInferResponse(response, "", WireOptions{}, &json_length);
  EXPECT_EQ(json_length, -1);
  const json all = json::parse(ReadableByNlohmann(all_json));
  EXPECT_FALSE(all.contains("id"));
  EXPECT_EQ(all["outputs"][2]["data"], json::array({true, false}));
}

// An answer is encoded only as far as a limit: JSON takes up to ten times
// its tensors' bytes, so the limit is on the text, checked as it is
// written, with binary outputs counted too.
TEST(HttpCodec, AnAnswerPastTheLimitIsNotEncoded) {
  TensorData f;
  f.name = "f";
  f.type = DataType::FLOAT32;
  const std::vector<float> floats(100000, -1.2345678f);
  f.shape = {static_cast<int64_t>(floats.size())};
  f.bytes.assign(reinterpret_cast<const char*>(floats.data()),
                 floats.size() * sizeof(float));
  InferResponse response;
  response.model = "m";
  response.version = "1";
  response.outputs = {f};
  int64_t json_length = 0;
  const std::string whole =
      EncodeInferResponse(response, "", WireOptions{}, &json_length);
  ASSERT_GT(whole.size(), 10 * f.bytes.size() / 4);
  std::string answer = "stale";
  EXPECT_FALSE(EncodeInferResponseWithin(
      response, "", WireOptions{}, whole.size() - 1, &answer, &json_length));
  EXPECT_TRUE(answer.empty());
  EXPECT_EQ(json_length, -1);
  EXPECT_TRUE(EncodeInferResponseWithin(response, "", WireOptions{},
                                        whole.size(), &answer, &json_length));
  EXPECT_EQ(answer, whole);
  // As binary: its bytes count.
  WireOptions binary;
  binary.binary_default = true;
  const std::string framed =
      EncodeInferResponse(response, "", binary, &json_length);
  EXPECT_FALSE(EncodeInferResponseWithin(
      response, "", binary, framed.size() - 1, &answer, &json_length));
  EXPECT_TRUE(EncodeInferResponseWithin(response, "", binary, framed.size(),
                                        &answer, &json_length));
  EXPECT_EQ(answer, framed);
}

// The encoder's text of floating point values: the shortest that reads
// back as the same value, with a fraction when it has none (JSON readers
// take "1" for an integer and "-0" for 0), and NaN, Infinity and
// -Infinity for what JSON lacks, as Triton writes them.
TEST(HttpCodec, ResponseNumbersAsText) {
  TensorData f;
  f.name = "f";
  f.type = DataType::FLOAT32;
  const std::vector<float> floats = {1.f,
                                     -0.f,
                                     0.1f,
                                     1e10f,
                                     -2.5f,
                                     std::numeric_limits<float>::max(),
                                     std::nanf(""),
                                     std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity()};
  f.shape = {static_cast<int64_t>(floats.size())};
  f.bytes.assign(reinterpret_cast<const char*>(floats.data()),
                 floats.size() * sizeof(float));
  TensorData d = f;
  d.type = DataType::FLOAT64;
  const std::vector<double> doubles = {100.0, 0.1, 1e300, -5e-324};
  d.shape = {static_cast<int64_t>(doubles.size())};
  d.bytes.assign(reinterpret_cast<const char*>(doubles.data()),
                 doubles.size() * sizeof(double));
  InferResponse response;
  response.outputs = {f, d};
  int64_t json_length = 0;
  const std::string body =
      EncodeInferResponse(response, "", WireOptions{}, &json_length);
  EXPECT_NE(
      body.find(
          R"("data":[1.0,-0.0,0.1,1e+10,-2.5,3.4028235e+38,NaN,Infinity,-Infinity])"),
      std::string::npos)
      << body;
  EXPECT_NE(body.find(R"("data":[100.0,0.1,1e+300,-5e-324])"),
            std::string::npos)
      << body;
}

// Floats written by the encoder (the shortest text of each float) and read
// by the decoder come back bit for bit, through a double on the way in.
// The encoder's own text of an output's data (a JSON array), not a
// reparsed copy.
std::string EncodedData(const TensorData& t) {
  InferResponse response;
  response.outputs = {t};
  int64_t json_length = 0;
  const std::string encoded =
      EncodeInferResponse(response, "", WireOptions{}, &json_length);
  EXPECT_NE(encoded.find(std::string("\"datatype\":\"") +
                         ProtocolTypeName(t.type) + "\""),
            std::string::npos);
  const size_t from = encoded.find("\"data\":[") + 7;
  const size_t to = encoded.find(']', from) + 1;
  EXPECT_LT(from, to);
  return from < to ? encoded.substr(from, to - from) : "";
}

TEST(HttpCodec, FloatsRoundTripBitForBit) {
  std::mt19937 random(15);
  std::uniform_int_distribution<uint32_t> bits;
  TensorData t;
  t.name = "x";
  t.type = DataType::FLOAT32;
  // The edges first, then random bit patterns.
  std::vector<float> floats = {std::numeric_limits<float>::max(),
                               -std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::min(),
                               std::numeric_limits<float>::denorm_min(),
                               -0.f,
                               0.f,
                               1.f,
                               16777216.f};
  while (floats.size() < 200000) {
    const uint32_t b = bits(random);
    float v;
    std::memcpy(&v, &b, sizeof(v));
    if (std::isfinite(v)) floats.push_back(v);
  }
  t.shape = {static_cast<int64_t>(floats.size())};
  t.bytes.assign(reinterpret_cast<const char*>(floats.data()),
                 floats.size() * sizeof(float));
  const std::string request = OneInput(
      "FP32", "[" + std::to_string(floats.size()) + "]", EncodedData(t));
  InferRequest r;
  WireOptions o;
  ASSERT_TRUE(DecodeInferRequest(request, -1, &r, &o).ok());
  ASSERT_EQ(r.inputs[0].elements().size(), t.bytes.size());
  EXPECT_EQ(std::memcmp(r.inputs[0].elements().data(), t.bytes.data(),
                        t.bytes.size()),
            0);
}

// The 16-bit patterns of a decoded FP16 or BF16 input.
std::vector<uint16_t> HalfBits(const std::string& datatype,
                               const std::string& data) {
  const auto count = 1 + std::count(data.begin(), data.end(), ',');
  return Decoded<uint16_t>(datatype, "[" + std::to_string(count) + "]", data);
}

TEST(HttpCodec, HalfPrecisionJsonDataIsRoundedAndRangeChecked) {
  // Exact values, the largest of each type, and values rounded to nearest
  // even: 1 + 2^-11 is halfway between float16 1 and 1 + 2^-10.
  EXPECT_EQ(HalfBits("FP16", "[1.5, -2, 0.25, 65504, -0.0, 1.00048828125, 3]"),
            (std::vector<uint16_t>{0x3E00, 0xC000, 0x3400, 0x7BFF, 0x8000,
                                   0x3C00, 0x4200}));
  EXPECT_EQ(HalfBits("BF16", "[0.5, -1, 3.3895313892515355e+38, 1.00390625]"),
            (std::vector<uint16_t>{0x3F00, 0xBF80, 0x7F7F, 0x3F80}));
  // Rounded once: just past halfway, though the nearest float of each is
  // exactly halfway (through a float they would round down), as integers
  // too, one of them past a double's 53 bits.
  EXPECT_EQ(HalfBits("FP16", "[1.0004883, 65519.999]"),
            (std::vector<uint16_t>{0x3C01, 0x7BFF}));
  EXPECT_EQ(HalfBits("BF16", "[1.0039063, 16842753, 1157425104234217473]"),
            (std::vector<uint16_t>{0x3F81, 0x4B81, 0x5D81}));
  // The smallest float16 subnormal, and half of it (rounds to 0).
  EXPECT_EQ(HalfBits("FP16", "[5.960464477539063e-08, 2.98e-08]"),
            (std::vector<uint16_t>{0x0001, 0x0000}));
  // What would narrow to infinity is refused, naming the element: 65520 is
  // halfway between 65504 and 65536 (infinity) and rounds to even.
  EXPECT_REFUSED(OneInput("FP16", "[3]", "[1, 65519, 65520]"),
                 "element 2 (row major) is 65520");
  EXPECT_REFUSED(OneInput("FP16", "[1]", "[-1e6]"), "element 0");
  EXPECT_REFUSED(OneInput("BF16", "[2]", "[1, 3.4e38]"), "element 1");
  EXPECT_REFUSED(OneInput("BF16", "[1]", "[\"1\"]"), "element 0");
  EXPECT_REFUSED(OneInput("FP16", "[1]", "[null]"), "element 0");
}

// NaN and infinities, which JSON lacks, as the tokens Triton reads
// (rapidjson's kParseNanAndInfFlag) and Python's json writes.
TEST(HttpCodec, NonFiniteTokensAreReadAsTritonReadsThem) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::vector<float> floats = Decoded<float>(
      "FP32", "[7]", "[NaN, Infinity,-Infinity , Inf,-Inf,-NaN, 1.5]");
  ASSERT_EQ(floats.size(), 7u);
  EXPECT_TRUE(std::isnan(floats[0]));
  EXPECT_EQ(floats[1], kInf);
  EXPECT_EQ(floats[2], -kInf);
  EXPECT_EQ(floats[3], kInf);
  EXPECT_EQ(floats[4], -kInf);
  EXPECT_TRUE(std::isnan(floats[5]));
  EXPECT_EQ(floats[6], 1.5f);
  const std::vector<double> doubles =
      Decoded<double>("FP64", "[2,1]", "[[-Infinity],[NaN]]");
  ASSERT_EQ(doubles.size(), 2u);
  EXPECT_EQ(doubles[0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(doubles[1]));
  const std::vector<uint16_t> halves = HalfBits("FP16", "[NaN, -Infinity]");
  ASSERT_EQ(halves.size(), 2u);
  EXPECT_EQ(halves[0] & 0x7C00, 0x7C00);
  EXPECT_NE(halves[0] & 0x03FF, 0);
  EXPECT_EQ(halves[1], 0xFC00);
  EXPECT_EQ(HalfBits("BF16", "[Infinity]"), (std::vector<uint16_t>{0x7F80}));

  // Tokens in strings stay text, escaped quotes included, while those
  // outside are read.
  InferRequest r;
  WireOptions o;
  const std::string body =
      R"({"id":"a\"NaN, Infinity\\","inputs":[{"name":"x","shape":[1],)"
      R"("datatype":"FP32","data":[NaN]}]})";
  ASSERT_TRUE(DecodeInferRequest(body, -1, &r, &o).ok());
  EXPECT_EQ(r.id, "a\"NaN, Infinity\\");
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_TRUE(std::isnan(Values<float>(r.inputs[0])[0]));

  // In the binary extension's JSON header, beside an input in binary: the
  // binary input's bytes are still found after the header.
  const std::string header =
      R"({"inputs":[{"name":"a","shape":[1],"datatype":"FP32","data":)"
      R"([-Infinity]},{"name":"b","shape":[1],"datatype":"FP32",)"
      R"("parameters":{"binary_data_size":4}}]})";
  const float two = 2.0f;
  std::string framed = header;
  framed.append(reinterpret_cast<const char*>(&two), sizeof(two));
  InferRequest binary;
  ASSERT_TRUE(DecodeInferRequest(framed, static_cast<int64_t>(header.size()),
                                 &binary, &o)
                  .ok());
  ASSERT_EQ(binary.inputs.size(), 2u);
  EXPECT_EQ(Values<float>(binary.inputs[0])[0], -kInf);
  EXPECT_EQ(Values<float>(binary.inputs[1])[0], 2.0f);

  // Only floating-point inputs take them, and only as tokens: neither a
  // misspelt token nor a client's string of the marker's bytes is read.
  EXPECT_REFUSED(OneInput("INT32", "[2]", "[1, NaN]"),
                 "array of INT32 values; element 1 (row major) is NaN");
  EXPECT_REFUSED(OneInput("BOOL", "[1]", "[-Infinity]"),
                 "element 0 (row major) is -Infinity");
  for (const char* bad : {"[Nan]", "[NaNa]", "[Infinit]", "[Infinityy]",
                          "[+Infinity]", "[- NaN]", "[NaN"}) {
    EXPECT_REFUSED(OneInput("FP32", "[1]", bad), "not valid JSON");
  }
  EXPECT_REFUSED(OneInput("FP32", "[1]", R"(["\u0000NaN"])"),
                 "array of FP32 values; element 0");
  EXPECT_REFUSED(R"({"inputs":[],"parameters":{"timeout":NaN}})",
                 "\"timeout\" must be microseconds");
  // Nor where a string goes, nor as a key (rapidjson refuses those too),
  // and messages show the token as it was sent.
  EXPECT_REFUSED(R"({"inputs":[],"id":NaN})", "\"id\" must be a string");
  EXPECT_REFUSED(R"({Infinity:1,"inputs":[]})", "not valid JSON");
  EXPECT_REFUSED(R"({"inputs":[{"name":NaN,"shape":[1],"datatype":"FP32",)"
                 R"("data":[1]}]})",
                 "every input needs a \"name\" string");
  EXPECT_REFUSED(OneInput("FP32", "[1,-Inf]", "[NaN]"), "got [1,-Inf]");
  EXPECT_REFUSED(R"(NaN)", "must be a JSON object");
}

// Every runtime type has a protocol name that reads back, and a size.
TEST(HttpCodec, EveryRuntimeTypeHasAProtocolType) {
  for (int i = static_cast<int>(DataType::FLOAT32);
       i <= static_cast<int>(DataType::BOOL); ++i) {
    const auto type = static_cast<DataType>(i);
    DataType parsed;
    EXPECT_TRUE(ParseProtocolType(ProtocolTypeName(type), &parsed)) << i;
    EXPECT_EQ(parsed, type) << i;
    EXPECT_GT(ElementSize(type), 0u) << i;
    EXPECT_NE(ProtocolTypeNames().find(ProtocolTypeName(type)),
              std::string::npos);
  }
}

// Every finite float16 and bfloat16 value, written as the encoder writes
// it and read back: the same bits, -0 included.
TEST(HttpCodec, EveryHalfPrecisionValueRoundTripsBitForBit) {
  for (const DataType type : {DataType::FLOAT16, DataType::BFLOAT16}) {
    std::vector<uint16_t> patterns;
    for (uint32_t b = 0; b <= 0xFFFF; ++b) {
      const uint16_t bits = static_cast<uint16_t>(b);
      float widened;
      if (type == DataType::FLOAT16) {
        paddle_lite::float16 h;
        h.bits = bits;
        widened = static_cast<float>(h);
      } else {
        paddle_lite::bfloat16 h;
        h.bits = bits;
        widened = static_cast<float>(h);
      }
      if (std::isfinite(widened)) patterns.push_back(bits);
    }
    TensorData t;
    t.name = "x";
    t.type = type;
    t.shape = {static_cast<int64_t>(patterns.size())};
    t.bytes.assign(reinterpret_cast<const char*>(patterns.data()),
                   patterns.size() * sizeof(uint16_t));
    const char* name = type == DataType::FLOAT16 ? "FP16" : "BF16";
    EXPECT_EQ(HalfBits(name, EncodedData(t)), patterns) << name;
  }
}

// Targets in absolute form (RFC 9112: servers take them, proxies send
// them) route and are categorized as their path.
TEST(HttpCodec, AbsoluteFormTargetsAreTheirPath) {
  EXPECT_EQ(OriginForm("http://a:8000/v2/health/live"), "/v2/health/live");
  EXPECT_EQ(OriginForm("HTTPS://a/v2/models/m/infer"), "/v2/models/m/infer");
  EXPECT_EQ(OriginForm("http://a"), "/");
  EXPECT_EQ(OriginForm("/v2"), "/v2");
  EXPECT_EQ(OriginForm("/http://a/v2"), "/http://a/v2");
  EXPECT_EQ(OriginForm("ftp://a/v2"), "ftp://a/v2");
  EXPECT_EQ(OriginForm(""), "");
}

}  // namespace
}  // namespace serve
}  // namespace pdlite
