# tabletop in a container: gRPC on 8086, HTTP (web UI, /healthz, /metrics) on
# 8087, durable data in the volume /data.
#
#   docker build -t tabletop .
#   docker run --rm -p 127.0.0.1:8086:8086 -p 127.0.0.1:8087:8087 -v tabletop-data:/data tabletop
#
# Flags after the image name replace the default command (`serve --host 0.0.0.0
# --insecure --data-dir /data`: an emulator without authentication, published on
# the host's loopback above), e.g. `docker run ... tabletop serve --host 0.0.0.0
# --insecure --in-memory`, or with TLS and `--auth on` (README: Authentication and TLS).
ARG NODE_VERSION=26

# Build: the checkout packed as npm publishes it (`npm pack`; `npm ci` compiles
# dist/), installed globally under /opt/tabletop. This image has python3, make and
# g++ for re2's native addon, should its prebuilt binary not download.
FROM node:${NODE_VERSION}-trixie AS build
WORKDIR /src
COPY . .
RUN npm ci \
 && npm pack \
 && npm install --global --prefix /opt/tabletop --allow-scripts=re2 --no-audit --no-fund ./tabletopdb-*.tgz

# Run: the same Node and Debian release without the build tools, as the
# unprivileged user `node`.
FROM node:${NODE_VERSION}-trixie-slim
COPY --from=build /opt/tabletop /opt/tabletop
RUN mkdir /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8086 8087
# Node's own fetch, so the image needs no curl. It assumes the default HTTP port.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8087/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The V8 option the server needs (src/cli/node-flags.ts), given to node directly.
ENTRYPOINT ["node", "--initial-old-space-size=128", "/opt/tabletop/lib/node_modules/tabletopdb/dist/cli/main.js"]
CMD ["serve", "--host", "0.0.0.0", "--insecure", "--data-dir", "/data"]
