#!/usr/bin/env bash
# Train on from the shipped weights in one call of the `device` tool (a GPU machine with many
# cores, torch, OpenCV and numpy, but no cardtally, onnxruntime or network), and hand the
# checkpoints back under $OUT. Runs resume across calls: bring the checkpoints
# back into runs/device/ and name that folder in the call's `carry`.
#
#   models/device_train.sh MINUTES detector|embedder|both
#
# Before the first call, on the development machine (the embedder's start is rebuilt from its
# ONNX file, which needs onnx and onnxruntime):
#   python -m cardtally.models.embedder.from_onnx models/back_embedder.onnx runs/device/embedder_init.pt
# The call (device tool):  command "bash models/device_train.sh 7 both", carry ["runs/device"]
# After it:                cp -r FILES_AT/device/. runs/device/
#   python -m cardtally.models.detector.export runs/device/detector/last.pt runs/device/detector.onnx --ema
#   python -m cardtally.models.embedder.export runs/device/embedder/ckpt.pt runs/device/embedder.onnx
# and measure them as models/MODEL_CARD.md says before shipping anything.
#
# DEVICE_TRAIN_DRY=1 runs two steps of each on this machine's CPU (a check of the script).
set -euo pipefail

minutes=${1:?usage: models/device_train.sh MINUTES detector|embedder|both}
what=${2:?usage: models/device_train.sh MINUTES detector|embedder|both}
case "$what" in detector | embedder | both) ;; *)
    echo "device_train.sh: unknown network '$what' (detector, embedder or both)" >&2
    exit 2
    ;;
esac
out=${OUT:?device_train.sh: OUT must name the folder to hand the checkpoints back in}
runs=${DEVICE_RUNS:-runs/device}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mkdir -p "$runs" "$out"

# cardtally is not installed there: a tree of links imports it as its package-dir mapping would.
pkg=$(mktemp -d)
mkdir -p "$pkg/cardtally"
cp -r src/cardtally/. "$pkg/cardtally/"
for part in vision models scoring samples; do ln -s "$root/$part" "$pkg/cardtally/$part"; done
export PYTHONPATH="$pkg${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1

cores=$(nproc)
if [[ ${DEVICE_TRAIN_DRY:-0} == 1 ]]; then
    detector_steps=2 embedder_steps=2 device=cpu detector_workers=0 embedder_workers=0 batch=2
else
    # The renderers, not the GPU, bound both runs: share the cores between them.
    detector_steps=100000 embedder_steps=20000 device=cuda batch=32
    if [[ $what == both ]]; then
        detector_workers=$((cores * 3 / 5)) embedder_workers=$((cores - 1 - cores * 3 / 5))
    else
        detector_workers=$((cores - 1)) embedder_workers=$((cores - 1))
    fi
fi

detector() {
    local init="$runs/soup1921.pt"
    if [[ ! -f $init ]]; then  # the shipped game-photo weights, as models/MODEL_CARD.md builds them
        python3 -m cardtally.models.detector.average "$init" \
            models/detector/card_detector_run19.pt models/detector/card_detector_run21.pt
    fi
    # Run 23's recipe (constant rate, read through the moving average), with the
    # GPU's larger batch; a carried last.pt resumes it.
    python3 -m cardtally.models.detector.train --out "$runs/detector" --seed 40 --device "$device" \
        --init-from "$init" --steps "$detector_steps" --minutes "$minutes" --lr 2e-4 --constant-lr \
        --ema 0.9995 --centre-weight 3 --centre-in-own-part --impulse-share --card-px 50 160 \
        --small-card-share 0.1 --batch "$batch" --workers "$detector_workers" --threads 2 \
        --save-every 250
}

embedder() {
    local init="$runs/embedder_init.pt"
    if [[ ! -f $init && ! -f $runs/embedder/ckpt.pt ]]; then
        echo "device_train.sh: $init is missing; rebuild it from models/back_embedder.onnx first" >&2
        return 2
    fi
    # Run 12's recipe (the shipped embedder) trained on; a carried ckpt.pt resumes it.
    python3 -m cardtally.models.embedder.train --out "$runs/embedder" --seed 41 --device "$device" \
        --init-from "$init" --steps "$embedder_steps" --lr 5e-4 --warmup 20 --replay 2 \
        --max-minutes "$minutes" --workers "$embedder_workers" --families 8 --blind-siblings \
        --symbol-weight 0.5
}

status=0
case "$what" in
detector) detector > "$out/detector.log" 2>&1 || status=$? ;;
embedder) embedder > "$out/embedder.log" 2>&1 || status=$? ;;
both)
    detector > "$out/detector.log" 2>&1 &
    detector_pid=$!
    embedder > "$out/embedder.log" 2>&1 || status=$?
    wait "$detector_pid" || status=$?
    ;;
esac

# Only what resumes and exports a run comes back (the tool returns files of limited size).
mkdir -p "$out/device"
for run in detector embedder; do
    [[ -d $runs/$run ]] || continue
    mkdir -p "$out/device/$run"
    for file in last.pt ckpt.pt log.jsonl train.log; do
        [[ -f $runs/$run/$file ]] && cp "$runs/$run/$file" "$out/device/$run/"
    done
done
tail -n 3 "$out"/*.log
exit "$status"
