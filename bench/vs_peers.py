#!/usr/bin/env python3
"""pdlite against Paddle Inference, OpenVINO and ONNX Runtime, side by side.

Usage:
    python3 bench/vs_peers.py [--models a,b,...] [--threads 1,2] [--rounds 3]
                              [--warmup 5] [--iters 20] [--quick]
                              [--peers paddle,openvino,ort] [--json FILE]
                              [--markdown]
    python3 bench/vs_peers.py --stream [--models a,b] [--shapes SPEC]
                              [--samples 24] [--seed 1] [--passes 10]
                              [--threads 1,2] [--rounds 1] [--peers ort,paddle]
                              [--no-interleave] [--turns sample|pass]
                              [--json FILE] [--markdown]

Every model of ../shared/models (any folder with ref/expected_*.npy) runs on
its shipped inputs; the five with an ONNX twin also run on a larger input
(detectors at 1x3x640x640, seeded uniform noise in [-1, 1); classifiers at
batch 8, the shipped samples repeated), written once under
build/vs_peers_inputs/.  One case = model x input x thread count.

Per case, correctness comes first: `pdlite run` and every peer's first run
are compared with ref/expected_*.npy (|got - expected| <= 1e-4 + 1e-3
|expected|; NMS outputs [K, 6] as sets of rows).  On the larger inputs there
is no reference: peers are compared with pdlite's output on that input
(pdlite itself being verified on the shipped inputs), with a looser
1e-3 + 1e-3 |expected| since the inputs are far from the trained range.
A runtime that fails or mismatches is shown as FAIL(reason) or
MISMATCH(max diff = how many times the tolerance) and gets no ratio; it
is not timed.

Timing alternates in rounds: each round runs one `pdlite bench --json`
process, then one round in each peer's persistent worker (same warm-up and
timed runs), with a short pause between runtimes so idle thread pools stop
spinning.  Median = the median of every timed run of all rounds (pdlite
bench lists them in samples_ms), min = min over all runs, load and first
run = median over rounds for pdlite, the single value for a peer.
Peak RSS is what the model added, measured alike for everyone: the
process's peak (VmHWM) less its VmRSS just before the model is loaded.
pdlite bench reports both (max over rounds; the whole process's peak is
kept in --json as process_rss); a peer's worker reads its baseline after
importing the peer and reading the inputs, and resets the peak counter
there, so the interpreter and the module import are left out; its raw
VmHWM is kept in --json.

Peers run in build/peers-venv, made with `python3 -m venv` and filled from
bench/peers-requirements.txt (again whenever that file changes); this script
re-executes itself with the venv's interpreter, so it needs only the
standard library to start.  Settings: float32 everywhere (OpenVINO would
pick bfloat16 on CPUs with AVX512-BF16), thread count passed to each
runtime's own API (no OMP_NUM_THREADS, no other environment change):
  paddle    paddle.inference, oneDNN, IR passes, memory optim; if Paddle 3's
            new IR rejects an old program, the old IR, then without passes
  openvino  the Paddle frontend on the program (the folder for per-variable
            files); the ONNX twin ("openvino(onnx)") where that fails;
            LATENCY hint, INFERENCE_NUM_THREADS, reshaped to the case's
            input shapes
  ort       the ONNX twin only; ORT_ENABLE_ALL, sequential, intra-op threads,
            spinning off, I/O binding
Output: a table of figures (ms, MB) and ratios ours/peer (below 1: pdlite
is faster or smaller), the best peer (lowest median among those that
passed) and whether the goals hold: median <= 0.8x the best peer's, load
time and peak RSS <= the best peer's.  --markdown prints it for
docs/performance.md.

--stream: varying input shapes, as a service sees them.  One case = model x
shape stream x thread count; the streams are --shapes (grammar of `pdlite
bench --shapes`) or each model's presets (the detectors: 1x3x[320:928:32]
x[320:928:32]; ppocr_cls_mobile_v2: a width stream 1x3x48x[64:640:32] and a
batch stream [1:16]x3x48x192); --samples shapes drawn with --seed, run
--passes times by one predictor or session.  Per round, pdlite and each
peer run in fresh workers, all open at once, taking turns pass by pass
(or, with --turns sample, run by run: each shape's run of every runtime
in a row), the order rotating each pass, so that a slow stretch of a
shared machine falls on every runtime's same pass rather than on
whichever runtime ran then; pdlite runs through its C API
(paddle_lite/paddle_lite_c.h, Config defaults, the case's threads).
--no-interleave runs `pdlite bench --shapes ... --json` for its whole
stream instead, then each peer's whole stream on the very shapes pdlite
printed.  Every runtime: one session (the options above; ORT with its
dynamic dimensions left free, Paddle with oneDNN and its default,
unbounded, oneDNN cache), fresh uniform noise in [-1, 1) for every run
(made outside the timed region), each run timed alone.  OpenVINO is skipped: it would reshape and recompile per shape.
Per pass: the total of its runs (median over rounds), ours / the faster
peer's, pdlite's first-sight and later-sight medians, and RSS less the
baseline (VmRSS just before the session is created).  Goals: first pass
<= 0.8x the faster peer, every later pass <= 0.7x; a shape's first run
<= 2x its steady latency (pdlite's first_vs_steady max: each round's
fresh session sees every shape for the first time, and a shape's ratio is
the median over rounds, so with --rounds 3 one first sight that met a
slow stretch of the machine does not decide; one round's worst is kept
as max_any_round); pdlite's RSS
growth from pass 3 to the last < 1%; pdlite's RSS <= ORT's at the last
pass.  Missed goals are bold with --markdown.
"""

import argparse
import hashlib
import json
import os
import platform
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.abspath(__file__)
MODELS_DIR = os.path.normpath(os.path.join(ROOT, "..", "shared", "models"))
PDLITE = os.path.join(ROOT, "build", "tools", "pdlite")
# The library --interleave loads; PDLITE_LIB names another build's (A/B).
PDLITE_LIB = os.environ.get("PDLITE_LIB") or os.path.join(
    ROOT, "build", "libpaddle_lite.so")
VENV = os.path.join(ROOT, "build", "peers-venv")
VENV_PY = os.path.join(VENV, "bin", "python")
REQUIREMENTS = os.path.join(ROOT, "bench", "peers-requirements.txt")
REQ_STAMP = os.path.join(VENV, ".requirements.sha256")
LARGE_DIR = os.path.join(ROOT, "build", "vs_peers_inputs")

ALL_PEERS = ("paddle", "openvino", "ort")
# The models with an ONNX twin and the kind of larger input they get.
LARGE_KIND = {
    "ppocr_det_ch_v3": "det", "ppocr_det_en_v3": "det",
    "ppocr_det_ch_v2": "det", "ppocr_cls_mobile_v2": "batch8",
    "clas_mbv3_small_x0_35_3cls": "batch8",
}
TOL_REF = (1e-4, 1e-3)    # (atol, rtol) against ref/expected_*.npy
TOL_CROSS = (1e-3, 1e-3)  # against pdlite's output on the large inputs
PAUSE_S = 0.3             # between runtimes: lets idle thread pools sleep
GOAL_MEDIAN = 0.8         # ours/best peer median at most this

# Timeouts (seconds): generous, they only catch hangs.
T_PIP = 3600
T_RUN = 600
T_BENCH = 900
T_LOAD = 900
T_ROUND = 900
T_INSPECT = 120
T_STREAM = 3600           # one runtime's whole shape stream

# --stream: the shape streams per model when --shapes is not given.
DET_STREAM = "x=1x3x[320:928:32]x[320:928:32]"
STREAM_PRESETS = {
    "ppocr_det_ch_v3": [("detector", DET_STREAM)],
    "ppocr_det_ch_v2": [("detector", DET_STREAM)],
    "ppocr_det_en_v3": [("detector", DET_STREAM)],
    "ppocr_cls_mobile_v2": [("width", "x=1x3x48x[64:640:32]"),
                            ("batch", "x=[1:16]x3x48x192")],
}
STREAM_PEERS = ("ort", "paddle")
PAUSE_STREAM_S = 0.5      # between runtimes' streams
GOAL_FIRST_PASS = 0.8     # ours/faster peer, first pass total, at most
GOAL_LATER_PASS = 0.7     # ... every later pass
GOAL_NEW_SHAPE = 2.0      # a shape's first run / its steady run, at most
GOAL_DRIFT_PCT = 1.0      # pdlite RSS growth pass 3 -> last, below (%)


def safe_name(name):
    """A variable name as the reference files spell it."""
    return name.replace("/", "__")


# --------------------------------------------------------------------------
# Peer workers (run inside the venv: `vs_peers.py --worker`).
# --------------------------------------------------------------------------

def proc_status_mb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def read_lod(path):
    """Level-1 (or more) LoD offsets: one level per line, ',' or blanks."""
    levels = []
    with open(path) as f:
        for line in f:
            items = line.replace(",", " ").split()
            if items:
                levels.append([int(v) for v in items])
    return levels


def load_inputs(folder):
    """{name: array} and {name: lod} from input_<name>.npy (+ .lod.txt)."""
    import numpy as np
    arrays, lods = {}, {}
    for file in sorted(os.listdir(folder)):
        if file.startswith("input_") and file.endswith(".npy"):
            name = file[len("input_"):-len(".npy")]
            arrays[name] = np.ascontiguousarray(
                np.load(os.path.join(folder, file)))
            lod_file = os.path.join(folder, "input_%s.lod.txt" % name)
            if os.path.exists(lod_file):
                lods[name] = read_lod(lod_file)
    return arrays, lods


def match_feeds(model_names, arrays):
    """Model input name -> array: by (file-safe) name, else by order."""
    if all(safe_name(n) in arrays for n in model_names):
        return {n: arrays[safe_name(n)] for n in model_names}
    if len(model_names) == len(arrays):
        return dict(zip(model_names, arrays.values()))
    raise RuntimeError("model inputs %s do not match the input files %s"
                       % (model_names, list(arrays)))


# Paddle 3's default (new IR) may reject old programs: fall back.
PADDLE_ATTEMPTS = [("oneDNN, IR optim", {}),
                   ("oneDNN, IR optim, old IR", {"new_ir": False}),
                   ("oneDNN, old IR, no IR optim",
                    {"new_ir": False, "ir_optim": False})]


def paddle_config(spec, threads, opts):
    """The paddle.inference Config every mode uses (one of the attempts)."""
    import paddle.inference as pi
    if spec["params"]:
        config = pi.Config(spec["prog"], spec["params"])
    else:
        config = pi.Config(spec["dir"])
    config.disable_gpu()
    config.enable_mkldnn()
    config.set_cpu_math_library_num_threads(threads)
    config.switch_ir_optim(opts.get("ir_optim", True))
    config.enable_memory_optim()
    config.disable_glog_info()
    if "new_ir" in opts and hasattr(config, "enable_new_ir"):
        config.enable_new_ir(opts["new_ir"])
    return config


class PaddlePeer:
    """paddle.inference with zero-copy handles."""

    def __init__(self, spec, arrays, lods, threads):
        import paddle.inference as pi
        self.version = __import__("paddle").__version__
        errors = []
        for label, opts in PADDLE_ATTEMPTS:
            try:
                start = time.perf_counter()
                config = paddle_config(spec, threads, opts)
                predictor = pi.create_predictor(config)
                self.load_ms = (time.perf_counter() - start) * 1e3
                feeds = match_feeds(predictor.get_input_names(), arrays)
                for name, value in feeds.items():
                    handle = predictor.get_input_handle(name)
                    handle.reshape(list(value.shape))
                    handle.copy_from_cpu(value)
                    lod = lods.get(safe_name(name))
                    if lod:
                        handle.set_lod(lod)
                self.predictor = predictor
                start = time.perf_counter()
                predictor.run()
                self.first_run_ms = (time.perf_counter() - start) * 1e3
                self.config = label
                self.notes = errors
                return
            except Exception as e:  # try the next configuration
                errors.append("%s: %s" % (label, e))
        raise RuntimeError("\n".join(errors))

    def run(self):
        self.predictor.run()

    def outputs(self):
        p = self.predictor
        return [(n, p.get_output_handle(n).copy_to_cpu())
                for n in p.get_output_names()]


