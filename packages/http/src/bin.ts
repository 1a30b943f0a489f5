/** Process entry of the `trawl` command. */
import { runCli } from './cli/index.ts';

const exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});
process.exitCode = exitCode;
