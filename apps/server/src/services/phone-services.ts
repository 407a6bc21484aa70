// The phone family's services from configuration: the SMS sender (Twilio's API, or none), the codes with their
// resend interval and per-number limit, phone sign-in, and phone factors.
import {
  type AuthService,
  createPhoneAuthService,
  createPhoneCodes,
  createPhoneFactors,
  noSmsSender,
  type PasswordPolicy,
  type PhoneAuthService,
  type PhoneFactors,
  type RateLimiter,
  type SmsSender,
  twilioSmsSender,
} from '@auction-ops/auth-core';
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
  const sms =
    config.AUTH_SMS_PROVIDER === 'twilio'
      ? twilioSmsSender({
          // loadConfig refuses twilio without the three (phoneConfigProblem).
          accountSid: config.AUTH_SMS_TWILIO_ACCOUNT_SID!,
          authToken: config.AUTH_SMS_TWILIO_AUTH_TOKEN!,
          messageServiceSid: config.AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID!,
          apiUrl: config.AUTH_SMS_TWILIO_API_URL,
        })
      : noSmsSender();
  const codes = createPhoneCodes(sms, limiter, {
    otpSeconds: config.AUTH_SMS_OTP_EXP,
    maxFrequencySeconds: config.AUTH_SMS_MAX_FREQUENCY,
    template: config.AUTH_SMS_TEMPLATE,
    testOtps: config.AUTH_SMS_TEST_OTP,
    sendLimit: { limit: config.AUTH_RATE_LIMIT_SMS_SENT, windowSeconds: config.AUTH_RATE_LIMIT_WINDOW_SECONDS },
  });
  const phone = createPhoneAuthService(ctx.ownerSql, service, codes, {
    enabled: config.AUTH_EXTERNAL_PHONE_ENABLED,
    autoconfirm: config.AUTH_SMS_AUTOCONFIRM,
    disableSignup: config.AUTH_DISABLE_SIGNUP,
    passwordPolicy,
  });
  const phoneFactors = createPhoneFactors(ctx.ownerSql, service, sms, {
    enabled: config.AUTH_MFA_PHONE_ENABLED,
    maxFactors: 10,
    challengeSeconds: 300,
    maxFrequencySeconds: config.AUTH_MFA_PHONE_MAX_FREQUENCY,
    template: config.AUTH_SMS_TEMPLATE,
  });
  return { phone, phoneFactors, sms };
}
