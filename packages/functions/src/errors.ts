// TEMPORARY stand-in until the functions skeleton lands (fn-reporting); replaced at merge.
export class FunctionError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: string,
  ) {
    super(message);
  }
}
export const functionErrors = {
  invalidRequest: (field: string, message?: string) =>
    new FunctionError(400, 'INVALID_REQUEST', message ?? `${field} is required`, field),
  validation: (message: string, details?: string) => new FunctionError(400, 'VALIDATION_ERROR', message, details),
  forbidden: (message: string) => new FunctionError(403, 'FORBIDDEN', message),
  notFound: (message: string) => new FunctionError(404, 'NOT_FOUND', message),
  internal: (message: string) => new FunctionError(500, 'INTERNAL_ERROR', message),
};
