// Metrics::Render: the Prometheus text of /metrics. Its sums are what
// rate(x_sum) / rate(x_count) divides for a mean, so they are written in
// full: six significant digits stopped a sum at "1e+06".
#include "serve/metrics.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace pdlite {
namespace serve {
namespace {

// The value of the series `series` (its name and labels) in `text`.
std::string ValueOf(const std::string& text, const std::string& series) {
  const size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return "(missing)";
  const size_t begin = at + series.size() + 2;
  return text.substr(begin, text.find('\n', begin) - begin);
}

TEST(Metrics, SumsAreWrittenInFull) {
  Metrics metrics;
  for (int i = 0; i < 1000003; ++i) metrics.RecordBatch("m", "1", 1);
  // Latencies whose sum needs more than six digits.
  double queued = 0;
  for (int i = 0; i < 3; ++i) {
    const double s = 0.000590346 + i * 1e-10;
    metrics.RecordRequest("m", "1", true, s, 0.001, 0.002);
    queued += s;
  }
  const std::string text = metrics.Render();
  const std::string labels = "{model=\"m\",version=\"1\"}";
  EXPECT_EQ(ValueOf(text, "pdlite_batch_size_sum" + labels), "1000003");
  EXPECT_EQ(ValueOf(text, "pdlite_batch_size_count" + labels), "1000003");
  const std::string sum =
      ValueOf(text, "pdlite_queue_duration_seconds_sum" + labels);
  EXPECT_EQ(std::strtod(sum.c_str(), nullptr), queued) << sum;
  // Bucket bounds as Prometheus' clients write them: shortest, fixed
  // (a bucket's le is matched as text).
  for (const char* bound : {"0.0001", "0.00025", "0.0005", "1", "2.5", "10"}) {
    EXPECT_NE(text.find("pdlite_queue_duration_seconds_bucket{model=\"m\","
                        "version=\"1\",le=\"" +
                        std::string(bound) + "\"} "),
              std::string::npos)
        << bound << " in\n"
        << text;
  }
  EXPECT_NE(text.find("pdlite_batch_size_bucket{model=\"m\",version=\"1\","
                      "le=\"128\"} 1000003\n"),
            std::string::npos);
}

}  // namespace
}  // namespace serve
}  // namespace pdlite
