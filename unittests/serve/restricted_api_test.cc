// Restricted APIs (serve/restricted_api.h): the flag's form, each HTTP
// path's category, and a call allowed only with its header's value.
#include "serve/restricted_api.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace pdlite {
namespace serve {
namespace {

TEST(RestrictedApi, FlagsAreParsedAndBadOnesRefusedSayingWhy) {
  ApiRestrictions r;
  std::string why;
  EXPECT_TRUE(r.empty());
  EXPECT_TRUE(r.Add("model-repository,shared-memory:Admin-Key=s3=cret", &why))
      << why;
  EXPECT_FALSE(r.empty());
  EXPECT_TRUE(r.Add("logging:other=x", &why)) << why;
  struct Bad {
    const char* spec;
    const char* why;
  };
  for (const Bad& bad : {Bad{"model-repository:k=v", "restricted twice"},
                         Bad{"inference,inference:k=v", "restricted twice"},
                         Bad{"models:k=v", "'models' is not a category"},
                         Bad{"inference", "is not <category>"},
                         Bad{"inference:k", "is not <category>"},
                         Bad{"inference:=v", "must be a header name"},
                         Bad{"inference:k=", "must be a header name"},
                         Bad{"inference:a b=v", "must be a header name"}}) {
    EXPECT_FALSE(r.Add(bad.spec, &why)) << bad.spec;
    EXPECT_NE(why.find(bad.why), std::string::npos) << bad.spec << ": " << why;
  }
  // A refused flag adds nothing: inference stays open.
  EXPECT_TRUE(r.Allows(
      ApiCategory::kInference,
      [](const std::string&, std::string*) { return false; }, &why));
  // A message about a bad flag never quotes its value.
  for (const char* spec : {"admin-key=S3CRET", "inference:a b=S3CRET"}) {
    EXPECT_FALSE(r.Add(spec, &why));
    EXPECT_EQ(why.find("S3CRET"), std::string::npos) << why;
    EXPECT_NE(why.find("<value>"), std::string::npos) << why;
  }
}

TEST(RestrictedApi, OnlyTheRightValueOfTheHeaderIsLetThrough) {
  ApiRestrictions r;
  std::string why;
  ASSERT_TRUE(r.Add("model-repository:Admin-Key=s3=cret", &why));
  std::map<std::string, std::string> headers;
  auto lookup = [&headers](const std::string& key, std::string* value) {
    auto it = headers.find(key);
    if (it == headers.end()) return false;
    *value = it->second;
    return true;
  };
  EXPECT_FALSE(r.Allows(ApiCategory::kModelRepository, lookup, &why));
  EXPECT_NE(why.find("the model-repository API is restricted"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("'admin-key'"), std::string::npos) << why;
  EXPECT_EQ(why.find("s3=cret"), std::string::npos) << why;
  for (const std::string& wrong :
       {std::string(""), std::string("s3"), std::string("s3=cre"),
        std::string("s3=cretX"), std::string("S3=CRET"),
        std::string("s3=cret\0junk", 12)}) {
    headers["admin-key"] = wrong;
    EXPECT_FALSE(r.Allows(ApiCategory::kModelRepository, lookup, &why))
        << wrong;
  }
  headers["admin-key"] = "s3=cret";
  EXPECT_TRUE(r.Allows(ApiCategory::kModelRepository, lookup, &why));
  headers.clear();
  EXPECT_TRUE(r.Allows(ApiCategory::kInference, lookup, &why));
}

TEST(RestrictedApi, EveryHttpPathHasItsCategory) {
  const std::map<std::string, ApiCategory> paths = {
      {"/v2/health/live", ApiCategory::kHealth},
      {"/v2/health/ready", ApiCategory::kHealth},
      {"/v2", ApiCategory::kMetadata},
      {"/v2/models/m", ApiCategory::kMetadata},
      {"/v2/models/m/versions/2", ApiCategory::kMetadata},
      {"/v2/models/m/ready", ApiCategory::kHealth},
      {"/v2/models/m/versions/2/infer", ApiCategory::kInference},
      {"/v2/models/stats", ApiCategory::kStatistics},
      {"/v2/models/m/stats", ApiCategory::kStatistics},
      {"/v2/models/m/config", ApiCategory::kModelConfig},
      {"/v2/repository/index", ApiCategory::kModelRepository},
      {"/v2/repository/models/m/load", ApiCategory::kModelRepository},
      {"/v2/systemsharedmemory/status", ApiCategory::kSharedMemory},
      {"/v2/systemsharedmemory/region/r/register", ApiCategory::kSharedMemory},
      {"/v2/logging", ApiCategory::kLogging},
      // Models named like actions: as the router reads the path.
      {"/v2/models/ready", ApiCategory::kMetadata},
      {"/v2/models/infer", ApiCategory::kMetadata},
      {"/v2/models/config/versions/1", ApiCategory::kMetadata},
      {"/v2/models/infer/ready", ApiCategory::kHealth},
      {"/v2/models/ready/versions/3/infer", ApiCategory::kInference},
  };
  for (const auto& [path, category] : paths) {
    auto got = HttpApiCategory(path);
    ASSERT_TRUE(got.has_value()) << path;
    EXPECT_EQ(*got, category) << path << ": " << ApiCategoryName(*got);
  }
  EXPECT_FALSE(HttpApiCategory("/metrics").has_value());
  EXPECT_FALSE(HttpApiCategory("/v3/models").has_value());
}

}  // namespace
}  // namespace serve
}  // namespace pdlite
