#include "framework/npy.h"

#include <cstring>
#include <regex>

#include "framework/model_io.h"

namespace paddle_lite {
namespace framework {

namespace {

struct NpyType {
  const char* descr;
  DataType type;
};
// '|' and '<' both accepted for 1-byte types; written as NumPy does.
const NpyType kTypes[] = {
    {"<f4", DataType::kFloat32}, {"<f8", DataType::kFloat64},
    {"<f2", DataType::kFloat16}, {"<i4", DataType::kInt32},
    {"<i8", DataType::kInt64},   {"<i2", DataType::kInt16},
    {"|i1", DataType::kInt8},    {"|u1", DataType::kUInt8},
    {"|b1", DataType::kBool},
};

DataType TypeFromDescr(std::string descr, const std::string& source) {
  if (descr.size() == 3 && descr[0] == '<' && descr[2] == '1') descr[0] = '|';
  for (auto& t : kTypes) {
    if (descr == t.descr) return t.type;
  }
  if (!descr.empty() && descr[0] == '>') {
    PADDLE_THROW(
        errors::InvalidArgument(source, ": big-endian data ('", descr,
                                "') is not supported; save it with a.astype('<",
                                descr.substr(1), "')."));
  }
  PADDLE_THROW(errors::InvalidArgument(source, ": unsupported dtype '", descr,
                                       "' (supported: float32/64/16, "
                                       "int8/16/32/64, uint8, bool)."));
}

}  // namespace

Tensor ParseNpy(const std::string& bytes, const std::string& source) {
  ByteReader reader(bytes, source);
  char magic[6];
  reader.Read(magic, 6, "the .npy magic");
  PADDLE_ENFORCE(std::memcmp(magic, "\x93NUMPY", 6) == 0,
                 errors::InvalidArgument(source, ": not a .npy file."));
  auto major = reader.ReadPod<uint8_t>("the .npy version");
  reader.ReadPod<uint8_t>("the .npy version");
  size_t header_len = 0;
  if (major == 1) {
    header_len = reader.ReadPod<uint16_t>("the .npy header length");
  } else if (major == 2 || major == 3) {
    header_len = reader.ReadPod<uint32_t>("the .npy header length");
  } else {
    PADDLE_THROW(errors::InvalidArgument(source, ": .npy format version ",
                                         static_cast<int>(major),
                                         " is not supported."));
  }
  std::string header(reader.Skip(header_len, "the .npy header"), header_len);
  std::smatch m;
  PADDLE_ENFORCE(
      std::regex_search(header, m, std::regex("'descr':\\s*'([^']*)'")),
      errors::InvalidArgument(source, ": .npy header has no 'descr'."));
  DataType type = TypeFromDescr(m[1], source);
  PADDLE_ENFORCE(
      std::regex_search(header, m,
                        std::regex("'fortran_order':\\s*(True|False)")),
      errors::InvalidArgument(source, ": .npy header has no fortran_order."));
  PADDLE_ENFORCE(
      m[1] == "False",
      errors::InvalidArgument(source,
                              ": fortran_order is True; only C-order arrays "
                              "are supported (save np.ascontiguousarray(a))."));
  PADDLE_ENFORCE(
      std::regex_search(header, m, std::regex("'shape':\\s*\\(([^)]*)\\)")),
      errors::InvalidArgument(source, ": .npy header has no shape."));
  DDim dims;
  std::string shape = m[1];
  std::regex number("\\d+");
  for (auto it = std::sregex_iterator(shape.begin(), shape.end(), number);
       it != std::sregex_iterator(); ++it) {
    const std::string digits = it->str();
    // A dim past int64 (a lying header) is an error, not std::out_of_range.
    PADDLE_ENFORCE(digits.size() <= 18,
                   errors::InvalidArgument(source, ": .npy shape '", shape,
                                           "' has a dim too large to hold."));
    dims.push_back(std::stoll(digits));
  }
  Tensor t;
  t.Resize(dims);
  size_t need = static_cast<size_t>(t.numel()) * SizeOf(type);
  PADDLE_ENFORCE(reader.remaining() == need,
                 errors::InvalidArgument(
                     source, ": shape ", dims, " of ", type, " needs ", need,
                     " data bytes but the file has ", reader.remaining(), "."));
  void* data = t.mutable_data(platform::CPUPlace{}, type);
  reader.Read(data, need, "the .npy data");
  return t;
}

Tensor ReadNpy(const std::string& path) {
  return ParseNpy(ReadFileToString(path), path);
}

std::string SerializeNpy(const Tensor& tensor) {
  const char* descr = nullptr;
  for (auto& t : kTypes) {
    if (t.type == tensor.dtype()) descr = t.descr;
  }
  PADDLE_ENFORCE(
      descr != nullptr,
      errors::Unimplemented("Cannot write ", tensor.dtype(), " data as .npy."));
  std::string shape;
  for (auto d : tensor.dims()) shape += std::to_string(d) + ", ";
  if (tensor.dims().size() > 1) shape.resize(shape.size() - 1);
  if (tensor.dims().size() > 1) shape.resize(shape.size() - 1);
  if (tensor.dims().size() == 1) shape.resize(shape.size() - 1);
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': (" + shape + "), }";
  size_t total = 10 + header.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  header.append(padded - total, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  out.append(reinterpret_cast<const char*>(&len), 2);
  out.append(header);
  if (tensor.memory_size() > 0) {
    out.append(static_cast<const char*>(tensor.raw_data()),
               tensor.memory_size());
  }
  return out;
}

void WriteNpy(const std::string& path, const Tensor& tensor) {
  WriteStringToFile(path, SerializeNpy(tensor));
}

}  // namespace framework
}  // namespace paddle_lite
