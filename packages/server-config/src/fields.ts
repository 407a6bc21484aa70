// Validators shared by the configuration sections: each turns an environment string into a typed value or
// fails with a message that completes "VARIABLE=value ...".
import * as v from 'valibot';

export const port = v.pipe(
  v.string(),
  v.regex(/^\d+$/, 'must be a whole number'),
  v.transform(Number),
  v.minValue(0, 'must be between 0 and 65535'),
  v.maxValue(65535, 'must be between 0 and 65535'),
);
export const bool = v.pipe(
  v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
  v.transform((s) => s === 'true' || s === '1'),
);
export const url = v.pipe(v.string(), v.url('must be a URL'));
export const nonEmpty = v.pipe(v.string(), v.minLength(1, 'must not be empty'));
export const positiveInt = v.pipe(
  v.string(),
  v.regex(/^\d+$/, 'must be a whole number'),
  v.transform(Number),
  v.minValue(1, 'must be at least 1'),
);

/** A whole number that may be 0. */
export const wholeNumber = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number));

/** A comma-separated list, blanks between commas ignored, each item passing `valid`. */
export const commaSeparated = (valid: (item: string) => boolean, message: string) =>
  v.pipe(
    v.string(),
    v.transform((s) =>
      s
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
    v.check((items) => items.every(valid), message),
  );
