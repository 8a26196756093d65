# The docs-sync GitHub App in a container:
#   docker build -t docs-sync .
#   docker run -p 3000:3000 -v docs-sync-data:/data -e APP_ID=... -e PRIVATE_KEY=... -e WEBHOOK_SECRET=... docs-sync
# or `docker compose up` with compose.yaml. The settings are the README's (Configuration).

# The wheel is built in a stage of its own, so the image holds no source tree and no build tools.
FROM python:3.12-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY rules ./rules
RUN pip wheel --no-cache-dir --disable-pip-version-check --no-deps --wheel-dir /dist .

FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DOCS_SYNC_DB=/data/docs-sync.db
COPY --from=build /dist /dist
RUN pip install --no-cache-dir --disable-pip-version-check "$(ls /dist/*.whl)[app,postgres]" \
    && rm -rf /dist \
    && useradd --system --uid 10001 --user-group --create-home --home-dir /home/docs-sync docs-sync \
    && mkdir /data \
    && chown docs-sync:docs-sync /data
# The queue and the App's state: a named volume mounted here starts owned by the App's user.
VOLUME ["/data"]
USER docs-sync
WORKDIR /home/docs-sync
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:3000/healthz', timeout=4)"]
CMD ["docs-sync", "serve", "--host", "0.0.0.0", "--port", "3000"]
