/**
 * E-mail digests of monitor checks over SMTP, with nodemailer: one message per check to the
 * monitor's `notification.email.recipients`, only when something changed — and, when the monitor
 * judges against a goal, only when something changed meaningfully. A page the judge could not
 * judge counts as meaningful (fail-open, monitoring.md): a missed change is worse than a spare
 * e-mail. A message lists every page that is not `same`, with its verdict or error; the diffs are
 * capped at `maxPages` pages (5, as the hosted service caps its diffs) when `includeDiffs` is set,
 * so a reader never has to open the API to learn which pages changed.
 *
 * @remarks
 * Recipients are taken as the monitor gives them: the hosted service's opt-in confirmation of
 * external addresses (`emailRecipientSubscriptions`) is not part of this notifier.
 */
import { createTransport } from 'nodemailer';

/** What this notifier needs of a nodemailer transport. */
interface MailTransport {
  sendMail(message: Record<string, unknown>): Promise<{ messageId: string }>;
  close(): void;
}
import {
  ValidationError,
  type Monitor,
  type MonitorCheck,
  type MonitorCheckEvent,
  type MonitorCheckPage,
  type NotificationResult,
  type Notifier,
} from '@trawl/core';
import { escapeHtml } from '@trawl/core/server';

/** Options of `EmailNotifier`. */
export interface EmailNotifierOptions {
  /**
   * The SMTP server: `smtp://user:pass@host:port`, or `smtps://` for TLS from the start. The
   * server's `TRAWL_SMTP_URL`.
   */
  url: string;
  /**
   * The sender address.
   * @default 'Trawl monitors <trawl@localhost>'
   */
  from?: string;
  /**
   * Most characters of diff per page in a message; longer diffs are cut with a note.
   * @default 20000
   */
  maxDiffChars?: number;
  /**
   * Most pages whose diffs a message carries; every other page is still listed, without its diff.
   * @default 5
   */
  maxPages?: number;
}

const defaults = {
  from: 'Trawl monitors <trawl@localhost>',
  maxDiffChars: 20_000,
  maxPages: 5,
} as const;

/** Pages worth telling about: what changed, and (with judging) what changed meaningfully. */
export function digestPages(
  monitor: Monitor,
  changes: readonly MonitorCheckPage[],
): MonitorCheckPage[] {
  const judged = monitor.judgeEnabled && Boolean(monitor.goal?.trim());
  return changes.filter((page) => {
    if (page.status === 'same') return false;
    if (!judged || (page.status !== 'changed' && page.status !== 'new')) return true;
    // Unjudged (the judge failed): kept, fail-open.
    return page.judgment === null || page.judgment.meaningful;
  });
}

function summaryLine(check: MonitorCheck): string {
  const { summary } = check;
  return `${summary.changed} changed, ${summary.new} new, ${summary.removed} removed, ${summary.error} failed, ${summary.same} unchanged (${summary.totalPages} pages)`;
}

/** Sends a digest e-mail per check. */
export class EmailNotifier implements Notifier {
  readonly name = 'email';
  readonly #transport: MailTransport;
  readonly #from: string;
  readonly #maxDiffChars: number;
  readonly #maxPages: number;

  constructor(options: EmailNotifierOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new ValidationError(
        `The SMTP URL '${options.url}' is not a URL (smtp://user:pass@host:port)`,
      );
    }
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
      throw new ValidationError(
        `The SMTP URL must start with smtp:// or smtps:// (got '${url.protocol}')`,
      );
    this.#transport = createTransport(options.url);
    this.#from = options.from ?? defaults.from;
    this.#maxDiffChars = options.maxDiffChars ?? defaults.maxDiffChars;
    this.#maxPages = Math.max(1, options.maxPages ?? defaults.maxPages);
  }

  async checkCompleted({
    monitor,
    check,
    changes,
  }: MonitorCheckEvent): Promise<NotificationResult> {
    const email = monitor.notification.email;
    if (!email?.enabled || email.recipients.length === 0)
      return { attempted: false, success: false, reason: 'e-mail is not enabled for this monitor' };
    const pages = digestPages(monitor, changes);
    if (pages.length === 0) {
      return {
        attempted: false,
        success: false,
        reason:
          monitor.judgeEnabled && monitor.goal ? 'nothing changed meaningfully' : 'nothing changed',
      };
    }
    const { text, html } = this.#render(monitor, check, pages, email.includeDiffs);
    try {
      const info = await this.#transport.sendMail({
        from: this.#from,
        to: email.recipients,
        subject: `[${monitor.name}] ${pages.length} page${pages.length === 1 ? '' : 's'} changed`,
        text,
        html,
        headers: { 'X-Trawl-Monitor-Id': monitor.id, 'X-Trawl-Check-Id': check.id },
      });
      return {
        attempted: true,
        success: true,
        recipients: email.recipients.length,
        messageId: info.messageId,
        sentAt: new Date().toISOString(),
      };
    } catch (error) {
      return { attempted: true, success: false, error: (error as Error).message };
    }
  }

  close(): Promise<void> {
    this.#transport.close();
    return Promise.resolve();
  }

  #render(
    monitor: Monitor,
    check: MonitorCheck,
    pages: readonly MonitorCheckPage[],
    includeDiffs: boolean,
  ): { text: string; html: string } {
    const text: string[] = [`Monitor: ${monitor.name}`, `Check: ${check.id}`, summaryLine(check)];
    if (monitor.goal) text.push(`Goal: ${monitor.goal}`);
    const html: string[] = [
      `<h2>${escapeHtml(monitor.name)}</h2>`,
      `<p>${escapeHtml(summaryLine(check))}</p>`,
      ...(monitor.goal ? [`<p>Goal: ${escapeHtml(monitor.goal)}</p>`] : []),
    ];
    for (const [index, page] of pages.entries()) {
      const verdict = page.judgment ? ` — ${page.judgment.reason}` : '';
      text.push('', `${page.status.toUpperCase()}: ${page.url}${verdict}`);
      html.push(
        `<h3>${escapeHtml(page.status)}: <a href="${escapeHtml(page.url)}">${escapeHtml(page.url)}</a></h3>`,
        ...(page.judgment ? [`<p>${escapeHtml(page.judgment.reason)}</p>`] : []),
        ...(page.error ? [`<p>Error: ${escapeHtml(page.error)}</p>`] : []),
      );
      if (page.error) text.push(`Error: ${page.error}`);
      const diff =
        page.diff?.text ?? (page.diff?.json ? JSON.stringify(page.diff.json, null, 2) : undefined);
      if (includeDiffs && diff && index < this.#maxPages) {
        const cut =
          diff.length > this.#maxDiffChars
            ? `${diff.slice(0, this.#maxDiffChars)}\n[… cut at ${this.#maxDiffChars} characters]`
            : diff;
        text.push(cut);
        // <pre> keeps the diff's line breaks in every mail client.
        html.push(
          `<pre style="font-family:monospace;white-space:pre-wrap">${escapeHtml(cut)}</pre>`,
        );
      }
    }
    const withoutDiff = pages.length - this.#maxPages;
    if (includeDiffs && withoutDiff > 0) {
      const line = `Diffs of the first ${this.#maxPages} pages only; check ${check.id} has all ${pages.length}.`;
      text.push('', line);
      html.push(`<p>${escapeHtml(line)}</p>`);
    }
    return { text: text.join('\n'), html: html.join('\n') };
  }
}
