"""A run script or command line read as bash reads it (its text by `bash.py`), into the job verl runs (see `job.py`).

Line continuations joined, comments dropped, `NAME=value` and `export NAME=value` lines remembered (exports
are the job's environment) and substituted where the command uses them (`data.train_files="$train_files"`),
`$HOME` written as `~` (the verl adapter expands it for each trial), `$@` dropped. A variable the script does
not set is left as written and named in a note: its value is the user's to fill in; a cluster key a scheduler
fills takes init's flag or the script's `#SBATCH` request (`slurm.py`). The command's words are then read as
verl reads them (`overrides.py`: hydra's own override parser).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from autotune.adapters.verl_config import (
    ENTRY,
    NO_WAIT,
    SCRIPT_ARGUMENTS,
    SHELL_VAR,
    substitute,
    unquoted,
    without_comment,
)
from autotune.scaffold import bash
from autotune.scaffold.job import Job, JobError, engine_of, engine_refused, unset_said
from autotune.scaffold.overrides import HOME_MARK, home, parse_overrides
from autotune.scaffold.slurm import sbatch_cluster

__all__ = ["from_script"]


class Outer(NamedTuple):
    """What the command runs inside: its loops (their first words, their line), its function (name, line) and
    that function's calls after it (line, arguments)."""

    loops: list[tuple[list[str], int]]
    function: tuple[str, int] | None
    calls: list[tuple[int, list[str]]]


def _outer_refused(outer: Outer, unset: set[str], command: bash.Logical | None, source: str, notes: list[str]) -> None:
    """Refused: a command run for each value of a loop's variable, or taking a function's arguments, named for what
    they are (they were "not set in the script", audit 29 F12); a loop that does not change the job is said."""
    at = command.start if command else 0
    for words, line in outer.loops:
        name, values = (words[1], words[3:]) if len(words) > 2 and words[0] == "for" and words[2] == "in" else ("", [])
        if name in unset:
            raise JobError(
                f"{source}:{line}: the command (line {at}) runs inside a `for` loop over `{name}` ({' '.join(values)}: "
                f"{len(values)} jobs) and uses `${name}`; init tunes one job: write one value in place of `${name}` "
                f"(or set `{name}=...` before the command, without the loop) and run again"
            )
        notes.append(f"the command runs inside a loop (line {line}): read as one job, as each pass runs it")
    arguments = sorted(n for n in unset if n.isdigit())
    if outer.function and arguments:
        fname, line = outer.function
        calls = "; ".join(f"line {n}: `{' '.join([fname, *args])}`" for n, args in outer.calls) or "none"
        raise JobError(
            f"{source}:{at}: {', '.join(f'`${n}`' for n in arguments)} in the command: the function `{fname}`'s "
            f"argument(s) (the function is defined at line {line}; its calls: {calls}); init does not run functions: "
            "write the value in the command (or set a variable before it) and run again"
        )


_ARRAY = re.compile(r"([A-Za-z_]\w*)=\(")
_ARRAY_USE = re.compile(r"\$\{([A-Za-z_]\w*)\[")


def _array_part(
    array: tuple[str, int, str] | None,
    line: str,
    at: int,
    variables: dict[str, str],
    unset: set[str],
    arrays: dict[str, tuple[list[str], int]],
    source: str,
) -> tuple[str, int, str] | None:
    """A statement of a bash array's definition (verl's NPU recipes: `DATA_CONFIG=(` with one override a line, then
    `)`): its elements, filled in with the variables as bash does where it is set, once its `)` closes it."""
    if array is None:
        start = _ARRAY.match(line)
        assert start is not None
        array, line = (start.group(1), at, ""), line[start.end() :]
    name, first, so_far = array
    line = bash.arithmetic(line, variables, source, strict=False)
    depth = 1
    for i, ch in unquoted(line):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            words = bash.shell_words(f"{so_far} {line[:i]}", f"{source}:{first}")
            arrays[name] = ([_substitute(word, variables, unset) for word in words], first)
            return None
    return name, first, f"{so_far} {line}"


