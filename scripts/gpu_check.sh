#!/usr/bin/env bash
# The GPU check, at most 8 minutes on one GPU: b10c128's evaluations per second at
# batches 256, 1,024 and 4,096 in fp32 and fp16, self-play leaves per second with 1, 2 and 4
# actors sharing the GPU, and a 3-minute train.py run (steps/s, games/h, GPU memory); printed
# and saved as JSON. The work is done by scripts/gpu_check.py; this only runs it.
#
#   bash scripts/gpu_check.sh [--dry-run] [--out runs/gpu_check/gpu_check.json]
#
# --dry-run rehearses every step on the CPU with tiny sizes (a minute or two). PYTHON picks the
# interpreter (default: python on PATH, e.g. the activated virtual environment's).
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PYTHON:-python}" scripts/gpu_check.py "$@"
