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
  AUTH_SMS_PROVIDER: v.optional(
    v.picklist(
      ['twilio', 'vonage', 'messagebird', 'textlocal'],
      'must be twilio, vonage, messagebird or textlocal (or unset: no provider)',
    ),
  ),
  AUTH_SMS_TWILIO_ACCOUNT_SID: v.optional(nonEmpty),
  AUTH_SMS_TWILIO_AUTH_TOKEN: v.optional(nonEmpty),
  AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: v.optional(nonEmpty),
  // Each provider's API base; tests point it at a fake on loopback.
  AUTH_SMS_TWILIO_API_URL: v.optional(url, 'https://api.twilio.com'),
  AUTH_SMS_VONAGE_API_KEY: v.optional(nonEmpty),
  AUTH_SMS_VONAGE_API_SECRET: v.optional(nonEmpty),
  AUTH_SMS_VONAGE_FROM: v.optional(nonEmpty),
  AUTH_SMS_VONAGE_API_URL: v.optional(url, 'https://rest.nexmo.com'),
  AUTH_SMS_MESSAGEBIRD_ACCESS_KEY: v.optional(nonEmpty),
  AUTH_SMS_MESSAGEBIRD_ORIGINATOR: v.optional(nonEmpty),
  AUTH_SMS_MESSAGEBIRD_API_URL: v.optional(url, 'https://rest.messagebird.com'),
  AUTH_SMS_TEXTLOCAL_API_KEY: v.optional(nonEmpty),
  AUTH_SMS_TEXTLOCAL_SENDER: v.optional(nonEmpty),
  AUTH_SMS_TEXTLOCAL_API_URL: v.optional(url, 'https://api.textlocal.in'),
  AUTH_SMS_OTP_EXP: v.optional(positiveInt, '60'),
  AUTH_SMS_MAX_FREQUENCY: v.optional(durationSeconds, '60'),
  AUTH_SMS_TEMPLATE: v.optional(nonEmpty, 'Your code is {{ .Code }}'),
  AUTH_SMS_TEST_OTP: v.optional(testOtps, ''),
  AUTH_RATE_LIMIT_SMS_SENT: v.optional(positiveInt, '30'),
  AUTH_MFA_PHONE_ENABLED: v.optional(bool, 'false'),
  AUTH_MFA_PHONE_MAX_FREQUENCY: v.optional(durationSeconds, '60'),
};

/** What each provider needs (GoTrue's GOTRUE_SMS_<PROVIDER>_* settings under our names). */
const REQUIRED = {
  twilio: ['AUTH_SMS_TWILIO_ACCOUNT_SID', 'AUTH_SMS_TWILIO_AUTH_TOKEN', 'AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID'],
  vonage: ['AUTH_SMS_VONAGE_API_KEY', 'AUTH_SMS_VONAGE_API_SECRET', 'AUTH_SMS_VONAGE_FROM'],
  messagebird: ['AUTH_SMS_MESSAGEBIRD_ACCESS_KEY', 'AUTH_SMS_MESSAGEBIRD_ORIGINATOR'],
  textlocal: ['AUTH_SMS_TEXTLOCAL_API_KEY', 'AUTH_SMS_TEXTLOCAL_SENDER'],
} as const;

/** A setting the provider needs but lacks, as the start's one-line error; undefined when all is there. */
export function phoneConfigProblem(
  config: Record<string, unknown> & { AUTH_SMS_PROVIDER?: string },
): string | undefined {
  const provider = config.AUTH_SMS_PROVIDER as keyof typeof REQUIRED | undefined;
  if (!provider) return undefined;
  const missing = REQUIRED[provider].find((name) => !config[name]);
  return missing && `${missing} must be set when AUTH_SMS_PROVIDER=${provider}`;
}
