/** Usage: credits left and used, credits and LLM tokens per day, and the team's queue. */
import { api } from './api.ts';
import { BarChart, type Bar } from './bar-chart.tsx';
import { ErrorNote, Loading, useLoad } from './ui.tsx';

interface CreditUsage {
  remainingCredits: number;
  planCredits: number;
  creditsUsed?: number;
}
interface Period {
  startDate: string;
  creditsUsed?: number;
  tokensUsed?: number;
}
interface QueueStatus {
  jobsInQueue: number;
  activeJobsInQueue: number;
  waitingJobsInQueue: number;
  maxConcurrency: number;
}

/** Shown as "unlimited": the API reports 2^31 − 1 when credits are not configured. */
const unlimited = 2 ** 31 - 1;
const amount = (value: number) => (value >= unlimited ? 'unlimited' : value.toLocaleString());

async function loadUsage() {
  const [credits, creditDays, tokenDays, queue] = await Promise.all([
    api<{ data: CreditUsage }>('GET', '/v2/team/credit-usage'),
    api<{ periods: Period[] }>('GET', '/v2/team/credit-usage/historical'),
    api<{ periods: Period[] }>('GET', '/v2/team/token-usage/historical'),
    api<QueueStatus>('GET', '/v2/team/queue-status'),
  ]);
  return {
    credits: credits.data,
    creditDays: creditDays.periods,
    tokenDays: tokenDays.periods,
    queue,
  };
}

const day = (period: Period) => period.startDate.slice(0, 10);

/** Days shown in the charts: the last two weeks, so a quiet day shows as a gap, not nothing. */
const shownDays = 14;

/** One bar per UTC day of the last two weeks (and any older day that has usage). */
function perDay(periods: Period[], value: (period: Period) => number | undefined): Bar[] {
  const byDay = new Map(periods.map((period) => [day(period), value(period) ?? 0]));
  const today = Date.UTC(
    new Date().getUTCFullYear(),
    new Date().getUTCMonth(),
    new Date().getUTCDate(),
  );
  for (let back = shownDays - 1; back >= 0; back--) {
    const label = new Date(today - back * 86_400_000).toISOString().slice(0, 10);
    if (!byDay.has(label)) byDay.set(label, 0);
  }
  return [...byDay]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, amount]) => ({ label, value: amount }));
}

export function UsageView() {
  const usage = useLoad(loadUsage, [], 10_000);
  const value = usage.value;
  return (
    <section>
      <h1>Usage</h1>
      <ErrorNote error={usage.error} />
      {!value && !usage.error && <Loading />}
      {value && (
        <>
          <dl class="facts">
            <dt>Credits used</dt>
            <dd data-testid="credits-used">{value.credits.creditsUsed ?? '—'}</dd>
            <dt>Credits left</dt>
            <dd>
              {amount(value.credits.remainingCredits)} of {amount(value.credits.planCredits)}
            </dd>
            <dt>Queue</dt>
            <dd>
              {value.queue.activeJobsInQueue} pages being scraped, {value.queue.waitingJobsInQueue}{' '}
              waiting (at most {value.queue.maxConcurrency} at once)
            </dd>
          </dl>
          <h2>Credits per day</h2>
          <BarChart
            title="Credits used per day (UTC)"
            unit="credits"
            bars={perDay(value.creditDays, (period) => period.creditsUsed)}
          />
          <h2>LLM tokens per day</h2>
          <BarChart
            title="LLM tokens used per day (UTC)"
            unit="tokens"
            bars={perDay(value.tokenDays, (period) => period.tokensUsed)}
          />
        </>
      )}
    </section>
  );
}
