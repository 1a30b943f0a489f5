/**
 * The monitors' e-mail notifier and LLM, from the server's settings (`TRAWL_SMTP_*`,
 * `TRAWL_LLM_*`); `trawl serve` and the monitor CLI build them the same way.
 */
import { EmailNotifier, OpenAiLlmProvider } from '@trawl/adapters';
import { ValidationError, type LlmProvider, type Notifier } from '@trawl/core';
import type { ServerSettings } from '../config.ts';

/** Monitor settings of the server. */
export interface MonitorServerSettings {
  /** Judges changes and extracts JSON; without one, judging falls back to keywords. */
  llm?: LlmProvider;
  /** Notifiers beyond the webhook (e-mail). */
  notifiers?: readonly Notifier[];
}

/**
 * The server settings monitors are built from (`TRAWL_SMTP_*`, `TRAWL_LLM_*`); `llmToolCalls`
 * says how tools are offered to the model (the agent): native, JSON actions, or auto.
 */
export type MonitorConfig = Pick<
  ServerSettings,
  'smtpUrl' | 'smtpFrom' | 'llmBaseUrl' | 'llmModel' | 'llmApiKey' | 'llmToolCalls'
>;

/**
 * The e-mail notifier and the LLM of the server's settings: e-mail when an SMTP URL is set, an
 * LLM when a model is set. @throws BAD_REQUEST for an LLM base URL without a model
 */
export function monitorSettingsFrom(config: MonitorConfig): MonitorServerSettings {
  if (config.llmBaseUrl && !config.llmModel) {
    throw new ValidationError(
      'TRAWL_LLM_BASE_URL is set but TRAWL_LLM_MODEL is not: name the model the endpoint serves.',
    );
  }
  return {
    ...(config.llmModel
      ? {
          llm: new OpenAiLlmProvider({
            model: config.llmModel,
            ...(config.llmBaseUrl ? { baseUrl: config.llmBaseUrl } : {}),
            ...(config.llmApiKey ? { apiKey: config.llmApiKey } : {}),
            ...(config.llmToolCalls ? { toolCalls: config.llmToolCalls } : {}),
          }),
        }
      : {}),
    notifiers: config.smtpUrl
      ? [
          new EmailNotifier({
            url: config.smtpUrl,
            ...(config.smtpFrom ? { from: config.smtpFrom } : {}),
          }),
        ]
      : [],
  };
}