class OpenVinoPeer:
    """OpenVINO CPU plugin: Paddle frontend, else the ONNX twin."""

    def __init__(self, spec, arrays, lods, threads):
        import openvino as ov
        self.version = ov.get_version()
        if lods:
            raise RuntimeError("LoD inputs are not supported by OpenVINO")
        core = ov.Core()
        errors = []
        sources = [("paddle", spec["prog"] if spec["params"]
                    and spec["prog"].endswith(".pdmodel") else spec["dir"])]
        if spec["onnx"]:
            sources.append(("onnx", spec["onnx"]))
        for kind, path in sources:
            try:
                start = time.perf_counter()
                if kind == "paddle" and os.path.isdir(path):
                    # core.read_model does not recognise a folder of
                    # per-variable files; the Paddle frontend does.
                    from openvino.frontend import FrontEndManager
                    fe = FrontEndManager().load_by_framework("paddle")
                    model = fe.convert(fe.load(path))
                else:
                    model = core.read_model(path)
                names = [p.get_any_name() for p in model.inputs]
                feeds = match_feeds(names, arrays)
                model.reshape({i: ov.PartialShape(list(feeds[n].shape))
                               for i, n in enumerate(names)})
                compiled = core.compile_model(model, "CPU", {
                    "PERFORMANCE_HINT": "LATENCY",
                    "INFERENCE_NUM_THREADS": threads,
                    "INFERENCE_PRECISION_HINT": "f32",
                })
                request = compiled.create_infer_request()
                self.load_ms = (time.perf_counter() - start) * 1e3
                self._keep = []  # shared-memory tensors must outlive runs
                for i, n in enumerate(names):
                    tensor = ov.Tensor(feeds[n], shared_memory=True)
                    self._keep.append(tensor)
                    request.set_input_tensor(i, tensor)
                self.request, self.compiled = request, compiled
                start = time.perf_counter()
                request.infer()
                self.first_run_ms = (time.perf_counter() - start) * 1e3
                self.config = "openvino" if kind == "paddle" else \
                    "openvino(onnx)"
                self.notes = errors
                return
            except Exception as e:
                errors.append("%s: %s" % (kind, e))
        raise RuntimeError("\n".join(errors))

    def run(self):
        self.request.infer()

    def outputs(self):
        import numpy as np
        result = []
        for i, port in enumerate(self.compiled.outputs):
            try:
                name = port.get_any_name()
            except RuntimeError:
                name = "output%d" % i
            result.append(
                (name, np.array(self.request.get_output_tensor(i).data)))
        return result


def ort_options(threads):
    """The ORT SessionOptions every mode uses."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return so


class OrtPeer:
    """ONNX Runtime on the ONNX twin, with I/O binding."""

    def __init__(self, spec, arrays, lods, threads):
        import onnxruntime as ort
        self.version = ort.__version__
        if not spec["onnx"]:
            raise RuntimeError("no ONNX twin")
        start = time.perf_counter()
        session = ort.InferenceSession(spec["onnx"], ort_options(threads),
                                       providers=["CPUExecutionProvider"])
        feeds = match_feeds([i.name for i in session.get_inputs()], arrays)
        binding = session.io_binding()
        for name, value in feeds.items():
            binding.bind_cpu_input(name, value)
        self.output_names = [o.name for o in session.get_outputs()]
        for name in self.output_names:
            binding.bind_output(name, "cpu")
        self.load_ms = (time.perf_counter() - start) * 1e3
        self.session, self.binding = session, binding
        start = time.perf_counter()
        self.run()
        self.first_run_ms = (time.perf_counter() - start) * 1e3
        self.config = "ort"
        self.notes = []

    def run(self):
        self.session.run_with_iobinding(self.binding)

    def outputs(self):
        return list(zip(self.output_names,
                        self.binding.copy_outputs_to_cpu()))


PEER_CLASSES = {"paddle": PaddlePeer, "openvino": OpenVinoPeer,
                "ort": OrtPeer}
PEER_MODULES = {"paddle": "paddle.inference", "openvino": "openvino",
                "ort": "onnxruntime"}


def worker_load(msg, state):
    import numpy as np
    start = time.perf_counter()
    __import__(PEER_MODULES[msg["peer"]])
    import_ms = (time.perf_counter() - start) * 1e3
    arrays, lods = load_inputs(msg["inputs"])
    # From here on the peak counter measures the runtime, not the import.
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        state["rss_reset"] = True
    except OSError:
        state["rss_reset"] = False
    state["baseline_mb"] = proc_status_mb("VmRSS")
    peer = PEER_CLASSES[msg["peer"]](msg["spec"], arrays, lods,
                                     msg["threads"])
    state["peer"] = peer
    files = []
    for i, (name, value) in enumerate(peer.outputs()):
        file = os.path.join(msg["out_dir"], "out%d.npy" % i)
        np.save(file, value)
        files.append({"name": name, "file": file})
    return {"ok": True, "load_ms": peer.load_ms,
            "first_run_ms": peer.first_run_ms, "import_ms": import_ms,
            "version": peer.version, "config": peer.config,
            "notes": peer.notes, "outputs": files}


def worker_round(msg, state):
    peer = state["peer"]
    for _ in range(msg["warmup"]):
        peer.run()
    samples = []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(msg["iters"]):
        start = time.perf_counter()
        peer.run()
        samples.append((time.perf_counter() - start) * 1e3)
    wall = time.perf_counter() - wall0
    # CPU time / wall time tells whether the thread setting held.
    return {"ok": True, "samples": samples,
            "cpu_per_wall": (time.process_time() - cpu0) / max(wall, 1e-9)}


def worker_finish(msg, state):
    hwm = proc_status_mb("VmHWM")
    base = state.get("baseline_mb", 0.0)
    return {"ok": True, "vmhwm_mb": hwm, "baseline_mb": base,
            "peak_rss_mb": hwm - base, "rss_reset": state.get("rss_reset")}


# ---- shape streams (`--stream`) ---------------------------------------------
# The grammar and the draw of tools/pdlite/shape_stream.cc, bit for bit:
# the table uses the stream pdlite printed; this copy draws it when pdlite
# failed and checks that both agree.

MASK64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9e3779b97f4a7c15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK64
        return z ^ (z >> 31)


def parse_shape_spec(text):
    """'x=1x3x[320:928:32]x640;y=...' -> [(name, [(lo, step, count)])]."""
    specs = []
    for item in (i.strip(" \t\r") for i in text.split(";")):
        name, eq, dims = item.partition("=")
        if not eq or not name or not dims:
            raise ValueError("'%s' is not NAME=D0xD1x..." % item)
        ranges = []
        for dim in dims.split("x"):
            if dim.startswith("[") and dim.endswith("]"):
                parts = dim[1:-1].split(":")
                try:
                    lo, hi = int(parts[0]), int(parts[1])
                    step = int(parts[2]) if len(parts) == 3 else 1
                except (ValueError, IndexError):
                    raise ValueError("bad range '%s' in '%s'" % (dim, item))
                if len(parts) > 3 or step < 1 or hi < lo or lo < 0:
                    raise ValueError("bad range '%s' in '%s'" % (dim, item))
                ranges.append((lo, step, (hi - lo) // step + 1))
            else:
                try:
                    value = int(dim)
                except ValueError:
                    value = -1
                if value < 0:
                    raise ValueError("bad dimension '%s' in '%s'"
                                     % (dim, item))
                ranges.append((value, 1, 1))
        specs.append((name, ranges))
    return specs


def sample_to_string(sample):
    """[(name, dims)] -> 'x=1x3x640x480' (inputs joined by ';')."""
    return ";".join("%s=%s" % (n, "x".join(str(d) for d in dims))
                    for n, dims in sample)


def parse_sample(text):
    """'x=1x3x640x480;y=2x5' -> [(name, dims)]."""
    sample = []
    for item in text.split(";"):
        name, _, dims = item.strip().partition("=")
        sample.append((name, [int(d) for d in dims.split("x")]))
    return sample


def draw_shape_stream(spec, samples, seed):
    """The stream `pdlite bench --shapes SPEC` runs: [[(name, dims)]]."""
    if spec.startswith("@"):
        stream = []
        with open(spec[1:]) as f:
            for line in f:
                line = line.split("#", 1)[0].strip(" \t\r\n")
                if line:
                    stream.append([(n, [r[0] for r in dims]) for n, dims
                                   in parse_shape_spec(line)])
        return stream
    specs = parse_shape_spec(spec)
    space = 1.0
    for _, dims in specs:
        for _, _, count in dims:
            space *= count
    rng = SplitMix64(seed)
    seen, stream = set(), []
    while len(stream) < samples:
        sample = [(name, [lo + step * (0 if count == 1 else
                                       rng.next() % count)
                          for lo, step, count in dims])
                  for name, dims in specs]
        key = sample_to_string(sample)
        if key in seen and len(seen) < space:
            continue  # distinct while unseen shapes remain
        seen.add(key)
        stream.append(sample)
    return stream


def feed_names(model_names, stream_names):
    """Stream input name -> the model's: by name, else by order."""
    if all(n in model_names for n in stream_names):
        return {n: n for n in stream_names}
    if len(model_names) == len(stream_names):
        return dict(zip(stream_names, model_names))
    raise RuntimeError("the stream's inputs %s do not match the model's %s"
                       % (stream_names, model_names))


