#!/usr/bin/env python3
"""Man pages and bash completion made from the programs' own --help.

Runs `mlstudio --help`, every subcommand's `--help` (nested ones too: `cluster add`, `store
compact`) and `studio-launcher --help`, reads CLI11's help layout (a description, a Usage line,
then "Positionals:", "Options:" and "Subcommands:" sections of two-space-indented entries whose
descriptions stand two or more spaces to the right, or on the lines below), and writes:

  OUT/mlstudio.1.gz, OUT/studio-launcher.1.gz   section-1 roff, gzipped without a time stamp
  OUT/mlstudio.bash-completion                   a completion function for bash

so what the pages and the completion say cannot drift from what the programs accept.
"""

import argparse
import gzip
import os
import re
import subprocess
import sys

SECTION = re.compile(r"^([A-Z][A-Za-z ]*):$")
CONTINUATION = re.compile(r"^\s{3,}(\S.*)$")
# CLI11 starts descriptions in column 30; a longer name puts its description on the next line,
# in that column.
DESCRIPTION_COLUMN = 30


def split_entry(line):
    """(name, description) of an entry line."""
    column = DESCRIPTION_COLUMN
    if len(line) > column and line[column - 1] == " " and line[column] != " ":
        return line[:column].strip(), line[column:].strip()
    return line.strip(), ""


def run_help(program, words):
    """The text `program words... --help` prints (CLI11 prints help on stdout, exit 0)."""
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    # Without a display the programs never try to open a window.
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        env.pop(name, None)
    done = subprocess.run([program, *words, "--help"], capture_output=True, text=True, env=env,
                          timeout=60, check=False)
    # mlstudio prints its help on stdout and exits 0; studio-launcher treats --help as a usage
    # error (its exit 2, help on stderr). Either way the text must hold a Usage line.
    text = done.stdout if done.returncode == 0 else done.stderr
    if done.returncode not in (0, 2) or "Usage: " not in text:
        sys.exit(f"docs_from_help: `{' '.join([program, *words, '--help'])}` exited "
                 f"{done.returncode} without a help text: {done.stderr.strip()}")
    return text


class Help:
    """One program's or subcommand's help: description, usage, and its sections' entries."""

    def __init__(self, text):
        self.description = []
        self.usage = ""
        self.sections = {}  # "Options" -> [(name, description)]
        self.trailer = []
        current = None
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("Usage: "):
                self.usage = line[len("Usage: "):].strip()
                continue
            if (m := SECTION.match(line)):
                current = self.sections.setdefault(m.group(1), [])
                continue
            if current is None:
                if line.strip():
                    self.description.append(line.strip())
                continue
            if not line.strip():
                continue
            if (m := CONTINUATION.match(line)) and current:
                name, text_so_far = current[-1]
                current[-1] = (name, (text_so_far + " " + m.group(1)).strip())
            elif line.startswith("  ") and not line.startswith("   "):
                # CLI11 never wraps a description: a continuation below means this whole line
                # is a long name.
                below = lines[i + 1] if i + 1 < len(lines) else ""
                current.append((line.strip(), "") if CONTINUATION.match(below)
                               else split_entry(line))
            else:
                self.trailer.append(line.strip())
                current = None

    def entries(self, section):
        return self.sections.get(section, [])

    def subcommands(self):
        return [name for name, _ in self.entries("Subcommands")]

    def option_words(self):
        """Every spelling of every option: "-q,--quiet TEXT" gives -q and --quiet."""
        words = []
        for name, _ in self.entries("Options"):
            for spelling in name.split()[0].split(","):
                if spelling.startswith("-"):
                    words.append(spelling)
        return words


def collect(program, words=()):
    """[(words, Help)] for the program and every subcommand below it, depth first."""
    found = [(list(words), Help(run_help(program, list(words))))]
    for sub in found[0][1].subcommands():
        found.extend(collect(program, [*words, sub]))
    return found


