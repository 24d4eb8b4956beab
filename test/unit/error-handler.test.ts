// The error handler's mapping of failures that are not the request's fault: storage that went
// away mid-request is a 503 to retry (chaos runs: pg_terminate_backend, a restarting Postgres).
import { describe, expect, it } from 'vitest';
import { renderError } from '../../src/http/error-handler.js';

/** Errors shaped as postgres.js raises them, optionally wrapped by drizzle in `cause`. */
const driverError = (code: string, message = `write ${code} 127.0.0.1:5432`) =>
  Object.assign(new Error(message), { code });
const wrapped = (cause: Error) => Object.assign(new Error('Failed query: select 1'), { cause });

describe('renderError', () => {
  it.each([
    ['a closed connection', driverError('CONNECTION_CLOSED')],
    ['an ended pool', driverError('CONNECTION_ENDED')],
    ['a connect timeout', driverError('CONNECT_TIMEOUT')],
    ['a refused connection', driverError('ECONNREFUSED')],
    [
      'a terminated backend (57P01)',
      driverError('57P01', 'terminating connection due to administrator command'),
    ],
    ['a server starting up (57P03)', driverError('57P03', 'the database system is starting up')],
    ['a connection failure (08006)', driverError('08006', 'connection failure')],
    ['a closed connection wrapped by drizzle', wrapped(driverError('CONNECTION_CLOSED'))],
  ])('answers %s with 503 and Retry-After', (_what, error) => {
    const rendered = renderError(error);
    expect(rendered.status).toBe(503);
    expect(rendered.body.error.code).toBe('storage.unavailable');
    expect(rendered.headers?.['retry-after']).toBe('1');
  });

  it('answers a COMMIT that did not commit with 503 storage.not_committed, wrapped or not', () => {
    for (const error of [driverError('COMMIT_NOT_COMMITTED'), wrapped(driverError('COMMIT_NOT_COMMITTED'))]) {
      const rendered = renderError(error);
      expect(rendered.status).toBe(503);
      expect(rendered.body.error.code).toBe('storage.not_committed');
      expect(rendered.headers?.['retry-after']).toBe('1');
    }
  });

  it('keeps unknown failures a 500 that hides its cause', () => {
    const rendered = renderError(new TypeError('x is undefined'));
    expect(rendered).toMatchObject({
      status: 500,
      body: { error: { code: 'internal', message: 'internal error' } },
    });
  });

  it('keeps data exceptions a 400', () => {
    expect(renderError(wrapped(driverError('22P05'))).status).toBe(400);
  });
});
