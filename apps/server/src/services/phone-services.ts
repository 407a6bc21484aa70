// The phone family's services from configuration: the SMS sender (Twilio's, Vonage's, Messagebird's or
// Textlocal's API, or none), the codes with their resend interval and per-number limit, phone sign-in, and phone
// factors.
import {
  type AuthService,
  createPhoneAuthService,
  createPhoneCodes,
  createPhoneFactors,
  messagebirdSmsSender,
  noSmsSender,
  textlocalSmsSender,
  type PasswordPolicy,
  type PhoneAuthService,
  type PhoneFactors,
  type RateLimiter,
  type SmsSender,
  twilioSmsSender,
  vonageSmsSender,
} from '@auction-ops/auth-core';
import type { Config } from '@auction-ops/server-config';
import type { ServerContext } from '../context.js';

export interface PhoneServices {
  phone: PhoneAuthService;
  phoneFactors: PhoneFactors;
  sms: SmsSender;
}

export function createPhoneServices(
  ctx: ServerContext,
  service: AuthService,
  limiter: RateLimiter,
  passwordPolicy: PasswordPolicy,
): PhoneServices {
  const { config } = ctx;
  const sms = smsSenderOf(config);
  const codes = createPhoneCodes(sms, limiter, {
    otpSeconds: config.AUTH_SMS_OTP_EXP,
    maxFrequencySeconds: config.AUTH_SMS_MAX_FREQUENCY,
    template: config.AUTH_SMS_TEMPLATE,
    testOtps: config.AUTH_SMS_TEST_OTP,
    sendLimit: { limit: config.AUTH_RATE_LIMIT_SMS_SENT, windowSeconds: config.AUTH_RATE_LIMIT_WINDOW_SECONDS },
  });
  const phone = createPhoneAuthService(ctx.ownerRequestSql, service, codes, {
    enabled: config.AUTH_EXTERNAL_PHONE_ENABLED,
    autoconfirm: config.AUTH_SMS_AUTOCONFIRM,
    disableSignup: config.AUTH_DISABLE_SIGNUP,
    passwordPolicy,
  });
  const phoneFactors = createPhoneFactors(ctx.ownerRequestSql, service, sms, {
    enabled: config.AUTH_MFA_PHONE_ENABLED,
    maxFactors: 10,
    challengeSeconds: 300,
    maxFrequencySeconds: config.AUTH_MFA_PHONE_MAX_FREQUENCY,
    template: config.AUTH_SMS_TEMPLATE,
  });
  return { phone, phoneFactors, sms };
}

/** The configured provider's sender; loadConfig has refused a provider without its settings (phoneConfigProblem). */
function smsSenderOf(config: Config): SmsSender {
  switch (config.AUTH_SMS_PROVIDER) {
    case 'twilio':
      return twilioSmsSender({
        accountSid: config.AUTH_SMS_TWILIO_ACCOUNT_SID!,
        authToken: config.AUTH_SMS_TWILIO_AUTH_TOKEN!,
        messageServiceSid: config.AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID!,
        apiUrl: config.AUTH_SMS_TWILIO_API_URL,
      });
    case 'vonage':
      return vonageSmsSender({
        apiKey: config.AUTH_SMS_VONAGE_API_KEY!,
        apiSecret: config.AUTH_SMS_VONAGE_API_SECRET!,
        from: config.AUTH_SMS_VONAGE_FROM!,
        apiUrl: config.AUTH_SMS_VONAGE_API_URL,
      });
    case 'messagebird':
      return messagebirdSmsSender({
        accessKey: config.AUTH_SMS_MESSAGEBIRD_ACCESS_KEY!,
        originator: config.AUTH_SMS_MESSAGEBIRD_ORIGINATOR!,
        apiUrl: config.AUTH_SMS_MESSAGEBIRD_API_URL,
      });
    case 'textlocal':
      return textlocalSmsSender({
        apiKey: config.AUTH_SMS_TEXTLOCAL_API_KEY!,
        sender: config.AUTH_SMS_TEXTLOCAL_SENDER!,
        apiUrl: config.AUTH_SMS_TEXTLOCAL_API_URL,
      });
    default:
      return noSmsSender();
  }
}
