// docker-compose.yml is for users (no Docker engine here): check its shape, not its run.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config.js';

const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'), {
  merge: true,
}) as { services: Record<string, Record<string, unknown>> };

describe('docker-compose.yml', () => {
  it('has postgres, redis, a migration step, two contextd replicas and a load balancer, each long-running one with a health check', () => {
    const names = Object.keys(compose.services);
    expect(names).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'migrate', 'contextd-1', 'contextd-2', 'lb']),
    );
    for (const name of names.filter((n) => n !== 'migrate')) {
      expect(compose.services[name]!.healthcheck, `${name} health check`).toBeDefined();
    }
  });

  it('migrates once in a one-shot service; the replicas start after it succeeded, with migrations off', () => {
    const migrate = compose.services.migrate! as {
      command: string[];
      restart: string;
      environment: Record<string, string>;
      depends_on: Record<string, { condition: string }>;
    };
    expect(migrate.command).toEqual(['node', 'dist/db/migrate-cli.js']);
    expect(migrate.restart).toBe('no');
    expect(migrate.depends_on.postgres!.condition).toBe('service_healthy');
    // The step's own settings parse (production, no API keys needed to migrate).
    expect(parseConfig(migrate.environment).DATABASE_URL).toBe(migrate.environment.DATABASE_URL);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.migrate).toBe('tsx src/db/migrate-cli.ts');
    for (const name of ['contextd-1', 'contextd-2']) {
      const service = compose.services[name]! as {
        environment: Record<string, string>;
        depends_on: Record<string, { condition: string }>;
      };
      expect(service.environment.DATABASE_URL).toBe(migrate.environment.DATABASE_URL);
      expect(service.depends_on.migrate!.condition).toBe('service_completed_successfully');
      expect(parseConfig({ DATABASE_MIGRATE: service.environment.DATABASE_MIGRATE }).DATABASE_MIGRATE).toBe(
        false,
      );
    }
  });

  it('wires the replicas to postgres and redis and waits for them to be healthy', () => {
    for (const name of ['contextd-1', 'contextd-2']) {
      const service = compose.services[name]! as {
        environment: Record<string, string>;
        depends_on: Record<string, { condition: string }>;
        healthcheck: { test: string[] };
      };
      expect(service.environment.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      expect(service.environment.REDIS_URL).toBe('redis://redis:6379');
      expect(service.depends_on.postgres!.condition).toBe('service_healthy');
      expect(service.depends_on.redis!.condition).toBe('service_healthy');
      expect(service.healthcheck.test.join(' ')).toContain('/readyz');
    }
  });

  it('trusts X-Forwarded-For from the private network nginx is on, and nginx overwrites it', () => {
    for (const name of ['contextd-1', 'contextd-2']) {
      const service = compose.services[name]! as { environment: Record<string, string> };
      expect(parseConfig({ TRUST_PROXY: service.environment.TRUST_PROXY }).TRUST_PROXY).toEqual([
        'uniquelocal',
      ]);
    }
    const conf = readFileSync(new URL('../../deploy/nginx.conf', import.meta.url), 'utf8');
    expect(conf).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
  });

  it('refuses to start without the operator API_KEYS: required, no default key', () => {
    for (const name of ['contextd-1', 'contextd-2']) {
      const service = compose.services[name]! as { environment: Record<string, string> };
      expect(service.environment.NODE_ENV).toBe('production');
      // `${VAR:?message}` makes compose stop with the message when VAR is unset or empty.
      expect(service.environment.API_KEYS).toMatch(/^\$\{API_KEYS:\?[^}]+\}$/);
    }
    const raw = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8');
    expect(raw).not.toMatch(/API_KEYS:-/);
    expect(raw).not.toMatch(/change-me/);
  });

  it('puts the load balancer in front of both replicas', () => {
    const conf = readFileSync(new URL('../../deploy/nginx.conf', import.meta.url), 'utf8');
    expect(conf).toContain('server contextd-1:8080');
    expect(conf).toContain('server contextd-2:8080');
    const lb = compose.services.lb! as { depends_on: Record<string, unknown>; ports: string[] };
    expect(Object.keys(lb.depends_on)).toEqual(['contextd-1', 'contextd-2']);
    expect(lb.ports).toContain('8080:8080');
  });
});
