// The functions family's errors: the ten codes of the functions interface (and INSUFFICIENT_STORAGE), each with
// its HTTP status, rendered as `{error, code, details?}`. Handlers throw these; anything else becomes INTERNAL_ERROR at the edge.
const FUNCTION_ERROR_STATUS = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  INVALID_REQUEST: 400,
  VALIDATION_ERROR: 400,
  RATE_LIMITED: 429,
  LLM_ERROR: 500,
  EXECUTION_ERROR: 400,
  INTERNAL_ERROR: 500,
  METHOD_NOT_ALLOWED: 405,
  // Not one of the interface's ten: free disk space on the server is under its floor (DISK_FREE_FLOOR_MB).
  INSUFFICIENT_STORAGE: 507,
} as const;

export type FunctionErrorCode = keyof typeof FUNCTION_ERROR_STATUS;

export class FunctionError extends Error {
  override name = 'FunctionError';
  readonly status: number;
  constructor(
    readonly code: FunctionErrorCode,
    message: string,
    readonly details?: string,
    /** Overrides the code's usual status (413 for an oversized upload is a VALIDATION_ERROR). */
    status?: number,
  ) {
    super(message);
    this.status = status ?? FUNCTION_ERROR_STATUS[code];
  }

  toJSON(): { error: string; code: string; details?: string } {
    return this.details === undefined
      ? { error: this.message, code: this.code }
      : { error: this.message, code: this.code, details: this.details };
  }
}

export const functionErrors = {
  unauthorized: (message = 'a valid user access token is required') => new FunctionError('UNAUTHORIZED', message),
  forbidden: (message: string) => new FunctionError('FORBIDDEN', message),
  notFound: (message: string) => new FunctionError('NOT_FOUND', message),
  invalidRequest: (field: string, message?: string) =>
    new FunctionError('INVALID_REQUEST', message ?? `${field} is required`, field),
  validation: (message: string, details?: string) => new FunctionError('VALIDATION_ERROR', message, details),
  tooLarge: (message: string, details = 'file') => new FunctionError('VALIDATION_ERROR', message, details, 413),
  rateLimited: (message: string) => new FunctionError('RATE_LIMITED', message),
  llm: (message: string, details?: string) => new FunctionError('LLM_ERROR', message, details),
  execution: (message: string, details?: string) => new FunctionError('EXECUTION_ERROR', message, details),
  internal: (message = 'internal error') => new FunctionError('INTERNAL_ERROR', message),
  insufficientStorage: () =>
    new FunctionError(
      'INSUFFICIENT_STORAGE',
      'Insufficient storage: free disk space on the server is below its floor; try the import again once space is freed',
    ),
  methodNotAllowed: (method: string) =>
    new FunctionError('METHOD_NOT_ALLOWED', `${method} is not allowed; functions are called with POST`),
};