class OrtStream:
    """ORT session on the ONNX twin; dynamic dims left free (no overrides),
    I/O binding rebound for every shape outside the timed region."""

    configs = ["ort"]

    def __init__(self, spec, threads, attempt):
        import onnxruntime as ort
        if not spec["onnx"]:
            raise RuntimeError("no ONNX twin")
        self.version = ort.__version__
        self.config = "ort"
        self.session = ort.InferenceSession(
            spec["onnx"], ort_options(threads),
            providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.outputs = [o.name for o in self.session.get_outputs()]
        self.binding = self.session.io_binding()

    def feed(self, arrays):
        b = self.binding
        b.clear_binding_inputs()
        b.clear_binding_outputs()
        names = feed_names(self.inputs, list(arrays))
        for name, value in arrays.items():
            b.bind_cpu_input(names[name], value)
        for name in self.outputs:
            b.bind_output(name, "cpu")  # ORT allocates each run's output

    def run(self):
        self.session.run_with_iobinding(self.binding)


class PaddleStream:
    """paddle.inference with oneDNN, the configuration of the other modes.
    The oneDNN cache capacity is left at Paddle's default
    (set_mkldnn_cache_capacity not called), which is 0 = unbounded: every
    new shape adds primitives that stay cached."""

    configs = [label for label, _ in PADDLE_ATTEMPTS]

    def __init__(self, spec, threads, attempt):
        import paddle.inference as pi
        self.version = __import__("paddle").__version__
        self.config, opts = PADDLE_ATTEMPTS[attempt]
        self.predictor = pi.create_predictor(
            paddle_config(spec, threads, opts))
        self.inputs = self.predictor.get_input_names()

    def feed(self, arrays):
        names = feed_names(self.inputs, list(arrays))
        for name, value in arrays.items():
            handle = self.predictor.get_input_handle(names[name])
            handle.reshape(list(value.shape))
            handle.copy_from_cpu(value)

    def run(self):
        self.predictor.run()


class PdliteStream:
    """pdlite itself through its C API (paddle_lite/paddle_lite_c.h), for
    --interleave: a worker process like the peers', so that the three
    runtimes can take turns. Config defaults, as `pdlite
    bench` has them, with the case's thread count."""

    configs = ["pdlite"]
    lib = None  # loaded before the worker's RSS baseline (load_library)

    @classmethod
    def load_library(cls):
        import ctypes
        if cls.lib is not None:
            return
        lib = ctypes.CDLL(PDLITE_LIB)
        vp, cp = ctypes.c_void_p, ctypes.c_char_p
        for name, args in (
                ("PD_ConfigCreate", [ctypes.POINTER(vp)]),
                ("PD_ConfigSetModel", [vp, cp, cp]),
                ("PD_ConfigSetCpuThreads", [vp, ctypes.c_int]),
                ("PD_PredictorCreate", [vp, ctypes.POINTER(vp)]),
                ("PD_PredictorRun", [vp]),
                ("PD_PredictorGetInputName", [vp, ctypes.c_size_t,
                                              ctypes.POINTER(cp)]),
                ("PD_PredictorGetInputHandle", [vp, cp,
                                                ctypes.POINTER(vp)]),
                ("PD_TensorReshape", [vp, ctypes.c_size_t,
                                      ctypes.POINTER(ctypes.c_int64)]),
                ("PD_TensorCopyFromCpu", [vp, ctypes.c_int, vp,
                                          ctypes.c_size_t])):
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, ctypes.c_int
        for name, args in (("PD_ConfigDestroy", [vp]),
                           ("PD_PredictorDestroy", [vp]),
                           ("PD_TensorDestroy", [vp])):
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, None
        lib.PD_PredictorGetInputNum.argtypes = [vp]
        lib.PD_PredictorGetInputNum.restype = ctypes.c_size_t
        lib.PD_GetLastError.restype = cp
        lib.PD_CApiVersion.restype = ctypes.c_int
        cls.lib = lib

    def __init__(self, spec, threads, attempt):
        import ctypes
        self.load_library()
        lib = self.lib
        self.version = "C API %d" % lib.PD_CApiVersion()
        self.config = "pdlite"
        config, predictor = ctypes.c_void_p(), ctypes.c_void_p()
        self.check(lib.PD_ConfigCreate(ctypes.byref(config)))
        try:
            self.check(lib.PD_ConfigSetModel(config, spec["dir"].encode(),
                                             None))
            self.check(lib.PD_ConfigSetCpuThreads(config, threads))
            self.check(lib.PD_PredictorCreate(config,
                                              ctypes.byref(predictor)))
        finally:
            lib.PD_ConfigDestroy(config)
        self.predictor = predictor
        self.handles = {}
        for i in range(lib.PD_PredictorGetInputNum(predictor)):
            name, handle = ctypes.c_char_p(), ctypes.c_void_p()
            self.check(lib.PD_PredictorGetInputName(predictor, i,
                                                    ctypes.byref(name)))
            self.check(lib.PD_PredictorGetInputHandle(
                predictor, name.value, ctypes.byref(handle)))
            self.handles[name.value.decode()] = handle
        self.inputs = list(self.handles)

    def check(self, status):
        if status != 0:
            raise RuntimeError(self.lib.PD_GetLastError().decode(
                errors="replace"))

    def feed(self, arrays):
        import ctypes
        names = feed_names(self.inputs, list(arrays))
        for name, value in arrays.items():
            handle = self.handles[names[name]]
            dims = (ctypes.c_int64 * value.ndim)(*value.shape)
            self.check(self.lib.PD_TensorReshape(handle, value.ndim, dims))
            self.check(self.lib.PD_TensorCopyFromCpu(
                handle, 0, value.ctypes.data, value.nbytes))  # PD_FLOAT32

    def run(self):
        self.check(self.lib.PD_PredictorRun(self.predictor))

    def close(self):
        for handle in self.handles.values():
            self.lib.PD_TensorDestroy(handle)
        self.handles = {}
        self.lib.PD_PredictorDestroy(self.predictor)


STREAM_CLASSES = {"ort": OrtStream, "paddle": PaddleStream,
                  "pdlite": PdliteStream}


def median_or_none(values):
    return statistics.median(values) if values else None


def worker_stream(msg, state):
    """Runs a shape stream `passes` times in a fresh session (see
    run_stream_case); one reply with every pass's figures."""
    worker_stream_open(msg, state)
    for _ in range(msg["passes"]):
        worker_stream_pass(msg, state)
    return worker_stream_close(msg, state)


def worker_stream_open(msg, state):
    """A fresh session for a shape stream, its baseline RSS and load time;
    passes then come one by one (stream_pass), for --interleave."""
    import numpy as np
    peer = msg["peer"]
    cls = STREAM_CLASSES[peer]
    if peer == "pdlite":
        PdliteStream.load_library()
    else:
        __import__(PEER_MODULES[peer])
    stream = [[(name, tuple(dims)) for name, dims in sample]
              for sample in msg["stream"]]
    st = {"cls": cls, "stream": stream,
          "keys": [sample_to_string(s) for s in stream],
          "rng": np.random.default_rng(msg.get("seed", 1)),
          "seen": set(), "first_sight": {}, "later_sights": {},
          "passes": [], "threads": msg["threads"], "spec": msg["spec"]}
    # Baseline: the interpreter, the runtime's module and numpy, nothing
    # of the model; the peak counter restarts here too.
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        st["rss_reset"] = True
    except OSError:
        st["rss_reset"] = False
    st["baseline"] = proc_status_mb("VmRSS")
    notes, attempt = [], 0
    start = time.perf_counter()
    runner = None
    while runner is None:
        try:
            runner = cls(msg["spec"], msg["threads"], attempt)
        except Exception as e:
            notes.append("%s: %s" % (cls.configs[attempt], e))
            attempt += 1
            if attempt >= len(cls.configs):
                raise RuntimeError("\n".join(notes))
    st.update({"runner": runner, "attempt": attempt, "notes": notes,
               "load_ms": (time.perf_counter() - start) * 1e3})
    state["stream"] = st
    return {"ok": True}


def worker_stream_pass(msg, state):
    """Runs samples "from" to "to" (default: all) of the open stream's
    current pass; the pass's figures once its last sample has run."""
    import gc
    import numpy as np
    st = state["stream"]
    cls, stream, keys, rng = st["cls"], st["stream"], st["keys"], st["rng"]
    p = len(st["passes"])
    lo, hi = msg.get("from", 0), msg.get("to", len(stream))
    part = st.get("partial") or {"samples": [], "first": [], "later": [],
                                 "cpu_s": 0.0, "wall_s": 0.0}
    if lo != len(part["samples"]) or not lo < hi <= len(stream):
        raise ValueError("stream_pass: samples %d..%d asked, %d ran"
                         % (lo, hi, len(part["samples"])))
    st["partial"] = part

    def noise(sample):  # fresh inputs for every run, never timed
        return {name: rng.random(dims, dtype=np.float32) * 2.0 - 1.0
                for name, dims in sample}

    samples, first, later = part["samples"], part["first"], part["later"]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for s in range(lo, hi):
        sample = stream[s]
        arrays = noise(sample)
        while True:
            st["runner"].feed(arrays)
            t0 = time.perf_counter()
            try:
                st["runner"].run()
                break
            except Exception as e:
                # Only the very first run may switch configuration
                # (Paddle's new IR can fail at run time).
                if p or s or st["attempt"] + 1 >= len(cls.configs):
                    raise
                st["notes"].append("%s: %s" % (cls.configs[st["attempt"]],
                                               e))
                st["runner"] = None
                gc.collect()
                st["attempt"] += 1
                t_load = time.perf_counter()
                st["runner"] = cls(st["spec"], st["threads"], st["attempt"])
                st["load_ms"] = (time.perf_counter() - t_load) * 1e3
        ms = (time.perf_counter() - t0) * 1e3
        del arrays
        samples.append(ms)
        if keys[s] not in st["seen"]:
            st["seen"].add(keys[s])
            first.append(ms)
            st["first_sight"][keys[s]] = ms
        else:
            later.append(ms)
            st["later_sights"].setdefault(keys[s], []).append(ms)
    part["cpu_s"] += time.process_time() - cpu0
    part["wall_s"] += time.perf_counter() - wall0
    if hi < len(stream):
        return {"ok": True}
    st["partial"] = None
    rss = proc_status_mb("VmRSS")
    figures = {
        "total_ms": sum(samples), "median_ms": statistics.median(samples),
        "max_ms": max(samples),
        "first_sight_median_ms": median_or_none(first),
        "later_sight_median_ms": median_or_none(later),
        "first_sights": len(first), "rss_mb": rss,
        "rss_less_baseline_mb": rss - st["baseline"],
        "cpu_per_wall": part["cpu_s"] / max(part["wall_s"], 1e-9),
        "samples_ms": samples}
    st["passes"].append(figures)
    return {"ok": True, "pass": figures}


def worker_stream_close(msg, state):
    """Ends the open stream: every pass's figures and the summary."""
    st = state.pop("stream")
    per_shape = {k: st["first_sight"][k] / statistics.median(v)
                 for k, v in st["later_sights"].items()
                 if k in st["first_sight"]}
    ratios = list(per_shape.values())
    hwm = proc_status_mb("VmHWM")
    runner = st["runner"]
    reply = {"ok": True, "version": runner.version, "config": runner.config,
             "notes": st["notes"], "load_ms": st["load_ms"],
             "baseline_rss_mb": st["baseline"], "peak_rss_mb": hwm,
             "peak_less_baseline_mb": hwm - st["baseline"],
             "rss_reset": st["rss_reset"],
             "first_vs_steady": {"median": median_or_none(ratios),
                                 "max": max(ratios) if ratios else None,
                                 "per_shape": per_shape},
             "stream": st["keys"], "passes": st["passes"]}
    if hasattr(runner, "close"):
        runner.close()
    return reply


def worker_main():
    """JSON lines on stdin -> JSON lines on the saved stdout."""
    # Libraries print to stdout: keep fd 1 for them (sent to stderr, the
    # log) and answer on a private copy of the pipe.
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    replies = os.fdopen(reply_fd, "w", buffering=1)
    sys.stdout = sys.stderr
    handlers = {"load": worker_load, "round": worker_round,
                "finish": worker_finish, "stream": worker_stream,
                "stream_open": worker_stream_open,
                "stream_pass": worker_stream_pass,
                "stream_close": worker_stream_close}
    state = {}
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            reply = handlers[msg["cmd"]](msg, state)
        except BaseException as e:  # report, the orchestrator decides
            reply = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
        if msg["cmd"] == "finish":
            break
    return 0


# --------------------------------------------------------------------------
# Orchestrator side.
# --------------------------------------------------------------------------

def die_with_parent():
    """preexec_fn: a worker gets SIGKILL if the orchestrator dies."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class WorkerError(Exception):
    pass


class Worker:
    """One peer process serving one case."""

    def __init__(self, peer, log_path):
        self.peer = peer
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [VENV_PY, SCRIPT, "--worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.log, cwd=ROOT,
            start_new_session=True, preexec_fn=die_with_parent)
        self.buffer = b""

    def request(self, msg, timeout):
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerError("worker died" + self.log_tail())
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise WorkerError("timed out after %d s" % timeout)
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    code = self.proc.wait(timeout=10)
                    raise WorkerError("worker exited (%s)%s" % (
                        describe_exit(code), self.log_tail()))
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def log_tail(self, lines=5):
        try:
            self.log.flush()
            with open(self.log_path, errors="replace") as f:
                tail = [l.rstrip() for l in f if l.strip()][-lines:]
            return (": " + " | ".join(tail)) if tail else ""
        except OSError:
            return ""

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.log.close()


def describe_exit(code):
    if code is not None and code < 0:
        try:
            return "signal " + signal.Signals(-code).name
        except ValueError:
            return "signal %d" % -code
    return "exit %s" % code


def short_reason(text, width=34):
    """The telling part of a long error, for a table cell."""
    text = str(text)
    patterns = [
        (r"No creator found for (\S+) node", "no converter: {0}"),
        (r"Attribute with name '([^']+)' does not exist", "attr {0} missing"),
        (r"Only Support Paddle greater than ([\d.]+)", "Paddle < {0} file"),
        (r"LoD inputs are not supported", "LoD input"),
        (r"no ONNX twin", "no ONNX twin"),
        (r"timed out after (\d+) s", "timeout {0}s"),
        (r"(signal [A-Z0-9]+)", "{0}"),
        (r"\(Unimplemented\) ([^\n.]+)", "{0}"),
        (r"\(InvalidArgument\) ([^\n.]+)", "{0}"),
        (r"\(NotFound\) ([^\n.]+)", "{0}"),
    ]
    for pattern, fmt in patterns:
        m = re.search(pattern, text)
        if m:
            return fmt.format(*m.groups())[:width]
    lines = [l.strip() for l in text.splitlines() if l.strip()
             and not l.strip().startswith(("Exception from", "Check '",
                                           "FrontEnd API failed"))]
    return (lines[-1] if lines else text.strip())[:width]


def run_cmd(cmd, timeout):
    """Runs a command, returns (rc, stdout, stderr); rc None on timeout."""
    proc = subprocess.Popen(cmd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT, start_new_session=True,
                            preexec_fn=die_with_parent)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        out, _ = proc.communicate()
        return None, out, "timed out after %d s" % timeout
    except BaseException:
        kill_group(proc.pid)
        proc.communicate()
        raise


def kill_group(pid):
    """Kills the session started for one command (sh and pdlite)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# ---- venv -----------------------------------------------------------------

def requirements_hash():
    with open(REQUIREMENTS, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def ensure_venv():
    """Creates / refreshes build/peers-venv; True when it installed."""
    wanted = requirements_hash()
    if os.path.exists(VENV_PY):
        try:
            with open(REQ_STAMP) as f:
                if f.read().strip() == wanted:
                    return False
        except OSError:
            pass
    else:
        print("vs_peers: creating %s" % os.path.relpath(VENV, ROOT),
              file=sys.stderr)
        try:
            subprocess.run([sys.executable, "-m", "venv", VENV], check=True,
                           timeout=600)
        except (subprocess.CalledProcessError,
                subprocess.TimeoutExpired) as e:
            sys.exit("vs_peers: `%s -m venv %s` failed (%s); on Debian "
                     "install python3-venv (scripts/setup.sh)"
                     % (sys.executable, VENV, e))
    print("vs_peers: installing the peers from %s into %s" % (
        os.path.relpath(REQUIREMENTS, ROOT), os.path.relpath(VENV, ROOT)),
        file=sys.stderr)
    try:
        subprocess.run([VENV_PY, "-m", "pip", "install",
                        "--disable-pip-version-check", "-r", REQUIREMENTS],
                       check=True, timeout=T_PIP, stdout=sys.stderr)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        sys.exit("vs_peers: pip install -r %s failed (%s)" % (REQUIREMENTS,
                                                              e))
    with open(REQ_STAMP, "w") as f:
        f.write(wanted + "\n")
    return True


def in_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(VENV)


# ---- models and inputs ------------------------------------------------------

def find_models():
    """Relative folder name -> spec, for every folder with references."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(MODELS_DIR):
        dirnames.sort()
        if os.path.basename(dirpath) != "ref":
            continue
        if not any(f.startswith("expected_") and f.endswith(".npy")
                   for f in filenames):
            continue
        folder = os.path.dirname(dirpath)
        spec = model_spec(folder)
        if spec:
            found[os.path.relpath(folder, MODELS_DIR)] = spec
    return found


def model_spec(folder):
    files = sorted(os.listdir(folder))
    onnx = [f for f in files if f.endswith(".onnx")]
    spec = {"dir": folder, "ref": os.path.join(folder, "ref"),
            "onnx": os.path.join(folder, onnx[0]) if onnx else None}
    pdmodels = [f for f in files if f.endswith(".pdmodel")]
    if pdmodels:
        prog = pdmodels[0]
        params = prog[:-len(".pdmodel")] + ".pdiparams"
        if params not in files:
            params = next((f for f in files if f.endswith(".pdiparams")),
                          None)
        if params is None:
            return None
        spec.update(layout="pdmodel", prog=os.path.join(folder, prog),
                    params=os.path.join(folder, params))
    elif "__model__" in files:
        combined = "__params__" in files
        spec.update(layout="__model__+__params__" if combined
                    else "__model__+files",
                    prog=os.path.join(folder, "__model__"),
                    params=os.path.join(folder, "__params__")
                    if combined else None)
    else:
        return None
    return spec


def fetch_names(spec):
    """The program's fetch targets in order, from `pdlite inspect`."""
    rc, out, _ = run_cmd([PDLITE, "inspect", "--model", spec["dir"]],
                         T_INSPECT)
    names, section = [], None
    if rc == 0:
        for line in out.splitlines():
            if not line.startswith(" "):
                section = line.strip()
                continue
            m = re.match(r"\s+\[\d+\]\s+(\S+)", line)
            if m and section == "outputs":
                names.append(m.group(1))
    if names:
        return names
    # Fallback: the reference files (order unknown, names right).
    return sorted(f[len("expected_"):-len(".npy")].replace("__", "/")
                  for f in os.listdir(spec["ref"])
                  if f.startswith("expected_") and f.endswith(".npy"))


def write_atomic_npy(path, array):
    import numpy as np
    tmp = path + ".tmp.npy"
    np.save(tmp, array)
    os.replace(tmp, path)


def large_inputs(name, spec):
    """Folder with the larger input of a twin model (written once)."""
    import numpy as np
    kind = LARGE_KIND[name]
    folder = os.path.join(LARGE_DIR, safe_name(name))
    os.makedirs(folder, exist_ok=True)
    for file in sorted(os.listdir(spec["ref"])):
        if not (file.startswith("input_") and file.endswith(".npy")):
            continue
        target = os.path.join(folder, file)
        shipped = np.load(os.path.join(spec["ref"], file))
        if kind == "det":
            shape = (1, 3, 640, 640)
        else:
            shape = (8,) + shipped.shape[1:]
        if os.path.exists(target):
            try:
                if np.load(target, mmap_mode="r").shape == shape:
                    continue
            except ValueError:
                pass
        if kind == "det":
            rng = np.random.default_rng(12345)
            value = rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
        else:
            value = shipped[[i % shipped.shape[0] for i in range(8)]]
        write_atomic_npy(target, np.ascontiguousarray(value))
    return folder


def input_label(kind, folder):
    """'shipped 1x3x48x192' (the largest input's shape)."""
    import numpy as np
    shapes = []
    for file in os.listdir(folder):
        if file.startswith("input_") and file.endswith(".npy"):
            a = np.load(os.path.join(folder, file), mmap_mode="r")
            shapes.append((a.size, a.shape,
                           os.path.exists(os.path.join(
                               folder, file[:-4] + ".lod.txt"))))
    if not shapes:
        return kind
    _, shape, lod = max(shapes)
    return "%s %s%s" % (kind, "x".join(str(d) for d in shape),
                        " lod" if lod else "")


# ---- comparison ---------------------------------------------------------------

def compare(got, expected, tol, name):
    """(ok, max abs diff or None, note, worst diff / allowed or None)."""
    import numpy as np
    atol, rtol = tol
    got = np.asarray(got)
    expected = np.asarray(expected)
    nms = "nms" in name and expected.ndim == 2 and expected.shape[-1] == 6
    if nms:
        if got.ndim != 2 or got.shape[-1] != 6:
            return (False, None,
                    "shape %s vs %s" % (got.shape, expected.shape), None)
        if got.shape[0] != expected.shape[0]:
            return (False, None, "%d vs %d boxes" % (got.shape[0],
                                                     expected.shape[0]), None)
        # Order-free: match each expected row to a free row within tolerance.
        g = got.astype(np.float64)
        used = np.zeros(len(g), bool)
        worst = 0.0
        for row in expected.astype(np.float64):
            diff = np.abs(g - row)
            within = np.all(diff <= atol + rtol * np.abs(row), axis=1) & ~used
            best = np.max(diff, axis=1)
            if within.any():
                pick = np.flatnonzero(within)[np.argmin(best[within])]
                used[pick] = True
                worst = max(worst, float(best[pick]))
            else:
                free = best[~used] if (~used).any() else best
                return False, float(free.min()), "a row has no match", None
        return True, worst, "", None
    if got.shape != expected.shape:
        if got.size == expected.size:
            got = got.reshape(expected.shape)
        else:
            return (False, None,
                    "shape %s vs %s" % (got.shape, expected.shape), None)
    if expected.size == 0:
        return True, 0.0, "", 0.0
    g = got.astype(np.float64)
    e = expected.astype(np.float64)
    diff = np.abs(g - e)
    diff[np.isnan(g) & np.isnan(e)] = 0.0
    allowed = atol + rtol * np.abs(e)
    ok = bool(np.all(diff <= allowed))  # NaN against a number fails here
    worst = float(np.nanmax(diff)) if not np.isnan(diff).all() else float("nan")
    excess = float(np.nanmax(diff / allowed)) if worst == worst else None
    return ok, worst, "", excess


def check_outputs(got_by_fetch, reference, tol):
    """Compares {fetch: array} with {fetch: array}; returns a status dict."""
    worst = 0.0
    for fetch, expected in reference.items():
        if fetch not in got_by_fetch:
            return {"status": "MISMATCH", "why": "no output " + fetch}
        ok, diff, note, excess = compare(got_by_fetch[fetch], expected, tol,
                                         fetch)
        if diff is not None:
            worst = max(worst, diff)
        if not ok:
            if not note:
                note = "max diff %.3g" % diff
                if excess is not None:
                    note += ", %.1fx the tolerance" % excess
            return {"status": "MISMATCH", "max_diff": diff, "excess": excess,
                    "why": "%s: %s" % (fetch, note)}
    return {"status": "ok", "max_diff": worst}


def map_outputs(fetches, outputs):
    """Peer outputs [(name, array)] -> {fetch: array}: by name, else order."""
    by_name = dict(outputs)
    if all(f in by_name for f in fetches):
        return {f: by_name[f] for f in fetches}, "name"
    return dict(zip(fetches, [a for _, a in outputs])), "order"


# ---- pdlite -------------------------------------------------------------------

def pdlite_run(spec, inputs, threads, out_dir):
    """`pdlite run` once; {fetch: array} or raises RuntimeError."""
    import numpy as np
    os.makedirs(out_dir, exist_ok=True)
    rc, out, err = run_cmd([PDLITE, "run", "--model", spec["dir"],
                            "--inputs", inputs, "--output-dir", out_dir,
                            "--threads", str(threads)], T_RUN)
    if rc != 0:
        raise RuntimeError("pdlite run %s: %s" % (
            "timed out" if rc is None else "exit %d" % rc,
            (err.strip() or out.strip())[-400:]))
    result = {}
    for fetch in spec["fetches"]:
        file = os.path.join(out_dir, safe_name(fetch) + ".npy")
        if os.path.exists(file):
            result[fetch] = np.load(file)
    return result


def pdlite_bench(spec, inputs, threads, warmup, iters):
    rc, out, err = run_cmd([PDLITE, "bench", "--model", spec["dir"],
                            "--inputs", inputs, "--threads", str(threads),
                            "--warmup", str(warmup), "--iters", str(iters),
                            "--json"], T_BENCH)
    if rc != 0:
        raise RuntimeError("pdlite bench %s: %s" % (
            "timed out" if rc is None else "exit %d" % rc,
            (err.strip() or out.strip())[-400:]))
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError("pdlite bench printed no JSON: " + out[-200:])


# ---- one case -----------------------------------------------------------------

def run_case(case, args, tmp, log):
    """Correctness, then alternating rounds; returns the case's record."""
    import numpy as np
    spec, threads = case["spec"], case["threads"]
    record = {"model": case["model"], "input": case["label"],
              "threads": threads, "pdlite": {}, "peers": {}}
    case_dir = os.path.join(tmp, "case%d" % case["index"])
    tol = TOL_REF if case["kind"] == "shipped" else TOL_CROSS

    # pdlite's own outputs: checked on shipped inputs, the reference on large.
    ours = record["pdlite"]
    reference = None
    try:
        got = pdlite_run(spec, case["inputs"], threads,
                         os.path.join(case_dir, "pdlite"))
        if case["kind"] == "shipped":
            reference = {f: np.load(os.path.join(
                spec["ref"], "expected_%s.npy" % safe_name(f)))
                for f in spec["fetches"] if os.path.exists(os.path.join(
                    spec["ref"], "expected_%s.npy" % safe_name(f)))}
            ours.update(check_outputs(got, reference, tol))
        else:
            reference = got
            ours.update({"status": "ok", "note": "reference for the peers"})
    except RuntimeError as e:
        ours.update({"status": "FAIL", "why": str(e)})
        log("  pdlite FAIL: %s" % e)

    workers = {}
    try:
        for peer in args.peers:
            entry = record["peers"].setdefault(peer, {})
            if peer == "ort" and not spec["onnx"]:
                entry.update({"status": "n/a", "why": "no ONNX twin"})
                continue
            out_dir = os.path.join(case_dir, peer)
            os.makedirs(out_dir, exist_ok=True)
            worker = Worker(peer, os.path.join(case_dir, peer + ".log"))
            workers[peer] = worker
            try:
                reply = worker.request({
                    "cmd": "load", "peer": peer, "threads": threads,
                    "inputs": case["inputs"], "out_dir": out_dir,
                    "spec": {k: spec[k] for k in
                             ("dir", "prog", "params", "onnx")}}, T_LOAD)
            except WorkerError as e:
                reply = {"ok": False, "error": str(e)}
            if not reply.get("ok"):
                entry.update({"status": "FAIL", "why": reply.get("error")})
                log("  %s FAIL: %s" % (peer, short_reason(reply["error"],
                                                          200)))
                worker.kill()
                del workers[peer]
                continue
            outputs = [(o["name"], np.load(o["file"]))
                       for o in reply["outputs"]]
            mapped, how = map_outputs(spec["fetches"], outputs)
            entry.update({k: reply[k] for k in (
                "load_ms", "first_run_ms", "import_ms", "version", "config",
                "notes")})
            entry["outputs_mapped_by"] = how
            if reference is None:
                entry.update({"status": "unchecked",
                              "why": "pdlite gave no reference"})
            else:
                entry.update(check_outputs(mapped, reference, tol))
            if entry["status"] == "MISMATCH":
                log("  %s MISMATCH: %s" % (peer, entry["why"]))
                worker.kill()
                del workers[peer]
            entry["round_samples"] = []

        # Alternating rounds.
        ours["rounds"] = []
        for r in range(args.rounds):
            if ours.get("status") in ("ok", "MISMATCH"):
                try:
                    ours["rounds"].append(pdlite_bench(
                        spec, case["inputs"], threads, args.warmup,
                        args.iters))
                except RuntimeError as e:
                    ours.update({"status": "FAIL", "why": str(e)})
                    log("  pdlite bench FAIL: %s" % e)
                time.sleep(PAUSE_S)
            for peer, worker in list(workers.items()):
                entry = record["peers"][peer]
                try:
                    reply = worker.request({"cmd": "round",
                                            "warmup": args.warmup,
                                            "iters": args.iters}, T_ROUND)
                except WorkerError as e:
                    reply = {"ok": False, "error": str(e)}
                if not reply.get("ok"):
                    entry.update({"status": "FAIL", "why": reply["error"]})
                    log("  %s FAIL in round %d: %s" % (peer, r + 1,
                                                       reply["error"]))
                    worker.kill()
                    del workers[peer]
                    continue
                entry["round_samples"].append(reply["samples"])
                entry.setdefault("cpu_per_wall", []).append(
                    reply["cpu_per_wall"])
                time.sleep(PAUSE_S)

        for peer, worker in workers.items():
            try:
                reply = worker.request({"cmd": "finish"}, 60)
            except WorkerError as e:
                reply = {"ok": False, "error": str(e)}
            if reply.get("ok"):
                record["peers"][peer].update(
                    {k: reply[k] for k in ("vmhwm_mb", "baseline_mb",
                                           "peak_rss_mb", "rss_reset")})
    finally:
        for worker in workers.values():
            worker.kill()
    summarize(record)
    return record


def summarize(record):
    """Adds the table's figures ('figures') to pdlite and each peer."""
    ours = record["pdlite"]
    rounds = ours.get("rounds") or []
    if rounds:
        pooled = [v for r in rounds for v in r.get("samples_ms", [])]
        ours["figures"] = {
            "median": statistics.median(pooled) if pooled else
                      statistics.median(r["latency_ms"]["median"]
                                        for r in rounds),
            "min": min(r["latency_ms"]["min"] for r in rounds),
            "load": statistics.median(r["load_ms"] for r in rounds),
            "first": statistics.median(r["first_run_ms"] for r in rounds),
            # Peak RSS the model added: the process's peak less what it
            # held before loading the model (the peers' measure too).
            "rss": max(r["peak_rss_mb"] - r.get("baseline_rss_mb", 0.0)
                       for r in rounds),
            "process_rss": max(r["peak_rss_mb"] for r in rounds),
        }
    for entry in record["peers"].values():
        samples = entry.get("round_samples") or []
        if samples and "peak_rss_mb" in entry:
            pooled = [s for r in samples for s in r]
            entry["figures"] = {
                "median": statistics.median(pooled),
                "min": min(pooled),
                "load": entry["load_ms"],
                "first": entry["first_run_ms"],
                "rss": entry["peak_rss_mb"],
            }
    passing = {p: e for p, e in record["peers"].items()
               if e.get("status") == "ok" and "figures" in e}
    ours_ok = ours.get("status") == "ok" and "figures" in ours
    for entry in passing.values():
        if ours_ok:
            entry["ratios"] = {k: ours["figures"][k] / entry["figures"][k]
                               if entry["figures"][k] > 0 else float("inf")
                               for k in ("median", "min", "load", "rss")}
    if passing and ours_ok:
        best = min(passing, key=lambda p: passing[p]["figures"]["median"])
        bf, of = passing[best]["figures"], ours["figures"]
        record["best_peer"] = best
        record["ours_over_best"] = of["median"] / bf["median"]
        record["goals"] = {
            "median": of["median"] <= GOAL_MEDIAN * bf["median"],
            "load": of["load"] <= bf["load"],
            "rss": of["rss"] <= bf["rss"],
        }


# ---- output -------------------------------------------------------------------

def fmt(v):
    if v is None:
        return "-"
    if v >= 1000:
        return "%.0f" % v
    if v >= 100:
        return "%.1f" % v
    if v >= 10:
        return "%.2f" % v
    return "%.3f" % v


def fmt_ratio(v):
    return "%.2f" % v if v is not None else "-"


def status_text(entry):
    status = entry.get("status", "FAIL")
    if status == "MISMATCH":
        d, x = entry.get("max_diff"), entry.get("excess")
        if d is None:
            text = "MISMATCH(%s)" % short_reason(entry.get("why", ""), 24)
        elif x is None:
            text = "MISMATCH(%.3g)" % d
        else:
            text = "MISMATCH(%.3g = %.1fx tol)" % (d, x)
    elif status == "n/a":
        text = "n/a (%s)" % entry.get("why", "")
    elif status == "FAIL" or "figures" not in entry:
        text = "FAIL(%s)" % short_reason(entry.get("why", "no result"))
    else:
        return None
    return text


FIG_COLS = [("median", 7), ("min", 7), ("load", 7), ("1st", 7), ("RSS", 6)]
RATIO_COLS = [("x.med", 5), ("x.min", 5), ("x.load", 6), ("x.RSS", 5)]


def runtime_cell(entry, with_ratios):
    cols = FIG_COLS + (RATIO_COLS if with_ratios else [])
    width = sum(w for _, w in cols) + len(cols) - 1
    bad = status_text(entry)
    if bad:
        return bad[:width].ljust(width)
    f = entry["figures"]
    parts = [fmt(f[k]).rjust(w) for k, (_, w) in
             zip(("median", "min", "load", "first", "rss"), FIG_COLS)]
    if with_ratios:
        r = entry.get("ratios") or {}
        parts += [fmt_ratio(r.get(k)).rjust(w) for k, (_, w) in
                  zip(("median", "min", "load", "rss"), RATIO_COLS)]
    return " ".join(parts)


def goal_text(record):
    g = record.get("goals")
    if not g:
        return "-"
    return "/".join("ok" if g[k] else "NO" for k in ("median", "load", "rss"))


def print_text_table(records, peers):
    mw = max([len(r["model"]) for r in records] + [5])
    iw = max([len(r["input"]) for r in records] + [5])
    def group(name, with_ratios):
        cols = FIG_COLS + (RATIO_COLS if with_ratios else [])
        width = sum(w for _, w in cols) + len(cols) - 1
        return name.center(width, "-"), " ".join(n.rjust(w) for n, w in cols)
    groups = [group("pdlite", False)] + [group(p, True) for p in peers]
    lead = "%-*s %-*s %3s" % (mw, "", iw, "", "")
    print(lead + " | " + " | ".join(g[0] for g in groups) + " |")
    print("%-*s %-*s %3s" % (mw, "model", iw, "input", "thr") + " | " +
          " | ".join(g[1] for g in groups) + " | best      ours/best goal m/l/r")
    for r in records:
        cells = [runtime_cell(r["pdlite"], False)] + [
            runtime_cell(r["peers"].get(p, {"status": "FAIL",
                                             "why": "not run"}), True)
            for p in peers]
        best = r.get("best_peer")
        tail = "%-9s %9s %s" % (best or "-", fmt_ratio(r.get(
            "ours_over_best")) if best else "-", goal_text(r))
        print("%-*s %-*s %3d" % (mw, r["model"], iw, r["input"],
                                 r["threads"]) + " | " +
              " | ".join(cells) + " | " + tail)


def md_cell(entry, with_ratios):
    bad = status_text(entry)
    if bad:
        return bad
    f = entry["figures"]
    text = " / ".join(fmt(f[k]) for k in ("median", "min", "load", "first",
                                           "rss"))
    if with_ratios and entry.get("ratios"):
        r = entry["ratios"]
        text += "<br>×" + " / ".join(fmt_ratio(r[k]) for k in
                                     ("median", "min", "load", "rss"))
    return text


def print_markdown_table(records, peers):
    head = (["model", "input", "threads",
             "pdlite median / min / load / first run ms / RSS MB"] +
            ["%s (same; ours/peer: median / min / load / RSS)" % p
             for p in peers] + ["best peer", "ours/best median",
                                "goals median / load / RSS"])
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in records:
        row = [r["model"], r["input"], str(r["threads"]),
               md_cell(r["pdlite"], False)]
        row += [md_cell(r["peers"].get(p, {"status": "FAIL",
                                            "why": "not run"}), True)
                for p in peers]
        row += [r.get("best_peer") or "-",
                fmt_ratio(r.get("ours_over_best")) if r.get("best_peer")
                else "-", goal_text(r)]
        print("| " + " | ".join(row) + " |")


def print_notes(records, peers, md):
    bullet = "- " if md else "  "
    notes = []
    for p in peers:
        special = sorted({"%s [%s]" % (r["model"], r["peers"][p]["config"])
                          for r in records if p in r["peers"]
                          and r["peers"][p].get("config")
                          not in (None, "ort", "openvino",
                                  "oneDNN, IR optim")})
        if special:
            notes.append("%s ran with another configuration on: %s"
                         % (p, ", ".join(special)))
    if notes:
        print()
        for n in notes:
            print(bullet + n)


def print_summary(records):
    judged = [r for r in records if r.get("goals")]
    n = len(judged)
    counts = {k: sum(1 for r in judged if r["goals"][k])
              for k in ("median", "load", "rss")}
    every = sum(1 for r in judged if all(r["goals"].values()))
    print("\nsummary: of %d cases (%d with pdlite and at least one peer "
          "passing): median <= %.1fx best peer in %d, load <= best peer's "
          "in %d, peak RSS <= best peer's in %d, all three in %d"
          % (len(records), n, GOAL_MEDIAN, counts["median"], counts["load"],
             counts["rss"], every))


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def peer_versions():
    from importlib import metadata
    versions = {}
    for peer, dist in (("paddle", "paddlepaddle"), ("openvino", "openvino"),
                       ("ort", "onnxruntime")):
        try:
            versions[peer] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[peer] = "not installed"
    return versions


def print_header(args, versions, md):
    b = "- " if md else ""
    cores = len(os.sched_getaffinity(0)) if hasattr(
        os, "sched_getaffinity") else os.cpu_count()
    print(b + "CPU: %s, %d logical cores available" % (cpu_model(), cores))
    print(b + "peers: " + ", ".join(
        "%s %s" % ({"paddle": "Paddle Inference (paddlepaddle)",
                    "openvino": "OpenVINO", "ort": "ONNX Runtime"}[p],
                   versions[p]) for p in args.peers))
    print(b + "options: threads %s, %d round(s) of %d warm-up + %d timed "
          "runs per runtime" % (",".join(map(str, args.threads)),
                                args.rounds, args.warmup, args.iters))
    print(b + "times in ms (median and min of all timed runs, load, first "
          "run), peak RSS in MB; x.* = ours/peer, below 1: pdlite is "
          "faster or smaller")
    print(b + "RSS = the peak RSS the model added: VmHWM less VmRSS just "
          "before the model is loaded (peers: after importing the peer's "
          "module, so the interpreter and the import are left out; pdlite: "
          "the process, its libraries loaded, before CreatePredictor)")
    print(b + "goals (m/l/r): median <= %.1fx best peer's, load <= best "
          "peer's, RSS <= best peer's; best peer = lowest median among "
          "peers that passed" % GOAL_MEDIAN)
    print(b + "checks: shipped inputs vs ref/expected (1e-4 + 1e-3 rel); "
          "large inputs vs pdlite's output (1e-3 + 1e-3 rel)")
    print()


# ---- stream mode (`--stream`) -------------------------------------------

def pdlite_stream(spec, shapes, samples, seed, passes, threads):
    """`pdlite bench --shapes ... --json` once; its JSON object."""
    cmd = [PDLITE, "bench", "--model", spec["dir"], "--shapes", shapes,
           "--samples", str(samples), "--seed", str(seed),
           "--passes", str(passes), "--threads", str(threads), "--json"]
    # Line-buffered stdout: a JSON line printed before a crash at exit
    # (teardown) still arrives; such a run is kept but marked.
    stdbuf = shutil.which("stdbuf")
    if stdbuf:
        cmd = [stdbuf, "-oL"] + cmd
    rc, out, err = run_cmd(cmd, T_STREAM)
    result = None
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            try:
                result = json.loads(line)
            except ValueError:
                pass
            break
    if rc is None or result is None or len(result.get("passes", [])) \
            != passes or not result.get("stream"):
        # Its own message ("pdlite: ..."), not the usage text after it.
        said = [l for l in err.splitlines() if l.startswith("pdlite:")]
        raise RuntimeError("pdlite bench --shapes %s: %s" % (
            "timed out" if rc is None else describe_exit(rc),
            said[-1] if said else
            (err.strip() or out.strip())[-400:] or "no JSON"))
    if rc != 0:
        result["exit_note"] = ("exited with %s after printing its JSON"
                              % describe_exit(rc))
    return result


def stream_cases_for(name, args):
    """[(label, spec)] of one model: --shapes, else the presets."""
    if args.shapes:
        return [("custom", args.shapes)]
    return STREAM_PRESETS.get(name, [])


def new_stream_record(case, args, tmp):
    """A stream case's empty record, and the folder for its workers' logs."""
    record = {"model": case["model"], "stream": case["label"],
              "shapes_spec": case["shapes"], "samples": args.samples,
              "seed": args.seed, "passes": args.passes,
              "threads": case["threads"], "rounds": args.rounds,
              "shapes": None, "notes": [],
              "pdlite": {"status": "ok", "rounds": []},
              "peers": {p: {"status": "ok", "rounds": []}
                        for p in args.peers}}
    case_dir = os.path.join(tmp, "case%d" % case["index"])
    os.makedirs(case_dir, exist_ok=True)
    return record, case_dir


def stream_message(cmd, name, case, args, stream):
    """A stream command for a worker: the runtime, the case and its shapes."""
    spec = case["spec"]
    return {"cmd": cmd, "peer": name, "threads": case["threads"],
            "passes": args.passes, "seed": args.seed,
            "stream": [[[n, d] for n, d in s] for s in stream],
            "spec": {k: spec[k] for k in ("dir", "prog", "params", "onnx")}}


def cpu_ns(pids):
    """CPU time so far of every thread of the given processes, in ns
    (/proc/PID/task/TID/schedstat; a process gone counts as 0)."""
    total = 0
    for pid in pids:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    return total


def wait_quiet(pids, window_s=0.02, quiet_ns=1e6, limit_s=2.0):
    """Waits until the given processes use under quiet_ns of CPU in a
    window (a peer's thread pool may spin or finish work after its turn);
    returns the seconds waited (limit_s at most)."""
    if not pids:
        return 0.0
    start = time.perf_counter()
    before = cpu_ns(pids)
    while time.perf_counter() - start < limit_s:
        time.sleep(window_s)
        now = cpu_ns(pids)
        if now - before < quiet_ns:
            break
        before = now
    return time.perf_counter() - start


def stream_request(worker, msg, name, entry, log):
    """The worker's reply to msg, or None once `entry` is marked FAIL."""
    try:
        reply = worker.request(msg, T_STREAM)
    except WorkerError as e:
        reply = {"ok": False, "error": str(e)}
    if reply.get("ok"):
        return reply
    entry.update({"status": "FAIL", "why": reply.get("error")})
    log("  %s FAIL: %s" % (name, short_reason(reply.get("error"), 300)))
    return None


def keep_stream_round(entry, reply, name):
    """Adds a finished stream's reply to its runtime's entry."""
    entry["rounds"].append(reply)
    if name != "pdlite":
        for k in ("version", "config"):
            entry[k] = reply[k]
    if reply.get("notes"):
        entry.setdefault("notes", []).extend(reply["notes"])


def run_stream_case_interleaved(case, args, tmp, log):
    """Per round, pdlite (through its C API) and each peer in fresh
    workers, all open at once, taking turns run by run (--turns sample:
    each shape's run of one is timed next to the others' runs of it) or
    pass by pass, the order rotating each pass, so that a slow stretch of
    a shared machine falls on all of them, not on whichever ran then.
    Run-by-run turns pair each run with the others' runs of the shape,
    but every run then starts with caches the others' runs evicted and
    after its process slept: on the 2-core VM of the twentieth session
    that made both runtimes' runs 15-50% slower, and the ratios no less
    spread than pass-by-pass turns."""
    spec = case["spec"]
    record, case_dir = new_stream_record(case, args, tmp)
    record["interleaved"] = True
    record["turns"] = args.turns
    try:
        stream = draw_shape_stream(case["shapes"], args.samples, args.seed)
    except (ValueError, OSError) as e:
        record["notes"].append("vs_peers.py cannot draw the stream: %s" % e)
        record["pdlite"].update({"status": "FAIL", "why": str(e)})
        summarize_stream(record)
        return record
    record["shapes"] = [sample_to_string(s) for s in stream]
    entries = {"pdlite": record["pdlite"]}
    entries.update(record["peers"])
    for peer in args.peers:
        if peer == "ort" and not spec["onnx"]:
            entries[peer].update({"status": "n/a", "why": "no ONNX twin"})
    for r in range(args.rounds):
        workers = {}
        try:
            for name, entry in entries.items():
                if entry["status"] != "ok":
                    continue
                worker = Worker(name, os.path.join(
                    case_dir, "%s.round%d.log" % (name, r + 1)))
                if stream_request(worker, stream_message(
                        "stream_open", name, case, args, stream),
                        name, entry, log) is None:
                    worker.kill()
                    continue
                workers[name] = worker
                time.sleep(PAUSE_STREAM_S)
            names = list(workers)
            # Turns of one sample (--turns sample) or of a whole pass.
            steps = ([(s, s + 1) for s in range(len(stream))]
                     if args.turns == "sample" else [(0, len(stream))])
            for p in range(args.passes):
                turn = names[p % len(names):] + names[:p % len(names)] \
                    if names else []
                for lo, hi in steps:
                    for name in turn:
                        if name not in workers:
                            continue
                        # A turn starts once the others are idle, and what
                        # CPU they still take during it is kept: a pass
                        # that shared its cores shows as such.
                        others = [w.proc.pid for n, w in workers.items()
                                  if n != name]
                        waited = wait_quiet(others)
                        others_before = cpu_ns(others)
                        if stream_request(
                                workers[name],
                                {"cmd": "stream_pass", "from": lo, "to": hi},
                                name, entries[name], log) is None:
                            workers.pop(name).kill()
                            continue
                        beside = entries[name].setdefault("beside", {})
                        key = "%d.%d" % (r, p)
                        turn_figures = beside.setdefault(
                            key, {"round": r, "pass": p, "waited_ms": 0.0,
                                  "others_cpu_ms": 0.0})
                        turn_figures["waited_ms"] += waited * 1e3
                        turn_figures["others_cpu_ms"] += (
                            cpu_ns(others) - others_before) / 1e6
                        if args.turns == "pass":
                            time.sleep(PAUSE_STREAM_S)
                if args.turns == "sample":
                    time.sleep(PAUSE_STREAM_S)
            for name, worker in workers.items():
                reply = stream_request(worker, {"cmd": "stream_close"},
                                       name, entries[name], log)
                if reply is not None:
                    keep_stream_round(entries[name], reply, name)
        finally:
            for worker in workers.values():
                worker.kill()
    for name, entry in entries.items():
        turns = list(entry.get("beside", {}).values())
        if turns:
            busy = [t["others_cpu_ms"] for t in turns]
            log("  %s: the others took over 5 ms of CPU during %d of its "
                "%d passes (at most %.0f ms); waited for them %.0f ms a "
                "pass (median)" % (
                    name, sum(b > 5 for b in busy), len(busy), max(busy),
                    statistics.median(t["waited_ms"] for t in turns)))
    summarize_stream(record)
    return record


def run_stream_case(case, args, tmp, log):
    """pdlite's whole stream, then each peer's in a fresh worker, per round."""
    if args.interleave:
        return run_stream_case_interleaved(case, args, tmp, log)
    spec, threads = case["spec"], case["threads"]
    record, case_dir = new_stream_record(case, args, tmp)
    try:
        drawn = draw_shape_stream(case["shapes"], args.samples, args.seed)
    except (ValueError, OSError) as e:
        drawn = None
        record["notes"].append("vs_peers.py cannot draw the stream: %s" % e)
    ours = record["pdlite"]
    for r in range(args.rounds):
        stream = None
        if ours["status"] == "ok":
            try:
                result = pdlite_stream(spec, case["shapes"], args.samples,
                                       args.seed, args.passes, threads)
                ours["rounds"].append(result)
                stream = [parse_sample(s) for s in result["stream"]]
                if result.get("exit_note"):
                    note = "pdlite %s (round %d)" % (result["exit_note"],
                                                     r + 1)
                    record["notes"].append(note)
                    log("  WARNING: " + note)
                if drawn is not None and stream != drawn and r == 0:
                    record["notes"].append(
                        "pdlite's stream differs from vs_peers.py's draw; "
                        "the peers ran pdlite's")
            except RuntimeError as e:
                ours.update({"status": "FAIL", "why": str(e)})
                log("  pdlite FAIL: %s" % short_reason(e, 300))
            time.sleep(PAUSE_STREAM_S)
        if stream is None:
            stream = drawn
            if stream is not None and r == 0:
                record["notes"].append("the peers ran vs_peers.py's draw "
                                       "of the stream (pdlite gave none)")
        if stream is None:
            break
        if record["shapes"] is None:
            record["shapes"] = [sample_to_string(s) for s in stream]
        for peer in args.peers:
            entry = record["peers"][peer]
            if entry["status"] != "ok":
                continue  # failed in an earlier round
            if peer == "ort" and not spec["onnx"]:
                entry.update({"status": "n/a", "why": "no ONNX twin"})
                continue
            worker = Worker(peer, os.path.join(
                case_dir, "%s.round%d.log" % (peer, r + 1)))
            try:
                reply = stream_request(worker, stream_message(
                    "stream", peer, case, args, stream), peer, entry, log)
            finally:
                worker.kill()
            if reply is not None:
                keep_stream_round(entry, reply, peer)
            time.sleep(PAUSE_STREAM_S)
    summarize_stream(record)
    return record


def over_rounds(rounds, get):
    """Per pass: the median over rounds of get(round, pass)."""
    n = min(len(r["passes"]) for r in rounds)
    values = []
    for p in range(n):
        got = [get(r, r["passes"][p]) for r in rounds]
        got = [v for v in got if v is not None]
        values.append(statistics.median(got) if got else None)
    return values


def fvs_over_rounds(rounds):
    """first_vs_steady over rounds. Each round is a fresh session, so each
    gives every shape of the stream a first sight: a shape's ratio is the
    median over rounds of its first sight / its steady latency, and "max"
    (what the goal judges) the largest of those, so that one round's first
    sight that met a slow stretch of a shared machine does not stand for
    the shape. "max_any_round" keeps the largest single-round ratio, and
    "median" is the median of the rounds' medians. With one round (or
    rounds without per-shape ratios) "max" is the largest round maximum."""
    fvs = [r.get("first_vs_steady") or {} for r in rounds]
    meds = [f["median"] for f in fvs if f.get("median")]
    maxs = [f["max"] for f in fvs if f.get("max")]
    per_shape = {}
    if fvs and all(f.get("per_shape") for f in fvs):
        for f in fvs:
            for key, ratio in f["per_shape"].items():
                per_shape.setdefault(key, []).append(ratio)
        per_shape = {k: statistics.median(v) for k, v in per_shape.items()}
    worst = max(per_shape.values()) if per_shape else (
        max(maxs) if maxs else None)
    return {"median": statistics.median(meds) if meds else None,
            "max": worst,
            "max_any_round": max(maxs) if maxs else None,
            "per_shape": per_shape}


def summarize_stream(record):
    """Adds 'figures' (per-pass values, median over rounds) and 'goals'."""
    ours = record["pdlite"]
    if ours["status"] == "ok" and ours["rounds"]:
        rounds = ours["rounds"]
        n_shapes = len(rounds[0]["stream"])
        ours["figures"] = {
            "total": over_rounds(rounds, lambda r, p: p["total_ms"]),
            "rss": over_rounds(rounds, lambda r, p:
                               p["rss_mb"] - r["baseline_rss_mb"]),
            "new": over_rounds(rounds, lambda r, p:
                               p["first_sight_median_ms"]
                               if p["first_sights"] else None),
            "seen": over_rounds(rounds, lambda r, p:
                                p["later_sight_median_ms"]
                                if p["first_sights"] < n_shapes else None),
            "load": statistics.median(r["load_ms"] for r in rounds),
            "peak": max(r["peak_rss_mb"] - r["baseline_rss_mb"]
                        for r in rounds),
            "first_vs_steady": fvs_over_rounds(rounds),
        }
    for entry in record["peers"].values():
        rounds = entry.get("rounds")
        if entry["status"] == "ok" and rounds:
            entry["figures"] = {
                "total": over_rounds(rounds, lambda r, p: p["total_ms"]),
                "rss": over_rounds(rounds,
                                   lambda r, p: p["rss_less_baseline_mb"]),
                "load": statistics.median(r["load_ms"] for r in rounds),
                "peak": max(r["peak_less_baseline_mb"] for r in rounds),
                "first_vs_steady": fvs_over_rounds(rounds),
            }
    passing = {p: e["figures"] for p, e in record["peers"].items()
               if "figures" in e}
    if "figures" not in ours:
        return
    of = ours["figures"]
    n = len(of["total"])
    best, ratios = [], []
    for p in range(n):
        totals = {peer: f["total"][p] for peer, f in passing.items()
                  if p < len(f["total"])}
        if totals:
            peer = min(totals, key=totals.get)
            best.append(peer)
            ratios.append(of["total"][p] / totals[peer])
        else:
            best.append(None)
            ratios.append(None)
    record["best_peer"], record["ratios"] = best, ratios
    goals = {}
    goals["first_pass"] = (ratios[0] <= GOAL_FIRST_PASS
                           if ratios and ratios[0] is not None else None)
    later = [x for x in ratios[1:] if x is not None]
    goals["later_passes"] = (all(x <= GOAL_LATER_PASS for x in later)
                             if later else None)
    record["later_worst"] = max(later) if later else None
    fvs_max = of["first_vs_steady"]["max"] if n >= 2 else None
    goals["new_shape"] = fvs_max <= GOAL_NEW_SHAPE if fvs_max else None
    rss = of["rss"]
    if n >= 3 and rss[2] and rss[2] > 0:
        record["rss_drift_pct"] = (rss[-1] - rss[2]) / rss[2] * 100.0
        goals["rss_drift"] = record["rss_drift_pct"] < GOAL_DRIFT_PCT
    else:
        record["rss_drift_pct"] = None
        goals["rss_drift"] = None
    if "ort" in passing and passing["ort"]["rss"]:
        goals["rss_vs_ort"] = rss[-1] <= passing["ort"]["rss"][-1]
    else:
        goals["rss_vs_ort"] = None
    record["goals"] = goals


STREAM_GOALS = ("first_pass", "later_passes", "new_shape", "rss_drift",
                "rss_vs_ort")


def stream_goal_lines(record, md):
    """One line per goal: the figure, the goal, ok / MISSED (bold in md)."""
    g = record.get("goals") or {}
    ours = record["pdlite"].get("figures")
    if not ours:
        return []
    def mark(key, text):
        ok = g.get(key)
        if ok is None:
            return text + ": n/a"
        if md:
            return text + ": ok" if ok else "**%s: missed**" % text
        return text + (": ok" if ok else ": MISSED")
    ratios, best = record.get("ratios") or [], record.get("best_peer") or []
    lines = []
    if ratios and ratios[0] is not None:
        lines.append(mark("first_pass", "first pass %.2fx the faster peer "
                          "(%s) (goal <= %.1f)" % (ratios[0], best[0],
                                                   GOAL_FIRST_PASS)))
    else:
        lines.append(mark("first_pass", "first pass: no peer passed"))
    if record.get("later_worst") is not None:
        lines.append(mark("later_passes", "later passes: worst %.2fx the "
                          "faster peer (goal every pass <= %.1f)"
                          % (record["later_worst"], GOAL_LATER_PASS)))
    else:
        lines.append(mark("later_passes", "later passes: none judged"))
    fvs = ours["first_vs_steady"]
    if fvs["max"]:
        rounds = len(record["pdlite"].get("rounds") or [])
        over = ""
        if rounds > 1 and fvs.get("per_shape"):
            over = (" (a shape's: median over %d rounds; one round's worst "
                    "%.2fx)" % (rounds, fvs["max_any_round"]))
        lines.append(mark("new_shape", "new shape vs steady (pdlite): "
                          "median %.2fx, max %.2fx%s (goal max <= %.1f)"
                          % (fvs["median"], fvs["max"], over,
                             GOAL_NEW_SHAPE)))
    else:
        lines.append(mark("new_shape", "new shape vs steady: needs >= 2 "
                          "passes"))
    if record.get("rss_drift_pct") is not None:
        lines.append(mark("rss_drift", "pdlite RSS drift pass 3 -> %d: "
                          "%+.2f%% (goal < %.0f%%)"
                          % (len(ours["rss"]), record["rss_drift_pct"],
                             GOAL_DRIFT_PCT)))
    else:
        lines.append(mark("rss_drift", "pdlite RSS drift: needs >= 3 "
                          "passes"))
    ort = record["peers"].get("ort", {}).get("figures")
    if ort:
        lines.append(mark("rss_vs_ort", "RSS at the last pass: pdlite %.1f "
                          "MB vs ort %.1f MB (goal <=)"
                          % (ours["rss"][-1], ort["rss"][-1])))
    else:
        lines.append(mark("rss_vs_ort", "RSS vs ort: ort did not run"))
    return lines


def stream_title(record):
    return ("%s, %s stream %s: %d shapes (seed %d), %d pass(es), %d "
            "thread(s), %d round(s)" % (
                record["model"], record["stream"], record["shapes_spec"],
                len(record["shapes"] or []) or record["samples"],
                record["seed"], record["passes"], record["threads"],
                record["rounds"]))


def stream_rows(record, peers):
    """Per pass: the cells of the table (strings), and whether each ratio
    meets its goal (None when not judged)."""
    ours = record["pdlite"].get("figures")
    n = max([len(ours["total"]) if ours else 0] +
            [len(e["figures"]["total"]) for e in record["peers"].values()
             if "figures" in e])
    rows = []
    for p in range(n):
        def at(values):
            return values[p] if values and p < len(values) else None
        peer_f = [record["peers"].get(x, {}).get("figures") for x in peers]
        ratio = at(record.get("ratios"))
        goal = GOAL_FIRST_PASS if p == 0 else GOAL_LATER_PASS
        ok = None if ratio is None else ratio <= goal
        cells = {
            "pass": str(p + 1),
            "pdlite": fmt(at(ours["total"])) if ours else "-",
            "peers": [fmt(at(f["total"])) if f else "-" for f in peer_f],
            "ratio": ("%.2f %s" % (ratio, at(record["best_peer"]))
                      if ratio is not None else "-"),
            "goal": "<= %.1f" % goal,
            "new": fmt(at(ours["new"])) if ours else "-",
            "seen": fmt(at(ours["seen"])) if ours else "-",
            "rss": fmt(at(ours["rss"])) if ours else "-",
            "peer_rss": [fmt(at(f["rss"])) if f else "-" for f in peer_f],
        }
        rows.append((cells, ok))
    return rows


def stream_status_notes(record, peers):
    notes = list(record.get("notes") or [])
    for who, entry in [("pdlite", record["pdlite"])] + [
            (p, record["peers"].get(p, {})) for p in peers]:
        if entry.get("status") == "FAIL":
            notes.append("%s FAIL: %s" % (who, short_reason(
                entry.get("why", ""), 200)))
        elif entry.get("status") == "n/a":
            notes.append("%s n/a: %s" % (who, entry.get("why")))
        if entry.get("config") not in (None, "ort", "oneDNN, IR optim"):
            notes.append("%s ran as [%s]" % (who, entry["config"]))
    loads = []
    for who, entry in [("pdlite", record["pdlite"])] + [
            (p, record["peers"].get(p, {})) for p in peers]:
        f = entry.get("figures")
        if f:
            loads.append("%s %s / %s" % (who, fmt(f["load"]), fmt(f["peak"])))
    if loads:
        notes.append("load ms / peak RSS less baseline MB: " +
                     ", ".join(loads))
    fvs = []
    for who, entry in [("pdlite", record["pdlite"])] + [
            (p, record["peers"].get(p, {})) for p in peers]:
        f = (entry.get("figures") or {}).get("first_vs_steady") or {}
        if f.get("max"):
            fvs.append("%s %.2f / %.2f" % (who, f["median"], f["max"]))
    if fvs:
        notes.append("new shape vs steady, median / max: " + ", ".join(fvs))
    return notes


def print_stream_text(record, peers):
    print(stream_title(record))
    head = ["pass", "pdlite ms"] + ["%s ms" % p for p in peers] + [
        "ours/best", "goal", "", "new med", "seen med", "RSS MB pdlite"] + \
        ["RSS %s" % p for p in peers]
    widths = [4, 10] + [max(10, len(p) + 3) for p in peers] + \
        [14, 6, 4, 8, 8, 13] + [max(8, len(p) + 4) for p in peers]
    print(" ".join(h.rjust(w) for h, w in zip(head, widths)))
    for cells, ok in stream_rows(record, peers):
        row = [cells["pass"], cells["pdlite"]] + cells["peers"] + [
            cells["ratio"], cells["goal"],
            "-" if ok is None else ("ok" if ok else "NO"),
            cells["new"], cells["seen"], cells["rss"]] + cells["peer_rss"]
        print(" ".join(c.rjust(w) for c, w in zip(row, widths)))
    for line in stream_goal_lines(record, False):
        print("  goal: " + line)
    for note in stream_status_notes(record, peers):
        print("  note: " + note)
    print()


def print_stream_markdown(record, peers):
    print("#### " + stream_title(record).replace(
        record["shapes_spec"], "`%s`" % record["shapes_spec"]))
    print()
    head = ["pass", "pdlite ms"] + ["%s ms" % p for p in peers] + [
        "ours/best", "pdlite new / seen median ms", "RSS MB pdlite"] + \
        ["RSS MB %s" % p for p in peers]
    print("| " + " | ".join(head) + " |")
    print("|" + "---:|" * len(head))
    for cells, ok in stream_rows(record, peers):
        ratio = cells["ratio"]
        if ok is False:
            ratio = "**%s**" % ratio
        row = [cells["pass"], cells["pdlite"]] + cells["peers"] + [
            ratio, "%s / %s" % (cells["new"], cells["seen"]),
            cells["rss"]] + cells["peer_rss"]
        print("| " + " | ".join(row) + " |")
    print()
    for line in stream_goal_lines(record, True):
        print("- " + line)
    for note in stream_status_notes(record, peers):
        print("- " + note)
    print()


def run_cases(cases, run_one, args, versions, log, describe):
    """Runs every case with run_one(case, args, tmp, log) in one scratch
    folder; returns (records, seconds). Peer versions the runtimes report
    themselves (OpenVINO's build string) replace those in `versions`."""
    started = time.monotonic()
    records = []
    with tempfile.TemporaryDirectory(prefix="vs_peers_") as tmp:
        for case in cases:
            log("[%d/%d] %s" % (case["index"] + 1, len(cases), describe(case)))
            records.append(run_one(case, args, tmp, log))
    elapsed = time.monotonic() - started
    log("done in %.0f s" % elapsed)
    for r in records:
        for peer, entry in r["peers"].items():
            if entry.get("version"):
                versions[peer] = entry["version"]
    return records, elapsed


def print_stream_header(args, versions, md):
    b = "- " if md else ""
    cores = len(os.sched_getaffinity(0)) if hasattr(
        os, "sched_getaffinity") else os.cpu_count()
    print(b + "CPU: %s, %d logical cores available" % (cpu_model(), cores))
    print(b + "peers: " + ", ".join(
        "%s %s" % ({"paddle": "Paddle Inference (paddlepaddle)",
                    "openvino": "OpenVINO", "ort": "ONNX Runtime"}[p],
                   versions[p]) for p in args.peers))
    if getattr(args, "openvino_skipped", False):
        print(b + "openvino skipped: it would reshape and recompile the "
              "model for every new shape")
    if args.interleave:
        order = ("pdlite (through its C API) and each peer in fresh workers "
                 "open at once, taking turns %s" % (
                     "run by run (each shape's run of every runtime in a "
                     "row, the order rotating each pass)"
                     if args.turns == "sample" else "pass by pass"))
    else:
        order = "pdlite's whole stream, then each peer's in a fresh process"
    print(b + "shape streams: %d shapes drawn with seed %d, run %d times "
          "(passes) by one session per runtime; %d round(s) of %s" % (
              args.samples, args.seed, args.passes, args.rounds, order))
    print(b + "ms = a pass's total (the sum of its runs; median over rounds);"
          " ours/best = pdlite's total / the faster peer's that pass; new / "
          "seen med = pdlite's median run of shapes seen for the first time "
          "/ seen before")
    print(b + "RSS MB = VmRSS after the pass less VmRSS just before the "
          "session is created (peers: after importing the peer's module)")
    print(b + "goals: first pass <= %.1fx the faster peer, every later pass "
          "<= %.1fx; a new shape's first run <= %.1fx its steady latency "
          "(max over shapes); pdlite RSS growth from pass 3 to the last "
          "< %.0f%%; pdlite RSS <= ort's at the last pass" % (
              GOAL_FIRST_PASS, GOAL_LATER_PASS, GOAL_NEW_SHAPE,
              GOAL_DRIFT_PCT))
    print()


def print_stream_report(args, records, versions):
    print_stream_header(args, versions, args.markdown)
    for record in records:
        if args.markdown:
            print_stream_markdown(record, args.peers)
        else:
            print_stream_text(record, args.peers)
    judged = [r for r in records if r.get("goals")]
    counts = {k: (sum(1 for r in judged if r["goals"][k]),
                  sum(1 for r in judged if r["goals"][k] is not None))
              for k in STREAM_GOALS}
    print("summary: %d stream case(s); goals met (of those judged): %s" % (
        len(records), ", ".join("%s %d/%d" % (k, m, j)
                                for k, (m, j) in counts.items())))


def orchestrate_stream(args):
    available = find_models()
    if not available:
        sys.exit("vs_peers: no models with ref/expected_*.npy under %s"
                 % MODELS_DIR)
    if args.models:
        names = select_models(available, args.models)
    else:
        names = [m for m in sorted(available) if m in STREAM_PRESETS]
    versions = peer_versions()

    def log(text):
        print(text, file=sys.stderr, flush=True)

    args.openvino_skipped = "openvino" in args.peers
    if args.openvino_skipped:
        args.peers = [p for p in args.peers if p != "openvino"]
        log("vs_peers: openvino skipped in --stream: it must reshape and "
            "recompile for every new shape")
    cases = []
    for name in names:
        streams = stream_cases_for(name, args)
        if not streams:
            sys.exit("vs_peers: no preset stream for %s; give --shapes" % name)
        for label, shapes in streams:
            for t in args.threads:
                cases.append({"model": name, "spec": available[name],
                              "label": label, "shapes": shapes,
                              "threads": t, "index": len(cases)})

    records, elapsed = run_cases(
        cases, run_stream_case, args, versions, log,
        lambda c: "%s, %s stream %s, %d thread(s)" % (
            c["model"], c["label"], c["shapes"], c["threads"]))

    print_stream_report(args, records, versions)

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"mode": "stream", "cpu": cpu_model(),
                       "peer_versions": versions,
                       "options": {"threads": args.threads,
                                   "rounds": args.rounds,
                                   "samples": args.samples,
                                   "seed": args.seed,
                                   "passes": args.passes,
                                   "shapes": args.shapes,
                                   "peers": args.peers,
                                   "openvino_skipped":
                                       args.openvino_skipped},
                       "goals": {"first_pass": GOAL_FIRST_PASS,
                                 "later_passes": GOAL_LATER_PASS,
                                 "new_shape": GOAL_NEW_SHAPE,
                                 "rss_drift_pct": GOAL_DRIFT_PCT},
                       "elapsed_s": elapsed, "cases": records}, f, indent=1)
    return 0


