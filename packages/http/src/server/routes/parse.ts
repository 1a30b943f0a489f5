/**
 * POST /v2/parse: a multipart upload with a `file` part and an `options` part (JSON). The upload
 * is refused at its announced size before any of it is read, and cut off at 50 MB while it
 * streams when no size was announced, so memory stays bounded whatever the client sends.
 */
import multipart, { type Multipart, type MultipartFile } from '@fastify/multipart';
import { maxParseBytes, parse, toTrawlError } from '@trawl/core';
import { admit, llmContextOf } from '../admission.ts';
import { outOfCredits, Refusal } from '../errors.ts';
import { jsonTextTooDeep, jsonValueTooDeep, maxJsonDepth } from '../json-body.ts';
import type { RoutePlugin } from './index.ts';

const megabytes = maxParseBytes / 1024 / 1024;
const tooLarge = () =>
  new Refusal('BAD_REQUEST', `Uploaded file exceeds maximum size of ${megabytes}MB.`);
const invalidMultipart = (why: string) =>
  new Refusal('BAD_REQUEST', `Invalid multipart form-data request: ${why}`);
/** Largest `options` part, whether sent as a field or as a file. */
const maxOptionsBytes = 1024 * 1024;
const optionsTooLarge = () =>
  invalidMultipart(
    `the options part exceeds the maximum size of ${maxOptionsBytes / 1024 / 1024}MB`,
  );
const optionsTooDeep = () =>
  invalidMultipart(`the options part nests objects and arrays deeper than ${maxJsonDepth} levels`);
/** Room for the part headers and the options part around a file of the largest size. */
const multipartOverhead = maxOptionsBytes;

/** Registers POST /v2/parse in its own scope, so multipart bodies are accepted only there. */
export const parseRoutes: RoutePlugin = (app, server) => {
  const { admission, records, concurrency, config } = server;
  void app.register(async (scope) => {
    await scope.register(multipart, {
      // Two files: the upload, and `options` when a client attaches it as a file
      // (curl -F options=@options.json).
      limits: {
        fileSize: maxParseBytes,
        files: 2,
        fields: 4,
        fieldSize: maxOptionsBytes,
        parts: 6,
      },
    });

    scope.post(
      '/v2/parse',
      {
        // Runs before the body is read: a too-large announced upload is never streamed in.
        onRequest: (request) => {
          const length = Number(request.headers['content-length']);
          if (Number.isFinite(length) && length > maxParseBytes + multipartOverhead) {
            const refusal = new Refusal('BAD_REQUEST', tooLarge().message, {
              headers: { connection: 'close' },
            });
            return Promise.reject(refusal);
          }
          // (request.isMultipart() is only known once the body parser ran, after this hook.)
          if (!/^multipart\/form-data\b/i.test(request.headers['content-type'] ?? ''))
            return Promise.reject(invalidMultipart('send multipart/form-data with a file part'));
          return Promise.resolve();
        },
      },
      async (request) => {
        let optionsPart: OptionsPart = { value: undefined };
        let file: { bytes: Buffer; filename: string; mimetype: string } | undefined;
        try {
          for await (const part of request.parts()) {
            if (part.fieldname === 'options') optionsPart = await readOptionsPart(part);
            else if (part.type === 'file' && part.fieldname === 'file')
              file = await readFilePart(part);
            else if (part.type === 'file') part.file.resume();
          }
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
          // The upload plugin parses a part typed application/json itself, and refuses a
          // truncated one with the same error as broken JSON, so the message names both.
          if (code === 'FST_INVALID_JSON_FIELD_ERROR')
            throw invalidMultipart(
              `the options part is not valid JSON, or exceeds the maximum size of ${maxOptionsBytes / 1024 / 1024}MB`,
            );
          throw invalidMultipart((error as Error).message);
        }
        if (!file) throw invalidMultipart('the file part is missing');
        if ('refused' in optionsPart) throw optionsPart.refused;
        const options = optionsPart.value ?? {};
        if (typeof options !== 'object' || options === null || Array.isArray(options))
          throw invalidMultipart('the options part must be a JSON object');
        // A file with an LLM format (json, summary) asks the model: the token cap holds too.
        const ticket = await admit(server, request.team, {
          credits: admission.cost('parse'),
          body: options,
        });
        let charged = 0;
        const record = await records.start(request.team, 'parse', file.filename, ticket.id);
        try {
          const { result: data, waitedMs } = await concurrency.run(request.team, () =>
            parse(
              file.bytes,
              {
                ...options,
                filename: file.filename,
                // A generic upload type says nothing: the bytes and the name decide then.
                ...(file.mimetype && file.mimetype !== 'application/octet-stream'
                  ? { contentType: file.mimetype }
                  : {}),
              },
              { ...llmContextOf(server, ticket), sofficePath: config.sofficePath },
            ),
          );
          data.metadata.scrapeId = record.id;
          if (waitedMs > 0) {
            data.metadata.concurrencyLimited = true;
            data.metadata.concurrencyQueueDurationMs = waitedMs;
          }
          // A PDF costs a credit per page, as the hosted service charges; other files one. The
          // pages are known only now: a team that cannot pay for them gets no answer.
          const pages = Math.max(1, Number(data.metadata.numPages ?? 1));
          const credits = admission.cost('parse', pages);
          if (!(await ticket.take(credits))) throw outOfCredits();
          await records.finish(record.id, { status: 'completed', creditsUsed: credits });
          charged = credits;
          return { success: true, id: record.id, data };
        } catch (error) {
          const failure = toTrawlError(error);
          await records.finish(record.id, {
            status: 'failed',
            creditsUsed: 0,
            error: `${failure.code}: ${failure.message}`,
          });
          // The hosted service answers an unsupported file with 400, not 415.
          if (failure.code === 'UNSUPPORTED_FILE_TYPE')
            throw new Refusal(failure.code, failure.message, {
              status: 400,
              ...(failure.details ? { details: failure.details } : {}),
              cause: failure,
            });
          throw failure;
        } finally {
          await ticket.settle({ parse: charged });
        }
      },
    );
  });
};

