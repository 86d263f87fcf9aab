#!/usr/bin/env python3
"""Corrupt-model regression suite (issue 14).

For each kind of file pdlite reads -- a program, combined parameters, one
per-variable parameter file, an .npy input -- makes generated corruptions
(truncation at every 1/64th of the file, bytes flipped or zeroed at fixed
seeds, garbage appended) and runs `pdlite run` on each in a scratch copy of
the model. Every run must end within the time limit with exit 0 (wrong but
well-formed bytes, such as a flipped weight, still load) or exit 1 with a
message naming the corrupted file, a variable or an op; a truncated file
must always be exit 1. Anything else (a signal, another exit code, a hang)
fails.

  corrupt_models.py PDLITE SOURCE_DIR [SHARED_DIR]
"""
import os
import re
import random
import shutil
import subprocess
import sys
import tempfile

TIMEOUT_S = 10


def corruptions(data, seed):
    """(label, bytes, must_fail) for one file's contents."""
    n = len(data)
    for k in range(64):
        cut = n * k // 64
        yield f"truncated at {k}/64 ({cut} of {n} bytes)", data[:cut], True
    rng = random.Random(seed)
    for s in range(24):
        b = bytearray(data)
        flips = rng.choice([1, 2, 8])
        for _ in range(flips):
            i = rng.randrange(n)
            b[i] ^= rng.randrange(1, 256)
        yield f"{flips} byte(s) flipped (draw {s})", bytes(b), False
    for s in range(8):
        b = bytearray(data)
        start = rng.randrange(n)
        length = rng.choice([4, 64, 4096])
        b[start:start + length] = bytes(len(b[start:start + length]))
        yield f"{length} bytes zeroed at {start}", bytes(b), False
    yield "garbage appended", data + bytes(rng.randrange(256) for _ in range(77)), False
    yield "random bytes", bytes(rng.randrange(256) for _ in range(n)), False


def run_case(pdlite, model_dir, target, inputs, label, payload, must_fail,
             named, work, input_arg=None):
    with open(target, "wb") as f:
        f.write(payload)
    cmd = [pdlite, "run", "--model", model_dir, "--threads", "1",
           "--output-dir", os.path.join(work, "out")]
    if input_arg:
        cmd += ["--input", input_arg]
    cmd += ["--inputs", inputs]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              errors="replace", timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"{label}: no answer after {TIMEOUT_S} s"
    text = proc.stdout + proc.stderr
    if proc.returncode < 0:
        return f"{label}: killed by signal {-proc.returncode}\n{text[-1500:]}"
    if proc.returncode == 0:
        return f"{label}: ran, but a truncated file must fail" if must_fail else None
    if proc.returncode != 1:
        return f"{label}: exit {proc.returncode}\n{text[-1500:]}"
    # An op is named as "op 'type' (#i ..." or, in the list of ops without
    # a kernel, as "#i type".
    if not any(name in text for name in named) and not re.search(r"#[0-9]+ ", text):
        return f"{label}: the message names none of {named}:\n{text[-800:]}"
    return None


def suite(pdlite, title, source_model, relative_target, inputs, seed,
          named_extra=(), npy_input=None):
    """Corrupts one file of a scratch copy of `source_model`."""
    failures = []
    count = 0
    with tempfile.TemporaryDirectory(prefix="pdlite-corrupt-") as work:
        model = os.path.join(work, "model")
        shutil.copytree(source_model, model,
                        ignore=shutil.ignore_patterns("ref", "*.onnx"))
        input_arg = None
        if npy_input:
            name, path = npy_input
            target = os.path.join(work, "input.npy")
            shutil.copy(path, target)
            input_arg = f"{name}={target}"
        else:
            target = os.path.join(model, relative_target)
        with open(target, "rb") as f:
            data = f.read()
        named = [os.path.basename(target), "op '", "variable '",
                 "parameter '"] + list(named_extra)
        for label, payload, must_fail in corruptions(data, seed):
            count += 1
            problem = run_case(pdlite, model, target, inputs, label, payload,
                               must_fail, named, work, input_arg)
            if problem:
                failures.append(problem)
    status = "ok" if not failures else f"{len(failures)} FAILED"
    print(f"{title}: {count} corruptions, {status}")
    for problem in failures[:10]:
        print("  " + problem.replace("\n", "\n    "))
    return count - len(failures), len(failures)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    pdlite, source = sys.argv[1], sys.argv[2]
    shared = sys.argv[3] if len(sys.argv) > 3 else os.path.join(source, "..", "shared")
    demo = os.path.join(source, "models", "demo_convnet")
    cases = [
        ("program (demo_convnet)", demo, "model.pdmodel", demo, 1, None),
        ("combined params (demo_convnet)", demo, "model.pdiparams", demo, 2, None),
        ("npy input (demo_convnet)", demo, None, demo, 3,
         ("x", os.path.join(demo, "input_x.npy"))),
    ]
    models = os.path.join(shared, "models")
    mnist = os.path.join(models, "mnist_mlp_fluid")
    cls = os.path.join(models, "ppocr_cls_mobile_v2")
    if os.path.isdir(mnist):
        params = sorted(f for f in os.listdir(mnist)
                        if f not in ("__model__", "ref") and
                        os.path.isfile(os.path.join(mnist, f)))
        # The largest parameter file and the program of a per-variable model.
        largest = max(params, key=lambda f: os.path.getsize(os.path.join(mnist, f)))
        cases += [
            ("per-variable params (mnist_mlp_fluid/" + largest + ")", mnist,
             largest, os.path.join(mnist, "ref"), 4, None),
            ("program (mnist_mlp_fluid/__model__)", mnist, "__model__",
             os.path.join(mnist, "ref"), 5, None),
        ]
    if os.path.isdir(cls):
        cases += [
            ("program (ppocr_cls_mobile_v2)", cls, "inference.pdmodel",
             os.path.join(cls, "ref"), 6, None),
        ]
    else:
        print(f"{models}: not there; the real-model cases are skipped")
    passed = failed = 0
    for title, model, target, inputs, seed, npy in cases:
        p, f = suite(pdlite, title, model, target, inputs, seed, npy_input=npy)
        passed += p
        failed += f
    print(f"corrupt_models: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
