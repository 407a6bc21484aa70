// Outgoing SMS behind one small interface. The provider is Twilio's Messages API (GoTrue's `twilio` provider: the
// same form fields, Basic auth with the account SID and auth token, the message service SID as sender) at a
// configurable base URL, so tests point it at a fake on loopback. Without a provider every send fails: numbers of
// AUTH_SMS_TEST_OTP still work, which is what development needs.
export type SmsChannel = 'sms' | 'whatsapp';

export interface SmsMessage {
  /** E.164 digits without "+". */
  to: string;
  body: string;
  channel: SmsChannel;
}

export interface SmsSender {
  readonly provider: 'twilio' | 'none';
  /** Sends the message; returns the provider's message id, or throws with the provider's reason. */
  send(message: SmsMessage): Promise<string>;
}

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  messageServiceSid: string;
  /** https://api.twilio.com, or a fake's URL. */
  apiUrl: string;
  timeoutMs?: number;
}

export function noSmsSender(): SmsSender {
  return {
    provider: 'none',
    async send() {
      throw new Error('no SMS provider is configured (AUTH_SMS_PROVIDER)');
    },
  };
}

interface TwilioAnswer {
  sid?: string;
  status?: string;
  error_code?: string | number | null;
  error_message?: string | null;
  message?: string;
  more_info?: string;
}

export function twilioSmsSender(settings: TwilioSettings): SmsSender {
  const endpoint =
    `${settings.apiUrl.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}` +
    '/Messages.json';
  const authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`;
  return {
    provider: 'twilio',
    async send({ to, body, channel }) {
      // WhatsApp numbers are prefixed on both ends; a sender that is not a number (a service SID) stays as it is.
      const sender = settings.messageServiceSid;
      const form =
        channel === 'whatsapp'
          ? {
              To: `whatsapp:+${to}`,
              Channel: channel,
              From: /^\+?[1-9]\d{1,14}$/.test(sender) ? `whatsapp:${sender}` : sender,
              Body: body,
            }
          : { To: `+${to}`, Channel: channel, From: sender, Body: body };
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
        signal: AbortSignal.timeout(settings.timeoutMs ?? 10_000),
      });
      const answer = (await response.json().catch(() => ({}))) as TwilioAnswer;
      if (response.status !== 200 && response.status !== 201) {
        throw new Error(
          `${answer.message ?? `Twilio answered ${response.status}`} More information: ${answer.more_info ?? ''}`,
        );
      }
      if (answer.status === 'failed' || answer.status === 'undelivered') {
        throw new Error(`twilio error: ${answer.error_message} ${answer.error_code} for message ${answer.sid}`);
      }
      if (!answer.sid) throw new Error('Twilio answered without a message sid');
      return answer.sid;
    },
  };
}
