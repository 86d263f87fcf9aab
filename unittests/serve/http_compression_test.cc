// Compressed HTTP bodies (serve/http_compression.h): what tritonclient's
// request_compression_algorithm sends, decompressed under the body limit
// (a small body may expand without bound), and the codings of
// Accept-Encoding.
#include "serve/http_compression.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace pdlite {
namespace serve {
namespace {

std::string FromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

const std::string kText = R"({"inputs": []})";

// kText as Python's gzip.compress, zlib.compress and raw deflate made it.
const std::string kGzip = FromHex(
    "1f8b0800000000000203ab56cacc2b282d2956b252888ead050045f6ffe90e000000");
const std::string kZlib =
    FromHex("789cab56cacc2b282d2956b252888ead0500262004f2");
const std::string kRaw = FromHex("ab56cacc2b282d2956b252888ead0500");

// A hold that allows anything.
bool Unbounded(size_t) { return true; }

std::string InflateOk(BodyCoding coding,
                      const std::string& in,
                      size_t max_bytes = 1 << 20) {
  std::string out;
  bool too_large = true;
  Status status =
      Inflate(coding, in, max_bytes, 64, Unbounded, &out, &too_large);
  EXPECT_TRUE(status.ok()) << status.message;
  EXPECT_FALSE(too_large);
  EXPECT_GE(out.capacity(), out.size() + 64);
  return out;
}

TEST(HttpCompression, ReadsWhatOtherEncodersWrote) {
  EXPECT_EQ(InflateOk(BodyCoding::kGzip, kGzip), kText);
  EXPECT_EQ(InflateOk(BodyCoding::kDeflate, kZlib), kText);
  // Some clients send raw deflate for "deflate".
  EXPECT_EQ(InflateOk(BodyCoding::kDeflate, kRaw), kText);
  EXPECT_EQ(InflateOk(BodyCoding::kGzip, Compress(BodyCoding::kGzip, "")), "");
  // gzip members one after another (RFC 1952), as `cat a.gz b.gz` makes.
  EXPECT_EQ(InflateOk(BodyCoding::kGzip, kGzip + kGzip), kText + kText);
}

TEST(HttpCompression, RoundTripsLargeBodiesInBothCodings) {
  std::string body;
  for (int64_t i = 0; body.size() < (3u << 20); ++i) {
    body += std::to_string(i * 7919 % 100003) + ",";
  }
  for (BodyCoding coding : {BodyCoding::kGzip, BodyCoding::kDeflate}) {
    const std::string packed = Compress(coding, body);
    EXPECT_LT(packed.size(), body.size());
    EXPECT_EQ(InflateOk(coding, packed, 4u << 20), body);
  }
}

TEST(HttpCompression, ABodyThatExpandsPastTheLimitStopsThere) {
  // 64 MB of zeros in under 1 MB: refused once past 1 MB.
  const std::string bomb =
      Compress(BodyCoding::kGzip, std::string(64u << 20, '\0'));
  ASSERT_LT(bomb.size(), 1u << 20);
  std::string out;
  bool too_large = false;
  size_t most_asked = 0;
  auto hold = [&](size_t bytes) {
    most_asked = std::max(most_asked, bytes);
    return true;
  };
  EXPECT_TRUE(
      Inflate(BodyCoding::kGzip, bomb, 1 << 20, 64, hold, &out, &too_large)
          .ok());
  EXPECT_TRUE(too_large);
  EXPECT_TRUE(out.empty());
  // Asked for no more than the limit: refused once past it.
  EXPECT_EQ(most_asked, size_t{1} << 20);
  // Exactly at the limit fits.
  EXPECT_EQ(
      InflateOk(BodyCoding::kGzip,
                Compress(BodyCoding::kGzip, std::string(1000, 'a')), 1000),
      std::string(1000, 'a'));
}

// The hold is asked before each further step of output; when it refuses,
// the body is not decompressed (503: the server holds as much as it may).
TEST(HttpCompression, AHoldThatRefusesStopsTheDecompression) {
  const std::string body(3 * kInflateStep + 10, 'x');
  const std::string packed = Compress(BodyCoding::kDeflate, body);
  std::vector<size_t> asked;
  auto two_steps = [&](size_t bytes) {
    asked.push_back(bytes);
    return bytes <= 2 * kInflateStep;
  };
  std::string out;
  bool too_large = false;
  Status status = Inflate(BodyCoding::kDeflate, packed, 8 * kInflateStep, 64,
                          two_steps, &out, &too_large);
  EXPECT_EQ(status.code, StatusCode::kUnavailable) << status.message;
  EXPECT_FALSE(too_large);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(asked, (std::vector<size_t>{kInflateStep, 2 * kInflateStep,
                                        4 * kInflateStep}));
}

// The output's buffer never holds more than the hold allowed (and the
// padding): it grows by doubling to what was asked, where append's own
// doubling had held up to twice it, uncharged.
TEST(HttpCompression, TheOutputHoldsNoMoreThanTheHoldAllowed) {
  for (size_t size : {size_t{1}, kInflateStep - 1, kInflateStep + 1,
                      5 * kInflateStep + 3, size_t{3} << 20}) {
    const std::string body(size, 'y');
    for (BodyCoding coding : {BodyCoding::kGzip, BodyCoding::kDeflate}) {
      size_t most_asked = 0;
      size_t asks = 0;
      auto hold = [&](size_t bytes) {
        most_asked = std::max(most_asked, bytes);
        ++asks;
        return true;
      };
      std::string out;
      bool too_large = true;
      ASSERT_TRUE(Inflate(coding, Compress(coding, body), 4u << 20, 64, hold,
                          &out, &too_large)
                      .ok());
      EXPECT_EQ(out, body);
      EXPECT_GE(out.capacity(), out.size() + 64);
      EXPECT_LE(out.capacity(), most_asked + 64) << size;
      // Doubling: a few asks, not one per step.
      EXPECT_LE(asks, 8u) << size;
      EXPECT_LE(most_asked, 2 * std::max(size, kInflateStep)) << size;
    }
  }
}

TEST(HttpCompression, DataThatDoesNotDecompressIsAnErrorSayingWhy) {
  struct Case {
    BodyCoding coding;
    std::string data;
    const char* why;
  };
  const Case cases[] = {
      {BodyCoding::kGzip, kGzip.substr(0, kGzip.size() - 6), "ends early"},
      {BodyCoding::kGzip, kText, "not valid"},
      {BodyCoding::kGzip, kGzip + "trailing", "not valid"},
      {BodyCoding::kGzip, "", "ends early"},
      {BodyCoding::kDeflate, kZlib.substr(0, 8), "ends early"},
      {BodyCoding::kDeflate, std::string(100, '\xff'), "not valid"},
  };
  for (const Case& c : cases) {
    std::string out;
    bool too_large = false;
    Status status =
        Inflate(c.coding, c.data, 1 << 20, 64, Unbounded, &out, &too_large);
    EXPECT_EQ(status.code, StatusCode::kInvalidArgument) << c.why;
    EXPECT_NE(status.message.find(c.why), std::string::npos) << status.message;
    EXPECT_NE(status.message.find(std::string("as ") + CodingName(c.coding)),
              std::string::npos)
        << status.message;
    EXPECT_FALSE(too_large);
  }
}

TEST(HttpCompression, ContentAndAcceptEncodingsAreParsed) {
  BodyCoding coding;
  EXPECT_TRUE(ParseContentEncoding(nullptr, &coding));
  EXPECT_EQ(coding, BodyCoding::kIdentity);
  EXPECT_TRUE(ParseContentEncoding(" identity ", &coding));
  EXPECT_EQ(coding, BodyCoding::kIdentity);
  EXPECT_TRUE(ParseContentEncoding("GZIP", &coding));
  EXPECT_EQ(coding, BodyCoding::kGzip);
  EXPECT_TRUE(ParseContentEncoding("x-gzip", &coding));
  EXPECT_EQ(coding, BodyCoding::kGzip);
  EXPECT_TRUE(ParseContentEncoding("deflate", &coding));
  EXPECT_EQ(coding, BodyCoding::kDeflate);
  EXPECT_FALSE(ParseContentEncoding("br", &coding));
  EXPECT_FALSE(ParseContentEncoding("gzip, deflate", &coding));

  EXPECT_EQ(AnswerCoding(nullptr), BodyCoding::kIdentity);
  EXPECT_EQ(AnswerCoding("gzip"), BodyCoding::kGzip);
  EXPECT_EQ(AnswerCoding("deflate"), BodyCoding::kDeflate);
  EXPECT_EQ(AnswerCoding("deflate, gzip;q=0.5"), BodyCoding::kGzip);
  EXPECT_EQ(AnswerCoding("gzip;q=0, deflate"), BodyCoding::kDeflate);
  EXPECT_EQ(AnswerCoding("gzip; q=0.000"), BodyCoding::kIdentity);
  EXPECT_EQ(AnswerCoding("br, identity, *"), BodyCoding::kIdentity);
  EXPECT_EQ(AnswerCoding(" GZip ;q=1.0"), BodyCoding::kGzip);
}

}  // namespace
}  // namespace serve
}  // namespace pdlite
