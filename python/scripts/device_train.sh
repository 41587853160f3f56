#!/usr/bin/env bash
# One chunk of training on the GPU machine (the device tool), for a later session:
#   1. builds the CLI with the CUDA renderer (Release, no tests),
#   2. renders training sequences: the built-in procedural scenes under several cameras at random
#      scales 1.5..3, HDR and LDR, and gas_station if it was carried (the device machine sees only
#      the repository: copy ../shared/scenes/gas_station to .pydata/scenes/ and carry .pydata),
#      never breakfast_room (the held-out check),
#   3. trains for TRAIN_MINUTES from python/checkpoints/<variant>.pt (or the weights file),
#   4. copies the checkpoint and the exported weights to $OUT (commit them back here).
# Usage (device command): [SWINUP_BIN=.devrun] bash python/scripts/device_train.sh lite 6 [NGPU]
set -euo pipefail
VARIANT=${1:-lite}
TRAIN_MINUTES=${2:-6}
NGPU=${3:-1}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=/tmp/swinup_data
export PYTHONUNBUFFERED=1

# The device image lacks the Debian -dev packages the CLI links (OpenEXR, oneTBB, ...): pass a CLI
# built here with -DSWINUP_CUDA=ON, carried with its non-glibc shared libraries in $SWINUP_BIN/lib
# (scripts/device_cuda_check.sh documents the same layout), e.g. SWINUP_BIN=.devrun.
if [ -n "${SWINUP_BIN:-}" ]; then
  export LD_LIBRARY_PATH="$ROOT/$SWINUP_BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  SWINUP="$ROOT/$SWINUP_BIN/swinup"
else
  cmake -S "$ROOT" -B /tmp/build -G Ninja -DSWINUP_CUDA=ON -DSWINUP_BUILD_TESTS=OFF \
        -DSWINUP_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/cmake.log
  cmake --build /tmp/build --target swinup_cli -j"$(nproc)" > /tmp/build.log
  SWINUP=/tmp/build/tools/swinup/swinup
fi

mkdir -p "$DATA"
i=0
for scene in showcase fence moire text spinner; do
  for camera in pan orbit shake; do
    # Scale per sequence: display 128 px tall, render 128 / s (s in 1.5..3, several modes).
    s=$(python3 -c "import random; random.seed($i); print(random.choice([1.5, 1.7, 2.0, 2.5, 3.0]))")
    rh=$(python3 -c "print(round(128 / $s))")
    hdr=$([ $((i % 2)) -eq 0 ] && echo --hdr || true)
    $SWINUP render "$scene" -o "$DATA/${scene}_${camera}" --frames 24 --render "$((rh * 16 / 9))x$rh" \
        --display 228x128 --camera "$camera" --device cuda --seed $i $hdr > /dev/null
    i=$((i + 1))
  done
done
if [ -f "$ROOT/.pydata/scenes/gas_station/GasStation.gltf" ]; then
  $SWINUP render "$ROOT/.pydata/scenes/gas_station/GasStation.gltf" -o "$DATA/gas_station" \
      --frames 32 --render 170x96 --display 340x192 --device cuda --hdr > /dev/null
fi
ARGS=()
for d in "$DATA"/*/; do ARGS+=(--data "$d"); done

cd "$ROOT/python"
if [ "$NGPU" -gt 1 ]; then
  torchrun --nproc_per_node "$NGPU" -m swinup.train --variant "$VARIANT" --minutes "$TRAIN_MINUTES" "${ARGS[@]}"
else
  python3 -m swinup.train --variant "$VARIANT" --minutes "$TRAIN_MINUTES" "${ARGS[@]}"
fi
python3 -m swinup.export --variant "$VARIANT" --out "$OUT/$VARIANT.safetensors"
cp "checkpoints/$VARIANT.pt" "$OUT/$VARIANT.pt"
