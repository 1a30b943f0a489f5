/** Usage: credits left and used, credits and LLM tokens per day, and the team's queue. */
import { api } from './api.ts';
import { BarChart } from './bar-chart.tsx';
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
            bars={value.creditDays.map((period) => ({
              label: day(period),
              value: period.creditsUsed ?? 0,
            }))}
          />
          <h2>LLM tokens per day</h2>
          <BarChart
            title="LLM tokens used per day (UTC)"
            unit="tokens"
            bars={value.tokenDays.map((period) => ({
              label: day(period),
              value: period.tokensUsed ?? 0,
            }))}
          />
        </>
      )}
    </section>
  );
}
