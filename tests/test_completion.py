"""Shell completion: `geosched completion bash|zsh|fish`, generated from the parser; bash completes in bash."""

from __future__ import annotations

import argparse
import shutil
import subprocess

import pytest

from geosched.cli import build_parser, main
from geosched.completion import command_tree, script
from geosched.reference_impl.formats.registry import writable_format_names


@pytest.fixture(scope="module")
def bash_script() -> str:
    return script(build_parser(), "bash")


def _complete(bash_script: str, line: str) -> list[str]:
    """What bash offers for the command line ``line`` (the cursor at its end), with the script sourced."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    words = line.split(" ")
    array = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    code = (f"{bash_script}\nCOMP_WORDS=({array}); COMP_CWORD={len(words) - 1}; COMPREPLY=()\n"
            "_geosched; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", code], capture_output=True, text=True,
                          cwd="/", check=True)
    return [w for w in done.stdout.splitlines() if w]


def _commands() -> list[str]:
    """The parser's commands (argparse's own list, not the completion's)."""
    return [name for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction)
            for name in action.choices]


def test_bash_completes_commands_nested_commands_and_options(bash_script):
    assert _complete(bash_script, "geosched sim") == ["simulate"]
    offered = set(_complete(bash_script, "geosched c"))
    assert offered == {name for name in _commands() if name.startswith("c")}  # every command the parser has
    assert {"compare", "check", "claims", "check-witness", "cluster", "completion"} <= offered
    assert _complete(bash_script, "geosched predictor t") == ["train"]
    assert "--kind" in _complete(bash_script, "geosched predictor train --")
    assert _complete(bash_script, "geosched simulate --pol") == ["--policy"]
    assert "--time-limit" in _complete(bash_script, "geosched opt --") and "--policy" not in _complete(
        bash_script, "geosched opt --")
    assert _complete(bash_script, "geosched claims --q") == ["--quick", "--quiet"]


def test_bash_completes_choices_after_their_option_and_files_elsewhere(bash_script):
    formats = set(_complete(bash_script, "geosched export x.json --format "))
    assert formats == set(writable_format_names()) >= {"jsonl", "azure-csv", "vllm-bench"}  # the registry's
    assert _complete(bash_script, "geosched hunt --method st") == ["structured"]
    assert set(_complete(bash_script, "geosched plot ")) >= {"memory", "gantt", "certificate"}
    assert _complete(bash_script, "geosched completion f") == ["fish"]
    # an option that takes a free value completes file names (the script ran in /)
    assert "etc" in _complete(bash_script, "geosched claims --out e")


def test_every_command_and_option_of_the_parser_is_in_every_script():
    tree = command_tree(build_parser())
    for shell in ("bash", "zsh", "fish"):
        text = script(build_parser(), shell)
        for path, node in tree.items():
            for name in node.subcommands:
                assert name in text, (shell, path, name)
            for option in node.options:
                fish = f"-l {option[2:]}" if option.startswith("--") else f"-s {option[1:]}"
                assert (fish if shell == "fish" else option) in text, (shell, option)
    assert script(build_parser(), "zsh").startswith("#compdef geosched\n")


def test_the_command_prints_it(capsys):
    assert main(["completion", "fish"]) == 0
    out = capsys.readouterr().out
    assert "complete -c geosched -n '__fish_use_subcommand' -a simulate" in out
    assert "__fish_seen_subcommand_from predictor; and __fish_seen_subcommand_from train" in out
    with pytest.raises(SystemExit, match="2"):
        main(["completion", "tcsh"])
    assert "invalid choice: 'tcsh'" in capsys.readouterr().err
