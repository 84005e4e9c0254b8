# The image of docker-compose.yml: one image for web, CPU workers and (with the gpu extra) GPU workers.
FROM python:3.11-slim-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY sandmle ./sandmle
COPY sandmle_web ./sandmle_web
COPY accounts ./accounts
COPY tasks_app ./tasks_app
COPY training_app ./training_app
COPY workers ./workers
COPY templates ./templates
COPY static ./static
COPY manage.py ./
ARG EXTRAS=web,ml
RUN pip install --no-cache-dir -e ".[${EXTRAS}]"
ENV SANDMLE_DATA_DIR=/data
EXPOSE 8000