/** The `options` part read: its JSON value (undefined when empty), or why it is refused. */
type OptionsPart = { value: unknown } | { refused: Refusal };

/**
 * Reads the `options` part however it came: a text field (the SDK), a field typed
 * application/json (curl `-F 'options=…;type=application/json'`, parsed by the upload plugin),
 * or a file (curl `-F options=@options.json`). At most {@link maxOptionsBytes} either way.
 */
async function readOptionsPart(part: Multipart): Promise<OptionsPart> {
  let text: string;
  if (part.type === 'file') {
    const chunks: Buffer[] = [];
    let size = 0;
    // Read to the end even past the limit (dropping the bytes): leaving the loop early would
    // destroy the stream under the upload plugin, which then never reaches the next part.
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= maxOptionsBytes) chunks.push(chunk);
    }
    if (size > maxOptionsBytes) return { refused: optionsTooLarge() };
    text = Buffer.concat(chunks).toString('utf8');
  } else if (part.valueTruncated) {
    return { refused: optionsTooLarge() };
  } else if (typeof part.value !== 'string') {
    return jsonValueTooDeep(part.value) ? { refused: optionsTooDeep() } : { value: part.value };
  } else {
    text = part.value;
  }
  if (text.trim() === '') return { value: undefined };
  if (jsonTextTooDeep(text)) return { refused: optionsTooDeep() };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { refused: invalidMultipart('the options part is not valid JSON') };
  }
}

async function readFilePart(
  part: MultipartFile,
): Promise<{ bytes: Buffer; filename: string; mimetype: string }> {
  const bytes = await part.toBuffer();
  return { bytes, filename: part.filename || 'upload', mimetype: part.mimetype };
}
