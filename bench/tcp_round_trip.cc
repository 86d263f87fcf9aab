// pdlite_tcp_round_trip: the floor under any TCP transport of `pdlite
// serve` on this machine, for bench/serve_bench.py.
//
// A forked child process answers every --bytes bytes it reads with
// --answer-bytes bytes on one loopback connection (TCP_NODELAY, both
// sides); the parent sends a request, reads the answer and times the
// round trip, back to back. No HTTP, no parsing, no allocation per
// request: what is left is the kernel's loopback copy and the two
// processes waking each other up, which every HTTP or gRPC request of the
// same size also pays. It prints one JSON line, like pdlite_serve_load.
//
// --answer-after-us N makes the child spin N microseconds before each
// answer, as a server computes before it answers: a client that waits
// longer sleeps deeper (on a VM, until the host wakes its vCPU), which
// every server whose model takes that long also pays. The round trip
// less N is then the floor for a request of that compute time.
//
//   pdlite_tcp_round_trip [--bytes 110652] [--answer-bytes 200]
//       [--answer-after-us 0] [--warmup 1] [--seconds 5]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/percentile.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  size_t bytes = 110652;  // ppocr_cls_mobile_v2's binary infer request
  size_t answer_bytes = 200;
  double answer_after_us = 0;
  double warmup_s = 1, seconds = 5;
};

[[noreturn]] void Fail(const std::string& why) {
  std::fprintf(stderr, "pdlite_tcp_round_trip: %s\n", why.c_str());
  std::exit(2);
}

Options ParseArgs(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) Fail("flag " + flag + " needs a value");
    char* end = nullptr;
    const char* value = argv[++i];
    double number = std::strtod(value, &end);
    // Only the spin may be 0.
    const bool zero_ok = flag == "--answer-after-us";
    if (*value == '\0' || *end != '\0' ||
        !(number > 0 || (zero_ok && number == 0))) {
      Fail("flag " + flag + " needs a " +
           (zero_ok ? "number >= 0" : "positive number") + ", got '" + value +
           "'");
    }
    if (flag == "--bytes") {
      options.bytes = static_cast<size_t>(number);
    } else if (flag == "--answer-bytes") {
      options.answer_bytes = static_cast<size_t>(number);
    } else if (flag == "--answer-after-us") {
      options.answer_after_us = number;
    } else if (flag == "--warmup") {
      options.warmup_s = number;
    } else if (flag == "--seconds") {
      options.seconds = number;
    } else {
      Fail("unknown flag " + flag +
           " (usage: pdlite_tcp_round_trip [--bytes N] [--answer-bytes N] "
           "[--answer-after-us N] [--warmup S] [--seconds S])");
    }
  }
  return options;
}

// False when the peer closed the connection.
bool ReadAll(int fd, char* data, size_t size) {
  while (size > 0) {
    ssize_t got = recv(fd, data, size, 0);
    if (got <= 0) return false;
    data += got;
    size -= static_cast<size_t>(got);
  }
  return true;
}

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t sent = send(fd, data, size, MSG_NOSIGNAL);
    if (sent <= 0) return false;
    data += sent;
    size -= static_cast<size_t>(sent);
  }
  return true;
}

void NoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// The child: one connection, answered until the parent closes it.
[[noreturn]] void Answer(int listener, const Options& options) {
  int fd = accept(listener, nullptr, nullptr);
  if (fd < 0) _exit(1);
  NoDelay(fd);
  std::vector<char> request(options.bytes), answer(options.answer_bytes, 'a');
  const auto compute = std::chrono::nanoseconds(
      static_cast<int64_t>(options.answer_after_us * 1e3));
  while (ReadAll(fd, request.data(), request.size())) {
    // Spinning, not sleeping: a model computes on its core.
    const Clock::time_point until = Clock::now() + compute;
    while (Clock::now() < until) {
    }
    if (!WriteAll(fd, answer.data(), answer.size())) break;
  }
  close(fd);
  _exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (listener < 0 ||
      bind(listener, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      listen(listener, 1) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) !=
          0) {
    Fail(std::string("cannot listen on loopback: ") + std::strerror(errno));
  }
  pid_t child = fork();
  if (child < 0) Fail(std::string("fork: ") + std::strerror(errno));
  if (child == 0) Answer(listener, options);
  close(listener);

  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&address),
                        sizeof(address)) != 0) {
    Fail(std::string("cannot connect: ") + std::strerror(errno));
  }
  NoDelay(fd);
  std::vector<char> request(options.bytes, 'r'), answer(options.answer_bytes);
  std::vector<double> latencies_ms;
  const Clock::time_point measure_from =
      Clock::now() +
      std::chrono::microseconds(static_cast<int64_t>(options.warmup_s * 1e6));
  const Clock::time_point end =
      measure_from +
      std::chrono::microseconds(static_cast<int64_t>(options.seconds * 1e6));
  while (true) {
    Clock::time_point start = Clock::now();
    if (start >= end) break;
    if (!WriteAll(fd, request.data(), request.size()) ||
        !ReadAll(fd, answer.data(), answer.size())) {
      Fail("the answering process closed the connection");
    }
    if (start >= measure_from) {
      latencies_ms.push_back(
          std::chrono::duration<double, std::milli>(Clock::now() - start)
              .count());
    }
  }
  close(fd);
  int status = 0;
  waitpid(child, &status, 0);
  std::sort(latencies_ms.begin(), latencies_ms.end());
  std::printf(
      "{\"bytes\":%zu,\"answer_bytes\":%zu,\"answer_after_us\":%.1f,"
      "\"requests\":%zu,\"p50_ms\":%.6f,\"p99_ms\":%.6f}\n",
      options.bytes, options.answer_bytes, options.answer_after_us,
      latencies_ms.size(), pdlite_bench::Percentile(latencies_ms, 50),
      pdlite_bench::Percentile(latencies_ms, 99));
  return 0;
}