# ---- main -----------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(
        description="pdlite vs Paddle Inference, OpenVINO and ONNX Runtime "
                    "on ../shared/models (see the module docstring).")
    p.add_argument("--models", default="",
                   help="comma list of model folders (default: all)")
    p.add_argument("--threads", default="1,2", help="comma list (1,2)")
    p.add_argument("--rounds", type=int, default=None,
                   help="3 (1 with --stream)")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--quick", action="store_true",
                   help="1 round, 2 warm-up, 5 timed runs")
    p.add_argument("--peers", default=None,
                   help="comma list of paddle,openvino,ort (all; with "
                        "--stream: ort,paddle)")
    p.add_argument("--stream", action="store_true",
                   help="shape-stream mode: one session per runtime runs a "
                        "stream of input shapes --passes times")
    p.add_argument("--shapes", metavar="SPEC",
                   help="--stream: the shapes, e.g. %s (default: each "
                        "model's presets)" % DET_STREAM)
    p.add_argument("--samples", type=int, default=24,
                   help="--stream: shapes drawn (24)")
    p.add_argument("--seed", type=int, default=1,
                   help="--stream: seed of the draw (1)")
    p.add_argument("--interleave", action=argparse.BooleanOptionalAction,
                   default=True,
                   help="--stream: run pdlite through its C API in a "
                        "worker like the peers', all taking turns pass by "
                        "pass (default); --no-interleave runs `pdlite "
                        "bench --shapes` for its whole stream, then each "
                        "peer's")
    p.add_argument("--turns", choices=("pass", "sample"), default="pass",
                   help="--stream with --interleave: the runtimes take "
                        "turns pass by pass (default) or run by run "
                        "(sample: each runtime's run of a shape is timed "
                        "next to the others' runs of it; each run then "
                        "starts after the others', with caches cold)")
    p.add_argument("--passes", type=int, default=10,
                   help="--stream: times the stream runs (10)")
    p.add_argument("--json", metavar="FILE", help="write all raw results")
    p.add_argument("--from-json", metavar="FILE",
                   help="print the table of an earlier run's --json file "
                        "(no runs, no peers needed)")
    p.add_argument("--compare", metavar="FILE", nargs="+",
                   help="one compact Markdown table of several saved "
                        "--json runs side by side: ours and the best "
                        "peer per case, the ratios of each run")
    p.add_argument("--markdown", action="store_true",
                   help="print the table in Markdown")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return args
    if args.rounds is None:
        args.rounds = 1 if args.stream else 3
    if args.peers is None:
        args.peers = ",".join(STREAM_PEERS if args.stream else ALL_PEERS)
    if args.quick:
        args.rounds, args.warmup, args.iters = 1, 2, 5
    if args.stream and (args.samples < 1 or args.passes < 1):
        p.error("--samples and --passes must be >= 1")
    if args.shapes and not args.stream:
        p.error("--shapes needs --stream")
    if args.shapes:
        try:
            draw_shape_stream(args.shapes, 1, args.seed)
        except (ValueError, OSError) as e:
            p.error("--shapes: %s" % e)
    try:
        args.threads = [int(t) for t in args.threads.split(",") if t.strip()]
    except ValueError:
        p.error("--threads takes a comma list of integers")
    if not args.threads or min(args.threads) < 1:
        p.error("--threads needs positive integers")
    if args.rounds < 1 or args.iters < 1 or args.warmup < 0:
        p.error("--rounds and --iters must be >= 1, --warmup >= 0")
    args.peers = [x.strip() for x in args.peers.split(",") if x.strip()]
    unknown = [x for x in args.peers if x not in ALL_PEERS]
    if unknown:
        p.error("unknown peer(s) %s; known: %s" % (", ".join(unknown),
                                                   ", ".join(ALL_PEERS)))
    return args


