# Hearth server image: README.md#containers. Build: docker build -t hearth .
# Stage 1 installs the runtime dependencies only, from the lock file.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/engine/package.json packages/engine/
COPY server/package.json server/
COPY client-sdk/package.json client-sdk/
COPY test/package.json test/
COPY bench/package.json bench/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# Stage 2 runs the server as an unprivileged user, with the data folder on a volume.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    HEARTH_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app ./
COPY package.json ./
COPY packages/contracts packages/contracts
COPY packages/engine packages/engine
COPY server server
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# What `npm start` execs: node itself is PID 1 and receives the SIGTERM `docker stop` sends.
CMD ["node", "--import", "tsx", "server/src/main.ts"]
