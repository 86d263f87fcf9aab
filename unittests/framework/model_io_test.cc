// Loading models in every layout PaddlePaddle writes, and the errors a
// broken or mismatching file gives.
#include "framework/model_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "framework/executor.h"
#include "framework/npy.h"
#include "framework/program_builder.h"
#include "framework/program_io.h"
#include "unittests/test_utils/op_tester.h"
#include "unittests/test_utils/scratch_dir.h"

namespace paddle_lite {
namespace framework {
namespace {

using testing::ExpectError;
using testing::MakeTensor;
using testing::ScratchDir;

// x -> relu -> scale-free program with two parameters (w, b) that are only
// read by a `sum`-free op chain: relu(x) is the output; the parameters are
// loaded and checked but the math stays trivial.
ProgramBuilder TinyProgram() {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 3});
  b.AddParameter("b_param", MakeTensor<float>({3}, {1, 2, 3}));
  b.AddParameter("a_param", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  auto y = b.AddVar("y");
  b.AddOp("relu", {{"X", {x}}}, {{"Out", {y}}});
  b.AddOutput(y);
  return b;
}

void ExpectLoaded(const Model& model) {
  ASSERT_EQ(model.program->blocks.size(), 1u);
  auto* a = model.weights->FindVar("a_param");
  ASSERT_NE(a, nullptr);
  testing::ExpectTensorNear(a->Get<Tensor>(),
                            MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(model.program->FeedTargetNames(), std::vector<std::string>{"x"});
  EXPECT_EQ(model.program->FetchTargetNames(), std::vector<std::string>{"y"});
}

void WriteSeparate(const ProgramBuilder& b, const std::string& dir) {
  WriteStringToFile(dir + "/__model__", SerializeProgramDesc(b.Build()));
  for (auto& name : b.Build().ParameterNames()) {
    std::string bytes;
    SerializeTensor(b.parameters().FindVar(name)->Get<Tensor>(), &bytes);
    WriteStringToFile(dir + "/" + name, bytes);
  }
}

TEST(ModelIO, PdmodelAndPdiparamsAsFolderOrFile) {
  ScratchDir dir_scratch("combined");
  const std::string dir = dir_scratch.path();
  TinyProgram().Save(dir + "/inference");
  ExpectLoaded(LoadModel(dir));
  ExpectLoaded(LoadModel(dir + "/inference.pdmodel"));
  ExpectLoaded(
      LoadModel(dir + "/inference.pdmodel", dir + "/inference.pdiparams"));
}

TEST(ModelIO, ModelAndParamsFiles) {
  ScratchDir dir_scratch("legacy_combined");
  const std::string dir = dir_scratch.path();
  TinyProgram().Save(dir + "/m");
  rename((dir + "/m.pdmodel").c_str(), (dir + "/__model__").c_str());
  rename((dir + "/m.pdiparams").c_str(), (dir + "/__params__").c_str());
  ExpectLoaded(LoadModel(dir));
  ExpectLoaded(LoadModel(dir + "/__model__"));
}

TEST(ModelIO, OneFilePerParameter) {
  ScratchDir dir_scratch("separate");
  const std::string dir = dir_scratch.path();
  WriteSeparate(TinyProgram(), dir);
  // Extra files in the folder are ignored.
  WriteStringToFile(dir + "/README", "not a tensor");
  auto files = ResolveModelFiles(dir);
  EXPECT_TRUE(files.params_file.empty());
  ExpectLoaded(LoadModel(dir));
}

TEST(ModelIO, FromBuffers) {
  auto b = TinyProgram();
  std::string params;
  for (auto& name : b.Build().ParameterNames()) {
    SerializeTensor(b.parameters().FindVar(name)->Get<Tensor>(), &params);
  }
  ExpectLoaded(LoadModelFromBuffers(SerializeProgramDesc(b.Build()), params));
}

TEST(ModelIO, CombinedParamsAreSortedByName) {
  auto b = TinyProgram();
  EXPECT_EQ(b.Build().ParameterNames(),
            (std::vector<std::string>{"a_param", "b_param"}));
}

TEST(ModelIO, MissingThingsAreNotFound) {
  ExpectError([] { LoadModel("/nonexistent/model"); }, ErrorCode::kNotFound,
              {"/nonexistent/model"});
  ScratchDir empty_scratch("empty");
  const std::string empty = empty_scratch.path();
  ExpectError([&] { LoadModel(empty); }, ErrorCode::kNotFound,
              {empty, "pdmodel"});
  ScratchDir dir_scratch("missing_param");
  const std::string dir = dir_scratch.path();
  WriteSeparate(TinyProgram(), dir);
  unlink((dir + "/b_param").c_str());
  ExpectError([&] { LoadModel(dir); }, ErrorCode::kNotFound,
              {dir + "/b_param", "'b_param'"});
}

// One file per parameter reads files of the model folder only: a program
// naming a parameter "../x" could otherwise read any file the process can.
TEST(ModelIO, ParameterNamesThatLeaveTheFolderAreRefused) {
  for (const std::string name : {"../outside", "sub/w", ".."}) {
    ScratchDir dir_scratch("param_path");
    const std::string dir = dir_scratch.path();
    ProgramBuilder b;
    auto x = b.AddInput("x", DataType::kFloat32, {-1, 3});
    b.AddParameter(name, MakeTensor<float>({3}, {1, 2, 3}));
    auto y = b.AddVar("y");
    b.AddOp("relu", {{"X", {x}}}, {{"Out", {y}}});
    b.AddOutput(y);
    WriteStringToFile(dir + "/__model__", SerializeProgramDesc(b.Build()));
    ExpectError([&] { LoadModel(dir); }, ErrorCode::kInvalidArgument,
                {"Parameter '" + name + "'", "model folder"});
  }
}

// A FIFO where a model file should be is refused at once, not waited on
// for a writer.
TEST(ModelIO, AFifoIsNotAModelFile) {
  ScratchDir dir_scratch("fifo");
  const std::string dir = dir_scratch.path();
  ASSERT_EQ(mkfifo((dir + "/m.pdmodel").c_str(), 0600), 0);
  ExpectError([&] { LoadModel(dir); }, ErrorCode::kNotFound,
              {dir + "/m.pdmodel", "not a regular file"});
}

TEST(ModelIO, TruncatedParamsNameFileAndVariable) {
  ScratchDir dir_scratch("truncated");
  const std::string dir = dir_scratch.path();
  TinyProgram().Save(dir + "/m");
  std::string bytes = ReadFileToString(dir + "/m.pdiparams");
  // Cut inside the data of the second tensor, then inside the header.
  for (size_t cut : {bytes.size() - 3, bytes.size() - 20}) {
    WriteStringToFile(dir + "/m.pdiparams", bytes.substr(0, cut));
    ExpectError([&] { LoadModel(dir); }, ErrorCode::kInvalidArgument,
                {"m.pdiparams", "truncated", "'b_param'"});
  }
  WriteStringToFile(dir + "/m.pdiparams", bytes.substr(0, 50));
  ExpectError([&] { LoadModel(dir); }, ErrorCode::kInvalidArgument,
              {"m.pdiparams", "truncated"});
}

TEST(ModelIO, TrailingBytesMeanProgramAndParamsDisagree) {
  ScratchDir dir_scratch("trailing");
  const std::string dir = dir_scratch.path();
  TinyProgram().Save(dir + "/m");
  std::string bytes = ReadFileToString(dir + "/m.pdiparams");
  WriteStringToFile(dir + "/m.pdiparams", bytes + "1234");
  ExpectError([&] { LoadModel(dir); }, ErrorCode::kInvalidArgument,
              {"m.pdiparams", "4 bytes are left", "do not belong together"});
}

TEST(ModelIO, CorruptedHeaderIsReported) {
  ScratchDir dir_scratch("corrupted");
  const std::string dir = dir_scratch.path();
  TinyProgram().Save(dir + "/m");
  std::string bytes = ReadFileToString(dir + "/m.pdiparams");
  bytes[0] = 7;  // LoD stream version of the first tensor
  WriteStringToFile(dir + "/m.pdiparams", bytes);
  ExpectError([&] { LoadModel(dir); }, ErrorCode::kInvalidArgument,
              {"m.pdiparams", "'a_param'", "LoD stream version 7"});
}

TEST(ModelIO, DtypeOrDimsDisagreeingWithVarDesc) {
  ScratchDir dir_scratch("mismatch");
  const std::string dir = dir_scratch.path();
  ProgramBuilder b = TinyProgram();
  ProgramDesc program = b.Build();
  // The file holds float64 for a float32 variable.
  std::string params;
  SerializeTensor(MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6}), &params);
  SerializeTensor(b.parameters().FindVar("b_param")->Get<Tensor>(), &params);
  WriteStringToFile(dir + "/m.pdmodel", SerializeProgramDesc(program));
  WriteStringToFile(dir + "/m.pdiparams", params);
  ExpectError([&] { LoadModel(dir); }, ErrorCode::kInvalidArgument,
              {"m.pdiparams", "'a_param'", "float64", "float32"});
  // Wrong dims.
  params.clear();
  SerializeTensor(MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}), &params);
  SerializeTensor(b.parameters().FindVar("b_param")->Get<Tensor>(), &params);
  WriteStringToFile(dir + "/m.pdiparams", params);
  ExpectError([&] { LoadModel(dir); }, ErrorCode::kInvalidArgument,
              {"'a_param'", "[3, 2]", "[2, 3]"});
}