def select_models(available, wanted):
    if not wanted:
        return sorted(available)
    chosen = []
    for w in [x.strip().strip("/") for x in wanted.split(",") if x.strip()]:
        hits = [m for m in available
                if m == w or os.path.basename(m) == w]
        if not hits:
            sys.exit("vs_peers: no model '%s' in %s; there are: %s"
                     % (w, MODELS_DIR, ", ".join(sorted(available))))
        chosen += [h for h in hits if h not in chosen]
    return chosen


def print_report(args, records, versions):
    print_header(args, versions, args.markdown)
    if args.markdown:
        print_markdown_table(records, args.peers)
    else:
        print_text_table(records, args.peers)
    print_notes(records, args.peers, args.markdown)
    print_summary(records)


def report_from_json(args):
    """Prints the table of a saved run with that run's options."""
    with open(args.from_json) as f:
        saved = json.load(f)
    for key, value in saved["options"].items():
        setattr(args, key, value)
    if saved.get("mode") == "stream":
        print_stream_report(args, saved["cases"], saved["peer_versions"])
        return 0
    print_report(args, saved["cases"], saved["peer_versions"])
    return 0


def print_runs_head(fixed, per_run, count):
    """The Markdown head of a --compare table: `fixed` columns, then the
    `per_run` columns of each of `count` runs (the first one numbered)."""
    heads = list(fixed)
    for i in range(count):
        heads += ["run %d: %s" % (i + 1, per_run[0])] + per_run[1:]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))


