# Production image for the api and worker processes (same image, different command). It holds neither the sandbox
# stand-ins (sandbox/) nor the embedded stack (dev/): production talks to the real providers.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY activities ./activities
COPY integrations ./integrations
COPY workflows ./workflows
COPY db ./db
COPY worker ./worker
COPY platform ./platform
COPY contracts ./contracts
RUN npm run build && npm run contracts:build && mkdir -p dist/contracts/build && cp contracts/build/*.json dist/contracts/build/ \
  && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER node
EXPOSE 3000
# A young generation of 8 MiB semi-spaces (V8's default on this Node is larger): the api's resident memory under load
# drops by about a third for a few percent more CPU (BENCHMARKS.md). npm run bench runs the api with these flags.
CMD ["node", "--max-semi-space-size=8", "dist/api/main.js"]