def _expanded(token: str, arrays: dict[str, tuple[list[str], int]], at: str, read: list[str]) -> list[str]:
    """The command's word, or the elements of the array it hands on (`"${DATA_CONFIG[@]}"`); another use of an array
    is refused at its line (it was "not a `key=value` override; remove it", audit 29 F11)."""
    use = _ARRAY_USE.search(token)
    if use is None:
        return [token]
    name = use.group(1)
    if name in arrays and token in (f"${{{name}[@]}}", f"${{{name}[*]}}"):
        elements, line = arrays[name]
        read.append(f"`{name}` (line {line}, {len(elements)} elements)")
        return elements
    raise JobError(
        f'{at}: `{token}`: init reads a bash array only whole, `"${{{name}[@]}}"`, of an array the script sets as '
        f"`{name}=(...)` before the command; write these overrides on the command line (or the array so) and run again"
    )


def _orphan(tokens: list[str], at: bash.Logical, command: bash.Logical, source: str) -> None:
    """Refused: a line of overrides after the command's end, which bash runs as a command of its own (`trainer.save_freq=20:
    command not found`) while the job runs without them (a comment inside the continuation cut it, audit 29 F8)."""
    if not tokens or not re.match(r"[+~]?[A-Za-z_][\w-]*(\.[\w-]+)+=", tokens[0]):
        return
    why = (
        f"the comment on line {command.comment} ends the command there (bash ends a command at a comment, inside its "
        "`\\`-continued lines too); move the comment out of the command (above it)"
        if command.comment
        else f"line {command.end}, the command's last, does not end in `\\`; add it"
    )
    raise JobError(
        f"{source}:{at.start}: `{' '.join(tokens)[:60]}` is not part of the command: {why} and run again (bash runs "
        "this line as a command of its own, which fails, and the job without it)"
    )


def _split(token: str, variables: dict[str, str], split: list[str], set_at: dict[str, int]) -> list[str]:
    """The command's word, or the words of the variable it is when unquoted (`$ACTOR_CONFIG` holding several
    overrides: bash splits its value at spaces and line ends, verl's `run_qwen30b_gspo.sh` style; it was one word,
    which hydra cannot read, audit 36 F7); a variable the script does not set stays as written."""
    if not token.startswith(bash.SPLIT):
        return [token]
    name = token[1:].strip("{}")
    if name not in variables:
        return ["$" + token[1:]]
    words = _substitute("$" + token[1:], variables, set()).split()
    if len(words) == 1 and re.search(r"\$\{?\w", words[0]):  # `$head`, set to `${NODES[0]}`: said by its name
        return ["$" + token[1:]]
    if len(words) != 1:  # one word: as written
        split.append(f"`${token[1:]}` (set at line {set_at.get(name, '?')}, {len(words)} words)")
    return words


def _entry(token: str, variables: dict[str, str]) -> bool:
    """`token` runs main_ppo: `verl.trainer.main_ppo` (or a path ending in it), or a variable the script sets to it
    (`ENTRY=verl.trainer.main_ppo` then `python3 -m $ENTRY`); not that assignment itself."""
    if token == ENTRY or (token.endswith(ENTRY) and not bash.ASSIGN.match(token)):
        return True
    return "$" in token and _substitute(token, variables, set()) == ENTRY


def _wrapped(tokens: list[str], line: int) -> tuple[int, str, str] | None:
    """`srun bash -c 'python3 -m verl.trainer.main_ppo ...'`: its line, the shell, the string (audit 36 F12)."""
    for i in range(1, len(tokens) - 1):
        if tokens[i] == "-c" and re.search(r"(^|/)(ba|z|da)?sh$", tokens[i - 1]) and ENTRY in tokens[i + 1]:
            return line, tokens[i - 1], tokens[i + 1]
    return None


def _joined_flags(tokens: list[str]) -> list[str]:
    """`--config-name ppo_trainer` (hydra takes the value as the next word) as `--config-name=ppo_trainer`."""
    out: list[str] = []
    for token in tokens:
        if out and out[-1] in ("--config-name", "-cn", "--config-path", "-cp") and not token.startswith("-"):
            out[-1] += "=" + token
        else:
            out.append(token)
    return out


