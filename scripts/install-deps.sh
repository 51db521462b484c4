#!/usr/bin/env bash
# Installs what flowdg needs on Debian 12 (run as root, or with sudo available). Idempotent.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev
          libtomlplusplus-dev libcli11-dev libfmt-dev libhdf5-dev libeigen3-dev libgmsh-dev libmetis-dev libmuparser-dev
          libopenmpi-dev openmpi-bin
          python3 python3-numpy python3-matplotlib python3-h5py python3-meshio)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "flowdg: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
