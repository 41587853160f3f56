#!/usr/bin/env bash
# The head MLP fitted to the output-pass oracle on the GPU machine (fit_head_mlp.py;
# docs/journal/2026-12-02-head-mlp-fitted-to-the-oracle-03cf09f.md): renders 24 short training-like
# sequences (8 frames, display 768x432 as the training data, scales 1.5-3, HDR and LDR, the five
# procedural scenes and gas_station under several cameras, seeds of their own; never breakfast_room,
# never the evaluation's sequences), records the oracle's additions on each (six at a time on the
# GPU, about 6 minutes in all), then fits the head MLP to all of them and attaches it to START.
# Usage: SWINUP_BIN=.devrun bash python/scripts/research/device_head_fit.sh START OUT [STEPS] [SHIFT]
#   RECORDINGS=48: 24 more sequences after the first 24 (the 2026-12-02 set for full:
#   gas_station under eight more views, and 2x sequences at display 1152x648), about twice the time.
#   PARALLEL: oracles sharing the GPU at once (default 6).
#   STEPS: the fit's Adam steps (default 6000); SHIFT: fit_head_mlp.py --history-logit-shift
#   (default 0.15, chosen on 2026-12-02). Feature files stay in $REC (/tmp/rec);
#   EXTRAS=1: the records also hold feature_value_check.py's candidate features (record --extras).
#   LIMIT=N: only the first N sequences (a quick check of the script; RENDER_DEVICE=cpu without a GPU).
#   VARIANT=full: the oracle of full (default lite); WEIGHTS: the network to record (default
#   weights/<variant>.safetensors), which must not have the head MLP (the fit replaces it).
set -euo pipefail
START=$(realpath "$1")
OUTPUT=$(realpath -m "$2")
STEPS=${3:-6000}
SHIFT=${4:-0.15}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
SWINUP=$(bash "$ROOT/python/scripts/find_cli.sh")
if [ -n "${SWINUP_BIN:-}" ]; then
  export LD_LIBRARY_PATH="$ROOT/$SWINUP_BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
PYTHON=${PYTHON:-python3}
REC=${REC:-/tmp/rec}
GAS="$ROOT/.pydata/scenes/gas_station/GasStation.gltf"
mkdir -p "$REC"
# name|scene|render size|camera (- = the scene's own)|seed|extra
SPECS=("fence_shake_2x|fence|384x216|shake|7|" "fence_pan_2x|fence|384x216|pan|37|"
       "fence_orbit_2x|fence|384x216|orbit|4|" "moire_pan_2x|moire|384x216|pan|38|--hdr"
       "moire_pan_3x|moire|256x144|pan|28|--hdr" "moire_orbit_2x|moire|384x216|orbit|39|"
       "showcase_pan_2x|showcase|384x216|pan|40|" "text_shake_2x|text|384x216|shake|41|--hdr"
       "fence_own_15|fence|512x288|-|51|--hdr" "fence_dolly_24|fence|320x180|dolly|52|"
       "fence_shake_3x|fence|256x144|shake|53|" "moire_own_15|moire|512x288|-|54|"
       "moire_shake_24|moire|320x180|shake|55|--hdr" "showcase_own_3x|showcase|256x144|-|56|--hdr"
       "showcase_orbit_24|showcase|320x180|orbit|57|" "showcase_shake_15|showcase|512x288|shake|58|"
       "text_pan_3x|text|256x144|pan|59|" "text_orbit_2x|text|384x216|orbit|60|"
       "spinner_own_2x|spinner|384x216|-|61|" "spinner_pan_3x|spinner|256x144|pan|62|--hdr"
       "spinner_shake_24|spinner|320x180|shake|63|" "gas_own_2x|$GAS|384x216|-|64|"
       "gas_orbit_3x|$GAS|256x144|orbit|65|--hdr" "gas_pan_15|$GAS|512x288|pan|66|")