def compare_stream_runs(saved):
    """One row per stream case: each saved --stream run's figures."""
    runs = [{(c["model"], c["stream"], c["threads"]): c for c in run["cases"]}
            for run in saved]
    print_runs_head(["model", "stream", "thr"],
                    ["pass 1", "later median (worst)", "new vs steady max",
                     "RSS MB ours vs ort", "drift"], len(runs))
    met = [0] * len(runs)
    for key in runs[0]:
        row = [key[0], key[1], str(key[2])]
        for i, run in enumerate(runs):
            case = run.get(key)
            if not case or not case.get("ratios"):
                row += ["-"] * 5
                continue
            goals = case["goals"]
            met[i] += all(ok for ok in goals.values() if ok is not None)
            mark = lambda ok, text: "**%s**" % text if ok is False else text
            ratios = case["ratios"]
            later = ratios[1:]
            ours = case["pdlite"]["figures"]
            fvs = ours["first_vs_steady"].get("max")
            ort = case["peers"].get("ort", {}).get("figures", {})
            row += [mark(goals.get("first_pass"), "%.2f" % ratios[0]),
                    mark(goals.get("later_passes"), "%.2f (%.2f)" % (
                        statistics.median(later), case["later_worst"])
                         if later else "-"),
                    mark(goals.get("new_shape"),
                         "%.2f" % fvs if fvs is not None else "-"),
                    mark(goals.get("rss_vs_ort"), "%.1f vs %s" % (
                        ours["rss"][-1], "%.1f" % ort["rss"][-1]
                        if ort.get("rss") else "-")),
                    mark(goals.get("rss_drift"),
                         "%+.2f%%" % case["rss_drift_pct"])]
        print("| " + " | ".join(row) + " |")
    print()
    print("ratios ours / the faster peer per pass; **bold** misses its goal "
          "(first pass <= %.1f, every later pass <= %.1f, new shape <= %.0fx "
          "steady, RSS drift < 1%%, RSS <= ORT's); cases meeting every goal: "
          "%s of %d" % (GOAL_FIRST_PASS, GOAL_LATER_PASS,
                        GOAL_NEW_SHAPE,
                        ", ".join(str(m) for m in met), len(runs[0])))
    return 0


