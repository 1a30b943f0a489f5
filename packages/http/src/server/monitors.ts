/**
 * The monitors of a server, built the same way by `trawl serve` (its routes and scheduler) and
 * `trawl worker` (the checks handed to it): over the server's store and queue, with the webhook
 * notifier, the configured e-mail notifier and LLM, and admission (credits).
 */
import { MonitorService, WebhookNotifier } from '@trawl/core';
import type { ServerContext } from './context.ts';

/** The monitor service and what closes the notifiers it was given. */
export interface ServerMonitors {
  service: MonitorService;
  /** Stops the service's scheduler and checks, then closes the e-mail notifier. */
  close: () => Promise<void>;
}

export function serverMonitors(
  server: ServerContext,
  onWarning: (message: string, error?: unknown) => void,
): ServerMonitors {
  const settings = server.options.monitors;
  const service = new MonitorService({
    store: server.store,
    config: server.config,
    notifiers: [new WebhookNotifier(server.webhooks), ...(settings?.notifiers ?? [])],
    ...(settings?.llm ? { llm: settings.llm } : {}),
    credits: server.admission,
    searchProviders: server.searchProviders,
    queue: server.queue,
    onWarning,
  });
  return {
    service,
    close: async () => {
      await service.stop();
      await Promise.allSettled(
        (settings?.notifiers ?? []).map((notifier) => notifier.close?.() ?? Promise.resolve()),
      );
    },
  };
}
