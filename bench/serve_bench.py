#!/usr/bin/env python3
"""Benchmark of `pdlite serve` (issue 15; a benchmark, not a test).

  python3 bench/serve_bench.py [--seconds 10] [--json OUT]

ppocr_cls_mobile_v2 at batch 1 (the first row of ref/input_x.npy), 1, 8 and
64 concurrent clients, over HTTP with the binary tensor extension, HTTP with
JSON tensors, and gRPC; once with a model config without batching and once
with dynamic batching (max_batch_size 16, batch_delay_us 0, the server's
default: 2000 before 2026-12-06), one
instance each (--instances). Reports throughput and p50/p99 latency per cell, and the bare
baseline: `pdlite bench` (a Predictor::Run loop, batch 1, 1 thread), with the
p50 the server adds over it at 1 client, and the floor no transport goes
below on this machine: a bare TCP round trip of the request's bytes between
two processes (build/bench/pdlite_tcp_round_trip), answered at once and
answered after spinning as long as a bare run (a client that waits longer
sleeps deeper, which any server of this model costs it; the second, less
the spin, is the floor the added p50 is measured against). A second table
splits each cell's
time with the server's own /metrics histograms (in the model, queued,
computing), scraped before and after the cell.

Clients (--client): by default build/bench/pdlite_serve_load
(bench/serve_load.cc), one C++ process per cell with a thread per client,
each on its own keep-alive connection or gRPC channel, every answer checked
against the reference. --client wrk runs the HTTP cells with Debian's wrk
instead (bench/serve_wrk.lua: one thread, an event loop over the clients'
connections, every answer compared with the first, which is checked
against the reference); its gRPC cells stay on pdlite_serve_load. The Python clients measure mostly themselves: at
batch 1 they spent longer per request than the server does, and at 64
clients they take a core from it. --client python keeps them: every
request's bytes are prepared once; HTTP clients are threads with one
keep-alive http.client connection each, gRPC clients one tritonclient.grpc
client per thread, spread over --procs processes (threads within each) so
that one Python process's GIL does not cap the 8- and 64-client cells. The
table says how many were used.

tritonclient[http,grpc] and numpy come from build/serve-venv (made by
unittests/serve/serve_test.py's ensure_venv); the script re-executes itself
under it.
"""

import argparse
import collections
import functools
import http.client
import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SERVE_TESTS = os.path.join(ROOT, "unittests", "serve")
DEFAULT_MODEL = os.path.join(os.path.dirname(ROOT), "shared", "models",
                             "ppocr_cls_mobile_v2")

TRANSPORTS = ("http-binary", "http-json", "grpc")
CONFIGS = {
    # One instance both ways, so the cells differ only by batching.
    "off": {"instances": 1, "queue_limit": 256},
    "on": {"instances": 1, "max_batch_size": 16, "batch_delay_us": 0,
           "queue_limit": 256},
}


