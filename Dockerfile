# Trawl's server as an image: `trawl serve` (or `trawl worker`) on Node 24, with Chromium and
# LibreOffice from Debian, as a non-root user, under tini, with the data folder as a volume.
#   podman build -t trawl .      (or docker build)
#   docker run --init -p 3002:3002 -e TRAWL_API_KEYS=ops:fc-secret -v trawl-data:/data trawl

FROM docker.io/library/node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
COPY packages/core/package.json packages/core/
COPY packages/adapters/package.json packages/adapters/
COPY packages/http/package.json packages/http/
# Dev dependencies too: npm pack builds each package with tsc first.
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
RUN mkdir -p /pack \
  && npm pack -w packages/core -w packages/adapters -w packages/http --pack-destination /pack

FROM docker.io/library/node:24-bookworm-slim
# Chromium renders JavaScript pages and screenshots; its filter lists serve blockAds; LibreOffice
# converts legacy DOC, XLS and PPT; tini reaps Chromium's children and forwards signals.
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    chromium webext-ublock-origin-chromium fonts-dejavu-core tini ca-certificates \
    libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui \
  && rm -rf /var/lib/apt/lists/*
COPY --from=build /pack /pack
RUN npm install -g --no-audit --no-fund /pack/*.tgz && rm -rf /pack /root/.npm
RUN useradd --system --create-home --home-dir /home/trawl --shell /usr/sbin/nologin trawl \
  && mkdir -p /data && chown trawl:trawl /data
USER trawl
# Listen on every address of the container: the keyless refusal below still applies, so a
# server without TRAWL_API_KEYS (or --allow-keyless-remote) will not start.
ENV TRAWL_DATA_DIR=/data \
    TRAWL_HOST=0.0.0.0 \
    TRAWL_CHROMIUM_PATH=/usr/bin/chromium \
    TRAWL_SOFFICE_PATH=/usr/bin/soffice
VOLUME ["/data"]
EXPOSE 3002
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:3002/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--", "trawl"]
CMD ["serve"]