TEST(ModelIO, GarbageProgramIsReported) {
  ScratchDir dir_scratch("garbage");
  const std::string dir = dir_scratch.path();
  WriteStringToFile(dir + "/x.pdmodel", std::string(100, '\xde'));
  ExpectError([&] { LoadModel(dir + "/x.pdmodel"); },
              ErrorCode::kInvalidArgument, {"x.pdmodel", "ProgramDesc"});
  WriteStringToFile(dir + "/x.pdmodel", "");
  ExpectError([&] { LoadModel(dir + "/x.pdmodel"); },
              ErrorCode::kInvalidArgument, {"x.pdmodel", "empty"});
  std::string good = SerializeProgramDesc(TinyProgram().Build());
  WriteStringToFile(dir + "/x.pdmodel", good.substr(0, good.size() / 2));
  ExpectError([&] { LoadModel(dir + "/x.pdmodel"); },
              ErrorCode::kInvalidArgument, {"x.pdmodel"});
}

TEST(ProgramIO, RoundTripKeepsEverything) {
  ProgramDesc p = TinyProgram().Build();
  p.blocks[0].ops[1].attrs["ints"] = std::vector<int32_t>{1, -2};
  p.blocks[0].ops[1].attrs["longs"] = std::vector<int64_t>{-1, 1LL << 40};
  p.blocks[0].ops[1].attrs["s"] = std::string("text");
  p.blocks[0].ops[1].attrs["b"] = true;
  p.blocks[0].ops[1].attrs["f64s"] = std::vector<double>{0.5};
  Scalar sc;
  sc.kind = Scalar::kInt64;
  sc.i = 7;
  p.blocks[0].ops[1].attrs["scalars"] = std::vector<Scalar>{sc};
  p.op_version_map = {{"relu", 1}};
  ProgramDesc q = ParseProgramDesc(SerializeProgramDesc(p), "mem");
  ASSERT_EQ(q.blocks.size(), 1u);
  EXPECT_EQ(q.version, p.version);
  EXPECT_EQ(q.op_version_map, p.op_version_map);
  EXPECT_EQ(q.blocks[0].ops.size(), p.blocks[0].ops.size());
  EXPECT_EQ(q.blocks[0].ops[1].attrs, p.blocks[0].ops[1].attrs);
  EXPECT_EQ(q.blocks[0].vars.size(), p.blocks[0].vars.size());
  EXPECT_EQ(q.blocks[0].FindVar("x")->dims, (DDim{-1, 3}));
}