def percentile(sorted_values, q):
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_values:
        return float("nan")
    k = max(0, min(len(sorted_values) - 1,
                   int(round(q / 100.0 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[k]


# ---- requests, built once per client process --------------------------------

def make_request(transport, model, x, output):
    """(path, body, headers) for HTTP; None for gRPC (built by the client)."""
    path = "/v2/models/%s/infer" % model
    if transport == "http-binary":
        header = json.dumps({
            "inputs": [{"name": "x", "shape": list(x.shape),
                        "datatype": "FP32",
                        "parameters": {"binary_data_size": x.nbytes}}],
            "outputs": [{"name": output,
                         "parameters": {"binary_data": True}}]}).encode()
        return path, header + x.astype("<f4").tobytes(), {
            "Content-Type": "application/octet-stream",
            "Inference-Header-Content-Length": str(len(header))}
    if transport == "http-json":
        body = json.dumps({
            "inputs": [{"name": "x", "shape": list(x.shape),
                        "datatype": "FP32",
                        "data": x.flatten().tolist()}],
            "outputs": [{"name": output,
                         "parameters": {"binary_data": False}}]}).encode()
        return path, body, {"Content-Type": "application/json"}
    return None


def timed_loop(call, start, measure_from, end):
    """Calls `call` (None, or why it failed) back to back from `start` to
    `end`; latencies (s) and error kinds of the calls inside the window."""
    latencies, errors = [], collections.Counter()
    time.sleep(max(0.0, start - time.monotonic()))
    while True:
        t = time.monotonic()
        if t >= end:
            break
        why = call()
        done = time.monotonic()
        if t >= measure_from and done <= end:
            if why is None:
                latencies.append(done - t)
            else:
                errors[why] += 1
    return latencies, errors


def http_worker(port, request, start, measure_from, end, out):
    path, body, headers = request
    conn = [http.client.HTTPConnection("127.0.0.1", port, timeout=60)]

    def call():
        try:
            conn[0].request("POST", path, body=body, headers=headers)
            resp = conn[0].getresponse()
            data = resp.read()
            why = None
            if resp.status != 200 or not data:
                why = "HTTP %d %s" % (resp.status, data[:120])
            if resp.will_close:
                conn[0].close()
            return why
        except (OSError, http.client.HTTPException) as e:
            conn[0].close()
            return repr(e)[:160]

    out.append(timed_loop(call, start, measure_from, end))
    conn[0].close()


def grpc_worker(port, model, x, output, start, measure_from, end, out):
    import tritonclient.grpc as grpcclient
    client = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % port)
    inp = grpcclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    outputs = [grpcclient.InferRequestedOutput(output)]

    def call():
        try:
            client.infer(model, [inp], outputs=outputs)
            return None
        except Exception as e:  # any failed call is an error of the cell
            return str(e)[:160]

    out.append(timed_loop(call, start, measure_from, end))
    client.close()


def client_process(args):
    """One process's share of a cell: `threads` clients; returns their
    latencies (s) and error count."""
    (transport, port, grpc_port, model, x_path, output, threads, start,
     measure_from, end) = args
    import numpy as np
    x = np.ascontiguousarray(np.load(x_path), dtype=np.float32)
    request = make_request(transport, model, x, output)
    out = []
    workers = []
    for _ in range(threads):
        if transport == "grpc":
            target, a = grpc_worker, (grpc_port, model, x, output, start,
                                      measure_from, end, out)
        else:
            target, a = http_worker, (port, request, start, measure_from,
                                      end, out)
        workers.append(threading.Thread(target=target, args=a))
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    latencies = [v for lat, _ in out for v in lat]
    errors = collections.Counter()
    for _, e in out:
        errors.update(e)
    return latencies, dict(errors)


def run_cell_cxx(load_client, transport, port, grpc_port, model, raw_x, shape,
                 raw_expected, output, clients, warmup, seconds,
                 refused=False):
    """A cell from pdlite_serve_load: one process, a thread per client.
    refused: ask for an output the model lacks, so that the server decodes
    and checks the request and answers 400 without running the model."""
    extra = ["--expect-refusal", "1"] if refused else []
    if refused:
        output = "no such output"
    out = subprocess.run(
        [load_client, "--transport", transport,
         "--port", str(grpc_port if transport == "grpc" else port),
         "--model", model,
         "--input", "x:FP32:%s:%s" % ("x".join(map(str, shape)), raw_x),
         "--output", output, "--expect", raw_expected,
         "--clients", str(clients), "--warmup", str(warmup),
         "--seconds", str(seconds)] + extra,
        capture_output=True, text=True, timeout=seconds + warmup + 300)
    if out.returncode != 0:
        raise RuntimeError("pdlite_serve_load failed: %s" % out.stderr[-2000:])
    cell = json.loads(out.stdout.strip().splitlines()[-1])
    cell.update(client_processes=1, threads_per_process=[clients],
                client="cxx")
    return cell


def answer_is_reference(answer, json_length, output, reference):
    """Whether an HTTP answer's output is the model's reference output
    (binary when json_length, the JSON header's length, is given)."""
    import numpy as np
    try:
        if json_length is None:
            out = json.loads(answer)["outputs"][0]
            got = np.array(out["data"], dtype=np.float32)
        else:
            out = json.loads(answer[:json_length])["outputs"][0]
            got = np.frombuffer(answer[json_length:], dtype="<f4")
        return out["name"] == output and np.allclose(
            got.reshape(reference.shape), reference, atol=1e-4, rtol=1e-3)
    except (ValueError, KeyError, IndexError, TypeError):
        return False


def expected_answer(port, request, output, reference):
    """The server's answer to `request`, once, checked against the model's
    reference output, and its JSON header's length (None for all JSON)."""
    path, body, headers = request
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", path, body=body, headers=headers)
        resp = conn.getresponse()
        answer = resp.read()
        json_length = resp.getheader("Inference-Header-Content-Length")
    finally:
        conn.close()
    if resp.status != 200:
        raise RuntimeError("the expected answer: HTTP %d %r" % (
            resp.status, answer[:200]))
    json_length = None if json_length is None else int(json_length)
    if not answer_is_reference(answer, json_length, output, reference):
        raise RuntimeError("the server's answer is not the reference: %r" %
                           answer[:200])
    return answer, json_length


def run_cell_wrk(wrk_script, tmp, port, request, expected, is_correct,
                 clients, warmup, seconds):
    """A cell from wrk (Debian's): one thread, an event loop over `clients`
    keep-alive connections. Every answer is compared with `expected`; the
    distinct others wrk keeps are checked with `is_correct(answer)`."""
    path, body, headers = request
    files = {}
    for name, data in (("body", body), ("expect", expected), ("headers", (
            "".join("%s: %s\n" % kv for kv in headers.items())).encode())):
        files[name] = os.path.join(tmp, "wrk_" + name)
        with open(files[name], "wb") as f:
            f.write(data)
    others = os.path.join(tmp, "wrk_other_")
    env = dict(os.environ, PDLITE_WRK_PATH=path,
               PDLITE_WRK_BODY=files["body"],
               PDLITE_WRK_HEADERS=files["headers"],
               PDLITE_WRK_EXPECT=files["expect"], PDLITE_WRK_OTHERS=others)

    def wrk(duration):
        out = subprocess.run(
            ["wrk", "-t1", "-c%d" % clients, "-d%ds" % max(1, round(duration)),
             "--timeout", "60s", "-s", wrk_script, "http://127.0.0.1:%d" % port],
            capture_output=True, text=True, env=env, timeout=duration + 120)
        line = [l for l in out.stdout.splitlines() if l.startswith("WRKJSON ")]
        if out.returncode != 0 or not line:
            raise RuntimeError("wrk failed: %s %s" % (out.stdout[-1000:],
                                                      out.stderr[-1000:]))
        r = json.loads(line[0][len("WRKJSON "):])
        # Answers other than the expected one: wrong unless they match the
        # reference within its tolerance.
        r["wrong"] = 0
        for i, n in enumerate(r["other_answers"], 1):
            with open(others + str(i), "rb") as f:
                if not is_correct(f.read()):
                    r["wrong"] += n
            os.remove(others + str(i))
        return r

    # wrk ends with its requests in flight: the server answers them after
    # it left, so each run waits for them before what follows is timed.
    if warmup > 0:
        wrk(warmup)  # unmeasured
        settle(port)
    r = wrk(seconds)
    settle(port)
    kinds = {}
    if r["failed"]:
        kinds["not 200 (or past 8 distinct answers)"] = r["failed"]
    if r["wrong"]:
        kinds["output differs from the reference"] = r["wrong"]
    if r["socket_errors"]:
        kinds["socket errors (connect, read, write, timeout)"] = \
            r["socket_errors"]
    return {
        "requests": r["requests"], "errors": sum(kinds.values()),
        "error_kinds": kinds,
        "throughput_rps": r["requests"] / (r["duration_us"] / 1e6),
        "p50_ms": r["p50_us"] / 1000.0, "p99_ms": r["p99_us"] / 1000.0,
        "client_processes": 1, "threads_per_process": [1],
        "client": "wrk",
    }


def run_cell(pool, procs, transport, port, grpc_port, model, x_path, output,
             clients, warmup, seconds):
    procs = min(procs, clients)
    shares = [clients // procs + (1 if i < clients % procs else 0)
              for i in range(procs)]
    # Processes start their clients together, after a short lead.
    start = time.monotonic() + 1.0
    measure_from = start + warmup
    end = measure_from + seconds
    results = pool.map(client_process, [
        (transport, port, grpc_port, model, x_path, output, n, start,
         measure_from, end) for n in shares], chunksize=1)
    latencies = sorted(v for lat, _ in results for v in lat)
    errors = collections.Counter()
    for _, e in results:
        errors.update(e)
    return {
        "requests": len(latencies), "errors": sum(errors.values()),
        "error_kinds": dict(errors.most_common(5)),
        "throughput_rps": len(latencies) / seconds,
        "p50_ms": 1000 * percentile(latencies, 50),
        "p99_ms": 1000 * percentile(latencies, 99),
        "client_processes": procs, "threads_per_process": shares,
        "client": "python",
    }


# ---- the server's own timing ------------------------------------------------

METRIC_LINE = re.compile(
    r'^pdlite_(queue|compute|request)_duration_seconds_(sum|count)'
    r'\{model="([^"]*)",version="[^"]*"\} (\S+)$')


def metrics_text(port):
    """The server's /metrics."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/metrics")
        return conn.getresponse().read().decode()
    finally:
        conn.close()


def scrape(port):
    """{(model, stage): [sum, count]} from the server's /metrics."""
    text = metrics_text(port)
    found = collections.defaultdict(lambda: [0.0, 0.0])
    for line in text.splitlines():
        m = METRIC_LINE.match(line)
        if m:
            stage, field, model, value = m.groups()
            found[(model, stage)][0 if field == "sum" else 1] = float(value)
    return found


def settle(port, limit_s=120):
    """Waits until the server has had no request in flight for 0.1 s (a
    request still being read or decoded is not counted yet)."""
    end = time.monotonic() + limit_s
    idle_readings = 0
    while time.monotonic() < end:
        m = re.search(r"^pdlite_inflight_requests (\S+)$", metrics_text(port),
                      re.M)
        if m is None:
            raise RuntimeError("no pdlite_inflight_requests in /metrics")
        idle_readings = idle_readings + 1 if float(m.group(1)) == 0 else 0
        if idle_readings >= 10:
            return
        time.sleep(0.01)
    raise RuntimeError("the server still had requests in flight after %d s" %
                       limit_s)


def server_means(before, after, model):
    """Mean ms per request of each stage between two scrapes: request (from
    ModelVersion::InferAsync's entry, after decoding, to its answer, before
    encoding), compute (Predictor::Run with the copies in and out) and
    queue."""
    means = {}
    for stage in ("queue", "compute", "request"):
        d_sum = after[(model, stage)][0] - before[(model, stage)][0]
        d_count = after[(model, stage)][1] - before[(model, stage)][1]
        means[stage] = 1000 * d_sum / d_count if d_count else None
    return means


# ---- the bare baseline ------------------------------------------------------

def bare_baseline(pdlite, model_dir, inputs_dir, seconds, device):
    """`pdlite bench` at batch 1, 1 thread, for about `seconds`."""
    def bench(iters):
        out = subprocess.run(
            [pdlite, "bench", "--model", model_dir, "--inputs", inputs_dir,
             "--threads", "1", "--warmup", "10", "--iters", str(iters),
             "--device", device, "--json"],
            capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            raise RuntimeError("pdlite bench failed: %s" % out.stderr[-2000:])
        return json.loads(out.stdout.strip().splitlines()[-1])
    probe = bench(20)
    iters = int(max(100, min(100000, seconds * 1000.0 /
                             max(probe["latency_ms"]["median"], 1e-3))))
    result = bench(iters)
    samples = sorted(result["samples_ms"])
    return {
        "iters": iters, "p50_ms": percentile(samples, 50),
        "p99_ms": percentile(samples, 99),
        "throughput_rps": 1000.0 * len(samples) / sum(samples),
        "peak_rss_mb": result.get("peak_rss_mb"),
    }


# ---- main -------------------------------------------------------------------

def start_server(server, repo, log_path, http_threads, grpc_threads,
                 http_spin_us):
    log = open(log_path, "wb")
    args = [server, "--model-repository", repo, "--host", "127.0.0.1",
            "--http-port", "0", "--grpc-port", "0",
            "--grpc-threads", str(grpc_threads)]
    if http_threads is not None:
        args += ["--http-threads", str(http_threads)]
    if http_spin_us is not None:
        args += ["--http-spin-us", str(http_spin_us)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log)
    ports = []
    for pattern in (r"listening on 127\.0\.0\.1:(\d+)",
                    r"grpc listening on 127\.0\.0\.1:(\d+)"):
        m = re.match(pattern, proc.stdout.readline().decode())
        if not m:
            proc.kill()
            proc.wait()
            log.close()
            with open(log_path, errors="replace") as f:
                raise RuntimeError("server did not start:\n" +
                                   f.read()[-3000:])
        ports.append(int(m.group(1)))
    return proc, log, ports[0], ports[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", default=os.path.join(
        ROOT, "build", "tools", "pdlite_server"))
    ap.add_argument("--pdlite", default=os.path.join(
        ROOT, "build", "tools", "pdlite"))
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                    help="where build/serve-venv is (or is made)")
    ap.add_argument("--model", default=DEFAULT_MODEL)
    ap.add_argument("--seconds", type=float, default=10,
                    help="measured seconds per cell (default 10)")
    ap.add_argument("--warmup", type=float, default=1,
                    help="unmeasured seconds before each cell (default 1)")
    ap.add_argument("--clients", default="1,8,64")
    ap.add_argument("--transports", default=",".join(TRANSPORTS))
    ap.add_argument("--client", choices=("cxx", "wrk", "python"),
                    default="cxx",
                    help="the load client: pdlite_serve_load (default), "
                         "wrk for the HTTP cells (gRPC's stay on "
                         "pdlite_serve_load), or Python threads "
                         "(tritonclient for gRPC)")
    ap.add_argument("--wrk-script", default=os.path.join(HERE,
                                                         "serve_wrk.lua"))
    ap.add_argument("--load-client", default=os.path.join(
        ROOT, "build", "bench", "pdlite_serve_load"))
    ap.add_argument("--tcp-round-trip", default=os.path.join(
        ROOT, "build", "bench", "pdlite_tcp_round_trip"),
                    help="the floor: a bare TCP round trip of the request's "
                         "bytes between two processes (skipped when missing)")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads per instance, both configs (default 1)")
    ap.add_argument("--instances", type=int, default=1,
                    help="instances per model, both configs (default 1)")
    ap.add_argument("--procs", type=int,
                    default=max(1, min(8, os.cpu_count() or 1)),
                    help="client processes per cell at most (default: the "
                         "CPU count, at most 8)")
    ap.add_argument("--http-threads", type=int, default=None,
                    help="the server's --http-threads (default: its own, "
                         "a thread for each of up to 1024 connections)")
    ap.add_argument("--http-spin-us", type=int, default=None,
                    help="the server's --http-spin-us (default: its own)")
    ap.add_argument("--grpc-threads", type=int, default=128,
                    help="the server's --grpc-threads (default 128, above "
                         "the 64 clients: ModelInfer calls past it are "
                         "refused, RESOURCE_EXHAUSTED)")
    ap.add_argument("--device", default="cpu",
                    help="the models' device, both configs and the bare "
                         "baseline (cpu, cuda:0)")
    ap.add_argument("--max-batch-size", type=int,
                    default=CONFIGS["on"]["max_batch_size"],
                    help="the batching config's max_batch_size")
    ap.add_argument("--batch-delay-us", type=int,
                    default=CONFIGS["on"]["batch_delay_us"],
                    help="the batching config's batch_delay_us")
    ap.add_argument("--json", metavar="OUT", help="write the results here")
    args = ap.parse_args()

    # No __pycache__ in the source tree, from this process or the client
    # processes it spawns (they import this file).
    sys.dont_write_bytecode = True
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    sys.path.insert(0, SERVE_TESTS)
    try:
        # The C++ client needs only numpy; a python3 that has it will do.
        if args.client == "python":
            raise ImportError("tritonclient comes from the venv")
        import numpy as np
    except ImportError:
        from serve_test import ensure_venv
        venv, python = ensure_venv(args.build_dir)
        if os.path.realpath(sys.prefix) != os.path.realpath(venv):
            os.execv(python,
                     [python, os.path.abspath(__file__)] + sys.argv[1:])
        import numpy as np

    clients_list = [int(c) for c in args.clients.split(",")]
    for config in CONFIGS.values():
        config["threads"] = args.threads
        config["instances"] = args.instances
        if args.device != "cpu":
            config["device"] = args.device
    CONFIGS["on"]["max_batch_size"] = args.max_batch_size
    CONFIGS["on"]["batch_delay_us"] = args.batch_delay_us
    model_dir = os.path.abspath(args.model)
    ref = os.path.join(model_dir, "ref")
    outputs = [f for f in os.listdir(ref) if f.startswith("expected_")]
    output = outputs[0][len("expected_"):-len(".npy")].replace("__", "/")
    x1 = np.load(os.path.join(ref, "input_x.npy"))[:1]
    reference = np.load(os.path.join(ref, outputs[0]))[:1]

    tmp = tempfile.mkdtemp(prefix="pdlite_serve_bench_")
    proc = log = None
    results = {"model": model_dir, "input_shape": list(x1.shape),
               "seconds_per_cell": args.seconds, "cells": []}
    try:
        inputs_dir = os.path.join(tmp, "inputs")
        os.makedirs(inputs_dir)
        x_path = os.path.join(inputs_dir, "input_x.npy")
        np.save(x_path, x1.astype(np.float32))
        # The C++ client's input and the answer it checks, as raw bytes.
        raw_x = os.path.join(tmp, "x.raw")
        x1.astype("<f4").tofile(raw_x)
        raw_expected = os.path.join(tmp, "expected.raw")
        np.load(os.path.join(ref, outputs[0]))[:1].astype("<f4").tofile(
            raw_expected)
        print("bare Predictor::Run loop (pdlite bench, batch 1, 1 thread)...",
              file=sys.stderr)
        results["bare"] = bare_baseline(args.pdlite, model_dir, inputs_dir,
                                        args.seconds, args.device)

        repo = os.path.join(tmp, "repo")
        for batching, config in CONFIGS.items():
            name = "cls_batch_" + batching
            os.makedirs(os.path.join(repo, name))
            os.symlink(model_dir, os.path.join(repo, name, "1"))
            with open(os.path.join(repo, name, "config.json"), "w") as f:
                json.dump(config, f)
        proc, log, port, grpc_port = start_server(
            args.server, repo, os.path.join(tmp, "server.log"),
            args.http_threads, args.grpc_threads, args.http_spin_us)
        if os.path.exists(args.tcp_round_trip):
            # No transport can go below this: the loopback copy and two
            # processes waking each other up. The request's bytes are the
            # tensor's and about 250 of JSON header and HTTP headers.
            # The second waits as long as a bare run before each answer:
            # a client that waits that long sleeps deeper, which any
            # server of this model would make it pay.
            for key, after_us in (
                    ("tcp_round_trip", 0),
                    ("tcp_round_trip_model_wait",
                     round(1000 * results["bare"]["p50_ms"]))):
                print("bare TCP round trip, answered after %d us..." %
                      after_us, file=sys.stderr)
                out = subprocess.run(
                    [args.tcp_round_trip, "--bytes", str(x1.nbytes + 250),
                     "--answer-after-us", str(after_us),
                     "--warmup", str(args.warmup),
                     "--seconds", str(args.seconds)],
                    capture_output=True, text=True, check=True,
                    timeout=args.seconds + args.warmup + 60)
                results[key] = json.loads(out.stdout.strip().splitlines()[-1])
        if args.client in ("cxx", "wrk"):
            # The round trip without the model, per transport, 1 client.
            results["no_model"] = {}
            for transport in args.transports.split(","):
                print("round trip without the model: %s..." % transport,
                      file=sys.stderr)
                results["no_model"][transport] = run_cell_cxx(
                    args.load_client, transport, port, grpc_port,
                    "cls_batch_off", raw_x, x1.shape, raw_expected, output, 1,
                    args.warmup, args.seconds, refused=True)
        results["server"] = {"http_threads": args.http_threads,
                             "http_spin_us": args.http_spin_us,
                             "grpc_threads": args.grpc_threads,
                             "configs": CONFIGS}
        # Fresh interpreters: no gRPC state forked from this process.
        pool = (multiprocessing.get_context("spawn").Pool(args.procs)
                if args.client == "python" else None)
        try:
            for batching in CONFIGS:
                for transport in args.transports.split(","):
                    for clients in clients_list:
                        print("cell: %s, batching %s, %d clients..." % (
                            transport, batching, clients), file=sys.stderr)
                        use_wrk = (args.client == "wrk" and
                                   transport != "grpc")
                        if use_wrk:
                            request = make_request(
                                transport, "cls_batch_" + batching,
                                x1.astype(np.float32), output)
                            expected, json_length = expected_answer(
                                port, request, output, reference)
                            is_correct = functools.partial(
                                answer_is_reference, json_length=json_length,
                                output=output, reference=reference)
                        before = scrape(port)
                        if use_wrk:
                            cell = run_cell_wrk(
                                args.wrk_script, tmp, port, request,
                                expected, is_correct, clients, args.warmup,
                                args.seconds)
                        elif args.client in ("cxx", "wrk"):
                            cell = run_cell_cxx(
                                args.load_client, transport, port, grpc_port,
                                "cls_batch_" + batching, raw_x, x1.shape,
                                raw_expected, output, clients, args.warmup,
                                args.seconds)
                        else:
                            cell = run_cell(
                                pool, args.procs, transport, port, grpc_port,
                                "cls_batch_" + batching, x_path, output,
                                clients, args.warmup, args.seconds)
                        cell["server_mean_ms"] = server_means(
                            before, scrape(port), "cls_batch_" + batching)
                        cell.update(transport=transport, batching=batching,
                                    clients=clients)
                        for why, n in cell["error_kinds"].items():
                            print("  %d errors: %s" % (n, why),
                                  file=sys.stderr)
                        results["cells"].append(cell)
        finally:
            if pool is not None:
                pool.close()
                pool.join()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
    finally:
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        if log is not None:
            log.close()
        shutil.rmtree(tmp, ignore_errors=True)

    bare = results["bare"]
    print("\n`pdlite serve` on %s, batch 1 %s, %.0f s per cell "
          "(after %.0f s unmeasured); server --http-threads %s "
          "--http-spin-us %s --grpc-threads %d; batching off: %s; "
          "on: %s\n" % (
              os.path.basename(model_dir), list(x1.shape), args.seconds,
              args.warmup, args.http_threads or "(default)",
              "(default)" if args.http_spin_us is None else args.http_spin_us,
              args.grpc_threads,
              json.dumps(CONFIGS["off"]), json.dumps(CONFIGS["on"])))
    print("| transport | batching | clients | client: procs x threads | "
          "req/s | p50 ms | p99 ms | errors | p50 added over bare |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in results["cells"]:
        added = ("%+.3f ms" % (c["p50_ms"] - bare["p50_ms"])
                 if c["clients"] == 1 else "")
        c["p50_added_over_bare_ms"] = (c["p50_ms"] - bare["p50_ms"]
                                       if c["clients"] == 1 else None)
        threads = sorted(set(c["threads_per_process"]))
        client = "%s %d x %s" % (
            {"cxx": "C++", "wrk": "wrk", "python": "Python"}[c["client"]],
            c["client_processes"], "/".join(str(t) for t in threads))
        if c["client"] == "wrk":
            client += " (%d connections)" % c["clients"]
        print("| %s | %s | %d | %s | %.1f | %.3f | %.3f | %d | %s |" % (
            c["transport"], c["batching"], c["clients"], client,
            c["throughput_rps"], c["p50_ms"], c["p99_ms"], c["errors"],
            added))
    print("| bare Predictor::Run (pdlite bench, %d runs) | - | 1 | - | %.1f "
          "| %.3f | %.3f | - | |" % (bare["iters"], bare["throughput_rps"],
                                    bare["p50_ms"], bare["p99_ms"]))
    print("\nWhere a request's time goes, from the server's own histograms "
          "(mean ms per request, warm-up included): in the model (from "
          "ModelVersion::InferAsync's entry, after decoding, to its answer, "
          "before encoding), of which queued and computing; the rest of the "
          "client's p50 is decoding, encoding, the transport and the "
          "client.\n")
    print("| transport | batching | clients | client p50 | client mean | "
          "in the model | queued | computing | in the model, not computing "
          "| outside the model (client mean - in the model) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    fmt = lambda v: "-" if v is None else "%.3f" % v
    for c in results["cells"]:
        m = c["server_mean_ms"]
        rest = (m["request"] - m["compute"]
                if m["request"] is not None and m["compute"] is not None
                else None)
        # Closed loop: each client's mean latency is clients / throughput.
        mean = (1000.0 * c["clients"] / c["throughput_rps"]
                if c["throughput_rps"] else None)
        outside = (mean - m["request"]
                   if mean is not None and m["request"] is not None else None)
        print("| %s | %s | %d | %.3f | %s | %s | %s | %s | %s | %s |" % (
            c["transport"], c["batching"], c["clients"], c["p50_ms"],
            fmt(mean), fmt(m["request"]), fmt(m["queue"]), fmt(m["compute"]),
            fmt(rest), fmt(outside)))
    if results.get("no_model"):
        print("\nThe same request with an output the model lacks: the server "
              "reads, decodes and checks it, and answers 400 without running "
              "the model (1 C++ client). Its p50 is the round trip's floor "
              "here: transport, decoding, checking, an answer, the client.\n")
        print("| transport | req/s | p50 ms | p99 ms | errors |")
        print("|---|---|---|---|---|")
        for transport, c in results["no_model"].items():
            print("| %s | %.1f | %.3f | %.3f | %d |" % (
                transport, c["throughput_rps"], c["p50_ms"], c["p99_ms"],
                c["errors"]))
    tcp = results.get("tcp_round_trip")
    if tcp:
        print("\nThe floor under any transport: %d bytes sent and %d "
              "answered over one loopback TCP connection between two "
              "processes, nothing else (pdlite_tcp_round_trip): p50 %.3f ms, "
              "p99 %.3f ms (%d round trips)." % (
                  tcp["bytes"], tcp["answer_bytes"], tcp["p50_ms"],
                  tcp["p99_ms"], tcp["requests"]))
        waited = results.get("tcp_round_trip_model_wait")
        floor = tcp["p50_ms"]
        if waited:
            floor = waited["p50_ms"] - waited["answer_after_us"] / 1000.0
            print("Answered after %.0f us of spinning (the bare run's p50), "
                  "as a server computes: p50 %.3f ms, so %.3f ms of floor for "
                  "a request that waits on this model (the client sleeps "
                  "deeper while it waits)." % (
                      waited["answer_after_us"], waited["p50_ms"], floor))
        ones = [c for c in results["cells"] if c["clients"] == 1 and
                c["transport"] in ("http-binary", "grpc")]
        for c in ones:
            print("%s, batching %s: adds %+.3f ms over bare, %+.3f ms over "
                  "bare plus the TCP floor %s" % (
                      c["transport"], c["batching"],
                      c["p50_ms"] - bare["p50_ms"],
                      c["p50_ms"] - bare["p50_ms"] - floor,
                      "with the model's wait" if waited else ""))
    for c in results["cells"]:
        for why, n in c["error_kinds"].items():
            print("errors, %s batching %s %d clients: %d x %s" % (
                c["transport"], c["batching"], c["clients"], n, why))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
