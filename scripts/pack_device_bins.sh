#!/usr/bin/env bash
# Packs a CUDA build's CLI and GPU test programs, with the shared libraries the GPU machine's image
# lacks, into DEST/bins.tar.xz: one compressed file under the size a GPU call can carry (the
# device scripts unpack it; scripts/pack_device_build.sh leaves the same files unpacked).
#
#   scripts/pack_device_bins.sh BUILD_DIR DEST
set -euo pipefail
BUILD=$1
DEST=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
bash "$(dirname "$0")/pack_device_build.sh" "$BUILD" "$stage" >/dev/null
mkdir -p "$DEST"
rm -f "$DEST/bins.tar.xz"
XZ_OPT="-6 -T0" tar cJf "$DEST/bins.tar.xz" -C "$stage" .
echo "packed $(ls "$stage" | wc -l) entries into $DEST/bins.tar.xz ($(du -h "$DEST/bins.tar.xz" | cut -f1))"
