# CPU image of BlokusZero (docker build -t blokuszero . && docker run blokuszero).
# GPU users: start FROM a CUDA PyTorch image and skip the CPU torch line.
FROM python:3.11-slim
WORKDIR /app
RUN pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu torch==2.13.0
COPY . .
RUN pip install --no-cache-dir -e ".[test]"
CMD ["python", "train.py"]
