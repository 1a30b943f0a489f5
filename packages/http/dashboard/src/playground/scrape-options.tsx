/** The scrape options of the playground form, and the request options they make. */
import type { RequestOptions } from './code-snippets.ts';

const formats = ['markdown', 'html', 'rawHtml', 'links', 'screenshot', 'summary'] as const;

export interface OptionsDraft {
  formats: string[];
  onlyMainContent: boolean;
  includeTags: string;
  excludeTags: string;
  waitFor: number;
  mobile: boolean;
  country: string;
  languages: string;
  actions: string;
}

export const defaultDraft: OptionsDraft = {
  formats: ['markdown', 'html', 'links'],
  onlyMainContent: true,
  includeTags: '',
  excludeTags: '',
  waitFor: 0,
  mobile: false,
  country: '',
  languages: '',
  actions: '',
};

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/**
 * The options as the API takes them: only what differs from the API's defaults besides formats
 * and main content, so the copied code says what was asked for and nothing more.
 * @throws when the actions are not a JSON array
 */
export function optionsOf(draft: OptionsDraft): RequestOptions {
  const options: RequestOptions = {
    formats: draft.formats,
    onlyMainContent: draft.onlyMainContent,
  };
  if (list(draft.includeTags).length) options['includeTags'] = list(draft.includeTags);
  if (list(draft.excludeTags).length) options['excludeTags'] = list(draft.excludeTags);
  if (draft.waitFor > 0) options['waitFor'] = draft.waitFor;
  if (draft.mobile) options['mobile'] = true;
  if (draft.country.trim() || list(draft.languages).length)
    options['location'] = {
      ...(draft.country.trim() ? { country: draft.country.trim().toUpperCase() } : {}),
      ...(list(draft.languages).length ? { languages: list(draft.languages) } : {}),
    };
  if (draft.actions.trim()) {
    const actions: unknown = JSON.parse(draft.actions);
    if (!Array.isArray(actions)) throw new Error('Actions are a JSON array of steps');
    options['actions'] = actions;
  }
  return options;
}

export function ScrapeOptionsFields({
  draft,
  onChange,
}: {
  draft: OptionsDraft;
  onChange: (draft: OptionsDraft) => void;
}) {
  const set = <K extends keyof OptionsDraft>(field: K, value: OptionsDraft[K]) =>
    onChange({ ...draft, [field]: value });
  return (
    <>
      <fieldset class="inline">
        <legend>Formats</legend>
        {formats.map((format) => (
          <label class="check" key={format}>
            <input
              type="checkbox"
              checked={draft.formats.includes(format)}
              onChange={(event) =>
                set(
                  'formats',
                  event.currentTarget.checked
                    ? [...draft.formats, format]
                    : draft.formats.filter((name) => name !== format),
                )
              }
            />
            {format}
          </label>
        ))}
      </fieldset>
      <details class="options">
        <summary>More options</summary>
        <label class="check">
          <input
            type="checkbox"
            checked={draft.onlyMainContent}
            onChange={(event) => set('onlyMainContent', event.currentTarget.checked)}
          />
          Main content only
        </label>
        <label for="include-tags">Include tags (CSS selectors, comma-separated)</label>
        <input
          id="include-tags"
          value={draft.includeTags}
          onInput={(event) => set('includeTags', event.currentTarget.value)}
        />
        <label for="exclude-tags">Exclude tags</label>
        <input
          id="exclude-tags"
          value={draft.excludeTags}
          onInput={(event) => set('excludeTags', event.currentTarget.value)}
        />
        <label for="wait-for">Wait before reading (ms)</label>
        <input
          id="wait-for"
          type="number"
          min={0}
          value={draft.waitFor}
          onInput={(event) => set('waitFor', Number(event.currentTarget.value))}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={draft.mobile}
            onChange={(event) => set('mobile', event.currentTarget.checked)}
          />
          Mobile
        </label>
        <label for="country">Location: country (two letters)</label>
        <input
          id="country"
          maxLength={2}
          value={draft.country}
          onInput={(event) => set('country', event.currentTarget.value)}
        />
        <label for="languages">Location: languages (comma-separated)</label>
        <input
          id="languages"
          value={draft.languages}
          onInput={(event) => set('languages', event.currentTarget.value)}
        />
        <label for="actions">
          Actions (JSON array, e.g. [{'{"type":"wait","milliseconds":500}'}])
        </label>
        <textarea
          id="actions"
          rows={3}
          value={draft.actions}
          onInput={(event) => set('actions', event.currentTarget.value)}
        />
      </details>
    </>
  );
}
