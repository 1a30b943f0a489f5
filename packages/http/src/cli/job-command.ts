/**
 * What `trawl crawl` and `trawl batch` share around their job: the flags and help of their output,
 * the options of each page, and the run itself (open the store of the data folder, start the job
 * or resume one by id, write it out, close the store).
 */
import {
  resumeJob,
  ValidationError,
  type FormatName,
  type Job,
  type JobContext,
  type ScrapeOptions,
} from '@trawl/core';
import { loadConfig } from '../config.ts';
import type { CliIo } from './index.ts';
import { prepareOutFolder, writeJob, type JobOutputFlags } from './job-output.ts';
import {
  checkPageSettings,
  formatsFrom,
  jobPageFormats,
  outputFlagOptions,
  pageFlagOptions,
  pageOptionsFrom,
  quietHelp,
  type PageFlagValues,
} from './page-flags.ts';
import { openStore } from './store.ts';

/** parseArgs definitions of the flags every job command takes: page, output, `--out`, `--resume`. */
export const jobFlagOptions = {
  ...outputFlagOptions,
  ...pageFlagOptions,
  out: { type: 'string' },
  resume: { type: 'string' },
} as const;

/** The values parseArgs gives for {@link jobFlagOptions}. */
export interface JobFlagValues extends PageFlagValues, JobOutputFlags {
  format?: string[] | undefined;
  formats?: string[] | undefined;
  resume?: string | undefined;
}

/** The help of the output flags of a job command (both write pages alike). */
export function jobOutputHelp(command: 'crawl' | 'batch'): string {
  return `Output:
  --out <dir>            write <dir>/<host>/<path>.md per page, <dir>/index.jsonl (url, file,
                         title, status) and <dir>/errors.jsonl, instead of stdout
  --resume <id>          continue an interrupted ${command} (prints the whole ${command} again)
${quietHelp}
  -h, --help             show this help`;
}

/** Scrape options of each page of the job, formats included, from the flags. */
export function jobPageOptionsFrom(values: JobFlagValues): Omit<ScrapeOptions, 'profile'> {
  return {
    ...pageOptionsFrom(values),
    formats: formatsFrom(values, jobPageFormats, 'markdown') as FormatName[],
  };
}

/**
 * Runs a job command: checks `pageOptions` against the configuration, then starts the job (or,
 * with `--resume`, finds it in the store) and writes it out; resolves with the exit status.
 */
export async function runJob(
  command: 'crawl' | 'batch',
  values: JobFlagValues,
  io: CliIo,
  pageOptions: Pick<ScrapeOptions, 'proxy'> | undefined,
  start: (context: JobContext) => Job,
): Promise<number> {
  const config = loadConfig({ role: 'cli', env: io.env });
  if (pageOptions) checkPageSettings(pageOptions, config.engine);
  if (values.out !== undefined) prepareOutFolder(values.out);
  const store = await openStore(config);
  const context = { store, config: config.engine };
  try {
    let job: Job;
    if (values.resume !== undefined) {
      const resumed = await resumeJob(values.resume, context);
      if (!resumed)
        throw new ValidationError(`no ${command} '${values.resume}' in ${config.dataDir}`);
      job = resumed;
    } else {
      job = start(context);
    }
    const status = await writeJob(job, values, io, {
      command,
      dataDir: config.dataDir,
      resumed: values.resume !== undefined,
    });
    // An interrupted job's pages in flight may still write; the process exits right after.
    if (status !== 130) await store.close();
    return status;
  } catch (error) {
    await store.close();
    throw error;
  }
}
