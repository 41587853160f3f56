#!/usr/bin/env bash
# Renders swinup's training sequences (ground truth included) into DATA_DIR:
#   the five built-in procedural scenes under their own camera and the pan, orbit and shake
#   presets, and gas_station (if .pydata/scenes/gas_station was carried) under six cameras;
#   display 768x432, 32 frames, scales 1.5, 1.6, 2, 2.4 and 3 in turn (render sizes whose
#   ratio to the display is exact, so training crops keep the scale), HDR and LDR alternating;
#   then ten more at 3x and 2.4x (gas_station's moving cameras, the thin-feature procedural
#   scenes panning): the first chunks were weakest at 3x, where thin moving features broke up;
#   then nine more at 2x (gas_station under its six cameras, showcase, fence and moire panning):
#   with the 3x extras only a seventh of the sequences were at 2x, and by 2026-12-01 2x
#   was the scale where lite fell short while it had margin to spare at 3x
#   (docs/journal/2026-12-01-more-2x-data-and-larger-batches-e91d297.md);
#   then thirteen with reactive and transparency masks in them (docs/masks.md; the renderer writes
#   masks.NNNN.exr for every sequence, zero where a scene has nothing blended or animated): the
#   `particles` scene (particles without motion vectors, a glass pane, a scrolling texture) under
#   its own camera and the four presets, at 2x and 3x again, and the five procedural scenes with
#   --particles N added (60 to 250: a tenth to a quarter of the image), spinner under a static
#   camera among them (still pixels, where the transparency mask scales the still-pixel shift).
#   They are what train.py --masks trains mask_embed on.
#   Then eight of the `movers` scene (textured objects swinging and spinning across textured
#   backdrops at 0.5-9 m/s, each sequence laid out by its own seed; a still camera and the
#   presets, every scale): objects that uncover the background, which the sequences above show on
#   about 1% of their pixels (docs/journal/2026-12-07-ghost-trails-cause.md). Every sequence has
#   motion_masks.NNNN.exr (the disoccluded and moving-object pixels).
# Never breakfast_room: it is the held-out check.
# Usage: render_training_data.sh SWINUP_CLI DATA_DIR   (QUICK=1: 4 sequences of 8 frames, CPU,
#   the third a masked one, the last a movers one; FRAMES=N: N frames a sequence; RENDER_DEVICE=cpu: every
#   sequence on the CPU renderer; MASKED_ONLY=1: only the masked sequences; MOVERS_ONLY=1: only
#   the movers)
set -euo pipefail
SWINUP=$1
DATA=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$DATA"
RENDERS=(512x288 480x270 384x216 320x180 256x144)  # display 768x432 / 1.5, 1.6, 2, 2.4, 3
FRAMES=${FRAMES:-32}
DEVICE=${RENDER_DEVICE:-cuda}
source "$ROOT/python/scripts/gpu_jobs.sh"
GPUS=$(gpu_list)
[ "$DEVICE" = cpu ] && GPUS=0
if [ "${QUICK:-0}" = 1 ]; then FRAMES=8; DEVICE=cpu; GPUS=0; fi

jobs_list=()
i=0
add() {  # name scene camera [render size; default: the next of RENDERS] [more render options]
  local r=${4:-${RENDERS[$((i % ${#RENDERS[@]}))]}}
  local hdr=""
  [ $((i % 2)) -eq 0 ] && hdr=--hdr
  local cam=()
  [ -n "$3" ] && cam=(--camera "$3")
  jobs_list+=("$1|$2|$r|$hdr|${cam[*]}|$i|${5:-}")
  i=$((i + 1))
}
for scene in showcase fence moire text spinner; do
  for camera in "" pan orbit shake; do add "${scene}_${camera:-own}" "$scene" "$camera"; done
done
GAS="$ROOT/.pydata/scenes/gas_station/GasStation.gltf"
if [ -f "$GAS" ]; then
  for camera in "" orbit shake dolly pan static; do add "gas_station_${camera:-own}" "$GAS" "$camera"; done
fi
# The large-scale extras (seeds continue from i, so none repeats an earlier sequence).
for scene in fence text moire spinner; do add "${scene}_pan_3x" "$scene" pan 256x144; done
if [ -f "$GAS" ]; then
  for camera in orbit shake dolly pan; do add "gas_station_${camera}_3x" "$GAS" "$camera" 256x144; done
  for camera in "" orbit; do add "gas_station_${camera:-own}_2.4x" "$GAS" "$camera" 320x180; done
fi
for scene in showcase fence moire; do add "${scene}_pan_2x" "$scene" pan 384x216; done
if [ -f "$GAS" ]; then
  for camera in "" orbit shake dolly pan static; do add "gas_station_${camera:-own}_2x" "$GAS" "$camera" 384x216; done
fi
# The masked sequences (seeds continue from i, so the sequences above keep theirs).
unmasked=${#jobs_list[@]}
for camera in "" pan orbit shake static; do add "particles_${camera:-own}" particles "$camera"; done
add particles_pan_2x particles pan 384x216
add particles_orbit_3x particles orbit 256x144
add showcase_particles_pan showcase pan "" "--particles 150"
add fence_particles_orbit fence orbit "" "--particles 250"
add moire_particles_pan moire pan "" "--particles 60"
add text_particles_shake text shake "" "--particles 120"
add spinner_particles_static spinner static "" "--particles 200"
add spinner_particles_own_2x spinner "" 384x216 "--particles 100"
masked_end=${#jobs_list[@]}
# The movers (seeds continue from i: each sequence its own layout).
movers_cameras=("" "" pan shake "" orbit "" pan)
for k in "${!movers_cameras[@]}"; do add "movers_$((k + 1))" movers "${movers_cameras[$k]}"; done
if [ "${QUICK:-0}" = 1 ]; then
  jobs_list=("${jobs_list[@]:0:2}" "${jobs_list[$((masked_end - 1))]}" "${jobs_list[$((${#jobs_list[@]} - 1))]}")
elif [ "${MASKED_ONLY:-0}" = 1 ]; then
  jobs_list=("${jobs_list[@]:$unmasked:$((masked_end - unmasked))}")
elif [ "${MOVERS_ONLY:-0}" = 1 ]; then
  jobs_list=("${jobs_list[@]:$masked_end}")
fi

run_job() {
  IFS='|' read -r name scene r hdr cam seed extra <<< "$1"
  local gpu=$2
  # shellcheck disable=SC2086
  CUDA_VISIBLE_DEVICES=$gpu "$SWINUP" render "$scene" -o "$DATA/$name" --frames "$FRAMES" --render "$r" \
      --display 768x432 --device "$DEVICE" --seed "$seed" $hdr $cam $extra > "$DATA/$name.log" 2>&1 ||
    { echo "render $name failed:"; tail -5 "$DATA/$name.log"; return 1; }
  echo "rendered $name ($r -> 768x432 ${hdr:-ldr} ${cam:-own camera}${extra:+ $extra})"
}
# Four renders at a time, spread over the GPUs (EXR writing is on the CPU).
run_on_gpus "$GPUS" run_job "${jobs_list[@]}"
