/**
 * The monitor settings of the server: TRAWL_SMTP_*, TRAWL_LLM_* and the schedule minimum, read
 * from the environment and turned into the e-mail notifier and the LLM.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, monitorSettingsFrom } from '@trawl/http';

describe('monitor settings', () => {
  it('reads SMTP, LLM and schedule settings from the environment', () => {
    const config = loadConfig({
      role: 'cli',
      env: {
        TRAWL_SMTP_URL: 'smtp://user:pass@127.0.0.1:2525',
        TRAWL_SMTP_FROM: 'Monitors <m@example.com>',
        TRAWL_LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
        TRAWL_LLM_MODEL: 'llama3.1:8b',
        TRAWL_LLM_API_KEY: 'sk-local',
        TRAWL_MONITOR_MIN_INTERVAL_MINUTES: '15',
        TRAWL_MONITOR_CONCURRENCY: '2',
      },
    });
    expect(config.server).toMatchObject({
      smtpUrl: 'smtp://user:pass@127.0.0.1:2525',
      smtpFrom: 'Monitors <m@example.com>',
      llmBaseUrl: 'http://127.0.0.1:11434/v1',
      llmModel: 'llama3.1:8b',
      llmApiKey: 'sk-local',
    });
    expect(config.engine).toMatchObject({ monitorMinIntervalMinutes: 15, monitorConcurrency: 2 });
    const settings = monitorSettingsFrom(config.server);
    expect(settings.llm?.model).toBe('llama3.1:8b');
    expect(settings.notifiers?.map((notifier) => notifier.name)).toEqual(['email']);
  });

  it('builds neither e-mail nor an LLM by default', () => {
    const config = loadConfig({ role: 'cli', env: {} });
    expect(config.engine).toMatchObject({ monitorMinIntervalMinutes: 5, monitorConcurrency: 4 });
    expect(monitorSettingsFrom(config.server)).toEqual({ notifiers: [] });
  });

  it('refuses an SMTP URL of another scheme, a minimum under a minute, and an LLM URL without a model', () => {
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_SMTP_URL: 'http://mail.example.com' } })).toThrow(
      /TRAWL_SMTP_URL/,
    );
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_MONITOR_MIN_INTERVAL_MINUTES: '0' } })).toThrow(
      /TRAWL_MONITOR_MIN_INTERVAL_MINUTES/,
    );
    const config = loadConfig({ role: 'cli', env: { TRAWL_LLM_BASE_URL: 'http://127.0.0.1:8080/v1' } });
    expect(() => monitorSettingsFrom(config.server)).toThrow(/TRAWL_LLM_MODEL/);
  });
});
