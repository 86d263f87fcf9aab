#!/usr/bin/env bash
# Installs the build dependencies (Debian 12 packages) if any is missing.
set -euo pipefail
packages=(cmake g++ make ccache libprotobuf-dev protobuf-compiler
          libeigen3-dev libdnnl-dev libgoogle-glog-dev libgflags-dev
          libgtest-dev libgmock-dev libbenchmark-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