def _substitute(value: str, variables: dict[str, str], unset: set[str]) -> str:
    # `~` after hydra has read the value (hydra's grammar refuses a bare `~`): HOME's stand-in, put back later
    return substitute(value, variables, unset, special={"HOME": HOME_MARK})


class _Known(NamedTuple):
    """What the script does with the variables it leaves unknown to init."""

    computed: set[str]
    runtime: set[str]
    arrays: dict[str, tuple[list[str], int]]
    variables: dict[str, str]
    set_at: dict[str, int]

    def partial(self, name: str) -> bool:
        """Set in the script to a value init cannot know (`head_node=${nodes_array[0]}`)."""
        return name in self.variables and re.search(r"\$\{?\w", self.variables[name]) is not None

    def why(self, name: str) -> str:
        if self.partial(name):
            return f"set at line {self.set_at.get(name, '?')} to `{self.variables[name]}`, known only when the job runs"
        if name in self.computed:
            return "set from a command (`$(...)`) the script runs, which init does not run"
        if name in self.arrays:
            return (f"an element of the bash array the script sets at line {self.arrays[name][1]}, which init reads "
                    "only whole")  # fmt: skip
        if name in self.runtime:
            return "filled by the script as it runs, by `read` or a `for` loop, which init does not run"
        return "not set in the script: the machine's environment gives it"


CLUSTER_FLAGS = {"trainer.nnodes": "--nodes", "trainer.n_gpus_per_node": "--gpus-per-node"}
"""The cluster's keys and init's flags that give them."""

_WHOLE_VARIABLE = re.compile(r"\$(\w+)|\$\{(\w+)\}")


def _machine_value(
    word: str,
    cluster: dict[str, int | None],
    at: str,
    known: _Known,
    notes: list[str],
    sbatch: dict[str, tuple[int, int, str]],
    missing: list[str],
) -> str:
    """`trainer.nnodes=$SLURM_NNODES`: a cluster key whose value is a variable the machine fills when the job runs
    (the script does not set it, or sets it from a command), filled from init's flag, said; without the flag, from the
    script's own `#SBATCH` request (`slurm.py`), said (audit 38 F11); without either, named in `missing` (every such
    key is refused at once, naming its flag: it was "verl expects a number ... write the value instead", audit 36 F2).
    A flag that differs from the script's `#SBATCH` request is taken, said beside it."""
    key, _, value = word.partition("=")
    whole = _WHOLE_VARIABLE.fullmatch(value)
    if key not in CLUSTER_FLAGS or whole is None:
        return word
    name, flag, given = whole.group(1) or whole.group(2), CLUSTER_FLAGS[key], cluster.get(key)
    why = known.why(name)
    requested = sbatch.get(key)
    if given is None and requested is None:
        missing.append(
            f"{at}: `{word}`: `${name}` is known only when the job runs ({why}); the number is needed: pass "
            f"`{flag} N` ({flag} N fills `{key}`; the script can keep `${name}`)"
        )
        return word
    if given is None and requested is not None:
        number, line, said = requested
        notes.append(f"{at}: `{word}` read as `{key}={number}`, from the script's `{said}` (line {line}), which slurm "
                     f"gives the job as `${name}`; {flag} N gives another")  # fmt: skip
        return f"{key}={number}"
    if requested is not None and requested[0] != given:
        number, line, said = requested
        notes.append(f"{at}: `{word}` read as `{key}={given}`, from {flag} {given}, where the script's `{said}` (line "
                     f"{line}) runs the job with {number}: the flag is taken; check it is the cluster you mean")  # fmt: skip
        return f"{key}={given}"
    notes.append(f"{at}: `{word}` read as `{key}={given}`, from {flag} {given} (`${name}`: {why})")
    return f"{key}={given}"


