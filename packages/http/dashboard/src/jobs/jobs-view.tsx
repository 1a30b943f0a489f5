/**
 * Jobs: start a crawl, the team's running crawls and those this tab started, and one crawl with
 * live progress. The API lists only running crawls, so finished ones are remembered by this tab
 * (or opened by id).
 */
import { useState } from 'preact/hooks';
import { api, messageOf } from '../api.ts';
import { go, href } from '../router.ts';
import { ErrorNote, useLoad } from '../ui.tsx';
import { CrawlView } from './crawl-view.tsx';

const recentItem = 'trawl.recentCrawls';

interface RecentCrawl {
  id: string;
  url: string;
  at: string;
}

const recentCrawls = (): RecentCrawl[] =>
  JSON.parse(sessionStorage.getItem(recentItem) ?? '[]') as RecentCrawl[];

function remember(crawl: RecentCrawl): void {
  const kept = recentCrawls().filter((known) => known.id !== crawl.id);
  sessionStorage.setItem(recentItem, JSON.stringify([crawl, ...kept].slice(0, 50)));
}

function StartCrawl() {
  const [url, setUrl] = useState('');
  const [limit, setLimit] = useState(10);
  const [depth, setDepth] = useState('');
  const [include, setInclude] = useState('');
  const [error, setError] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const includePaths = include
        .split(',')
        .map((path) => path.trim())
        .filter(Boolean);
      const answer = await api<{ id: string }>('POST', '/v2/crawl', {
        url,
        limit,
        ...(depth ? { maxDiscoveryDepth: Number(depth) } : {}),
        ...(includePaths.length ? { includePaths } : {}),
      });
      remember({ id: answer.id, url, at: new Date().toISOString() });
      go('jobs', 'crawl', answer.id);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <form class="form" onSubmit={(event) => void submit(event)} aria-labelledby="start-crawl">
      <h2 id="start-crawl">Start a crawl</h2>
      <label for="crawl-url">Start URL</label>
      <input
        id="crawl-url"
        type="url"
        required
        value={url}
        onInput={(event) => setUrl(event.currentTarget.value)}
      />
      <label for="crawl-limit">Most pages</label>
      <input
        id="crawl-limit"
        type="number"
        min={1}
        value={limit}
        onInput={(event) => setLimit(Number(event.currentTarget.value))}
      />
      <label for="crawl-depth">Most link depth (optional)</label>
      <input
        id="crawl-depth"
        type="number"
        min={0}
        value={depth}
        onInput={(event) => setDepth(event.currentTarget.value)}
      />
      <label for="crawl-include">Only paths matching (regular expressions, comma-separated)</label>
      <input
        id="crawl-include"
        value={include}
        onInput={(event) => setInclude(event.currentTarget.value)}
      />
      <div class="actions">
        <button type="submit">Start crawl</button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}

function JobList() {
  const active = useLoad(
    () =>
      api<{ crawls: { id: string; url: string }[] }>('GET', '/v2/crawl/active').then(
        (answer) => answer.crawls,
      ),
    [],
    3000,
  );
  const [open, setOpen] = useState('');
  const recent = recentCrawls();
  return (
    <section>
      <h1>Jobs</h1>
      <StartCrawl />
      <h2>Running crawls</h2>
      <ErrorNote error={active.error} />
      {active.value?.length === 0 && <p>No crawl is running.</p>}
      <ul class="plain">
        {active.value?.map((crawl) => (
          <li key={crawl.id}>
            <a href={href('jobs', 'crawl', crawl.id)}>{crawl.url}</a> <code>{crawl.id}</code>
          </li>
        ))}
      </ul>
      <h2>Started in this tab</h2>
      {recent.length === 0 && <p>None yet.</p>}
      <ul class="plain">
        {recent.map((crawl) => (
          <li key={crawl.id}>
            <a href={href('jobs', 'crawl', crawl.id)}>{crawl.url}</a> <code>{crawl.id}</code>
          </li>
        ))}
      </ul>
      <form
        class="form inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (open.trim()) go('jobs', 'crawl', open.trim());
        }}
      >
        <label for="open-crawl">Open a crawl by id</label>
        <input
          id="open-crawl"
          value={open}
          onInput={(event) => setOpen(event.currentTarget.value)}
        />
        <button type="submit" class="secondary">
          Open
        </button>
      </form>
    </section>
  );
}

export function JobsView({ route }: { route: string[] }) {
  const [kind, id] = route;
  if (kind === 'crawl' && id) return <CrawlView id={id} />;
  return <JobList />;
}
