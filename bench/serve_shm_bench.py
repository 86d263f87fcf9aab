#!/usr/bin/env python3
"""What system shared memory saves in `pdlite serve` (a benchmark, not a test).

  python3 bench/serve_shm_bench.py [--server A=PATH --server B=PATH ...]
      [--sizes 320,640] [--requests 60] [--rounds 2]

det_ppyolo_tiny (../shared/models) at batch 1, its image at each size
(the reference image, resized by repetition), sent to each server given
(default: build/tools/pdlite_server) as binary data in the body and as an
input in a registered POSIX shared-memory region, one request at a time on
a kept-alive connection (http.client, each request's bytes built once).
Servers and ways alternate, each round; the table has the p50 of every
round. Each answer's boxes are compared with the first answer's of the
same size (binary), so that both ways are seen to compute the same thing.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(os.path.dirname(ROOT), "shared", "models")


def start(server, repo, log_path):
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [server, "--model-repository", repo, "--host", "127.0.0.1",
         "--http-port", "0", "--grpc-port", "0", "--shared-memory", "system"],
        stdout=subprocess.PIPE, stderr=log)
    m = re.match(r"listening on 127\.0\.0\.1:(\d+)",
                 proc.stdout.readline().decode())
    if not m:
        proc.kill()
        proc.wait()
        raise RuntimeError("server did not start; see " + log_path)
    proc.stdout.readline()  # the gRPC port
    return proc, log, int(m.group(1))


def post(conn, path, body, headers):
    conn.request("POST", path, body, headers)
    r = conn.getresponse()
    data = r.read()
    if r.status != 200:
        raise RuntimeError("%s: %d %s" % (path, r.status, data[:300]))
    return r, data


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", action="append",
                    help="LABEL=PATH, repeatable (default: "
                         "build/tools/pdlite_server)")
    ap.add_argument("--sizes", default="320,640")
    ap.add_argument("--requests", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    import numpy as np
    servers = [s.split("=", 1) for s in (args.server or [
        "pdlite_server=" + os.path.join(ROOT, "build", "tools",
                                        "pdlite_server")])]
    det = os.path.join(MODELS, "det_ppyolo_tiny")
    ref = {n: np.load(os.path.join(det, "ref", "input_%s.npy" % n))
           for n in ("image", "im_shape", "scale_factor")}
    tmp = tempfile.mkdtemp(prefix="pdlite_shm_bench_")
    shm_key = "/pdlite_shm_bench_%d" % os.getpid()
    shm_path = "/dev/shm" + shm_key
    running = []
    try:
        repo = os.path.join(tmp, "repo")
        os.makedirs(os.path.join(repo, "det"))
        os.symlink(det, os.path.join(repo, "det", "1"))
        results = {}  # (server, size, way) -> [p50 per round]
        sizes = [int(s) for s in args.sizes.split(",")]
        images = {}
        for size in sizes:
            image = np.resize(ref["image"], (1, 3, size, size)).astype(
                np.float32)
            images[size] = image
        biggest = max(images[s].nbytes for s in sizes)
        with open(shm_path, "wb") as f:
            f.truncate(biggest)
        first_answer = {}
        for rnd in range(args.rounds):
            for label, path in servers:
                proc, log, port = start(path, repo,
                                        os.path.join(tmp, label + ".log"))
                running.append((proc, log))
                conn = http.client.HTTPConnection("127.0.0.1", port)
                conn.request("GET", "/v2/health/ready")
                conn.getresponse().read()
                post(conn, "/v2/systemsharedmemory/region/img/register",
                     json.dumps({"key": shm_key, "offset": 0,
                                 "byte_size": biggest}),
                     {"Content-Type": "application/json"})
                for size in sizes:
                    image = images[size]
                    with open(shm_path, "r+b") as f:
                        f.write(image.tobytes())
                    small = [(n, ref[n]) for n in ("im_shape",
                                                   "scale_factor")]
                    small_inputs = [{"name": n, "shape": list(a.shape),
                                     "datatype": "FP32",
                                     "parameters": {"binary_data_size":
                                                    a.nbytes}}
                                    for n, a in small]
                    tail = b"".join(a.astype(np.float32).tobytes()
                                    for _, a in small)
                    image_in = {"name": "image", "shape": list(image.shape),
                                "datatype": "FP32"}
                    ways = {}
                    header = json.dumps({"inputs": [dict(
                        image_in, parameters={
                            "binary_data_size": image.nbytes})] +
                        small_inputs}).encode()
                    ways["binary"] = (header, header + image.tobytes() + tail)
                    header = json.dumps({"inputs": [dict(
                        image_in, parameters={
                            "shared_memory_region": "img",
                            "shared_memory_byte_size": image.nbytes})] +
                        small_inputs}).encode()
                    ways["shared memory"] = (header, header + tail)
                    for way, (header, body) in ways.items():
                        headers = {"Inference-Header-Content-Length":
                                   str(len(header)),
                                   "Content-Type": "application/octet-stream"}
                        times = []
                        for i in range(args.requests + 5):
                            started = time.perf_counter()
                            _, data = post(conn, "/v2/models/det/infer",
                                           body, headers)
                            if i >= 5:
                                times.append(time.perf_counter() - started)
                        answer = json.loads(data)["outputs"][0]["data"]
                        want = first_answer.setdefault(size, answer)
                        if not np.allclose(answer, want, rtol=1e-3,
                                           atol=1e-3):
                            raise RuntimeError(
                                "%s, %s, %d: boxes differ" % (label, way,
                                                              size))
                        results.setdefault((label, size, way), []).append(
                            statistics.median(times) * 1e3)
                conn.close()
                proc.terminate()
                proc.wait()
                log.close()
                running.pop()
        print("| server | image | binary data, p50 ms | input in shared "
              "memory, p50 ms |")
        print("|---|---|---|---|")
        for label, _ in servers:
            for size in sizes:
                cells = []
                for way in ("binary", "shared memory"):
                    cells.append(", ".join(
                        "%.2f" % v for v in results[(label, size, way)]))
                print("| %s | 1x3x%dx%d (%.1f MB) | %s | %s |" % (
                    label, size, size, images[size].nbytes / 1e6, *cells))
    finally:
        for proc, log in running:
            proc.kill()
            proc.wait()
            log.close()
        if os.path.exists(shm_path):
            os.unlink(shm_path)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
