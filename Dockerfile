# contextd image: Node 20, production dependencies, run with tsx (the service is TypeScript).
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
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY drizzle ./drizzle
EXPOSE 8080
USER node
CMD ["node", "--import", "tsx", "src/server.ts"]
