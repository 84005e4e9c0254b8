# The image of docker-compose.yml: one image for web, CPU workers and (with the gpu extra) GPU workers.
# The whole build context goes in (.dockerignore leaves out local state), so a package added later is never missed.
FROM python:3.11-slim-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
ARG EXTRAS=web,ml
RUN pip install --no-cache-dir -e ".[${EXTRAS}]"
ENV SANDMLE_DATA_DIR=/data
EXPOSE 8000
