#include "framework/npy.h"

#include <cctype>
#include <cstring>

#include "framework/model_io.h"
#include "platform/errors.h"

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

// The header: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// read in one pass (std::regex recursed per character: a header padded
// with 40,000 spaces overflowed the stack).
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  DDim dims;
};

class NpyHeaderReader {
 public:
  NpyHeaderReader(const std::string& text, const std::string& source)
      : text_(text), source_(source) {}

  NpyHeader Read() {
    NpyHeader header;
    bool has_descr = false, has_order = false, has_shape = false;
    Expect('{');
    SkipSpace();
    while (!Peek('}')) {
      const std::string key = QuotedString();
      SkipSpace();
      Expect(':');
      SkipSpace();
      if (key == "descr") {
        header.descr = QuotedString();
        has_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = Boolean();
        has_order = true;
      } else if (key == "shape") {
        header.dims = Shape();
        has_shape = true;
      } else {
        Fail("an unknown key '" + key + "'");
      }
      SkipSpace();
      if (!Peek('}')) {
        Expect(',');
        SkipSpace();
      }
    }
    PADDLE_ENFORCE(has_descr, Error("has no 'descr'"));
    PADDLE_ENFORCE(has_order, Error("has no fortran_order"));
    PADDLE_ENFORCE(has_shape, Error("has no shape"));
    return header;
  }

 private:
  platform::ErrorSummary Error(const std::string& what) const {
    return errors::InvalidArgument(source_, ": .npy header ", what, ".");
  }
  [[noreturn]] void Fail(const std::string& what) const {
    PADDLE_THROW(Error(what + " at byte " + std::to_string(at_)));
  }
  void SkipSpace() {
    while (at_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[at_]))) {
      ++at_;
    }
  }
  bool Peek(char c) const { return at_ < text_.size() && text_[at_] == c; }
  void Expect(char c) {
    if (!Peek(c)) Fail(std::string("expects '") + c + "'");
    ++at_;
  }
  std::string QuotedString() {
    if (!Peek('\'') && !Peek('"')) Fail("expects a quoted string");
    const char quote = text_[at_++];
    const size_t end = text_.find(quote, at_);
    if (end == std::string::npos) Fail("has a string that does not end");
    std::string value = text_.substr(at_, end - at_);
    at_ = end + 1;
    return value;
  }
  bool Boolean() {
    if (text_.compare(at_, 4, "True") == 0) {
      at_ += 4;
      return true;
    }
    if (text_.compare(at_, 5, "False") == 0) {
      at_ += 5;
      return false;
    }
    Fail("expects True or False for fortran_order");
  }
  // A tuple of integers >= 0: () for a scalar, (5,) for one dim. Python 2
  // wrote long integers with an L (3L).
  DDim Shape() {
    DDim dims;
    Expect('(');
    SkipSpace();
    while (!Peek(')')) {
      const size_t begin = at_;
      while (at_ < text_.size() &&
             std::isdigit(static_cast<unsigned char>(text_[at_]))) {
        ++at_;
      }
      if (at_ == begin) Fail("expects a dim, an integer >= 0, in 'shape'");
      // A dim past int64 (a lying header) is an error, not out_of_range.
      if (at_ - begin > 18) Fail("has a dim too large to hold in 'shape'");
      dims.push_back(std::stoll(text_.substr(begin, at_ - begin)));
      if (Peek('L')) ++at_;
      SkipSpace();
      if (!Peek(')')) {
        Expect(',');
        SkipSpace();
      }
    }
    ++at_;
    return dims;
  }

  const std::string& text_;
  const std::string& source_;
  size_t at_ = 0;
};

NpyHeader ParseNpyHeader(const std::string& text, const std::string& source) {
  return NpyHeaderReader(text, source).Read();
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
  const std::string header(reader.Skip(header_len, "the .npy header"),
                           header_len);
  NpyHeader parsed = ParseNpyHeader(header, source);
  DataType type = TypeFromDescr(parsed.descr, source);
  PADDLE_ENFORCE(
      !parsed.fortran_order,
      errors::InvalidArgument(source,
                              ": fortran_order is True; only C-order arrays "
                              "are supported (save np.ascontiguousarray(a))."));
  const DDim& dims = parsed.dims;
  int64_t elements = 0;
  try {
    elements = Product(dims);
  } catch (const Exception& e) {
    platform::RethrowWithContext(e, source + ": .npy header: ");
  }
  size_t need = 0;
  PADDLE_ENFORCE(
      !__builtin_mul_overflow(static_cast<size_t>(elements), SizeOf(type),
                              &need),
      errors::InvalidArgument(source, ": shape ", dims, " of ", type,
                              " needs more bytes than 64 bits count."));
  Tensor t;
  t.Resize(dims);
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
