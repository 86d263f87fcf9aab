// Flags shared by the subcommands (defined in main.cc).
#pragma once

#include <gflags/gflags.h>

DECLARE_string(model);
DECLARE_string(params);
DECLARE_string(output_dir);
DECLARE_int32(threads);
DECLARE_string(device);
DECLARE_string(libraries);
DECLARE_string(expected);
DECLARE_double(atol);
DECLARE_double(rtol);
DECLARE_string(op);
DECLARE_int32(repeat);
DECLARE_string(inputs);
DECLARE_bool(report);   // tools/pdlite/plugins.cc
DECLARE_bool(missing);  // tools/pdlite/plugins.cc
DECLARE_int32(warmup);
DECLARE_int32(iters);
DECLARE_bool(json);
DECLARE_bool(profile);
DECLARE_bool(passes);
DECLARE_bool(ir_optim);
DECLARE_int64(gpu_mem_mb);
DECLARE_bool(tf32);
DECLARE_bool(cudnn_exhaustive_search);
DECLARE_string(shapes);
DECLARE_int32(samples);
DECLARE_int64(seed);
DECLARE_int32(stream_passes);
DECLARE_int64(cache_mb);
DECLARE_int64(max_loop_iterations);
DECLARE_int64(max_tensor_mb);
DECLARE_int64(max_run_mb);
