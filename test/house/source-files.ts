/** The source files the house tests read. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root folder. */
export const repositoryRoot = join(import.meta.dirname, '../..');

/** Every `.ts` file under the packages' `src` folders. */
export function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  for (const name of readdirSync(join(repositoryRoot, 'packages')))
    walk(join(repositoryRoot, 'packages', name, 'src'));
  return files;
}
