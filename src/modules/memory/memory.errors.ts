// Errors of memories, with stable codes (docs/api.md lists them).
import { conflict, notFound } from '../../shared/errors.js';

/** Also another tenant's memory: ids never reveal that they exist elsewhere. */
export const memoryNotFound = (id: string) => notFound('memory.not_found', 'no such memory', { id });

export const memoryDuplicate = () =>
  conflict('memory.duplicate', 'another memory of this scope and type already has this text');
