// What crosses the transform thread boundary: a request (one transform), its reply (the
// output or an error, and the memory the thread holds after it), and errors. A worker
// thread can only post plain data, so an error is sent as its shape (name, message, field, and a TrawlError's code and
// retryability) and rebuilt in the pool as the same kind of error, since its class and code
// decide the message's fate (ackDecision: retried, or final at once). Our errors the pool
// names come back with their class; any other TrawlError as a WorkerTrawlError with its code
// and retryability (a new document error needs no change here); anything else as an Error
// of that name (retried like any unexpected failure).
import {
  DocumentEncryptedError, DocumentParseTimeoutError, DocumentTooComplexError, DocumentTooLargeError, DocumentUnreadableError,
  ERROR_CODES, InvalidUrlError, PageTooComplexError, TransformTimeoutError, TrawlError, ValidationError, type ErrorCode,
} from '../../../shared/src/domain/errors.js';
import type { TransformInput, TransformOutput } from './types.js';

export interface WorkerRequest {
  id: number;
  input: TransformInput;
}
export type WorkerReply = ({ id: number; ok: true; output: TransformOutput } | { id: number; ok: false; error: WorkerErrorShape }) & {
  /** MiB the worker holds after the transform (V8 heap committed + external), for recycling. */
  memoryMb?: number;
};

/** What the thread posts once, when its modules are loaded, before any reply. */
export interface ThreadReady {
  ready: true;
}
export type ThreadMessage = WorkerReply | ThreadReady;

export interface WorkerErrorShape {
  name: string;
  message: string;
  field?: string;
  /** A TrawlError's code and retryability. */
  code?: string;
  retryable?: boolean;
}

/** What the thread posts for an error it caught. */
export function errorShape(err: unknown): WorkerErrorShape {
  const error = err instanceof Error ? err : new Error(String(err));
  const { field, code, retryable } = error as { field?: unknown; code?: unknown; retryable?: unknown };
  return {
    name: error.name,
    message: error.message,
    ...(typeof field === 'string' ? { field } : {}),
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof retryable === 'boolean' ? { retryable } : {}),
  };
}

/** Errors that decide the message's fate, rebuilt with their class (ackDecision reads it). */
const REBUILT_ERRORS: Record<string, new (message: string) => Error> = {
  DocumentEncryptedError, DocumentUnreadableError, DocumentTooLargeError, DocumentParseTimeoutError, DocumentTooComplexError,
  PageTooComplexError, TransformTimeoutError,
};

/**
 * Any TrawlError thrown in a worker, with what ackDecision reads (`code`, `retryable`): one
 * of ours the pool does not name (a new document error, say) needs no change here.
 */
export class WorkerTrawlError extends TrawlError {
  constructor(message: string, readonly code: ErrorCode, readonly retryable: boolean, name: string) {
    super(message);
    this.name = name;
  }
}

export function rebuildError(error: WorkerErrorShape): Error {
  if (error.name === 'InvalidUrlError') return new InvalidUrlError(error.message, error.field);
  if (error.name === 'ValidationError') return new ValidationError(error.message, error.field);
  const Known = REBUILT_ERRORS[error.name];
  if (Known) return new Known(error.message);
  if (error.code && error.code in ERROR_CODES) return new WorkerTrawlError(error.message, error.code as ErrorCode, error.retryable ?? true, error.name);
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}

/** What a task whose thread died gets: final, since the same input would kill the next thread. */
export function deathError(heavy: boolean, input: TransformInput | undefined, reason: string, crash: Error | undefined): Error {
  if (heavy) return new DocumentTooComplexError(`the ${input?.document?.kind ?? 'document'} document killed its transform thread (${reason})`, { cause: crash });
  return new PageTooComplexError(`transform worker died (${reason}) on ${input?.url ?? 'a page'}`, { cause: crash });
}