def from_script(text: str, source: str, *, cluster: dict[str, int | None] | None = None, added: bool = False) -> Job:
    """The job `text` (a run script or command line) runs. With `cluster` (init's flags, by the key each gives,
    `CLUSTER_FLAGS`), a cluster key whose value is a variable known only when the job runs is filled from its
    flag, or refused naming the flag when it is None; without it, left as written (named, as any unset variable).
    `added`: a `+key=value` override is kept in `flat` as `+key` (calibrate reads a run's config, where the run may
    add keys) instead of read by what the key is to verl (`overrides.parse_overrides`: kept into an open map, read as the
    override on a declared key, else refused: init's space cannot hold it). The words refused are in `Job.refused`,
    said by `job.check_keys` with the unknown keys; with `added` (no key check follows) raised here, all at once."""
    variables: dict[str, str] = {}
    env: dict[str, str] = {}
    unset: set[str] = set()
    notes: list[str] = []
    command_line: list[str] | None = None
    computed: set[str] = set()
    runtime: set[str] = set()  # filled as the script runs: `read NAME`, `for NAME in`
    set_at: dict[str, int] = {}  # the line of each variable's (last) assignment
    wrapped: tuple[int, str, str] | None = None  # a `bash -c '...main_ppo...'`: its line, shell, string
    conditional: list[str] = []  # set inside an `if`, `case` or loop: read as if it ran
    depth = 0
    command: bash.Logical | None = None
    blocks: list[tuple[list[str], int]] = []  # the `if`, `case` and loops open here: their first words, their line
    function: tuple[str, int] | None = None  # the function whose body this is: its name, its line
    outer = Outer([], None, [])
    arrays: dict[str, tuple[list[str], int]] = {}  # each bash array's elements (filled in) and line
    array: tuple[str, int, str] | None = None  # the array being read: name, line, text so far
    for logical, statement in (
        (lg, part) for lg in bash.logical_lines(text, source) for part in bash.statements(lg.text)
    ):
        line = bash.text_dollars(statement)
        if array is not None or _ARRAY.match(line):  # `NAME=(` ... `)`: a bash array's elements, over lines
            array = _array_part(array, line, logical.start, variables, unset, arrays, source)
            continue
        if defined := bash.FUNCTION.match(line):  # `train() {`, `function train {`: its body follows
            function, line = (defined.group(1) or defined.group(2), logical.start), line[defined.end() :]
        # worked out on the command's line (refused there when it cannot be); elsewhere a variable it cannot
        # work out is left to be named if the command uses it
        tokens = bash.shell_words(
            bash.arithmetic(line, variables, source, strict=ENTRY in line), f"{source}:{logical.start}"
        )
        if tokens[:1] and tokens[0] in ("then", "else", "do"):
            tokens = tokens[1:]  # `do python3 -m ...`: the command after the keyword
        if ENTRY in line and wrapped is None:
            wrapped = _wrapped(tokens, logical.start)
        entry = [t for t in tokens if _entry(t, variables)] if ENTRY in line or "$" in line else []
        if entry:  # `python3 -m $ENTRY` too; not `ENTRY=verl.trainer.main_ppo`
            if command_line is not None:
                raise JobError(
                    f"{source}:{logical.start}: runs {ENTRY} a second time (first at line {command.start if command else 0}"
                    "): one job is read: give a script (or file) with its one command"
                )
            tokens = bash.shell_words(
                bash.arithmetic(bash.bare_expansions(line), variables, source, True), f"{source}:{logical.start}"
            )
            split: list[str] = []
            command_line = [w for t in tokens for w in _split(t, variables, split, set_at)]
            command_line = [ENTRY if _entry(w, variables) else w for w in command_line]
            command = logical
            for via in [t for t in entry if not t.endswith(ENTRY)]:  # through a variable (audit 37 F10: its
                name = next(m.group(1) or m.group(2) for m in SHELL_VAR.finditer(via))  # assignment was the command)
                notes.append(f"`{via}` (set at line {set_at.get(name, '?')}) read as `{ENTRY}`, the command's module")
            if split:
                notes.append(
                    f"unquoted variables the command hands on, split into words as bash does: {', '.join(split)}"
                )
            outer = Outer([b for b in blocks if b[0][0] in ("for", "while", "until")], function, [])
            continue
        if command is not None:  # the job runs with the variables as they are at its command, not later ones
            _orphan(tokens, logical, command, source)
            if outer.function and tokens[:1] == [outer.function[0]]:
                outer.calls.append((logical.start, tokens[1:]))
            continue
        if tokens[:1] == ["}"]:
            function = None
        runtime.update(bash.filled_as_it_runs(tokens))
        if tokens[:1] and tokens[0] in ("if", "case", "for", "while", "until"):
            depth += 1
            blocks.append((tokens, logical.start))
        elif tokens[:1] and tokens[0] in ("fi", "esac", "done"):
            depth = max(depth - 1, 0)
            blocks = blocks[:-1]
        if tokens[:1] and (tokens[0] in ("then", "else", "do") or (depth and tokens[0].endswith(")"))):
            tokens = tokens[1:]  # `then export X=1`, a case branch's `vllm) TP=2`: the assignment after it
        exported = tokens[:1] == ["export"]
        for token in tokens[1:] if exported else tokens:
            if exported and token in variables:  # `NAME=value` then `export NAME`: the job has it too
                env[token] = variables[token]
                continue
            if not bash.ASSIGN.match(token):
                break  # `set -x`, `cd dir`, `ray start ...`: not an assignment
            if depth and token.partition("=")[0] not in conditional:
                conditional.append(token.partition("=")[0])
            name, _, value = token.partition("=")
            if "$(" in value or "`" in value:  # the output of a command: not known without running it
                variables.pop(name, None)
                computed.add(name)
                continue
            computed.discard(name)
            set_at[name] = logical.start
            variables[name] = _substitute(value, variables, unset)
            if exported:
                env[name] = variables[name]
    if command_line is None and wrapped is not None:
        at_line, shell, inner = wrapped
        said = " ".join(inner.replace("\\\n", " ").split()).replace(bash.TEXT_DOLLAR, "$")
        said = said[m.start() :] if (m := re.search(rf"\S*python\S*\s+-m\s+{re.escape(ENTRY)}", said)) else said
        raise JobError(
            f"{source}:{at_line}: the `python3 -m {ENTRY}` command is inside a `{shell} -c` string, which init does not "
            f"read (another shell runs it): give init the command the string holds, `{said[:100]}{' ...' * (len(said) > 100)}`, "
            "in a file of its own (its variables set before it), and run again"
        )
    if command_line is None:
        raise JobError(f"{source}: no `python3 -m {ENTRY} key=value ...` command found")
    at = next(i for i, t in enumerate(command_line) if t == ENTRY or t.endswith(ENTRY))
    prefix = command_line[: at + 1]
    while prefix and bash.ASSIGN.match(prefix[0]):  # NAME=value python3 -m ...: the command's environment
        name, _, value = prefix.pop(0).partition("=")
        env[name] = _substitute(value, variables, unset)
    if prefix[:1] == ["env"]:
        prefix.pop(0)
    known = _Known(computed, runtime, arrays, variables, set_at)
    prefix = _launcher(prefix, variables, known, f"{source}:{command.start if command else 0}", notes)
    words = []
    rest = _joined_flags(command_line[at + 1 :])
    ends = [i for i, t in enumerate(rest) if t in bash.SHELL_END or t.startswith((">", "2>", "1>"))]
    rest = rest[: ends[0]] if ends else rest

    def where(word: str) -> str:
        return _word_at(text, source, word)

    read: list[str] = []
    sbatch, missing = sbatch_cluster(text), list[str]()
    rest = [word for token in rest for word in _expanded(token, arrays, where(token), read)]
    if read:
        notes.append(f"bash arrays the command hands on, each element read as an override: {', '.join(read)}")

    own = _own_config(rest, where, lambda token: _substitute(token, variables, set()))
    for token in rest:
        if token in own:
            continue  # verl's own config, written out
        if token.startswith("-"):
            raise JobError(
                f"{where(token)}: `{token}`: autotune init reads jobs on verl's own ppo_trainer config; "
                "for a job on a config file of yours, give that YAML to `autotune init` instead, with the script's "
                "other overrides written into it (init reads the YAML alone)"
            )
        if SCRIPT_ARGUMENTS.fullmatch(token):
            notes.append(f"`{token}` (the script's arguments) left out")
            continue
        if "$(" in token or "`" in token:
            raise JobError(
                f"{where(token)}: `{token} ...` runs a command (`$(...)`) for its value, which init does not run; write "
                "the value in the command instead"
            )
        word = _substitute(token, variables, unset)
        words.append(
            word if cluster is None else _machine_value(word, cluster, where(token), known, notes, sbatch, missing)
        )
    if missing:  # every cluster key the job needs a number for, at once
        raise JobError("\n".join(missing) + (" and run again" if len(missing) == 1 else "\nand run again"))
    # the variables the command's values still name (an export's own, such as `$PATH`, are said below)
    unset = {m.group(1) or m.group(2) for word in words for m in SHELL_VAR.finditer(word) if m.group(3) is None}
    _outer_refused(outer, unset, command, source, notes)
    if conditional:
        notes.append(
            f"set inside an `if`, `case` or loop, read as if it ran: {', '.join(conditional)} (init does not run the "
            "script's conditions: check these are the values your job runs with)"
        )
    by_command = unset & computed
    if {n for n in unset - by_command if not n.isdigit()}:
        names = ", ".join(f"${n}" for n in sorted(unset - by_command) if not n.isdigit())
        notes.append(f"not set in the script, left as written: {names} (put their values in `base:` before a sweep)")
    if {n for n in unset if n.isdigit()}:
        notes.append(
            f"{unset_said(unset, only_arguments=True)}, left as written (put their values in `base:` before a sweep)"
        )
    if by_command:
        names = ", ".join(f"${n}" for n in sorted(by_command))
        notes.append(
            f"set by a command the script runs (`$(...)`), which init does not run, left as written: {names} "
            "(put their values in `base:` before a sweep)"
        )
    for name in [n for n, v in env.items() if "$" in v]:  # `export PATH=$PATH:/x`: the machine's value, extended
        value = env.pop(name)
        uses = sorted({m.group(1) for m in re.finditer(r"\$\{?(\w+)", value)} - {name})
        what = "extends the value the machine has" if re.search(rf"\$\{{?{name}\b", value) else (
            "takes a variable from the machine's environment (the script does not set it)")  # fmt: skip
        if any(known.why(n) != known.why("") for n in uses):  # `${ADDR[0]}` of `read -ra ADDR`: not the machine's
            what = "takes " + ", ".join(f"`${n}` ({known.why(n)})" for n in uses)
        notes.append(
            f"`{name}={value}` {what}, which a trial's environment (or the export's) cannot: left out of `env:`; set "
            "it on the machines the trials run on, or write the whole value"
        )
    words = [w.replace(bash.TEXT_DOLLAR, "$") for w in words]
    env = {k: v.replace(bash.TEXT_DOLLAR, "$") for k, v in env.items()}
    flat, more_env, refused = parse_overrides(words, where, notes, added)
    if refused and added:  # calibrate: no key check follows to say them with
        raise JobError("\n".join(refused))
    env = {k: home(v) for k, v in {**env, **more_env}.items()}
    return Job(flat, env, prefix, source, notes, tuple(sorted(unset)), _script_lines(text, flat), refused)


