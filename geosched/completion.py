"""Shell completion for ``geosched``: a script for bash, zsh or fish, generated from the argparse tree.

``geosched completion bash`` prints a script that completes the commands (``predictor train`` included),
each command's options, and the values of options and arguments that have a fixed set of choices
(``--format``, ``--method``, ``plot``'s kind, ...); anything else completes as a file name. The script is
static text made from the parser that ``geosched --help`` uses, so a tab press runs no Python. Install:

* bash: ``geosched completion bash > ~/.local/share/bash-completion/completions/geosched``;
* zsh: ``geosched completion zsh > "${fpath[1]}/_geosched"`` (or ``source <(geosched completion zsh)``:
  zsh's own ``bashcompinit`` runs the bash completer);
* fish: ``geosched completion fish > ~/.config/fish/completions/geosched.fish``.

Example
-------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="demo")
>>> sub = parser.add_subparsers()
>>> run = sub.add_parser("run")
>>> _ = run.add_argument("--mode", choices=("fast", "slow"))
>>> tree = command_tree(parser)
>>> tree[("run",)].options, tree[("run",)].choices
(['--help', '--mode', '-h'], {'--mode': ['fast', 'slow']})
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass, field

__all__ = ["SHELLS", "Command", "command_tree", "script"]

SHELLS = ("bash", "zsh", "fish")


@dataclass
class Command:
    """One node of the command tree: its subcommands, options, option choices and positional choices."""

    help: str = ""
    subcommands: dict[str, str] = field(default_factory=dict)  # name -> one-line help
    options: list[str] = field(default_factory=list)  # every option string, sorted
    choices: dict[str, list[str]] = field(default_factory=dict)  # option string -> its values
    takes_value: list[str] = field(default_factory=list)  # options followed by a value
    positional: list[str] = field(default_factory=list)  # the choices of its positional arguments
    option_help: dict[str, str] = field(default_factory=dict)  # option string -> one-line help


def command_tree(parser: argparse.ArgumentParser, path: tuple[str, ...] = (), help_text: str = "",
                 tree: dict[tuple[str, ...], Command] | None = None) -> dict[tuple[str, ...], Command]:
    """Every command path of ``parser`` (``()`` is the program itself) and what completes there."""
    tree = {} if tree is None else tree
    node = tree.setdefault(path, Command(help=help_text))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                node.subcommands[name] = _one_line(helps.get(name, ""))
                command_tree(sub, (*path, name), node.subcommands[name], tree)
        elif action.option_strings:
            node.options += action.option_strings
            for option in action.option_strings:
                node.option_help[option] = _one_line(action.help or "")
                if action.nargs != 0:
                    node.takes_value.append(option)
                if action.choices is not None:
                    node.choices[option] = [str(c) for c in action.choices]
        elif action.choices is not None:
            node.positional += [str(c) for c in action.choices]
    node.options.sort()
    return tree


def _one_line(text: str) -> str:
    text = " ".join(str(text).split()).replace("%%", "%")
    return text if len(text) <= 70 else text[:67] + "..."


def script(parser: argparse.ArgumentParser, shell: str, prog: str = "geosched") -> str:
    """The completion script of ``parser`` for ``shell`` (one of :data:`SHELLS`)."""
    tree = command_tree(parser)
    if shell == "bash":
        return _bash(tree, prog)
    if shell == "zsh":
        return ("#compdef " + prog + "\n# zsh runs the bash completer through its bashcompinit\n"
                "autoload -U +X bashcompinit && bashcompinit\n" + _bash(tree, prog))
    if shell == "fish":
        return _fish(tree, prog)
    raise ValueError(f"shell must be one of {', '.join(SHELLS)}, not {shell!r}")


def _words(items) -> str:
    return shlex.quote(" ".join(items))


def _case(function: str, arms: list[tuple[str, str]]) -> list[str]:
    lines = [f"{function}() {{", '    case "$1" in']
    lines += [f"        {shlex.quote(key)}) echo {value} ;;" for key, value in arms]
    return lines + ["    esac", "}"]


def _bash(tree: dict[tuple[str, ...], Command], prog: str) -> str:
    name = "_" + prog.replace("-", "_")
    arms = {"sub": [], "opt": [], "val": [], "arg": []}
    for path, node in tree.items():
        key = " ".join(path)
        arms["sub"].append((key, _words(node.subcommands)))
        arms["opt"].append((key, _words(node.options)))
        arms["arg"].append((key, _words(node.positional)))
        arms["val"] += [(f"{key}|{option}", _words(node.choices.get(option, ["__FILE__"])))
                        for option in node.takes_value]
    lines = [f"# {prog} completion for bash (generated by `{prog} completion bash` from its argument parser)"]
    for kind, arm in arms.items():
        lines += _case(f"{name}_{kind}", arm)
    lines += [
        f"{name}() {{",
        '    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path="" i word values',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        word=${COMP_WORDS[i]}',
        f'        case " $({name}_sub "$path") " in *" $word "*) path="${{path:+$path }}$word" ;; esac',
        "    done",
        f'    values=$({name}_val "$path|$prev")',
        '    if [[ $values == __FILE__ ]]; then COMPREPLY=($(compgen -f -- "$cur")); return 0; fi',
        '    if [[ -n $values ]]; then COMPREPLY=($(compgen -W "$values" -- "$cur")); return 0; fi',
        f'    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$({name}_opt "$path")" -- "$cur")); return 0; fi',
        f'    values="$({name}_sub "$path") $({name}_arg "$path")"',
        '    if [[ -n ${values// } ]]; then COMPREPLY=($(compgen -W "$values" -- "$cur")); fi',
        '    [[ ${#COMPREPLY[@]} -gt 0 ]] || COMPREPLY=($(compgen -f -- "$cur"))',
        "    return 0",
        "}",
        f"complete -o filenames -F {name} {prog}",
    ]
    return "\n".join(lines) + "\n"


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish(tree: dict[tuple[str, ...], Command], prog: str) -> str:
    lines = [f"# {prog} completion for fish (generated by `{prog} completion fish` from its argument parser)",
             f"complete -c {prog} -f"]
    for path, node in tree.items():
        if not path:
            condition = "__fish_use_subcommand"
        else:
            below = " ".join(node.subcommands)
            condition = "; and ".join(f"__fish_seen_subcommand_from {p}" for p in path)
            if below:
                condition += f"; and not __fish_seen_subcommand_from {below}"
        for sub, help_text in node.subcommands.items():
            lines.append(f"complete -c {prog} -n {_fish_quote(condition)} -a {sub} -d {_fish_quote(help_text)}")
        if node.positional:
            lines.append(f"complete -c {prog} -n {_fish_quote(condition)} -a {_fish_quote(' '.join(node.positional))}")
        for option in node.options:
            flag = f"-l {option[2:]}" if option.startswith("--") else f"-s {option[1:]}"
            extra = ""
            if option in node.choices:
                extra = f" -x -a {_fish_quote(' '.join(node.choices[option]))}"
            elif option in node.takes_value:
                extra = " -r -F"
            lines.append(f"complete -c {prog} -n {_fish_quote(condition)} {flag}{extra} "
                         f"-d {_fish_quote(node.option_help.get(option, ''))}")
    return "\n".join(lines) + "\n"
