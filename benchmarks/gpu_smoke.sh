#!/usr/bin/env bash
# Smoke run of hazardkit's model paths on an NVIDIA GPU with no internet: real-size random-weight models built
# from configs in benchmarks/gpu_configs/ (Qwen2.5-VL-7B-shaped VLM via transformers and vLLM's dummy loader,
# a FLUX.1-Fill-dev-shaped diffusers edit); prints samples/s, peak GPU memory, the vLLM/transformers ratio.
#
#   bash benchmarks/gpu_smoke.sh                 # on the GPU machine (about 5-10 minutes on one H100/H200)
#   bash benchmarks/gpu_smoke.sh --cpu-check     # tiny configs on CPU in seconds (run by `make test`)
#   bash benchmarks/gpu_smoke.sh --n 128 --batch-size 32 --skip diffusers    # see --help
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
[ -x "$PY" ] || PY="$(command -v python3)"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 TOKENIZERS_PARALLELISM=false
case " $* " in
  *" --cpu-check "*|*" -h "*|*" --help "*) ;;
  *) nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader \
       || { echo "gpu_smoke: nvidia-smi found no NVIDIA GPU; use --cpu-check on a machine without one" >&2; exit 2; } ;;
esac
exec "$PY" benchmarks/gpu_smoke.py "$@"