# name|scene|render size|camera|seed|extra|display (default 768x432)
MORE=("gas_pan_2x_big|$GAS|576x324|pan|71||1152x648" "gas_shake_2x|$GAS|384x216|shake|72|--hdr"
      "gas_dolly_2x_big|$GAS|576x324|dolly|73|--hdr|1152x648" "gas_dolly_15|$GAS|512x288|dolly|74|--hdr"
      "gas_orbit_2x|$GAS|384x216|orbit|75|" "gas_pan_24|$GAS|320x180|pan|76|"
      "gas_shake_15|$GAS|512x288|shake|77|--hdr" "gas_dolly_3x|$GAS|256x144|dolly|78|"
      "fence_pan_2x_big|fence|576x324|pan|79||1152x648" "moire_shake_2x_big|moire|576x324|shake|80|--hdr|1152x648"
      "showcase_orbit_2x_big|showcase|576x324|orbit|81||1152x648" "text_pan_2x_big|text|576x324|pan|82|--hdr|1152x648"
      "spinner_orbit_2x|spinner|384x216|orbit|83|--hdr" "showcase_dolly_2x|showcase|384x216|dolly|84|--hdr"
      "text_dolly_15|text|512x288|dolly|85|" "moire_dolly_2x|moire|384x216|dolly|86|"
      "fence_orbit_15|fence|512x288|orbit|87|--hdr" "spinner_dolly_15|spinner|512x288|dolly|88|"
      "showcase_shake_2x|showcase|384x216|shake|89|--hdr" "text_own_2x|text|384x216|-|90|"
      "moire_own_3x|moire|256x144|-|91|--hdr" "fence_own_2x|fence|384x216|-|92|"
      "spinner_shake_2x|spinner|384x216|shake|93|--hdr" "fence_dolly_2x_big|fence|576x324|dolly|94|--hdr|1152x648")
case ${RECORDINGS:-24} in
  24) ;;
  48) SPECS+=("${MORE[@]}") ;;
  *) echo "device_head_fit: RECORDINGS must be 24 or 48, not ${RECORDINGS}"; exit 2 ;;
esac
features=()
running=0
for spec in "${SPECS[@]:0:${LIMIT:-${#SPECS[@]}}}"; do
  IFS='|' read -r name scene size camera seed extra display <<< "$spec"
  [[ $scene == *.gltf && ! -f $scene ]] && { echo "device_head_fit: $scene not carried, $name skipped"; continue; }
  camera_args=(--camera "$camera")
  [ "$camera" = - ] && camera_args=()
  [ -d "$REC/$name" ] || "$SWINUP" render "$scene" -o "$REC/$name" --frames 8 --render "$size" --display "${display:-768x432}" \
    --device "${RENDER_DEVICE:-cuda}" --seed "$seed" "${camera_args[@]}" $extra > "$REC/$name.log" 2>&1
  features+=("$REC/$name.feat.pt")
  [ -f "$REC/$name.feat.pt" ] && continue
  (cd "$ROOT/python" && "$PYTHON" scripts/research/fit_head_mlp.py record "$REC/$name" --out "$REC/$name.feat.pt" \
     --variant "${VARIANT:-lite}" ${WEIGHTS:+--weights "$WEIGHTS"} $([ "${EXTRAS:-0}" = 1 ] && echo --extras) > "$REC/$name.record.log" 2>&1) &
  running=$((running + 1))
  if ((running == ${PARALLEL:-6})); then wait; running=0; fi  # oracles sharing the GPU
done
wait
for f in "${features[@]}"; do [ -f "$f" ] || { echo "device_head_fit: no record $f"; exit 1; }; done
cd "$ROOT/python"
"$PYTHON" scripts/research/fit_head_mlp.py fit "${features[@]}" --checkpoint "$START" --out "$OUTPUT" --steps "$STEPS" \
  --history-logit-shift "$SHIFT"
