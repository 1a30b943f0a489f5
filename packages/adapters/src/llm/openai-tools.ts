/**
 * Tool calls over the chat-completions wire protocol, both ways the OpenAI-compatible servers
 * allow: natively (`tools`, `tool_choice`, `message.tool_calls`, role `tool` messages
 * naming a `tool_call_id`), and, for models or servers without tool calling, as a JSON-action
 * prompt: the tools are described in a system message and the model answers
 * `{"tool": name, "arguments": {...}}`, which is read back into the same tool calls.
 */
import { randomUUID } from 'node:crypto';
import type { LlmTool, LlmToolCall, LlmToolMessage, LlmToolRequest } from '@trawl/core';

/** A tool call as the wire carries it. */
export interface WireToolCall {
  id?: string;
  type?: string;
  /** JSON text, as OpenAI sends it; some compatible servers send the object itself. */
  function?: { name?: string; arguments?: string | Record<string, unknown> };
}

/** A message as the wire carries it. */
type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** `tools`, as function definitions. */
export function toWireTools(tools: readonly LlmTool[]): unknown[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** `tool_choice`. */
export function toWireToolChoice(choice: LlmToolRequest['toolChoice']): unknown {
  if (choice === undefined || typeof choice === 'string') return choice ?? 'auto';
  return { type: 'function', function: { name: choice.name } };
}

/** The conversation in the native protocol. */
export function toWireMessages(messages: readonly LlmToolMessage[]): WireMessage[] {
  return messages.map((message): WireMessage => {
    if (message.role === 'tool')
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    if (message.role === 'assistant' && 'toolCalls' in message && message.toolCalls.length > 0)
      return {
        role: 'assistant',
        // OpenAI wants null, not '', beside tool calls.
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.argumentsText },
        })),
      };
    return { role: message.role, content: message.content };
  });
}

/** Parses JSON text, or undefined. */
function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The tool calls of a native answer. */
export function readToolCalls(calls: readonly WireToolCall[] | undefined): LlmToolCall[] {
  return (calls ?? []).map((call) => {
    const raw = call.function?.arguments ?? '';
    const argumentsText = typeof raw === 'string' ? raw : JSON.stringify(raw);
    return {
      id: call.id ?? `call_${randomUUID()}`,
      name: call.function?.name ?? '',
      argumentsText,
      // Some local servers send '' for a tool without parameters.
      arguments: argumentsText.trim() === '' ? {} : parseOrUndefined(argumentsText),
    };
  });
}

/**
 * Whether an error answer says the endpoint or model cannot take `tools`: Ollama's "does not
 * support tools", vLLM's "--enable-auto-tool-choice", llama.cpp's "--jinja", and servers that
 * reject the unknown field.
 */
export function isToolsRefusal(status: number, message: string): boolean {
  if (status === 429 || status < 400) return false;
  return /(does not|doesn't|do not) support tools|tools? (is|are) not supported|not support(ed)? (tool|function)|--enable-auto-tool-choice|--jinja|(unknown|unrecognized|extra)[^.]*\btools?\b/i.test(
    message,
  );
}

/** The system prompt that offers the tools as JSON actions. */
function jsonActionPrompt(tools: readonly LlmTool[], choice: LlmToolRequest['toolChoice']): string {
  const rule =
    choice === undefined || choice === 'auto'
      ? 'To use a tool, answer with only this JSON object and nothing else. To answer without a tool, answer in plain text.'
      : typeof choice === 'string'
        ? 'You must use a tool now: answer with only this JSON object and nothing else.'
        : `You must use the tool "${choice.name}" now: answer with only this JSON object and nothing else.`;
  const list = tools
    .map(
      (tool) =>
        `- ${tool.name}: ${tool.description}\n  arguments (JSON Schema): ${JSON.stringify(tool.parameters)}`,
    )
    .join('\n');
  return `You can use tools. To call one, write one JSON object: {"tool": "<tool name>", "arguments": { ... }}, with arguments matching the tool's JSON Schema. ${rule}\nTools:\n${list}`;
}

/**
 * The conversation for a model without native tool calling: the tools in a system message, its
 * earlier calls as the JSON it wrote, and tool results as user messages naming the tool.
 */
export function toJsonActionMessages(
  request: LlmToolRequest,
): { role: 'system' | 'user' | 'assistant'; content: string }[] {
  const [first, ...rest] = request.messages;
  const prompt = jsonActionPrompt(request.tools, request.toolChoice);
  // One system message first: several confuse some local chat templates.
  const hasSystem = first?.role === 'system';
  const system = hasSystem ? `${first.content}\n\n${prompt}` : prompt;
  const body = hasSystem ? rest : request.messages;
  const head = { role: 'system' as const, content: system };
  return [
    head,
    ...body.map((message) => {
      if (message.role === 'tool')
        return {
          role: 'user' as const,
          content: `Result of the tool "${message.name}":\n${message.content}`,
        };
      if (message.role === 'assistant' && 'toolCalls' in message && message.toolCalls.length > 0)
        return {
          role: 'assistant' as const,
          content: message.toolCalls
            .map(
              (call) =>
                `{"tool": ${JSON.stringify(call.name)}, "arguments": ${call.argumentsText || '{}'}}`,
            )
            .join('\n'),
        };
      return { role: message.role, content: message.content };
    }),
  ];
}

/**
 * Reads a JSON-action answer: the whole text, a fenced block, or the outermost braces of a text
 * that talks around its JSON (small local models do) as `{"tool", "arguments"}`; any other
 * answer is text. A JSON object without a string `tool` is text too.
 */
export function readJsonAction(text: string): LlmToolCall[] {
  const trimmed = text.trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(trimmed)?.[1];
  const [start, end] = [trimmed.indexOf('{'), trimmed.lastIndexOf('}')];
  const braced = start >= 0 && end > start ? trimmed.slice(start, end + 1) : undefined;
  const parsed =
    parseOrUndefined(trimmed) ??
    (fenced ? parseOrUndefined(fenced) : undefined) ??
    (braced ? parseOrUndefined(braced) : undefined);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return [];
  const { tool, arguments: args } = parsed as { tool?: unknown; arguments?: unknown };
  if (typeof tool !== 'string') return [];
  const value = args ?? {};
  return [
    {
      id: `call_${randomUUID()}`,
      name: tool,
      argumentsText: JSON.stringify(value),
      arguments: value,
    },
  ];
}
