# contextd image: TypeScript compiled to JavaScript in a build stage; the final stage has only
# production dependencies, dist/ and the migrations, runs as the unprivileged `node` user, and
# checks its own /healthz.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY client/package.json ./client/
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts ./scripts/
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# Two glibc malloc arenas instead of 8 per core: the process's resident memory stays level under
# steady load instead of drifting with pages the allocator keeps (docs/operations.md, "Memory").
ENV MALLOC_ARENA_MAX=2
COPY package.json package-lock.json ./
# The root is an npm workspace (client/, the typed client): npm ci installs what the lockfile names
# for it, so its package.json comes along (only that; the service does not import the client).
COPY client/package.json ./client/
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY drizzle ./drizzle
EXPOSE 8080
USER node
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/server.js"]
