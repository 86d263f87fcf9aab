// Private to kernels that use Eigen: pulls in Eigen's tensor module with
// thread-pool support. Never include it from a header others include.
#pragma once

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>
#include <Eigen/Dense>
