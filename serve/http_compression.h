// Compressed HTTP bodies, as Triton's HTTP clients send and ask for them
// (tritonclient's request_compression_algorithm and
// response_compression_algorithm): a request body in gzip or deflate
// (Content-Encoding), an answer in the coding the client accepts
// (Accept-Encoding). zlib does the work.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "serve/types.h"

namespace pdlite {
namespace serve {

enum class BodyCoding { kIdentity, kGzip, kDeflate };

/// The coding a request's Content-Encoding names (null or "identity": none);
/// false for any other (br, compress, several codings).
bool ParseContentEncoding(const char* value, BodyCoding* coding);

/// The coding to answer in, from the request's Accept-Encoding: gzip if
/// accepted, else deflate, else none. A coding with "q=0" is not accepted.
BodyCoding AnswerCoding(const char* accept_encoding);

/// "gzip" or "deflate", for Content-Encoding.
const char* CodingName(BodyCoding coding);

/// How much `Inflate` may hold: called before the output's buffer grows,
/// with the bytes it is to hold (whole kInflateSteps, doubling, at most
/// `max_bytes`; its `padding` comes on top); false stops it (the server
/// holds as much decompressed data as it may, all requests together).
using InflateHold = std::function<bool(size_t bytes)>;
// Small: every compressed request holds at least one step until answered.
constexpr size_t kInflateStep = size_t{64} << 10;

/// Decompresses `in` (gzip, possibly several members; or deflate: zlib's
/// format, or raw deflate) into `out`, stopping past `max_bytes` (a small
/// body may expand without bound): then `too_large` is set and `out` left
/// empty. `out` gets `padding` bytes of spare capacity (what the JSON
/// parser reads past the end). Errors: InvalidArgument saying why the data
/// does not decompress; Unavailable when `may_hold` refused more;
/// Internal when zlib has no memory.
Status Inflate(BodyCoding coding,
               const std::string& in,
               size_t max_bytes,
               size_t padding,
               const InflateHold& may_hold,
               std::string* out,
               bool* too_large);

/// Compresses `in` in `coding` (gzip or deflate), at zlib's fastest level.
std::string Compress(BodyCoding coding, const std::string& in);

}  // namespace serve
}  // namespace pdlite