def _launcher(prefix: list[str], variables: dict[str, str], known: _Known, at: str, notes: list[str]) -> list[str]:
    """The command's launcher (`srun ... apptainer run --bind $verl_workdir $image python3 -m ...`) with the script's
    variables filled in, as in the overrides: trials run it as it is written, without a shell, so a `$NAME` left in
    would reach them as text (audit 36 F8). One the script does not set, or sets from a command, is kept and said,
    with the fix; so is `$HOME` (a trial's `~` is no home either, without a shell). `ray job submit --no-wait` is
    kept without `--no-wait`, said: a trial waits for its command to end, as its measure of the job; with the flag it
    ended at the submission, "failed" at once, while the job ran on, and each further trial submitted another
    (audit 37 F6)."""
    left: set[str] = set()
    out = []
    python = next((i for i, w in enumerate(prefix) if re.search(r"(^|/)python[\d.]*$", w)), len(prefix))
    if NO_WAIT in prefix[:python]:
        prefix = [w for i, w in enumerate(prefix) if w != NO_WAIT or i > python]
        notes.append(
            f"{at}: `{NO_WAIT}` dropped from the launcher: each trial must wait for its job (autotune measures the "
            "job as the command runs and starts the next trial when it ends); with it, every trial would end at the "
            "submission, as failed, while its job went on holding the GPUs"
        )
    for word in prefix:
        known_values = {k: v for k, v in variables.items() if not known.partial(k)}  # `$head_node`, not its value
        filled = substitute(word, known_values, special={"HOME": HOME_MARK}).replace(HOME_MARK, "$HOME")
        left |= {m.group(1) for m in re.finditer(r"\$\{?(\w+)", filled)}  # `${nodes_array[0]}` too
        out.append(filled.replace(bash.TEXT_DOLLAR, "$"))
    if left:
        why = [f"`${name}` ({known.why(name)})" for name in sorted(left)]
        python = next((i for i, w in enumerate(out) if re.search(r"(^|/)python[\d.]*$", w)), 0)  # none: no drop
        drop = (
            f", or drop `{' '.join(out[:python])}` from it (trials then run verl where autotune runs)" if python else ""
        )
        notes.append(
            f"{at}: the launcher keeps {', '.join(why)}: trials run the space's `command:` as written, without a shell, "
            f"so each would get the text itself: write the value in `command:`{drop}"
        )
    return out


