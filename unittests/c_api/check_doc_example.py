#!/usr/bin/env python3
"""Every ```c block of a document appears verbatim in a source file, so the
example a reader copies is code a test compiles and runs.

  check_doc_example.py DOC.md SOURCE.c
"""
import sys


def c_blocks(lines):
    """(first line number, text) of each ```c block."""
    start, text = None, []
    for number, line in enumerate(lines, 1):
        if start is None and line.strip() == "```c":
            start, text = number + 1, []
        elif start is not None and line.strip() == "```":
            yield start, "".join(text)
            start = None
        elif start is not None:
            text.append(line)
    if start is not None:
        raise SystemExit(f"unterminated ```c block from line {start}")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    doc, source = sys.argv[1], sys.argv[2]
    with open(doc) as f:
        blocks = list(c_blocks(f.readlines()))
    with open(source) as f:
        code = f.read()
    bad = [(line, text) for line, text in blocks if not text or text not in code]
    for line, text in bad:
        print(f"FAIL: {doc}:{line}: this ```c block is not a verbatim part of {source}:\n{text}")
    print(f"{doc}: {len(blocks)} ```c blocks, {len(blocks) - len(bad)} found in {source}")
    return 1 if bad or not blocks else 0


if __name__ == "__main__":
    sys.exit(main())
