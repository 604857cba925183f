# paycall: one image for every role (ROLE=all, serve or worker). The service runs from the JavaScript that
# src/build-js.ts writes into dist/ (types stripped by Node itself, no compiler), as `npm start` does; the CLI
# commands (node src/main.ts …) run the TypeScript sources directly.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=optional: typescript is an optional peer of viem and @solana/* ("devOptional" in the lockfile), so
# --omit=dev alone installs it. --ignore-scripts: no production dependency needs an install script.
# Node never runs TypeScript or reads source maps under node_modules, so those files are dropped (about 140 MB).
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
 && find node_modules -type f \( -name '*.map' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' \) -delete

FROM node:24-slim
# No NODE_COMPILE_CACHE: the service runs JavaScript, so Node's TypeScript stripper is never loaded, and a filled
# cache held about 10 MB more at rest (bench/README.md, "Memory at rest: the service runs from JavaScript").
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4021 \
    DATA_DIR=/data \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
RUN node --disable-warning=ExperimentalWarning src/build-js.ts \
 && mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 4021
# /ready is 503 while starting, while draining after SIGTERM, and when the database does not answer.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4021) + '/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "--no-memory-reducer", "--max-semi-space-size=16", "dist/src/main.js", "serve"]
