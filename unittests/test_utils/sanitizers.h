// Which sanitizer a test binary is built with: gcc says so with
// __SANITIZE_*__, clang with __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define PDLITE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PDLITE_TEST_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define PDLITE_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PDLITE_TEST_TSAN 1
#endif
#endif
