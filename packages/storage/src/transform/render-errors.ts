// Errors of image transformations, in the storage error shape. Source-image problems are 400 with Supabase's
// messages (its imgproxy answers them so); a full render queue is 503 with Retry-After.
import { StorageError } from '../storage-errors.js';

export class RenderBusyError extends StorageError {
  readonly retryAfterSeconds = 1;
}

export const renderErrors = {
  invalidParameter: (message: string) => new StorageError(400, 'InvalidParameter', message),
  invalidSource: () =>
    new StorageError(400, 'InvalidImage', 'The source image is invalid or unsupported for rendering'),
  sourceTooLarge: (limit: number) =>
    new StorageError(
      413,
      'ImageTooLarge',
      `The source image file is too large to process (the limit is ${limit} bytes)`,
    ),
  resolutionTooLarge: (limit: number) =>
    new StorageError(
      413,
      'ImageTooLarge',
      `The source image resolution is too large to process (the limit is ${limit} pixels)`,
    ),
  busy: () => new RenderBusyError(503, 'TooManyRequests', 'Too many image transformations in progress; retry shortly'),
};
