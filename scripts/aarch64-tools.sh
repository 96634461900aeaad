#!/usr/bin/env bash
# Installs what an aarch64 build and its tests need on an x86-64 Debian machine: the Rust
# target (from the pinned toolchain), a cross linker and C compiler, and qemu-user.
# Does nothing for what is already there.
set -euo pipefail
if ! rustup target list --installed | grep -qx aarch64-unknown-linux-gnu; then
  rustup target add aarch64-unknown-linux-gnu
fi
if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null \
  || [ ! -d /usr/aarch64-linux-gnu/lib ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
fi
aarch64-linux-gnu-gcc --version | head -n 1
qemu-aarch64 --version | head -n 1
