// An OpenAI-compatible chat-completions client (OpenAI, or any server speaking its protocol, a local one too).
// Every failure (unconfigured, unreachable, timeout, non-2xx, an answer that is not the asked-for JSON, a
// refusal) is an LLM_ERROR; the API key never appears in a message.
import { functionErrors } from '../errors.js';

export interface LlmSettings {
  apiKey?: string;
  baseUrl: string;
  model: string;
  timeoutMs: number;
  /** False when neither a key nor a base URL of our own was given. */
  configured: boolean;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface SqlAnswer {
  sql: string;
  explanation: string;
  visualization: 'bar' | 'line' | 'pie' | 'area' | 'table';
}

const VISUALIZATIONS = ['bar', 'line', 'pie', 'area', 'table'] as const;

const ANSWER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['sql', 'explanation', 'visualization'],
  properties: {
    sql: { type: 'string' },
    explanation: { type: 'string' },
    visualization: { type: 'string', enum: VISUALIZATIONS },
  },
};

export async function askForSql(settings: LlmSettings, messages: readonly ChatMessage[]): Promise<SqlAnswer> {
  if (!settings.configured)
    throw functionErrors.llm(
      'no language model is configured: set OPENAI_API_KEY (and OPENAI_BASE_URL, OPENAI_MODEL for another ' +
        'OpenAI-compatible server)',
    );
  let response: Response;
  try {
    response = await fetch(`${settings.baseUrl.replace(/\/$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: settings.model,
        messages,
        temperature: 0,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'sql_answer', strict: true, schema: ANSWER_SCHEMA },
        },
      }),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    throw functionErrors.llm(
      timedOut
        ? `the language model did not answer within ${settings.timeoutMs} ms`
        : 'the language model is unreachable',
    );
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) throw functionErrors.llm(`the language model answered HTTP ${response.status}`);
  return parseAnswer(text);
}

function parseAnswer(text: string): SqlAnswer {
  let message: { content?: unknown; refusal?: unknown } | undefined;
  try {
    message = JSON.parse(text)?.choices?.[0]?.message;
  } catch {
    throw functionErrors.llm('the language model sent a response that is not JSON');
  }
  if (!message) throw functionErrors.llm('the language model sent no message');
  if (typeof message.refusal === 'string' && message.refusal !== '')
    throw functionErrors.llm('the language model refused to answer', message.refusal.slice(0, 500));
  if (typeof message.content !== 'string') throw functionErrors.llm('the language model sent no SQL');
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(message.content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ''));
  } catch {
    throw functionErrors.llm('the language model sent no SQL in its answer');
  }
  if (typeof answer.sql !== 'string' || answer.sql.trim() === '')
    throw functionErrors.llm('the language model sent no SQL in its answer');
  const visualization = (VISUALIZATIONS as readonly unknown[]).includes(answer.visualization)
    ? (answer.visualization as SqlAnswer['visualization'])
    : 'table';
  return {
    sql: answer.sql,
    explanation: typeof answer.explanation === 'string' ? answer.explanation : '',
    visualization,
  };
}
