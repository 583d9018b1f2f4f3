"""How bash reads a script's text: its commands, words, quotes and arithmetic (the lexical layer of `script.py`).

Lines continued with `\\` are joined and comments cut off as bash does (a comment ends its command, inside a
continuation too); a quote left open at a line's end carries the string on; here-documents are skipped; a line's
statements are split at `;` and `&&`; `$((...))` is worked out as bash's integer arithmetic; a `$` bash reads as
text (in single quotes, or escaped) is marked so that filling in variables leaves it alone. What the words mean to
verl is `script.py`'s.
"""

from __future__ import annotations

import itertools
import re
import shlex
from typing import NamedTuple

from autotune.adapters.verl_config import shell_chars, unquoted, without_comment
from autotune.scaffold.job import JobError

ASSIGN = re.compile(r"^[A-Za-z_]\w*=")


SHELL_END = {"|", "||", "&&", ";", "&", ">", ">>", "2>&1", "1>&2", "<"}


class Logical(NamedTuple):
    start: int
    """The physical line it starts on (from 1)."""
    end: int
    text: str
    comment: int | None
    """The line of the comment that ended it (bash ends a command at a comment, a `\\` in the comment or not)."""


def logical_lines(text: str, source: str) -> list[Logical]:
    """The script's commands as bash reads them: `\\`-continued lines joined, each comment cut off, a comment ending
    its line whatever came before (a `\\` before it, or a comment line inside the continuation, does not carry the
    command on past it: what follows is another command)."""
    out: list[Logical] = []
    current, start, opened, heredoc = "", 0, 0, ""
    for n, raw in enumerate(text.splitlines(), 1):
        if heredoc:  # a here-document's text, up to its delimiter: not commands (its `'` opens no quote)
            heredoc = "" if raw.removesuffix("\r").strip() == heredoc else heredoc
            continue
        joined = current + raw.removesuffix("\r")
        kept = without_comment(joined)  # before `;` splits it: `x=1  # a; b=2` sets x only
        if quote := _open_quote(kept):  # `ACTOR_CONFIG="` on its own line: the string goes on (audit 36 F7)
            opened = opened if current and _open_quote(current) else n
            escaped = (len(kept) - len(kept.rstrip("\\"))) % 2 and quote == '"'  # `\` ends a line in "...": joined
            current, start = (kept[:-1] if escaped else kept + "\n"), start or n
            continue
        trailing = len(kept.rstrip()) - len(kept.rstrip().rstrip("\\"))
        if trailing % 2 and kept.rstrip() != kept:  # `value \  # note`: `\ ` is an escaped space, not a continuation
            raise JobError(
                f"{source}:{n}: a `\\` followed by a space{' and a comment' if kept != joined else ''} ends the command "
                "on this line (bash reads `\\ ` as an escaped space, not as a line continuation), and runs the lines "
                "after it as another command; delete what follows the `\\` (a comment goes on its own line, above "
                "the command)"
            )
        if kept == joined and trailing % 2:
            current, start = kept[:-1] + " ", start or n
            continue
        if kept.strip():
            out.append(Logical(start or n, n, kept.strip(), n if kept != joined else None))
        here = _HEREDOC.search(kept)
        if here and kept[: here.start()].count("((") <= kept[: here.start()].count("))"):  # not `$((1 << n))`
            heredoc = here.group(2)
        current, start = "", 0
    if quote := _open_quote(current):
        raise JobError(
            f"{source}:{opened}: the `{quote}` opened on this line is not closed by the end of the file: bash refuses "
            f"the script (`bash -n {source}` says so); close the quote and run again"
        )
    if current.strip():
        out.append(Logical(start, start, current.strip(), None))
    return out


_HEREDOC = re.compile(r"(?<!<)<<-?(?!<)\s*(['\"]?)([A-Za-z_]\w*)\1")
"""A here-document's start, `cat <<EOF`, `<<-'END'` (not a here-string, `<<<`): its delimiter."""


def _open_quote(text: str) -> str:
    """The quote (`'` or `"`) still open at the end of `text`, as bash reads it; "" when none is."""
    quote = ""
    for _, ch, where in shell_chars(text):
        if where == "syntax" and ch in "'\"":
            quote = "" if quote else ch
    return quote


FUNCTION = re.compile(r"(?:function\s+([A-Za-z_][\w-]*)\s*(?:\(\s*\))?|([A-Za-z_][\w-]*)\s*\(\s*\))\s*\{?\s*")
"""A function's definition, `train() {` or `function train {`, up to its body."""


TEXT_DOLLAR = "\x00"
"""Stands for a `$` bash reads as text (`'run_$N'`, `\\$N`) while the line's variables are filled in."""


