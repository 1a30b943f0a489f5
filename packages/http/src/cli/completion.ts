/**
 * `trawl completion bash|zsh`: a completion script for the shell. The commands and their flags
 * are read from each command's own `--help` text, so a new flag is completed without a second
 * list to keep in step.
 */
import { parseFlags, UsageError } from './args.ts';
import { commands, type Command } from './index.ts';
import { quietFlagOption } from './page-flags.ts';

const usage = `Usage: trawl completion <bash|zsh>

Prints a script that completes trawl's commands and their flags.

  -q, --quiet            accepted for symmetry; the script is all that is printed
  -h, --help             show this help

Examples:
  trawl completion bash > ~/.local/share/bash-completion/completions/trawl
  source <(trawl completion zsh)     # in ~/.zshrc, after compinit
`;

/** The long flags a help text lists (`--format`, `--no-main-content` …), in order, once each. */
export function flagsOfHelp(help: string): string[] {
  const flags = new Set<string>();
  for (const match of help.matchAll(/^\s+(?:-\w, )?(--[a-z][\w-]*)/gm)) flags.add(match[1] ?? '');
  flags.add('--help');
  return [...flags];
}

async function commandFlags(): Promise<Map<string, string[]>> {
  const flags = new Map<string, string[]>();
  for (const entry of commands) flags.set(entry.name, flagsOfHelp((await entry.load()).usage));
  return flags;
}

const shellWord = (word: string) => word.replace(/[^\w-]/g, '');

function bashScript(flags: Map<string, string[]>): string {
  const cases = [...flags]
    .map(([name, list]) => `    ${shellWord(name)}) flags="${list.map(shellWord).join(' ')}" ;;`)
    .join('\n');
  return `# bash completion for trawl (trawl completion bash)
_trawl() {
  local current=\${COMP_WORDS[COMP_CWORD]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${[...flags.keys()].join(' ')} --help --version" -- "$current"))
    return
  fi
  local flags=""
  case "\${COMP_WORDS[1]}" in
${cases}
  esac
  if [[ "$current" == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$current"))
  else
    COMPREPLY=($(compgen -f -- "$current"))
  fi
}
complete -o filenames -F _trawl trawl
`;
}

function zshScript(flags: Map<string, string[]>): string {
  const described = commands
    .map((entry) => `    '${shellWord(entry.name)}:${entry.summary.replace(/['\\:]/g, ' ')}'`)
    .join('\n');
  const cases = [...flags]
    .map(
      ([name, list]) =>
        `      ${shellWord(name)}) _arguments '*:file:_files' ${list.map((flag) => `'${shellWord(flag)}[]'`).join(' ')} ;;`,
    )
    .join('\n');
  return `#compdef trawl
# zsh completion for trawl (trawl completion zsh)
_trawl() {
  local -a subcommands
  subcommands=(
${described}
  )
  if (( CURRENT == 2 )); then
    _describe 'trawl command' subcommands
  else
    case "$words[2]" in
${cases}
    esac
  fi
}
compdef _trawl trawl
`;
}

/** The completion command. */
export const completionCommand: Command = {
  usage,
  async run(args, io) {
    const { positionals } = parseFlags(args, quietFlagOption);
    const [shell, ...extra] = positionals;
    if ((shell !== 'bash' && shell !== 'zsh') || extra.length > 0)
      throw new UsageError(`give the shell: bash or zsh`);
    const flags = await commandFlags();
    io.stdout(shell === 'bash' ? bashScript(flags) : zshScript(flags));
    return 0;
  },
};
