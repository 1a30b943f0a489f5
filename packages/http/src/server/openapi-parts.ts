/** Pieces the OpenAPI document is made of: a JSON body, a GET, a cancel, the error answers. */
import { z } from 'zod';

export const jsonSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });

export const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

export const errors = {
  '400': errorResponse('Invalid request: `details` lists each bad field'),
  '401': errorResponse('Missing or unknown API key'),
  '500': errorResponse('Unexpected error (`code: UNKNOWN_ERROR`) or a failed fetch'),
};

export const jobId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};
export const paging = [
  { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
];

export function post(summary: string, schema: z.ZodType, answer: string) {
  return {
    post: {
      summary,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: jsonSchema(schema) } },
      },
      responses: { '200': { description: answer }, ...errors },
    },
  };
}

export function get(summary: string, answer: string, parameters: object[] = []) {
  return {
    get: { summary, parameters, responses: { '200': { description: answer }, ...errors } },
  };
}

export function cancel(kind: string) {
  return {
    delete: {
      summary: `Cancel ${kind}`,
      parameters: [jobId],
      responses: { '200': { description: '`{ success, status: "cancelled" }`' }, ...errors },
    },
  };
}
