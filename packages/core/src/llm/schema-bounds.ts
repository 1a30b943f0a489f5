/**
 * How much work a caller's JSON Schema may make the validator do, checked before it is compiled.
 * ajv validates an answer by running every subschema that applies to each value, following
 * `$ref`s, and a schema of 1.4 KB (21 levels of `anyOf` of two `$ref`s ending in `not: {}`) made
 * that 2²¹ runs for one value: seconds of the server's thread, doubling with each level. So a
 * schema is refused when it nests too deep, holds too many `$ref`s, would apply more than
 * `maxSchemaApplications` subschemas to one value, or recurses in a way that multiplies them
 * with every level of the value. What passes costs at most that many subschema runs per value of
 * the answer, whatever the answer is.
 */

/** Deepest nesting of a schema as JSON (objects and arrays). */
export const maxSchemaDepth = 32;
/** Most `$ref`s in one schema. */
export const maxSchemaRefs = 128;
/** Most subschemas that may apply to one value, `$ref`s and combinators unfolded. */
export const maxSchemaApplications = 10_000;

/** Keywords whose subschema applies to the value itself. */
const sameValue = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else']);
const sameValueMaps = new Set(['dependentSchemas', 'dependencies']);
/** Keywords whose subschemas apply to members of an array. */
const itemKeywords = new Set([
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'unevaluatedItems',
]);
/** Keywords whose subschemas apply to any member of an object. */
const memberKeywords = new Set(['additionalProperties', 'unevaluatedProperties', 'propertyNames']);

/**
 * Where an edge leads in the value: '' the same value, `item` any array member, `member` any
 * object member, `member:<name>` the member of that name.
 */
type Step = string;

interface Edge {
  step: Step;
  to: object;
}

/** A reason the schema is refused, with the limit it passed. */
export class SchemaTooCostly extends Error {
  override name = 'SchemaTooCostly';
}

/**
 * Checks `schema` against the limits above. @throws SchemaTooCostly naming the limit
 */
export function checkSchemaBounds(schema: object): void {
  const ids = new Map<string, object>();
  const bases = new Map<object, object>();
  let refs = 0;
  // First pass: depth, $ref count, and where each `$id` (a base for `#/…` pointers) sits.
  const visit = (node: unknown, depth: number, base: object) => {
    if (depth > maxSchemaDepth)
      throw new SchemaTooCostly(`it nests deeper than ${maxSchemaDepth} levels`);
    if (typeof node !== 'object' || node === null) return;
    let here = base;
    if (!Array.isArray(node)) {
      const record = node as Record<string, unknown>;
      if (typeof record['$id'] === 'string') {
        ids.set(record['$id'], node);
        here = node;
      }
      if (typeof record['$ref'] === 'string' && ++refs > maxSchemaRefs)
        throw new SchemaTooCostly(`it has more than ${maxSchemaRefs} $refs`);
      bases.set(node, here);
    }
    for (const value of Object.values(node)) visit(value, depth + 1, here);
  };
  visit(schema, 0, schema);

  const resolve = (ref: string, from: object): object => {
    const hash = ref.indexOf('#');
    const resource = hash < 0 ? ref : ref.slice(0, hash);
    const pointer = hash < 0 ? '' : ref.slice(hash + 1);
    const root = resource === '' ? (bases.get(from) ?? schema) : findId(ids, resource);
    if (!root) throw new SchemaTooCostly(`its $ref '${ref}' points outside the schema`);
    let target: unknown = root;
    for (const raw of pointer.split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      target = (target as Record<string, unknown> | undefined)?.[key];
    }
    if (typeof target !== 'object' || target === null)
      throw new SchemaTooCostly(`its $ref '${ref}' points to no schema in it`);
    return target;
  };

  const edgesOf = (node: object): Edge[] => {
    if (Array.isArray(node)) return [];
    const edges: Edge[] = [];
    const add = (step: Step, to: unknown) => {
      if (typeof to === 'object' && to !== null && !Array.isArray(to)) edges.push({ step, to });
    };
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === '$ref' && typeof value === 'string')
        edges.push({ step: '', to: resolve(value, node) });
      else if (sameValue.has(key)) for (const sub of [value].flat()) add('', sub);
      else if (sameValueMaps.has(key) && isRecord(value))
        for (const sub of Object.values(value)) add('', sub);
      else if (itemKeywords.has(key)) for (const sub of [value].flat()) add('item', sub);
      else if (memberKeywords.has(key)) add('member', value);
      else if (key === 'patternProperties' && isRecord(value))
        for (const sub of Object.values(value)) add('member', sub);
      else if (key === 'properties' && isRecord(value))
        for (const [name, sub] of Object.entries(value)) add(`member:${name}`, sub);
    }
    return edges;
  };

  // Subschemas applied to one value, unfolded: the same schema reached twice counts twice.
  const applications = new Map<object, number>();
  const onStack = new Set<object>();
  const recursive = new Set<object>();
  const count = (node: object): number => {
    const known = applications.get(node);
    if (known !== undefined) return known;
    if (onStack.has(node)) {
      recursive.add(node);
      return 1;
    }
    onStack.add(node);
    let total = 1;
    for (const edge of edgesOf(node)) {
      total += count(edge.to);
      if (total > maxSchemaApplications) break;
    }
    onStack.delete(node);
    applications.set(node, total);
    if (total > maxSchemaApplications)
      throw new SchemaTooCostly(
        `it applies more than ${maxSchemaApplications} subschemas to one value ($refs and anyOf/oneOf/allOf unfolded)`,
      );
    return total;
  };
  count(schema);

  // A recursive schema may come back to itself once per member of the value: two ways back to
  // the same member double the work with every level of the answer.
  for (const target of recursive) {
    const ways = waysBack(target, edgesOf);
    if (ways.has(''))
      throw new SchemaTooCostly('a $ref comes back to itself without descending into the value');
    const steps = [...ways.keys()];
    const repeated = steps.find(
      (step) =>
        (ways.get(step) ?? 0) > 1 || steps.some((other) => other !== step && overlap(step, other)),
    );
    if (repeated !== undefined)
      throw new SchemaTooCostly(
        'a recursive $ref reaches the same part of the value in more than one way, which doubles the work with every level',
      );
  }
}

/** Paths from `target` back to itself, by the first step into the value they take. */
function waysBack(target: object, edgesOf: (node: object) => Edge[]): Map<Step, number> {
  const memo = new Map<object, Map<Step, number>>();
  const active = new Set<object>();
  const from = (node: object): Map<Step, number> => {
    const known = memo.get(node);
    if (known) return known;
    const ways = new Map<Step, number>();
    if (active.has(node)) return ways;
    active.add(node);
    for (const edge of edgesOf(node)) {
      const onward = edge.to === target ? new Map([['', 1]]) : from(edge.to);
      for (const [step, paths] of onward) {
        const first = edge.step === '' ? step : edge.step;
        ways.set(first, Math.min((ways.get(first) ?? 0) + paths, 1_000_000));
      }
    }
    active.delete(node);
    memo.set(node, ways);
    return ways;
  };
  return from(target);
}

/** Whether two first steps can lead to the same part of a value. */
function overlap(a: Step, b: Step): boolean {
  if (a === 'item' || b === 'item') return a === b;
  return a === 'member' || b === 'member';
}

function findId(ids: ReadonlyMap<string, object>, resource: string): object | undefined {
  const exact = ids.get(resource);
  if (exact) return exact;
  for (const [id, node] of ids)
    if (id.endsWith(`/${resource}`) || resource.endsWith(`/${id}`)) return node;
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
