#include "serve/http_compression.h"

#include <strings.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace pdlite {
namespace serve {

namespace {

// zlib's windowBits for each coding: gzip's wrapper, zlib's, or none.
constexpr int kGzipWindow = 15 + 16;
constexpr int kZlibWindow = 15;
constexpr int kRawWindow = -15;
// InflateWith's result when `may_hold` refused (no zlib code).
constexpr int kHoldRefused = 1000;

// The text of `value` from `begin` to `end`, spaces and tabs trimmed.
std::string Trimmed(const char* begin, const char* end) {
  while (begin < end && (*begin == ' ' || *begin == '\t')) ++begin;
  while (end > begin && (end[-1] == ' ' || end[-1] == '\t')) --end;
  return std::string(begin, end);
}

// Inflates with zlib's `window`; Z_OK when all of `in` was one complete
// stream (for gzip: one or more members), kHoldRefused when `may_hold`
// refused, else zlib's error.
int InflateWith(int window,
                const std::string& in,
                size_t max_bytes,
                size_t padding,
                const InflateHold& may_hold,
                std::string* out,
                bool* too_large) {
  z_stream stream{};
  if (inflateInit2(&stream, window) != Z_OK) return Z_MEM_ERROR;
  size_t fed = 0;
  // Room for this much output, past which it grows to what may_hold allows
  // first (append's own doubling would hold twice what was allowed).
  size_t room = out->capacity() >= padding ? out->capacity() - padding : 0;
  int rc = Z_OK;
  char chunk[64 << 10];
  for (;;) {
    // zlib counts in 32 bits: large inputs are fed a piece at a time.
    if (stream.avail_in == 0 && fed < in.size()) {
      const size_t piece = std::min<size_t>(in.size() - fed, 1u << 30);
      stream.next_in =
          reinterpret_cast<Bytef*>(const_cast<char*>(in.data())) + fed;
      stream.avail_in = static_cast<uInt>(piece);
      fed += piece;
    }
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = sizeof chunk;
    rc = inflate(&stream, Z_NO_FLUSH);
    const size_t produced = sizeof chunk - stream.avail_out;
    const size_t total = out->size() + produced;
    if (total > max_bytes) {
      *too_large = true;
      break;
    }
    if (total > room) {
      // Doubling, so that the copies are linear in the output.
      const size_t stepped =
          (total + kInflateStep - 1) / kInflateStep * kInflateStep;
      room = std::min(std::max(stepped, 2 * room), max_bytes);
      if (!may_hold(room)) {
        rc = kHoldRefused;
        break;
      }
      // A fresh string reserved to the size: reserve() on `out` may
      // double it past what was asked.
      std::string grown;
      grown.reserve(room + padding);
      grown.append(*out);
      out->swap(grown);
    }
    out->append(chunk, produced);
    const bool input_left = stream.avail_in != 0 || fed != in.size();
    if (rc == Z_STREAM_END && input_left && window == kGzipWindow) {
      // Another gzip member follows (RFC 1952 allows several).
      if (inflateReset(&stream) != Z_OK) break;
      rc = Z_OK;
      continue;
    }
    if (rc == Z_STREAM_END) {
      rc = input_left ? Z_DATA_ERROR : Z_OK;  // bytes after the stream
      break;
    }
    if (rc == Z_BUF_ERROR && !input_left) break;  // the data ends early
    if (rc == Z_BUF_ERROR && produced == 0 && stream.avail_in != 0) {
      rc = Z_DATA_ERROR;  // no progress with room on both sides
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;
  }
  inflateEnd(&stream);
  return *too_large ? Z_OK : rc;
}

}  // namespace

bool ParseContentEncoding(const char* value, BodyCoding* coding) {
  *coding = BodyCoding::kIdentity;
  if (value == nullptr) return true;
  const std::string name = Trimmed(value, value + std::strlen(value));
  if (name.empty() || strcasecmp(name.c_str(), "identity") == 0) return true;
  if (strcasecmp(name.c_str(), "gzip") == 0 ||
      strcasecmp(name.c_str(), "x-gzip") == 0) {
    *coding = BodyCoding::kGzip;
    return true;
  }
  if (strcasecmp(name.c_str(), "deflate") == 0) {
    *coding = BodyCoding::kDeflate;
    return true;
  }
  return false;
}

BodyCoding AnswerCoding(const char* accept_encoding) {
  if (accept_encoding == nullptr) return BodyCoding::kIdentity;
  bool gzip = false;
  bool deflate = false;
  const char* at = accept_encoding;
  while (*at != '\0') {
    const char* end = std::strchr(at, ',');
    if (end == nullptr) end = at + std::strlen(at);
    const std::string item = Trimmed(at, end);
    const size_t semicolon = item.find(';');
    const std::string name =
        Trimmed(item.data(), item.data() + std::min(semicolon, item.size()));
    bool refused = false;
    if (semicolon != std::string::npos) {
      // "q=0", "q=0.0", "q=0.000": not acceptable.
      std::string params = item.substr(semicolon + 1);
      params.erase(std::remove(params.begin(), params.end(), ' '),
                   params.end());
      if (params.rfind("q=", 0) == 0 || params.rfind("Q=", 0) == 0) {
        const std::string q = params.substr(2);
        refused = !q.empty() && q.find_first_not_of("0.") == std::string::npos;
      }
    }
    if (!refused) {
      gzip |= strcasecmp(name.c_str(), "gzip") == 0;
      deflate |= strcasecmp(name.c_str(), "deflate") == 0;
    }
    at = *end == ',' ? end + 1 : end;
  }
  if (gzip) return BodyCoding::kGzip;
  if (deflate) return BodyCoding::kDeflate;
  return BodyCoding::kIdentity;
}

const char* CodingName(BodyCoding coding) {
  switch (coding) {
    case BodyCoding::kGzip:
      return "gzip";
    case BodyCoding::kDeflate:
      return "deflate";
    default:
      return "identity";
  }
}

Status Inflate(BodyCoding coding,
               const std::string& in,
               size_t max_bytes,
               size_t padding,
               const InflateHold& may_hold,
               std::string* out,
               bool* too_large) {
  *too_large = false;
  out->clear();
  int rc = Z_OK;
  if (coding == BodyCoding::kGzip) {
    rc = InflateWith(kGzipWindow, in, max_bytes, padding, may_hold, out,
                     too_large);
  } else {
    // "deflate" is zlib's format (RFC 9110), but some clients send raw
    // deflate data: tried when the zlib header is not there.
    rc = InflateWith(kZlibWindow, in, max_bytes, padding, may_hold, out,
                     too_large);
    if (rc == Z_DATA_ERROR && !*too_large) {
      out->clear();
      rc = InflateWith(kRawWindow, in, max_bytes, padding, may_hold, out,
                       too_large);
    }
  }
  if (*too_large || rc != Z_OK) std::string().swap(*out);
  if (*too_large) return Status();
  if (rc == kHoldRefused) {
    return Status::Error(StatusCode::kUnavailable,
                         "the server holds as many decompressed request "
                         "bodies as it may at once; try again");
  }
  if (rc == Z_MEM_ERROR) {
    return Status::Error(StatusCode::kInternal,
                         "the server has no memory to decompress the body");
  }
  if (rc != Z_OK) {
    const char* why =
        rc == Z_BUF_ERROR ? "the data ends early" : "the data is not valid";
    return Status::Error(StatusCode::kInvalidArgument,
                         std::string("the body does not decompress as ") +
                             CodingName(coding) +
                             " (Content-Encoding): " + why);
  }
  out->reserve(out->size() + padding);
  return Status();
}

std::string Compress(BodyCoding coding, const std::string& in) {
  z_stream stream{};
  // Level 1: tensors compress little at any level, and the answer waits.
  if (deflateInit2(&stream, 1, Z_DEFLATED,
                   coding == BodyCoding::kGzip ? kGzipWindow : kZlibWindow, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("zlib: cannot start compressing");
  }
  std::string out(deflateBound(&stream, in.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  stream.avail_in = static_cast<uInt>(in.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) {
    throw std::runtime_error("zlib: compressing the answer failed");
  }
  return out;
}

}  // namespace serve
}  // namespace pdlite