def roff(text):
    """Text safe in a roff line: backslashes, hyphens of options, leading dots and quotes."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def entry_list(lines, entries, skip_help=True):
    for name, description in entries:
        if skip_help and name.startswith("-h,--help"):
            continue
        lines += [".TP", "\\fB" + roff(name) + "\\fR", roff(description or name)]


def mlstudio_page(commands, version, date):
    top = commands[0][1]
    lines = [
        f'.TH MLSTUDIO 1 "{date}" "mlstudio {version}" "User Commands"',
        ".SH NAME",
        "mlstudio \\- " + roff(top.description[0].split(": ", 1)[-1]),
        ".SH SYNOPSIS",
        ".B mlstudio",
        ".RI [ OPTIONS ] \" \" COMMAND \" [\" OPTIONS \"] [\" ARGUMENTS ]",
        ".br",
        ".B mlstudio",
        ".BI mlstudio://job/ NAME",
        ".br",
        ".B mlstudio",
        ".SH DESCRIPTION",
    ]
    lines += [roff(" ".join(top.description)), ".PP",
              "With no arguments on a display (\\fBDISPLAY\\fR or \\fBWAYLAND_DISPLAY\\fR set) "
              "it opens the studio window. Given a \\fBmlstudio://job/\\fINAME\\fR address (what a "
              "job's link in a notebook points at, and what the desktop runs when one is "
              "clicked) it opens the window on that job; without a display it prints the job's "
              "summary as \\fBmlstudio show\\fR does.", ".SH OPTIONS"]
    entry_list(lines, top.entries("Options"), skip_help=False)
    lines.append(".SH COMMANDS")
    lines.append("Every command takes \\fB\\-h\\fR, \\fB\\-\\-help\\fR.")
    for words, help_ in commands[1:]:
        if help_.subcommands():
            lines += [".SS " + '"' + roff("mlstudio " + " ".join(words)) + '"',
                      roff(" ".join(help_.description))]
            continue
        lines += [".SS " + '"' + roff(help_.usage or "mlstudio " + " ".join(words)) + '"',
                  roff(" ".join(help_.description))]
        entry_list(lines, help_.entries("Positionals"))
        entry_list(lines, help_.entries("Options"))
    lines += environment_section() + files_section() + exit_section()
    lines += [".SH SEE ALSO", "\\fBstudio\\-launcher\\fR(1), \\fBtensorboard\\fR(1), "
              "\\fBpython3\\fR(1), \\fBssh\\fR(1)", ".PP",
              "The job spec keys: /usr/share/mlstudio/specs/SPEC.md; tuning specs: "
              "/usr/share/mlstudio/specs/TUNING.md."]
    return "\n".join(lines) + "\n"


def environment_section():
    variables = [
        ("MLSTUDIO_HOME", "The studio's data folder (database, jobs' logs, checkpoints, models) "
                          "and, when set, its settings too. Default: $XDG_DATA_HOME/mlstudio."),
        ("XDG_DATA_HOME", "Where the default data folder lives (default ~/.local/share)."),
        ("XDG_CONFIG_HOME", "Where the window's settings live, in mlstudio/studio.ini (default "
                            "~/.config)."),
        ("NO_COLOR", "When set (to anything), statuses are printed without colour."),
        ("MLSTUDIO_RESOURCES", "A folder used before the installed resources "
                               "(/usr/share/mlstudio): the instance catalogue, examples, "
                               "notebooks and spec documents."),
        ("MLSTUDIO_PYTHON", "The Python interpreter of script jobs (default /usr/bin/python3)."),
        ("MLSTUDIO_TRAINER", "Another studio-train for mlstudio doctor to probe."),
        ("DISPLAY, WAYLAND_DISPLAY", "With either set, mlstudio alone opens the window."),
    ]
    lines = [".SH ENVIRONMENT"]
    for name, text in variables:
        lines += [".TP", "\\fB" + roff(name) + "\\fR", roff(text)]
    return lines


def files_section():
    files = [
        ("$XDG_DATA_HOME/mlstudio/studio.db", "the studio database (SQLite)"),
        ("$XDG_DATA_HOME/mlstudio/jobs/", "each job's spec, logs, checkpoints, model and outputs"),
        ("$XDG_CONFIG_HOME/mlstudio/studio.ini", "the window's settings"),
        ("/usr/share/mlstudio/examples/", "example job and tuning specs, with their scripts"),
        ("/usr/share/mlstudio/notebooks/", "example notebooks"),
        ("/usr/share/mlstudio/catalog/instances.json", "instance types and their prices"),
        ("/usr/lib/mlstudio/", "studio-launcher and studio-train, which the studio starts"),
        ("/usr/share/datasets/fashion-mnist/", "Fashion-MNIST, the built-in models' data "
                                               "(package dataset-fashion-mnist)"),
    ]
    lines = [".SH FILES"]
    for name, text in files:
        lines += [".TP", "\\fI" + roff(name) + "\\fR", roff(text)]
    return lines


def exit_section():
    return [".SH EXIT STATUS",
            ".TP", "\\fB0\\fR", "Success; for \\fBrun\\fR and \\fBtune\\fR, a job that Completed.",
            ".TP", "\\fB1\\fR", "Failure: a job that Failed, or an error while running the "
            "command.",
            ".TP", "\\fB2\\fR", "Usage error or an invalid spec (also a bad "
            "\\fBmlstudio://\\fR address).",
            ".TP", "\\fB3\\fR", "The job was stopped."]


def launcher_page(help_, version, date):
    lines = [
        f'.TH STUDIO\\-LAUNCHER 1 "{date}" "mlstudio {version}" "User Commands"',
        ".SH NAME",
        "studio\\-launcher \\- " + roff(help_.description[0].split(": ", 1)[-1]),
        ".SH SYNOPSIS",
        ".B studio\\-launcher",
        ".RI [ OPTIONS ] \" \\-\\- \" COMMAND \" [\" ARGUMENTS ]",
        ".br",
        ".B studio\\-launcher \\-\\-version",
        ".SH DESCRIPTION",
        roff(" ".join(help_.description)),
        ".PP",
        "The studio starts one launcher per node of a job; users seldom run it by hand. It is "
        "installed in /usr/lib/mlstudio and copied to, or installed on, the hosts of remote "
        "clusters.",
    ]
    if help_.trailer:
        lines += [".PP", roff(" ".join(help_.trailer))]
    lines.append(".SH OPTIONS")
    entry_list(lines, help_.entries("Options"), skip_help=False)
    lines += [".SH EXIT STATUS",
              ".TP", "\\fB0\\fR", "Every rank exited 0.",
              ".TP", "\\fB1\\fR", "A rank failed.",
              ".TP", "\\fB2\\fR", "Usage error.",
              ".TP", "\\fB3\\fR", "The ranks were stopped.",
              ".SH SEE ALSO", "\\fBmlstudio\\fR(1), \\fBtorchrun\\fR(1)"]
    return "\n".join(lines) + "\n"


def completion(commands):
    """A bash function: command words first, then the options of the command typed so far."""
    paths = {" ".join(words): help_ for words, help_ in commands}
    cases = []
    for path, help_ in sorted(paths.items()):
        words = help_.subcommands() + help_.option_words()
        cases.append(f'        "{path}") words="{" ".join(words)}" ;;')
    return f"""# bash completion for mlstudio, made from its --help by packaging/docs_from_help.py.
