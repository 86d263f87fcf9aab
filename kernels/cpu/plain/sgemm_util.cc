#include "kernels/cpu/plain/sgemm_util.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <signal.h>

#include "platform/cpu_isa.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace kernels {
namespace plain {

void SgemmOneThread(int64_t m,
                    int64_t n,
                    int64_t k,
                    const float* a,
                    int64_t lda,
                    const float* b,
                    int64_t ldb,
                    float beta,
                    float* c,
                    int64_t ldc) {
  if (k == 0) {
    // An empty sum. oneDNN's sgemm would leave C as it was, even with
    // beta 0 (NaNs included).
    for (int64_t i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      for (int64_t j = 0; j < n; ++j)
        row[j] = beta == 0.f ? 0.f : beta * row[j];
    }
    return;
  }
  if (HasSgemmAvx2()) {
    SgemmAvx2(false, false, m, n, k, 1.f, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // oneDNN's sgemm starts an OpenMP team of the calling thread's size;
  // the team is sized to one for the call (a per-thread setting).
  const int team = omp_get_max_threads();
  omp_set_num_threads(1);
  // Its JIT kernels (oneDNN before 3.11, Debian's 2.6 included) point rsp
  // at a heap buffer while they run, so a signal handled on this thread
  // meanwhile writes its frame into the heap (oneDNN issue 4845; a
  // fuzzer's timeout alarm did). Signals wait until the call returns.
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &before);
  const dnnl_status_t status =
      dnnl_sgemm('N', 'N', m, n, k, 1.f, a, lda, b, ldb, beta, c, ldc);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  omp_set_num_threads(team);
  PADDLE_ENFORCE(status == dnnl_success,
                 platform::errors::External(
                     "oneDNN's sgemm failed (status ", static_cast<int>(status),
                     ") on [", m, " x ", k, "] x [", k, " x ", n, "]."));
}

bool HasSgemmAvx2() {
  static const bool kHas =
      platform::WidestCpuIsa() != platform::CpuIsa::kBaseline;
  return kHas;
}

}  // namespace plain
}  // namespace kernels
}  // namespace paddle_lite
