// Column types shared by the schema files: jsonb parsed once, bytea as Buffer, tsvector, and
// timestamps with time zone as Date.
import { customType, timestamp } from 'drizzle-orm/pg-core';

export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});
/**
 * jsonb parsed once: both drivers (postgres.js, PGlite) already hand back parsed values, and
 * drizzle's own jsonb type would JSON.parse any string again — a turn "42" came back as the
 * number 42 and '{"a":1}' as an object. Written as JSON text, read as the driver parsed it.
 */
export const jsonb = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => 'jsonb',
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => value,
});
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const createdAt = () => ts('created_at').notNull().defaultNow();
