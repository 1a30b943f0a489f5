/**
 * One price table (credits/prices.ts): what work costs is written there and nowhere else. This
 * reads every source file under packages/ and fails on a price written outside it: a numeric
 * literal computed into credits (a function or constant named for credits, prices, costs or
 * charges that returns or multiplies by a number), a price read past the table
 * (`prices.scrape`), or tokens rounded into thousands by hand. Each was found once before it
 * existed: the monitors' 5 credits a JSON page, token rounding in the agent and in admission.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { creditEndpoints } from '@trawl/core/server';
import { repositoryRoot, sourceFiles } from './source-files.ts';

/** The price table, and the schema its prices and their defaults are read from. */
const table = ['packages/core/src/credits/prices.ts', 'packages/core/src/credits/options.ts'];
/** Names of code that computes what work costs. */
const pricing = /credit|price|cost|charge/i;
/**
 * Numbers in pricing code that are no price, each with why: quantities of credits (a limit's
 * sentinel), not what work costs.
 */
const notPrices: Record<string, string> = {
  // "Unlimited" in the credit-usage answer: a sentinel the SDKs show, not a price.
  'packages/http/src/server/routes/team.ts:unlimitedCredits': '2 ** 31 - 1',
  // The longest photo credit line main content drops: text, not credits.
  'packages/core/src/convert/main-content/credits.ts:creditLength': '150',
};

const priceRead = new RegExp(
  String.raw`\bprices\.(?:${[...creditEndpoints, 'monitor_json'].join('|')})\b`,
);
/** A price object indexed and read (assigning one, in the configuration parser, is not a read). */
const priceIndex = /\bprices\[[^\]]*\](?!\s*=[^=])/;
const tokenRounding = /tokens?\b[^;\n]*\/\s*1_?000\b/i;

/**
 * Where a number is a price when it sits in pricing code: what is returned or chosen (`return 5`,
 * `json ? 5 : 1`), what multiplies (`pages * 5`), what a constant is set to. Arguments of calls
 * (`Math.max(1, …)`, `slice(0, 10)`) and comparisons are left alone.
 */
function pricedPosition(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isReturnStatement(parent) || ts.isConditionalExpression(parent)) return true;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return true;
  return (
    ts.isBinaryExpression(parent) &&
    [ts.SyntaxKind.AsteriskToken, ts.SyntaxKind.PlusToken].includes(parent.operatorToken.kind)
  );
}

/** Positive numeric literals in `node` in priced positions, outside parameter defaults. */
function literals(node: ts.Node, found: string[] = []): string[] {
  if (ts.isParameter(node) || ts.isTypeNode(node)) return found;
  if (
    ts.isNumericLiteral(node) &&
    Number(node.text.replaceAll('_', '')) > 0 &&
    pricedPosition(node)
  )
    found.push(node.text);
  ts.forEachChild(node, (child) => void literals(child, found));
  return found;
}

/** `name: literals` of each function or constant named for pricing in `file`. */
function pricedLiterals(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    let name: string | undefined;
    let body: ts.Node | undefined;
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) {
      name = node.name.getText(source);
      body = node.body;
    } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
      name = node.name.text;
      body = node.initializer;
    }
    if (name && body && pricing.test(name)) {
      const numbers = literals(body);
      const key = `${relative(repositoryRoot, path)}:${name}`;
      if (numbers.length > 0 && notPrices[key] === undefined)
        found.push(`${key}: ${numbers.join(', ')}`);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A file's code without its comments and strings (a message may name a price). */
const code = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, "''");

describe('the price table', () => {
  it('holds every price: no credits computed from literals, read past it or rounded elsewhere', () => {
    const offenders = sourceFiles()
      .filter((path) => !table.includes(relative(repositoryRoot, path)))
      .flatMap((path) => {
        const text = readFileSync(path, 'utf8');
        const stripped = code(text);
        return [
          ...pricedLiterals(path, text),
          ...[priceRead, priceIndex, tokenRounding]
            .filter((pattern) => pattern.test(stripped))
            .map((pattern) => `${relative(repositoryRoot, path)}: ${pattern}`),
        ];
      });
    expect(offenders).toEqual([]);
  });
});
