/**
 * A changed page's git-style diff (what a check stores: 3 lines of context around each change)
 * laid out for reading: hunks of lines for the inline view, and the same lines paired into
 * before/after rows for the side-by-side view, a run of removed lines facing the run of added
 * lines that replaced it. Parsing is the `diff` library's; only the layout is ours.
 */
import { diffWords, parsePatch } from 'diff';

/** One line of one side. */
export interface DiffLine {
  kind: 'context' | 'removed' | 'added';
  /** Its line number on its side (the old side for removed and context lines in inline order). */
  number: number;
  text: string;
}

/** A side-by-side row: the old line on the left, the new one on the right (either may be absent). */
export interface DiffRow {
  left?: DiffLine;
  right?: DiffLine;
}

export interface DiffHunk {
  /** `@@ -3,7 +3,7 @@`, where the hunk sits in both versions. */
  header: string;
  lines: DiffLine[];
  rows: DiffRow[];
}

/** The hunks of a unified diff (empty when it has none, as for a diff that timed out). */
export function diffHunks(unified: string): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  for (const patch of parsePatch(unified)) {
    for (const hunk of patch.hunks) {
      const lines: DiffLine[] = [];
      let oldNumber = hunk.oldStart;
      let newNumber = hunk.newStart;
      for (const raw of hunk.lines) {
        // `\ No newline at end of file` belongs to the line before it, not to the page.
        if (raw.startsWith('\\')) continue;
        const text = raw.slice(1);
        if (raw.startsWith('-')) lines.push({ kind: 'removed', number: oldNumber++, text });
        else if (raw.startsWith('+')) lines.push({ kind: 'added', number: newNumber++, text });
        else {
          lines.push({ kind: 'context', number: newNumber++, text });
          oldNumber++;
        }
      }
      hunks.push({
        header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
        lines,
        rows: pairRows(lines, hunk.oldStart),
      });
    }
  }
  return hunks;
}

/** Pairs each run of removed lines with the run of added lines after it, row by row. */
function pairRows(lines: DiffLine[], oldStart: number): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldNumber = oldStart;
  for (let index = 0; index < lines.length;) {
    const line = lines[index]!;
    if (line.kind === 'context') {
      rows.push({ left: { ...line, number: oldNumber++ }, right: line });
      index++;
      continue;
    }
    const removed: DiffLine[] = [];
    const added: DiffLine[] = [];
    while (lines[index]?.kind === 'removed') removed.push(lines[index++]!);
    while (lines[index]?.kind === 'added') added.push(lines[index++]!);
    oldNumber += removed.length;
    for (let row = 0; row < Math.max(removed.length, added.length); row++) {
      const left = removed[row];
      const right = added[row];
      rows.push({ ...(left ? { left } : {}), ...(right ? { right } : {}) });
    }
  }
  return rows;
}

/** One piece of a changed line: kept, or only on this side. */
export interface WordPart {
  text: string;
  changed: boolean;
}

/** The words of `text` that differ from `other` (to mark inside a paired line). */
export function changedWords(text: string, other: string, side: 'left' | 'right'): WordPart[] {
  const parts: WordPart[] = [];
  for (const change of diffWords(side === 'left' ? text : other, side === 'left' ? other : text)) {
    if (side === 'left' && change.added) continue;
    if (side === 'right' && change.removed) continue;
    parts.push({ text: change.value, changed: change.added || change.removed });
  }
  return parts;
}