def compare_runs(files):
    """One row per case: ours/best-peer ratios of each saved run."""
    saved = []
    for file in files:
        with open(file) as f:
            saved.append(json.load(f))
    modes = {run.get("mode") for run in saved}
    if modes == {"stream"}:
        return compare_stream_runs(saved)
    if "stream" in modes:
        sys.exit("vs_peers: --compare takes runs of one kind: all --stream "
                 "or none")
    runs = [{(c["model"], c["input"], c["threads"]): c for c in run["cases"]}
            for run in saved]
    print_runs_head(["model", "input", "thr"],
                    ["ours ms", "best peer ms", "median", "load", "RSS"],
                    len(runs))
    met = [0] * len(runs)
    for key in runs[0]:
        row = [key[0], key[1], str(key[2])]
        for i, run in enumerate(runs):
            case = run.get(key, {})
            best = case.get("best_peer")
            if not best:
                row += ["-", "no peer passed", "-", "-", "-"]
                continue
            ours = case["pdlite"]["figures"]
            peer = case["peers"][best]["figures"]
            goals = case["goals"]
            met[i] += all(goals.values())
            mark = lambda ok, text: text if ok else "**%s**" % text
            row += ["%.3g" % ours["median"],
                    "%s %.3g" % (best, peer["median"]),
                    mark(goals["median"], "%.2f" % case["ours_over_best"]),
                    mark(goals["load"], "%.2f" % (ours["load"] / peer["load"])),
                    mark(goals["rss"], "%.2f" % (ours["rss"] / peer["rss"]))]
        print("| " + " | ".join(row) + " |")
    print()
    print("ratios ours / best peer (the peer with the lowest median that "
          "passed); **bold** misses its goal (median <= %.1f, load and "
          "RSS <= 1); cases meeting all three: %s of %d" % (
              GOAL_MEDIAN, ", ".join(str(m) for m in met), len(runs[0])))
    return 0