def text_dollars(line: str) -> str:
    """The line with each `$` bash does not expand (inside single quotes, or escaped) as `TEXT_DOLLAR`."""
    out: list[str] = []
    for _, ch, where in shell_chars(line):
        if ch == "$" and where == "\\":
            out[-1] = TEXT_DOLLAR  # its backslash goes too, as in bash
        else:
            out.append(TEXT_DOLLAR if ch == "$" and where == "'" else ch)
    return "".join(out)


SPLIT = "\x01"
"""Stands for the `$` of an unquoted word that is one variable (`$ACTOR_CONFIG`), which bash splits into words."""

_BARE = re.compile(r"\$(?:[A-Za-z_]\w*|\{[A-Za-z_]\w*\})(?=\s|$)")


def bare_expansions(line: str) -> str:
    """The line with the `$` of each unquoted word that is one variable as `SPLIT`."""
    free = {i for i, _ in unquoted(line)}
    out = list(line)
    for m in _BARE.finditer(line):
        i = m.start()
        if i in free and (i == 0 or (line[i - 1].isspace() and i - 1 in free)):
            out[i] = SPLIT
    return "".join(out)


def shell_words(line: str, source: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise JobError(f"{source}: cannot read `{line[:80]}`: {exc} (an unclosed quote?)") from None


def statements(line: str) -> list[str]:
    """A line's commands, split at `;` and `&&` outside quotes and parentheses (`n=4; lr=1e-6` set only `n`:
    the second was read as a word), each run in turn as bash does."""
    out, depth, begin, skip = [], 0, 0, -1
    for i, ch in unquoted(line):
        if ch in "()":
            depth += 1 if ch == "(" else -1
        elif depth == 0 and i > skip and (ch == ";" or line.startswith("&&", i)):
            out.append(line[begin:i])
            begin = skip = i + (2 if ch == "&" else 1)
    out.append(line[begin:])
    return [part.strip() for part in out if part.strip() and part.strip() != "&"]


def arithmetic(line: str, variables: dict[str, str], source: str, strict: bool) -> str:
    """The line with each `$((...))` worked out as bash does for integers (`$((1024 * 2))`, `$((max_prompt_length
    + max_response_length))`: a sixth of verl's example scripts); one it cannot work out is refused, named, when
    `strict`, else left as written."""
    out, i = [], 0
    while (start := line.find("$((", i)) >= 0:
        depth, end = 0, None
        for j in range(start + 1, len(line)):
            depth += {"(": 1, ")": -1}.get(line[j], 0)
            if depth == 0:
                end = j
                break
        if end is None or line[end - 1] != ")":
            raise JobError(f"{source}: cannot read the shell arithmetic in `{line[start : start + 60]}`")
        expr = line[start + 3 : end - 1]
        try:
            out.append(line[i:start] + str(_integer(expr, variables, source)))
        except JobError:
            if strict:
                raise
            out.append(line[i : end + 1])
        i = end + 1
    return "".join(out) + line[i:]


def _integer(expr: str, variables: dict[str, str], source: str) -> int:
    import ast

    def name(m: re.Match[str]) -> str:
        key = m.group(1) or m.group(2) or m.group(3)
        if key not in variables:
            raise JobError(f"{source}: `$(({expr}))` uses `{key}`, which the script does not set; write the number")
        return f"({variables[key]})"

    text = re.sub(r"\$\{(\w+)\}|\$(\w+)|\b([A-Za-z_]\w*)\b", name, expr)

    def divided(a: int, b: int) -> int:  # bash divides as C does, toward zero: $((-7 / 2)) is -3, not -4
        return abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)

    def remainder(a: int, b: int) -> int:  # and its remainder takes the dividend's sign: $((-7 % 2)) is -1
        return a - b * divided(a, b)

    ops = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__, ast.Div: divided,
           ast.FloorDiv: divided, ast.Mod: remainder}  # fmt: skip

    def value(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return -value(node.operand) if isinstance(node.op, ast.USub) else value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](value(node.left), value(node.right))
        raise ValueError(ast.dump(node))

    try:
        return value(ast.parse(text.strip(), mode="eval").body)
    except ZeroDivisionError:
        raise JobError(f"{source}: `$(({expr}))` divides by zero (bash refuses it too); write the number") from None
    except (SyntaxError, ValueError):
        raise JobError(
            f"{source}: `$(({expr}))` is not integer arithmetic init can work out (+ - * / %); write the number"
        ) from None


def filled_as_it_runs(tokens: list[str]) -> list[str]:
    """The variables a statement fills when it runs: `read -ra ADDR <<<...`'s, `for node in ...`'s."""
    words = list(itertools.dropwhile(ASSIGN.match, tokens))  # `IFS=' ' read ...`
    if words[:1] == ["for"] and len(words) > 1:
        return [words[1]]
    if words[:1] != ["read"]:
        return []
    ends = [i for i, t in enumerate(words) if t in SHELL_END or t.startswith("<")]
    return [t for t in words[1 : ends[0] if ends else None] if re.fullmatch(r"[A-Za-z_]\w*", t)]
