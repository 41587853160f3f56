#!/usr/bin/env bash
# Packs a CUDA build made on the development machine for the GPU machine, whose image
# lacks the Debian -dev packages the build links against: the CLI and the GPU test programs
# into DEST, and every shared library they need that is not glibc's or the CUDA driver's into
# DEST/lib (run them there with LD_LIBRARY_PATH=DEST/lib). DEST then travels to the GPU machine.
#
#   scripts/pack_device_build.sh BUILD_DIR DEST
#
# BUILD_DIR: a build configured with -DSWINUP_CUDA=ON -DSWINUP_NATIVE=OFF (the GPU machine's
# processor is another x86-64: -march=native code of this machine may not run there).
set -euo pipefail
BUILD=$1
DEST=$2
mkdir -p "$DEST/lib"
programs=("$BUILD/tools/swinup/swinup")
for t in "$BUILD"/tests/test_cuda_* "$BUILD"/tests/test_render_cuda; do
  [ -x "$t" ] && programs+=("$t")
done
cp "${programs[@]}" "$DEST/"
# glibc, the dynamic loader and the driver's libcuda come from the GPU machine's own image.
ldd "${programs[@]}" | awk '/=> \// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libcuda)\.so' |
  while read -r lib; do cp -L "$lib" "$DEST/lib/"; done
echo "packed ${#programs[@]} programs and $(ls "$DEST/lib" | wc -l) libraries into $DEST ($(du -sh "$DEST" | cut -f1))"
