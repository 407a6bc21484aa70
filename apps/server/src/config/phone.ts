// Phone sign-in and SMS (docs/auth.md, "Phone"): GoTrue's GOTRUE_EXTERNAL_PHONE_ENABLED, GOTRUE_SMS_* and
// GOTRUE_MFA_PHONE_* under our AUTH_ prefix. Durations take GoTrue's form (`60s`, `1m`) or plain seconds.
import * as v from 'valibot';
import { parseTestOtps } from '@auction-ops/auth-core/phone-number';
import { bool, nonEmpty, positiveInt, url } from './fields.js';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;

/** `90`, `90s`, `1m`, `2h` as seconds. */
const durationSeconds = v.pipe(
  v.string(),
  v.regex(/^\d+(s|m|h)?$/, 'must be seconds, or a duration such as 60s, 1m or 2h'),
  v.transform((s) => {
    const unit = s.at(-1) as keyof typeof UNIT_SECONDS;
    return unit in UNIT_SECONDS ? Number(s.slice(0, -1)) * UNIT_SECONDS[unit] : Number(s);
  }),
);

const testOtps = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return parseTestOtps(dataset.value);
    } catch (error) {
      addIssue({ message: `must be phone:code,phone:code (${(error as Error).message})` });
      return NEVER;
    }
  }),
);

export const phoneSettings = {
  AUTH_EXTERNAL_PHONE_ENABLED: v.optional(bool, 'false'),
  AUTH_SMS_AUTOCONFIRM: v.optional(bool, 'false'),
  AUTH_SMS_PROVIDER: v.optional(v.picklist(['twilio'], 'must be twilio (or unset: no provider)')),
  AUTH_SMS_TWILIO_ACCOUNT_SID: v.optional(nonEmpty),
  AUTH_SMS_TWILIO_AUTH_TOKEN: v.optional(nonEmpty),
  AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: v.optional(nonEmpty),
  // Twilio's API base; tests point it at a fake on loopback.
  AUTH_SMS_TWILIO_API_URL: v.optional(url, 'https://api.twilio.com'),
  AUTH_SMS_OTP_EXP: v.optional(positiveInt, '60'),
  AUTH_SMS_MAX_FREQUENCY: v.optional(durationSeconds, '60'),
  AUTH_SMS_TEMPLATE: v.optional(nonEmpty, 'Your code is {{ .Code }}'),
  AUTH_SMS_TEST_OTP: v.optional(testOtps, ''),
  AUTH_RATE_LIMIT_SMS_SENT: v.optional(positiveInt, '30'),
  AUTH_MFA_PHONE_ENABLED: v.optional(bool, 'false'),
  AUTH_MFA_PHONE_MAX_FREQUENCY: v.optional(durationSeconds, '60'),
};

/** A setting the provider needs but lacks, as the start's one-line error; undefined when all is there. */
export function phoneConfigProblem(config: {
  AUTH_SMS_PROVIDER?: string;
  AUTH_SMS_TWILIO_ACCOUNT_SID?: string;
  AUTH_SMS_TWILIO_AUTH_TOKEN?: string;
  AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID?: string;
}): string | undefined {
  if (config.AUTH_SMS_PROVIDER !== 'twilio') return undefined;
  for (const name of [
    'AUTH_SMS_TWILIO_ACCOUNT_SID',
    'AUTH_SMS_TWILIO_AUTH_TOKEN',
    'AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID',
  ] as const) {
    if (!config[name]) return `${name} must be set when AUTH_SMS_PROVIDER=twilio`;
  }
  return undefined;
}