_OWN_CONFIG_PATHS = ("config", "config/", "./config", "./config/")
"""`--config-path` values naming verl's own config folder: hydra reads them beside main_ppo.py, verl/trainer/config."""


def _own_config(args: list[str], where: Callable[[str], str], filled: Callable[[str], str]) -> set[str]:
    """The command's `--config-path`/`--config-name` flags when they name verl's own ppo_trainer config (its default,
    written out: `--config-path=config --config-name=ppo_trainer`), to be left out. A Megatron job is refused
    first, whatever else it passes: `--config-name=ppo_megatron_trainer` (every Megatron example of verl, after a
    `--config-path=config`), `model_engine=megatron`, a role's `strategy=megatron` (audit 29 F6)."""
    flags = {t.partition("=")[0]: t for t in args if t.startswith("-")}
    name_flag = flags.get("--config-name") or flags.get("-cn")
    path_flag = flags.get("--config-path") or flags.get("-cp")
    name = name_flag.partition("=")[2].removesuffix(".yaml") if name_flag else "ppo_trainer"
    if "megatron" in name and name_flag:
        raise engine_refused(where(name_flag), name_flag, "megatron")
    for token in args:
        key, _, value = filled(token).partition("=")
        if (engine := engine_of(key, value)) is not None:
            raise engine_refused(where(token), token, engine)
    own = name == "ppo_trainer" and (path_flag is None or path_flag.partition("=")[2] in _OWN_CONFIG_PATHS)
    return {flag for flag in (name_flag, path_flag) if flag is not None} if own else set()


