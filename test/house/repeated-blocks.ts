/**
 * Blocks of source written twice: runs of `size` consecutive lines that stand, the
 * same to the letter once indentation is set aside, in two places. Lines with nothing but
 * punctuation or a keyword (`}`, `});`, `return;`) carry no logic and are passed over, and so
 * are import and re-export lists, which name what a file uses rather than say what it does: a
 * run is six lines that each say something.
 */

/** A line's text for comparison, or undefined when it says nothing on its own. */
function meaningful(line: string): string | undefined {
  const text = line.trim();
  if (text === '' || text.startsWith('//') || text.startsWith('*') || text.startsWith('/*')) {
    return undefined;
  }
  return /[A-Za-z0-9_$'"`]{2}/.test(text.replace(/^(return|break|continue|else)\b/, ''))
    ? text
    : undefined;
}

export interface RepeatedBlock {
  /** `file:line` of the first place, and of the place that repeats it. */
  first: string;
  again: string;
  lines: string[];
}

/** Every place where a run of `size` meaningful lines repeats one seen earlier. */
export function repeatedBlocks(
  files: ReadonlyArray<{ name: string; text: string }>,
  size = 6,
): RepeatedBlock[] {
  const seen = new Map<string, { file: string; index: number; line: number }>();
  const found: RepeatedBlock[] = [];
  for (const { name, text } of files) {
    const kept: Array<{ text: string; line: number }> = [];
    let inModuleList = false;
    text.split('\n').forEach((line, index) => {
      if (/^(import\b|export (type )?([{*]))/.test(line)) {
        inModuleList = !line.trimEnd().endsWith(';');
        return;
      }
      if (inModuleList) {
        inModuleList = !line.trimEnd().endsWith(';');
        return;
      }
      const content = meaningful(line);
      if (content !== undefined) kept.push({ text: content, line: index + 1 });
    });
    // The last run reported in this file, so one long copy is reported once, not per window.
    let reportedUpTo = -1;
    for (let index = 0; index + size <= kept.length; index++) {
      const window = kept.slice(index, index + size);
      const key = window.map((line) => line.text).join('\n');
      const earlier = seen.get(key);
      const overlapsItself = earlier?.file === name && index - earlier.index < size;
      if (earlier && !overlapsItself) {
        if (index > reportedUpTo) {
          found.push({
            first: `${earlier.file}:${earlier.line}`,
            again: `${name}:${window[0]!.line}`,
            lines: window.map((line) => line.text),
          });
        }
        reportedUpTo = index + size - 1;
      } else if (!earlier) {
        seen.set(key, { file: name, index, line: window[0]!.line });
      }
    }
  }
  return found;
}
