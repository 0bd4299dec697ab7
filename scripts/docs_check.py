#!/usr/bin/env python3
"""Runs every shell block of the documentation, so the docs cannot go stale.

Each ```sh block of README.md, CONTRIBUTING.md and docs/*.md is run, in order, one shell per
document, in a fresh directory with a fresh HOME (so a fresh database), tokenctl on PATH and
the repository's Deeplinks/, Config/ and scripts/ beside it. Each command must exit 0, or the status its
trailing comment names (`# exit 2: DECLINED`). A command ending in `&` runs in the background
and is waited for: until its --port accepts connections, or for `serve` until its socket
exists; what is still running when the document ends is stopped. A block that cannot run here
(a production host, root, a terminal) is marked by the line before it:
<!-- docs-check: skip REASON -->.

Usage: scripts/docs_check.py BUILD_DIR [FILE…]
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = re.compile(r"<!--\s*docs-check:\s*skip\s+(.*?)\s*-->")
EXPECTED = re.compile(r"#\s*(?:→\s*)?exit (\d+)")


def blocks(path):
    """(line number, text) of each ```sh block, and (line number, reason) of each skipped one."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found, skipped, index = [], [], 0
    while index < len(lines):
        if lines[index].strip() == "```sh":
            start = index + 1
            end = start
            while lines[end].strip() != "```":
                end += 1
            before = lines[index - 1] if index > 0 else ""
            reason = SKIP.search(before)
            if reason:
                skipped.append((start, reason.group(1)))
            else:
                found.append((start, lines[start:end]))
            index = end
        index += 1
    return found, skipped


def commands(start, lines):
    """(line number, command, expected status, background) of each command of a block."""
    result, pending, first = [], "", None
    for offset, line in enumerate(lines):
        if first is None:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            first = start + offset + 1
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        text = pending + line
        pending = ""
        code, comment = split_comment(text)
        expected = EXPECTED.search(comment)
        background = code.rstrip().endswith("&") and not code.rstrip().endswith("&&")
        result.append((first, code.rstrip(), int(expected.group(1)) if expected else 0, background))
        first = None
    return result


def split_comment(text):
    """The command and its trailing comment (a # outside quotes, after a space)."""
    quote = None
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and index > 0 and text[index - 1] in " \t":
            return text[:index], text[index:]
    return text, ""


def script(path, commands_of_file):
    name = os.path.relpath(path, REPOSITORY)
    out = ['log="$DOCS_CHECK_LOG"']
    for line, code, expected, background in commands_of_file:
        where = f"{name}:{line}"
        out.append(f"printf '%s\\n' {shlex.quote('$ ' + code)} >> \"$log\"")
        if background:
            out.append(f"{code[:-1].rstrip()} >> \"$log\" 2>&1 &")
            port = re.search(r"--port[ =](\d+)", code)
            if port and port.group(1) != "0":
                out.append(f"for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/{port.group(1)}) 2>/dev/null && break; sleep 0.05; done")
            elif re.search(r"\bserve\b", code):
                socket = re.search(r"--socket[ =](\S+)", code)
                target = socket.group(1) if socket else '"$XDG_RUNTIME_DIR/tokenctl/tokenctl.sock"'
                out.append(f"for _ in $(seq 200); do [ -S {target} ] && break; sleep 0.05; done")
            else:
                out.append("sleep 0.3")
            continue
        out.append(f"{{ {code}\n}} >> \"$log\" 2>&1 < /dev/null")
        out.append(
            f"status=$?; if [ $status != {expected} ]; then echo {shlex.quote(where)}\": exited $status, expected {expected}: \"{shlex.quote(code)}; "
            "exit 1; fi"
        )
    return "\n".join(out) + "\n"


def run(build, path):
    found, skipped = blocks(path)
    listed = [command for start, lines in found for command in commands(start, lines)]
    name = os.path.relpath(path, REPOSITORY)
    with tempfile.TemporaryDirectory(prefix="docs-check.") as work:
        for entry in ("Deeplinks", "Config", "scripts"):
            os.symlink(os.path.join(REPOSITORY, entry), os.path.join(work, entry))
        os.chmod(work, 0o755)  # the private PostgreSQL's user starts there
        home = os.path.join(work, "home")
        runtime = os.path.join(work, "run")
        os.makedirs(home)
        os.makedirs(runtime, mode=0o700)
        environment = {
            "HOME": home, "XDG_RUNTIME_DIR": runtime, "LANG": "C.UTF-8", "TERM": "dumb",
            "PATH": f"{build}:{os.path.join(REPOSITORY, 'Deeplinks')}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "TOKENCTL": os.path.join(build, "tokenctl"), "DOCS_CHECK_LOG": os.path.join(work, "log"),
        }
        process = subprocess.Popen(["bash", "-c", script(path, listed) + "kill $(jobs -p) 2>/dev/null; wait; exit 0"],
                                   cwd=work, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            output, _ = process.communicate(timeout=600)
        finally:
            try:
                os.killpg(process.pid, 9)
            except ProcessLookupError:
                pass
        if process.returncode != 0:
            log = open(environment["DOCS_CHECK_LOG"], encoding="utf-8", errors="replace").read()
            sys.stderr.write(log[-4000:] + "\n" + output.decode(errors="replace"))
            sys.stderr.write(f"docs-check: {name} failed (its log above)\n")
            return False
        if os.environ.get("DOCS_CHECK_VERBOSE"):
            sys.stdout.write(open(environment["DOCS_CHECK_LOG"], encoding="utf-8", errors="replace").read())
    note = "".join(f"; skipped {name}:{line} ({reason})" for line, reason in skipped)
    print(f"docs-check: {name}: {len(found)} blocks, {len(listed)} commands ran as documented{note}")
    return True


def main():
    build = os.path.abspath(sys.argv[1])
    files = sys.argv[2:] or ["README.md", "CONTRIBUTING.md"] + sorted(
        os.path.join("docs", name) for name in os.listdir(os.path.join(REPOSITORY, "docs")) if name.endswith(".md"))
    results = [run(build, os.path.join(REPOSITORY, name)) for name in files if os.path.exists(os.path.join(REPOSITORY, name))]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