def orchestrate(args):
    available = find_models()
    if not available:
        sys.exit("vs_peers: no models with ref/expected_*.npy under %s"
                 % MODELS_DIR)
    names = select_models(available, args.models)
    versions = peer_versions()

    def log(text):
        print(text, file=sys.stderr, flush=True)

    cases = []
    for name in names:
        spec = available[name]
        spec["fetches"] = fetch_names(spec)
        inputs = [("shipped", spec["ref"])]
        if name in LARGE_KIND:
            inputs.append(("large", large_inputs(name, spec)))
        for kind, folder in inputs:
            label = input_label(kind, folder)
            for t in args.threads:
                cases.append({"model": name, "spec": spec, "kind": kind,
                              "inputs": folder, "label": label,
                              "threads": t, "index": len(cases)})

    records, elapsed = run_cases(
        cases, run_case, args, versions, log,
        lambda c: "%s, %s, %d thread(s)" % (
            c["model"], c["label"], c["threads"]))

    print_report(args, records, versions)

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu_model(), "peer_versions": versions,
                       "options": {"threads": args.threads,
                                   "rounds": args.rounds,
                                   "warmup": args.warmup,
                                   "iters": args.iters,
                                   "peers": args.peers},
                       "tolerance": {"shipped": TOL_REF, "large": TOL_CROSS},
                       "elapsed_s": elapsed, "cases": records}, f, indent=1)
    return 0


def main(argv):
    args = parse_args(argv)
    if args.worker:
        return worker_main()
    if args.from_json:
        return report_from_json(args)
    if args.compare:
        return compare_runs(args.compare)
    if not os.access(PDLITE, os.X_OK):
        print("build first: scripts/build.sh pdlite", file=sys.stderr)
        return 1
    installed = ensure_venv()
    if installed or not in_venv():
        # The peers and numpy live in the venv: continue under its python.
        os.execv(VENV_PY, [VENV_PY, SCRIPT] + argv)
    # SIGTERM -> SystemExit so the finally blocks kill the workers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return orchestrate_stream(args) if args.stream else orchestrate(args)
    except KeyboardInterrupt:
        print("vs_peers: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
