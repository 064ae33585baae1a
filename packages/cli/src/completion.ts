import type { Command } from "commander";

type Entry = { path: string[]; options: string[]; subcommands: string[] };

/** Every command of the program with its options and subcommands, walked from commander's own tree. */
function entries(command: Command, path: string[] = []): Entry[] {
  const options = command.options.flatMap((option) =>
    [option.long, option.short].filter((name): name is string => !!name),
  );
  const own: Entry = { path, options: [...options, "--help"], subcommands: command.commands.map((sub) => sub.name()) };
  return [own, ...command.commands.flatMap((sub) => entries(sub, [...path, sub.name()]))];
}

/** A completion script for bash, zsh or fish that offers shelf's commands and each command's options. */
export function completionScript(program: Command, shell: string): string {
  const all = entries(program);
  const globals = all[0]?.options ?? [];
  if (shell === "bash" || shell === "zsh") {
    const cases = all
      .map(
        (entry) =>
          `    "${entry.path.join(" ")}") words="${[...new Set([...entry.subcommands, ...entry.options, ...(entry.path.length ? globals : [])])].join(" ")}" ;;`,
      )
      .join("\n");
    const body = `_shelf_complete() {
  local current="\${COMP_WORDS[COMP_CWORD]}" path="" word
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$word" in -*) ;; *) [ -n "$path" ] && path="$path $word" || path="$word" ;; esac
  done
  local words=""
  while :; do
    case "$path" in
${cases}
    *) case "$path" in *" "*) path="\${path% *}" ;; *) path="" ;; esac; continue ;;
    esac
    break
  done
  COMPREPLY=( $(compgen -W "$words" -- "$current") )
}
complete -o default -F _shelf_complete shelf`;
    return shell === "zsh" ? `autoload -U +X bashcompinit && bashcompinit\n${body}\n` : `${body}\n`;
  }
  if (shell === "fish") {
    const lines = ["complete -c shelf -f"];
    for (const entry of all) {
      const condition =
        entry.path.length === 0
          ? "__fish_use_subcommand"
          : `__fish_seen_subcommand_from ${entry.path[entry.path.length - 1]}`;
      for (const sub of entry.subcommands) lines.push(`complete -c shelf -n '${condition}' -a ${sub}`);
      for (const option of entry.options) {
        const flag = option.startsWith("--") ? `-l ${option.slice(2)}` : `-s ${option.slice(1)}`;
        lines.push(`complete -c shelf -n '${condition}' ${flag}`);
      }
    }
    return `${lines.join("\n")}\n`;
  }
  throw new Error(`unknown shell "${shell}": bash, zsh or fish`);
}