_mlstudio() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} path="" i word words=""
    # The command path typed so far: the words before the cursor that name subcommands.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${{COMP_WORDS[i]}}
        case "$word" in
        -*) ;;
        *) [[ " $(_mlstudio_words "$path") " == *" $word "* ]] && path="${{path:+$path }}$word" ;;
        esac
    done
    words=$(_mlstudio_words "$path")
    if [[ $cur != -* ]]; then
        local w plain=""
        for w in $words; do [[ $w == -* ]] || plain+="$w "; done
        if [[ -n $plain ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$plain" -- "$cur")
            return
        fi
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
    fi
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}}

# The subcommands and options of one command path ("" is mlstudio itself).
_mlstudio_words() {{
    local words=""
    case "$1" in
{chr(10).join(cases)}
    esac
    echo "$words"
}}

complete -o bashdefault -o default -F _mlstudio mlstudio
"""


def write_gzip(path, text):
    # mtime 0 and no file name inside: the same input gives the same bytes (lintian asks).
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                                compresslevel=9) as out:
        out.write(text.encode())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mlstudio", required=True, help="the mlstudio program")
    parser.add_argument("--launcher", required=True, help="the studio-launcher program")
    parser.add_argument("--version", required=True)
    parser.add_argument("--date", required=True, help="the release date, YYYY-MM-DD")
    parser.add_argument("--out", required=True, help="folder to write into")
    a = parser.parse_args()
    os.makedirs(a.out, exist_ok=True)
    commands = collect(a.mlstudio)
    if len(commands) < 2:
        sys.exit("docs_from_help: mlstudio --help lists no subcommands")
    write_gzip(os.path.join(a.out, "mlstudio.1.gz"), mlstudio_page(commands, a.version, a.date))
    launcher = Help(run_help(a.launcher, []))
    write_gzip(os.path.join(a.out, "studio-launcher.1.gz"),
               launcher_page(launcher, a.version, a.date))
    with open(os.path.join(a.out, "mlstudio.bash-completion"), "w", encoding="utf-8") as f:
        f.write(completion(commands))


if __name__ == "__main__":
    main()
