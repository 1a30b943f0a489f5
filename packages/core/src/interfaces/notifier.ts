/**
 * Where a monitor's news goes: a webhook, e-mail, or anything else that implements this. A
 * monitor check calls every notifier the service was given; each decides from the monitor's own
 * settings (its `webhook`, its `notification.email`) whether the event concerns it.
 *
 * @remarks
 * Deliberately out of the contract: ordering across notifiers, delivery guarantees beyond one
 * process (a notifier that must survive a restart keeps its own outbox), and templates.
 */
import type { Monitor, MonitorCheck, MonitorCheckPage } from '../monitor/types.ts';

/** One page of a check, as soon as it is classified. */
export interface MonitorPageEvent {
  /** The team the monitor belongs to. @default 'default' */
  team?: string;
  monitor: Monitor;
  check: MonitorCheck;
  page: MonitorCheckPage;
}

/** A finished check, with every page that was not `same`. */
export interface MonitorCheckEvent {
  /** The team the monitor belongs to. @default 'default' */
  team?: string;
  monitor: Monitor;
  check: MonitorCheck;
  /** Pages whose status is `changed`, `new`, `removed` or `error`, in the order they were recorded. */
  changes: readonly MonitorCheckPage[];
}

/**
 * What a notifier did for one check; kept under its name in the check's `notificationStatus`.
 * `attempted: false` when the monitor does not use this notifier or nothing was worth sending.
 */
export interface NotificationResult {
  attempted: boolean;
  success: boolean;
  /** Why nothing was sent, or what failed. */
  error?: string;
  [detail: string]: unknown;
}

/** Sends a monitor's events somewhere. */
export interface Notifier {
  /** The key of this notifier's result in `notificationStatus` (`webhook`, `email`). */
  readonly name: string;
  /** Called once per page of every check, `same` pages included. Never throws. */
  page?(event: MonitorPageEvent): Promise<void>;
  /** Called once when a check ends; resolves with what was sent. Never throws. */
  checkCompleted(event: MonitorCheckEvent): Promise<NotificationResult>;
  /** Resolves once everything queued has been tried (shutdown, tests). */
  idle?(): Promise<void>;
  /** Releases connections. Idempotent. */
  close?(): Promise<void>;
}
