/**
 * One fake model for the suites that drive Trawl through the official clients, so each of them
 * can check the answers a prompt yields (a JSON title, an interact plan, an agent's result).
 */
import { use } from './agent-model.ts';
import type { ChatRequest, FakeAnswer } from './openai-server.ts';

/**
 * JSON answers carry the one title the suites check (a summary and an answer when asked for those); interact's prompt mode gets a plan that
 * types into the booking form; an agent run told to finish at once does, and any other run's
 * step is slow enough for a suite to cancel it while it is still going.
 */
export function clientsModel(request: ChatRequest): FakeAnswer {
  if (request.response_format?.json_schema?.name === 'browser_plan') {
    return {
      content: JSON.stringify({
        actions: [
          { type: 'click', selector: '#boat' },
          { type: 'write', text: 'Seagull' },
          { type: 'executeJavascript', script: "return document.getElementById('boat').value" },
        ],
        answer: 'Typed the boat name.',
      }),
    };
  }
  if (!request.tools) {
    // The summary and question formats ask for their own fields; JSON extraction for a title.
    const asked = Object.keys(request.response_format?.json_schema?.schema['properties'] ?? {});
    if (asked.includes('summary'))
      return { content: '{"summary":"Quiver is configured by file."}' };
    if (asked.includes('answer')) return { content: '{"answer":"Environment variables win."}' };
    return { content: '{"title":"Fake title"}' };
  }
  const asked = request.messages.map((message) => message.content ?? '').join('\n');
  return asked.includes('Finish at once')
    ? use('finish', { answer: { lighthouses: ['Harbour light'] } })
    : { content: '{}', delayMs: 5000 };
}
