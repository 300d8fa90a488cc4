# BlokusZero on a CUDA machine: the paper's run by default.
#   docker build -t blokuszero .
#   docker run --gpus all --shm-size=16g -v $PWD/runs:/app/runs blokuszero
# The base image's CUDA build of torch satisfies the package's torch range, so pip keeps it.
FROM pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime
WORKDIR /app
COPY . .
RUN pip install --no-cache-dir -e ".[test]"
CMD ["python", "train.py", "hardware=gpu8", "experiment=paper"]
