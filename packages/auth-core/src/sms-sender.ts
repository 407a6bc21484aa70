// Outgoing SMS behind one small interface, through one of GoTrue's providers at a configurable base URL (tests
// point it at a fake on loopback):
// - twilio: the Messages API, its form fields, Basic auth with the account SID and auth token, the message
//   service SID as sender; SMS and WhatsApp;
// - vonage: the SMS API (/sms/json), key and secret in the form, `type=unicode` for text beyond ASCII;
// - messagebird: the Messages API (/messages), `Authorization: AccessKey`, unicode data coding;
// - textlocal: the send API (/send), the API key in the form.
// Without a provider every send fails: numbers of AUTH_SMS_TEST_OTP still work, which is what development needs.
export type SmsChannel = 'sms' | 'whatsapp';

export interface SmsMessage {
  /** E.164 digits without "+". */
  to: string;
  body: string;
  channel: SmsChannel;
}

export interface SmsSender {
  readonly provider: 'twilio' | 'vonage' | 'messagebird' | 'textlocal' | 'none';
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

/** POSTs a form as the providers take it, and reads their JSON answer (`{}` when the body is not JSON). */
async function postForm<T>(
  url: string,
  form: URLSearchParams,
  timeoutMs = 10_000,
  headers: Record<string, string> = {},
) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form.toString(),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { response, answer: (await response.json().catch(() => ({}))) as T };
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

/** A provider's API base (without a trailing slash) and path. */
function endpointOf(apiUrl: string, path: string): string {
  return `${apiUrl.replace(/\/$/, '')}${path}`;
}

/** Only Twilio carries WhatsApp, as in GoTrue: the others refuse it before anything is sent. */
function smsOnly(provider: string, channel: string): void {
  if (channel !== 'sms') throw new Error(`channel type "${channel}" is not supported for ${provider}`);
}

export function twilioSmsSender(settings: TwilioSettings): SmsSender {
  const endpoint = endpointOf(
    settings.apiUrl,
    `/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`,
  );
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
      const { response, answer } = await postForm<TwilioAnswer>(
        endpoint,
        new URLSearchParams(form),
        settings.timeoutMs,
        { authorization },
      );
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

export interface VonageSettings {
  apiKey: string;
  apiSecret: string;
  /** The sender shown on the phone: a number or an alphanumeric name. */
  from: string;
  /** https://rest.nexmo.com, or a fake's URL. */
  apiUrl: string;
  timeoutMs?: number;
}

interface VonageAnswer {
  messages?: Array<{ status?: string; 'message-id'?: string; 'error-text'?: string }>;
}

export function vonageSmsSender(settings: VonageSettings): SmsSender {
  const endpoint = endpointOf(settings.apiUrl, '/sms/json');
  return {
    provider: 'vonage',
    async send({ to, body, channel }) {
      smsOnly('Vonage', channel);
      const form = new URLSearchParams({
        from: settings.from,
        to,
        text: body,
        api_key: settings.apiKey,
        api_secret: settings.apiSecret,
      });
      // Without it, characters beyond ASCII arrive as question marks (only ASCII is one UTF-8 byte per character).
      if (Buffer.byteLength(body) !== body.length) form.set('type', 'unicode');
      const { response, answer } = await postForm<VonageAnswer>(endpoint, form, settings.timeoutMs);
      const message = answer.messages?.[0];
      if (!message) throw new Error(`vonage error: Internal Error (HTTP ${response.status})`);
      // Status "0" is success; any other is Vonage's reason, in error-text.
      if (message.status !== '0') {
        const id = message['message-id'] ?? '';
        throw new Error(`vonage error: ${message['error-text']} (status: ${message.status}) for message ${id}`);
      }
      if (!message['message-id']) throw new Error('Vonage answered without a message id');
      return message['message-id'];
    },
  };
}

export interface MessagebirdSettings {
  accessKey: string;
  /** The sender shown on the phone: a number or an alphanumeric name. */
  originator: string;
  /** https://rest.messagebird.com, or a fake's URL. */
  apiUrl: string;
  timeoutMs?: number;
}

interface MessagebirdAnswer {
  id?: string;
  recipients?: { totalSentCount?: number };
  errors?: Array<{ code?: number; description?: string }>;
}

export function messagebirdSmsSender(settings: MessagebirdSettings): SmsSender {
  const endpoint = endpointOf(settings.apiUrl, '/messages');
  return {
    provider: 'messagebird',
    async send({ to, body, channel }) {
      smsOnly('Messagebird', channel);
      const form = new URLSearchParams({
        originator: settings.originator,
        body,
        recipients: to,
        type: 'sms',
        datacoding: 'unicode',
      });
      const { response, answer } = await postForm<MessagebirdAnswer>(endpoint, form, settings.timeoutMs, {
        authorization: `AccessKey ${settings.accessKey}`,
      });
      if (!response.ok) {
        throw new Error(answer.errors?.[0]?.description ?? `Messagebird answered ${response.status}`);
      }
      if (!answer.recipients?.totalSentCount) throw new Error('messagebird error: total sent count is 0');
      if (!answer.id) throw new Error('Messagebird answered without a message id');
      return answer.id;
    },
  };
}

export interface TextlocalSettings {
  apiKey: string;
  /** The sender name shown on the phone. */
  sender: string;
  /** https://api.textlocal.in, or a fake's URL. */
  apiUrl: string;
  timeoutMs?: number;
}

interface TextlocalAnswer {
  status?: string;
  messages?: Array<{ id?: string | number }>;
  errors?: Array<{ code?: number; message?: string }>;
}

export function textlocalSmsSender(settings: TextlocalSettings): SmsSender {
  const endpoint = endpointOf(settings.apiUrl, '/send');
  return {
    provider: 'textlocal',
    async send({ to, body, channel }) {
      smsOnly('Textlocal', channel);
      const form = new URLSearchParams({
        sender: settings.sender,
        apikey: settings.apiKey,
        message: body,
        numbers: to,
      });
      const { response, answer } = await postForm<TextlocalAnswer>(endpoint, form, settings.timeoutMs);
      const id = answer.messages?.[0]?.id;
      if (answer.status !== 'success') {
        const error = answer.errors?.[0];
        throw new Error(
          error
            ? `textlocal error: ${error.message} (code: ${error.code})`
            : `Textlocal answered ${response.status} without success`,
        );
      }
      if (id === undefined) throw new Error('Textlocal answered without a message id');
      return String(id);
    },
  };
}
