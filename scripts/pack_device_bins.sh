#!/usr/bin/env bash
# Packs a CUDA build's CLI and GPU test programs, with the shared libraries the GPU machine's image
# lacks, into DEST/bins.tar.xz: one compressed file under the size a GPU call can carry (the
# device scripts unpack it; scripts/pack_device_build.sh leaves the same files unpacked).
#
#   scripts/pack_device_bins.sh BUILD_DIR DEST              # -> DEST/bins.tar.xz
#   scripts/pack_device_bins.sh --cli-only BUILD_DIR DEST   # -> DEST/before.tar.xz: `swinup` alone, the
#                                                           #    "before" of scripts/device_cuda_speed_check.sh
set -euo pipefail
cli_only=0
if [ "${1:-}" = --cli-only ]; then
  cli_only=1
  shift
fi
BUILD=$1
DEST=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
if [ "$cli_only" = 1 ]; then
  name=before.tar.xz
  mkdir -p "$stage/lib"
  cp "$BUILD/tools/swinup/swinup" "$stage/"
  ldd "$stage/swinup" | awk '/=> \// {print $3}' | sort -u |
    grep -vE '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libcuda)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
else
  name=bins.tar.xz
  bash "$(dirname "$0")/pack_device_build.sh" "$BUILD" "$stage" >/dev/null
fi
mkdir -p "$DEST"
rm -f "$DEST/$name"
XZ_OPT="-6 -T0" tar cJf "$DEST/$name" -C "$stage" .
echo "packed $(ls "$stage" | wc -l) entries into $DEST/$name ($(du -h "$DEST/$name" | cut -f1))"