TEST(ProgramIO, DimsParsePackedOrNot) {
  int type = 0;
  DDim dims;
  // field 1 = 5 (FP32), then dims 3 and 4 unpacked: 10 03 10 04
  ASSERT_TRUE(ParseTensorDesc(std::string("\x08\x05\x10\x03\x10\x04", 6), &type,
                              &dims));
  EXPECT_EQ(type, 5);
  EXPECT_EQ(dims, (DDim{3, 4}));
  // the same dims packed: 12 02 03 04
  ASSERT_TRUE(ParseTensorDesc(std::string("\x08\x05\x12\x02\x03\x04", 6), &type,
                              &dims));
  EXPECT_EQ(dims, (DDim{3, 4}));
  // -1 as a 10-byte varint
  ASSERT_TRUE(ParseTensorDesc(
      std::string("\x08\x05\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 13),
      &type, &dims));
  EXPECT_EQ(dims, (DDim{-1}));
}

TEST(Attribute, ConvertsNumericallyAcrossVersions) {
  EXPECT_EQ(AttrCast<bool>(Attribute(int32_t{1})), true);  // is_test as INT
  EXPECT_EQ(AttrCast<int32_t>(Attribute(true)), 1);
  EXPECT_EQ(
      AttrCast<std::vector<int64_t>>(Attribute(std::vector<int32_t>{1, -1})),
      (std::vector<int64_t>{1, -1}));  // shape INTS vs LONGS
  EXPECT_EQ(
      AttrCast<std::vector<int32_t>>(Attribute(std::vector<int64_t>{2, 3})),
      (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(AttrCast<int64_t>(Attribute(int64_t{-1})), -1);
  EXPECT_FLOAT_EQ(AttrCast<float>(Attribute(double{0.25})), 0.25f);
  ExpectError([] { AttrCast<std::string>(Attribute(int32_t{1})); },
              ErrorCode::kInvalidArgument, {"INT", "cannot be read"});
}

// A float read as an integer truncates; NaN, infinities and values past
// int64 give int64's lowest (as x86 and the cast kernels do) rather than an
// undefined conversion, and reading them as floats is untouched.
TEST(Attribute, FloatsPastInt64ReadAsIntegersGiveItsLowest) {
  constexpr int64_t kLowest = std::numeric_limits<int64_t>::lowest();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(AttrCast<int64_t>(Attribute(2.9f)), 2);
  EXPECT_EQ(AttrCast<int64_t>(Attribute(-2.9)), -2);
  EXPECT_EQ(AttrCast<int64_t>(Attribute(-9.2233720368547758e18)), kLowest);
  for (double v : {1e19, -1e19, double{inf}, double{-inf}, double{NAN}}) {
    EXPECT_EQ(AttrCast<int64_t>(Attribute(v)), kLowest) << v;
  }
  EXPECT_EQ(AttrCast<std::vector<int64_t>>(
                Attribute(std::vector<float>{1e19f, -inf, 3.5f})),
            (std::vector<int64_t>{kLowest, kLowest, 3}));
  EXPECT_EQ(AttrCast<std::vector<double>>(
                Attribute(std::vector<float>{1e19f, -inf}))[1],
            -double{inf});
}

TEST(Npy, RoundTripsEveryType) {
  ScratchDir dir_scratch("npy");
  const std::string dir = dir_scratch.path();
  std::vector<Tensor> tensors = {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                                 MakeTensor<double>({1}, {0.5}),
                                 MakeTensor<int64_t>({3}, {-1, 0, 1LL << 40}),
                                 MakeTensor<int32_t>({0, 2}, {}),
                                 MakeTensor<uint8_t>({2}, {0, 255}),
                                 MakeTensor<bool>({2}, {true, false}),
                                 MakeTensor<float>({}, {7})};
  for (auto& t : tensors) {
    WriteNpy(dir + "/t.npy", t);
    std::string bytes = ReadFileToString(dir + "/t.npy");
    EXPECT_EQ(bytes.size() % 64, t.memory_size() % 64);  // 64-byte header
    testing::ExpectTensorNear(ReadNpy(dir + "/t.npy"), t, 0, 0);
  }
}

TEST(Npy, BadFilesAreReported) {
  ScratchDir dir_scratch("npy_bad");
  const std::string dir = dir_scratch.path();
  std::string good = SerializeNpy(MakeTensor<float>({2}, {1, 2}));
  WriteStringToFile(dir + "/short.npy", good.substr(0, good.size() - 2));
  ExpectError([&] { ReadNpy(dir + "/short.npy"); }, ErrorCode::kInvalidArgument,
              {"short.npy", "needs 8 data bytes"});
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  WriteStringToFile(dir + "/f.npy", fortran);
  ExpectError([&] { ReadNpy(dir + "/f.npy"); }, ErrorCode::kInvalidArgument,
              {"f.npy", "fortran_order"});
  std::string big = good;
  big.replace(big.find("<f4"), 3, ">f4");
  WriteStringToFile(dir + "/b.npy", big);
  ExpectError([&] { ReadNpy(dir + "/b.npy"); }, ErrorCode::kInvalidArgument,
              {"big-endian"});
  WriteStringToFile(dir + "/n.npy", "hello");
  ExpectError([&] { ReadNpy(dir + "/n.npy"); }, ErrorCode::kInvalidArgument,
              {"n.npy"});
  ExpectError([&] { ReadNpy(dir + "/none.npy"); }, ErrorCode::kNotFound,
              {"none.npy"});
}

// A .npy file of two float32 values whose header is `header` (version 1).
std::string NpyWithHeader(std::string header) {
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  out.append(reinterpret_cast<const char*>(&len), 2);
  out += header;
  const float values[2] = {1.5f, -2.f};
  out.append(reinterpret_cast<const char*>(values), sizeof(values));
  return out;
}

TEST(Npy, HeadersAsNumPyAndPython2WroteThem) {
  // Padding of 40,000 spaces (std::regex overflowed the stack on it), keys
  // in double quotes and in another order, Python 2's long integers.
  for (const std::string& header :
       {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }" +
            std::string(40000, ' '),
        std::string("{\"shape\": (2,), \"fortran_order\": False, "
                    "\"descr\": \"<f4\"}"),
        std::string("{'descr': '<f4', 'fortran_order': False, 'shape': "
                    "(1L, 2L), }")}) {
    Tensor t = ParseNpy(NpyWithHeader(header), "h.npy");
    EXPECT_EQ(t.numel(), 2) << header.substr(0, 80);
    EXPECT_EQ(t.data<float>()[1], -2.f);
  }
}

TEST(Npy, MalformedHeadersAreReported) {
  const std::pair<std::string, std::string> cases[] = {
      // A negative or fractional dim was read as its digits: (-2,) as 2,
      // (2.5,) as two dims.
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }",
       "expects a dim"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,), }",
       "expects ','"},
      {"{'descr': '<f4', 'fortran_order': False, }", "has no shape"},
      {"{'fortran_order': False, 'shape': (2,), }", "has no 'descr'"},
      {"{'descr': '<f4', 'shape': (2,), }", "has no fortran_order"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }",
       "True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
       "unknown key 'x'"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
       "quoted string"},
      {"{'descr': '<f4", "does not end"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "expects ','"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999999999999,), }",
       "too large"},
      {"['descr']", "expects '{'"},
      // Dims whose element count, or byte count, overflows 64 bits.
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(999999999999999999, 999999999999999999), }",
       "overflows 64 bits"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': "
       "(999999999999999999, 9), }",
       "more bytes than 64 bits"},
  };
  // Not a structured binding: clang 14 cannot capture one in a lambda.
  for (const auto& c : cases) {
    ExpectError([&] { ParseNpy(NpyWithHeader(c.first), "m.npy"); },
                ErrorCode::kInvalidArgument, {"m.npy", c.second});
  }
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