def _word_at(text: str, source: str, word: str) -> str:
    """`source:line` of a word of the command as the script writes it (its key, quoted or not), the first line from
    the command's on where it is found; the source alone where it is not."""
    lines = [without_comment(line) for line in text.splitlines()]
    start = next((n for n, line in enumerate(lines) if ENTRY in line), 0)
    key = word.partition("=")[0]
    for needle in (word, key):
        pattern = re.compile(rf"(?:^|[\s'\"]){re.escape(needle)}(?=$|[\s'\"=])")
        found = next((n + 1 for n in [*range(start, len(lines)), *range(start)] if pattern.search(lines[n])), None)
        if found:
            return f"{source}:{found}"
    return source


def _script_lines(text: str, keys: dict[str, Any]) -> dict[str, int]:
    """The physical line of each key's override (its last, as hydra's last wins): the script is read with its
    `\\`-continued lines joined, so the line to show is found again in the text as written."""
    physical = [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if not ln.lstrip().startswith("#")]
    found = {}
    for key in keys:
        setting = re.compile(rf"(?:^|[\s'\"])\+{{0,2}}{re.escape(key)}=")  # `+key=`, `++key=` too (audit 37 F4)
        hits = [n for n, ln in physical if setting.search(ln)]
        if hits:
            found[key] = hits[-1]
    return found
