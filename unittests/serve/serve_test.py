#!/usr/bin/env python3
"""`pdlite serve` end to end over HTTP and gRPC, with Triton's own client
and curl.

  python3 unittests/serve/serve_test.py --server build/tools/pdlite_server \
      --pdlite build/tools/pdlite --build-dir build

Starts the server on free loopback ports with a temporary model repository
of symlinks (the demo model, and ppocr_cls_mobile_v2, det_ppyolo_tiny and
textcnn_news_fluid from ../shared/models when that folder is there; without
it only the demo model parts run). Checks metadata, readiness, JSON and
binary inference against the models' ref/ outputs, every kind of bad input
(answered with its status while a parallel client keeps getting correct
answers), a full queue (503), and SIGTERM with requests in flight (every one
answered, exit 0). Over gRPC: the same metadata, readiness, inference
(raw contents) and bad inputs with their gRPC status codes, and a full queue
as RESOURCE_EXHAUSTED. The temporary folder is removed at the end.

tritonclient[http,grpc] runs from build/serve-venv, made with `python3 -m venv`
and filled from requirements.txt beside this file (again whenever that file
changes); this script re-executes itself under the venv's python.
"""

import argparse
import glob
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(os.path.dirname(ROOT), "shared", "models")
DEMO = os.path.join(ROOT, "models", "demo_convnet")
REQUIREMENTS = os.path.join(HERE, "requirements.txt")


# ---- venv -------------------------------------------------------------------

def ensure_venv(build_dir):
    venv = os.path.join(build_dir, "serve-venv")
    python = os.path.join(venv, "bin", "python")
    stamp = os.path.join(venv, ".requirements.sha256")
    with open(REQUIREMENTS, "rb") as f:
        wanted = hashlib.sha256(f.read()).hexdigest()
    try:
        with open(stamp) as f:
            if f.read().strip() == wanted and os.path.exists(python):
                return venv, python
    except OSError:
        pass
    if not os.path.exists(python):
        print("serve_test: creating %s" % venv, file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True,
                       timeout=600)
    print("serve_test: installing %s into %s" % (REQUIREMENTS, venv),
          file=sys.stderr)
    subprocess.run([python, "-m", "pip", "install", "-q",
                    "--disable-pip-version-check", "-r", REQUIREMENTS],
                   check=True, timeout=1200, stdout=sys.stderr)
    with open(stamp, "w") as f:
        f.write(wanted + "\n")
    return venv, python


# ---- checks -----------------------------------------------------------------

class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.lock = threading.Lock()

    def check(self, ok, name, detail=""):
        with self.lock:
            if ok:
                self.passed += 1
                print("PASS %s" % name)
            else:
                self.failed += 1
                print("FAIL %s %s" % (name, detail))
        return ok

    def summary(self):
        """Prints the counts; the exit status for them."""
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed else 0


R = Results()


def request(port, method, path, body=None, headers=None, timeout=120):
    """One HTTP request on a fresh connection: (status, headers, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def raw_answer(port, data, timeout=30):
    """`data` sent as it is on a fresh connection: the answer's first bytes
    (for requests http.client cannot write)."""
    sock = socket.create_connection(("127.0.0.1", port))
    try:
        sock.sendall(data)
        sock.settimeout(timeout)
        return sock.recv(100)
    finally:
        sock.close()


def post_json(port, model, payload, version=None):
    path = "/v2/models/%s%s/infer" % (
        model, "/versions/%s" % version if version else "")
    body = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
    return request(port, "POST", path, body,
                   {"Content-Type": "application/json"})


def error_of(body):
    try:
        return json.loads(body).get("error", "")
    except ValueError:
        return ""


class Server:
    """pdlite_server on a free loopback port, its log in the temp folder."""

    def __init__(self, command, repository, log_path, extra=(), env=None):
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            command + ["--model-repository", repository, "--host",
                       "127.0.0.1", "--http-port", "0", "--grpc-port", "0",
                       "--verbose"] +
            list(extra),
            stdout=subprocess.PIPE, stderr=self.log, env=env)
        line = self.proc.stdout.readline().decode()
        m = re.match(r"listening on 127\.0\.0\.1:(\d+)", line)
        if not m:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("server did not start: %r\n%s" % (
                line, self.log_tail()))
        self.port = int(m.group(1))
        line = self.proc.stdout.readline().decode()
        m = re.match(r"grpc listening on 127\.0\.0\.1:(\d+)", line)
        if not m:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("gRPC did not start: %r\n%s" % (
                line, self.log_tail()))
        self.grpc_port = int(m.group(1))

    def log_tail(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log_path, "rb") as f:
            return f.read()[-4000:].decode(errors="replace")

    def stop(self, sig=signal.SIGTERM, timeout=60):
        """Sends `sig` (None: none, the signal was sent already) and waits
        for the exit; returns its code."""
        if sig is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.proc.stdout.close()
        self.log.close()
        return code


def one_model_repo(tmp, folder, name, model_dir, config=None):
    """A repository tmp/folder serving `model_dir` as model `name`, version
    1, with `config` as its config.json when given; returns its path."""
    repo = os.path.join(tmp, folder)
    os.makedirs(os.path.join(repo, name))
    os.symlink(model_dir, os.path.join(repo, name, "1"))
    if config is not None:
        with open(os.path.join(repo, name, "config.json"), "w") as f:
            json.dump(config, f)
    return repo


def close(got, want, atol=1e-4, rtol=1e-3):
    import numpy as np
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return False, "shape %s, expected %s" % (got.shape, want.shape)
    bad = np.abs(got - want) > atol + rtol * np.abs(want)
    if bad.any():
        return False, "%d of %d values differ (worst %g)" % (
            bad.sum(), bad.size, np.abs(got - want).max())
    return True, ""


def same_rows(got, want, atol=1e-4, rtol=1e-3):
    """NMS outputs: the same rows in any order."""
    import numpy as np
    got = np.asarray(got, dtype=np.float64).reshape(-1, want.shape[-1])
    want = np.asarray(want, dtype=np.float64).reshape(-1, want.shape[-1])
    if got.shape != want.shape:
        return False, "shape %s, expected %s" % (got.shape, want.shape)
    used = [False] * len(got)
    for row in want:
        for i, g in enumerate(got):
            if not used[i] and (np.abs(g - row) <=
                                atol + rtol * np.abs(row)).all():
                used[i] = True
                break
        else:
            return False, "expected row %s not found" % row
    return True, ""


def ref_file(model_dir, kind, name):
    return os.path.join(model_dir, "ref",
                        "%s_%s.npy" % (kind, name.replace("/", "__")))


# ---- the parts --------------------------------------------------------------

def grpc_refusal(stub, req):
    """(status code, message) of a ModelInfer call expected to fail; (None,
    "") when it did not."""
    import grpc
    try:
        stub.ModelInfer(req, timeout=60)
        return None, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


def demo_data():
    import numpy as np
    x = np.load(os.path.join(DEMO, "input_x.npy"))
    y = np.load(os.path.join(DEMO, "expected_softmax.tmp_0.npy"))
    return x, y


def check_health_and_metadata(port, client, with_shared):
    status, _, body = request(port, "GET", "/v2/health/live")
    R.check(status == 200, "live")
    R.check(client.is_server_live(), "live (tritonclient)")
    # The repository holds a broken model: the server is not ready, and
    # says which model and why; the others are.
    status, _, body = request(port, "GET", "/v2/health/ready")
    R.check(status == 400 and "broken" in error_of(body),
            "ready is 400 naming the broken model", body)
    R.check(not client.is_server_ready(), "not ready (tritonclient)")
    R.check(client.is_model_ready("demo"), "demo ready")
    status, _, body = request(port, "GET", "/v2/models/broken/ready")
    R.check(status == 400 and "not ready" in error_of(body),
            "broken model not ready with the loader's error", body)
    status, _, body = request(port, "GET", "/v2/models/broken")
    R.check(status == 400 and "not ready" in error_of(body),
            "broken model metadata gives the loader's error", body)
    meta = client.get_server_metadata()
    R.check(meta.get("name") == "pdlite" and
            "binary_tensor_data" in meta.get("extensions", []),
            "server metadata", meta)
    md = client.get_model_metadata("demo")
    R.check(md["name"] == "demo" and md["versions"] == ["1"] and
            md["platform"] == "paddle" and
            md["inputs"] == [{"name": "x", "datatype": "FP32",
                              "shape": [-1, 3, 32, 32]}] and
            md["outputs"][0]["name"] == "softmax.tmp_0" and
            md["outputs"][0]["datatype"] == "FP32",
            "demo metadata", md)
    md1 = client.get_model_metadata("demo", model_version="1")
    R.check(md1 == md, "demo metadata by version")
    status, _, body = request(port, "GET", "/v2/models/demo/versions/1/ready")
    R.check(status == 200, "demo version 1 ready")
    status, _, body = request(port, "GET", "/v2/models/demo/versions/2/ready")
    R.check(status == 404 and "no version '2'" in error_of(body),
            "unknown version ready is 404", body)
    status, _, body = request(port, "GET", "/v2/models/nope")
    R.check(status == 404 and "unknown model 'nope'" in error_of(body),
            "unknown model metadata is 404", body)
    if with_shared:
        md = client.get_model_metadata("det")
        names = [i["name"] for i in md["inputs"]]
        R.check(set(names) == {"image", "im_shape", "scale_factor"},
                "det metadata inputs", md)
        md = client.get_model_metadata("textcnn")
        R.check(md["inputs"][0]["datatype"] == "INT64" and
                md["inputs"][0].get("parameters", {}).get("lod_level") == 1,
                "textcnn metadata: INT64 with a LoD level", md)


def check_infer_demo(port, client, httpclient):
    import numpy as np
    x, y = demo_data()
    for binary_in in (False, True):
        for binary_out in (False, True):
            inp = httpclient.InferInput("x", list(x.shape), "FP32")
            inp.set_data_from_numpy(x, binary_data=binary_in)
            out = httpclient.InferRequestedOutput("softmax.tmp_0",
                                                  binary_data=binary_out)
            res = client.infer("demo", [inp], outputs=[out],
                               request_id="req-%d%d" % (binary_in, binary_out))
            ok, why = close(res.as_numpy("softmax.tmp_0"), y)
            R.check(ok and res.get_response()["id"] ==
                    "req-%d%d" % (binary_in, binary_out),
                    "demo infer (binary in %s, out %s)" % (binary_in,
                                                           binary_out), why)
    # Plain JSON with nested data, the id echoed, all outputs by default.
    status, headers, body = post_json(port, "demo", {
        "id": "nested", "inputs": [{"name": "x", "shape": list(x.shape),
                                    "datatype": "FP32",
                                    "data": x.tolist()}]})
    doc = json.loads(body) if status == 200 else {}
    ok = status == 200 and doc.get("id") == "nested"
    if ok:
        o = doc["outputs"][0]
        ok, why = close(np.array(o["data"]).reshape(o["shape"]), y)
    R.check(ok and doc["model_name"] == "demo" and doc["model_version"] == "1",
            "demo JSON infer with nested data", body[:300])


def check_methods(port):
    """An endpoint's path with a method it does not take is 405 with the
    Allow header (RFC 9110); a path no endpoint has is 404."""
    for method, path, allow in (
            ("GET", "/v2/models/demo/infer", "POST"),
            ("POST", "/v2/health/live", "GET, HEAD"),
            ("POST", "/v2/models/demo", "GET, HEAD"),
            ("OPTIONS", "/v2/models/demo/versions/1/ready", "GET, HEAD"),
            ("GET", "/v2/repository/index", "POST"),
            ("DELETE", "/v2/logging", "GET, HEAD, POST"),
            ("GET", "/v2/systemsharedmemory/region/r/register", "POST")):
        status, headers, got = request(port, method, path)
        R.check(status == 405 and headers.get("Allow") == allow and
                ("method %s is not one %s takes: %s" % (method, path, allow))
                in error_of(got),
                "methods: %s %s -> 405, Allow: %s" % (method, path, allow),
                "%s %s %r" % (status, headers, got[:300]))
    # A target in absolute form (as proxies send it) is its path.
    answer = raw_answer(
        port, b"GET http://127.0.0.1/v2/models/demo/ready HTTP/1.1\r\n"
        b"Host: 127.0.0.1\r\nConnection: close\r\n\r\n")
    R.check(answer.startswith(b"HTTP/1.1 200"),
            "methods: an absolute-form target is served as its path",
            repr(answer))
    for method, path in (("GET", "/v2/nothing"), ("GET", "/v2/models/demo/x"),
                         ("GET", "/v2/models/x%0Ay")):
        status, _, got = request(port, method, path)
        R.check(status == 404 and ("no endpoint" in error_of(got) or
                                   "unknown model" in error_of(got)),
                "methods: %s %s -> 404" % (method, path),
                "%s %r" % (status, got[:300]))


def check_compression(port, grpc_port, client, httpclient):
    """Compressed bodies as tritonclient sends and asks for them
    (request_compression_algorithm, response_compression_algorithm), and
    what is refused: a coding the server does not read (415), data that
    does not decompress (400), a body that expands past --max-body-mb
    (413, here 8 MB). Over gRPC, gRPC's own message compression
    (tritonclient's compression_algorithm)."""
    import gzip
    import zlib
    import numpy as np
    import tritonclient.grpc as grpcclient
    x, y = demo_data()
    gc = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % grpc_port)
    for algorithm in ("gzip", "deflate"):
        ginp = grpcclient.InferInput("x", list(x.shape), "FP32")
        ginp.set_data_from_numpy(x)
        ok, why = close(gc.infer("demo", [ginp],
                                 compression_algorithm=algorithm)
                        .as_numpy("softmax.tmp_0"), y)
        R.check(ok, "compression: gRPC infer compressed with %s" % algorithm,
                why)
    gc.close()
    for binary in (True, False):
        for sent in (None, "gzip", "deflate"):
            for asked in (None, "gzip", "deflate"):
                inp = httpclient.InferInput("x", list(x.shape), "FP32")
                inp.set_data_from_numpy(x, binary_data=binary)
                out = httpclient.InferRequestedOutput("softmax.tmp_0",
                                                      binary_data=binary)
                res = client.infer("demo", [inp], outputs=[out],
                                   request_compression_algorithm=sent,
                                   response_compression_algorithm=asked)
                ok, why = close(res.as_numpy("softmax.tmp_0"), y)
                R.check(ok, "compression: demo infer, binary %s, sent %s, "
                        "answer asked in %s" % (binary, sent, asked), why)
    payload = json.dumps({"inputs": [{"name": "x", "shape": list(x.shape),
                                      "datatype": "FP32",
                                      "data": x.flatten().tolist()}]})
    status, headers, body = request(
        port, "POST", "/v2/models/demo/infer", gzip.compress(payload.encode()),
        {"Content-Encoding": "gzip", "Accept-Encoding": "deflate, gzip;q=0"})
    ok = status == 200 and headers.get("Content-Encoding") == "deflate"
    if ok:
        o = json.loads(zlib.decompress(body))["outputs"][0]
        import numpy as np
        ok, why = close(np.array(o["data"]).reshape(o["shape"]), y)
    R.check(ok, "compression: gzip in, deflate out (gzip refused with q=0)",
            "%s %s %r" % (status, headers, body[:200]))
    for what, data, headers, want_status, want in (
            ("a coding it does not read", payload, {"Content-Encoding": "br"},
             415, "model 'demo': Content-Encoding 'br' is not one this "
             "server reads"),
            ("gzip that is not", payload, {"Content-Encoding": "gzip"}, 400,
             "model 'demo': the body does not decompress as gzip"),
            ("gzip cut short", gzip.compress(payload.encode())[:100],
             {"Content-Encoding": "gzip"}, 400, "the data ends early"),
            ("a body that expands past --max-body-mb",
             gzip.compress(b" " * (9 << 20), compresslevel=9),
             {"Content-Encoding": "gzip"}, 413, "decompressed (gzip)")):
        status, _, got = request(port, "POST", "/v2/models/demo/infer", data,
                                 headers)
        R.check(status == want_status and want in error_of(got),
                "compression refused: %s -> %d" % (what, want_status),
                "%s %r" % (status, got[:300]))
    # Two lines of it are one list (RFC 9110 5.3), read as "gzip, gzip" is
    # (the first alone decompressed once, to bytes that are not JSON).
    twice = gzip.compress(gzip.compress(payload.encode()))
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        sock.sendall(b"POST /v2/models/demo/infer HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Encoding: gzip\r\nContent-Encoding: gzip\r\n"
                     b"Connection: close\r\nContent-Length: %d\r\n\r\n"
                     % len(twice) + twice)
        got = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
    finally:
        sock.close()
    R.check(got.startswith(b"HTTP/1.1 415") and
            b"model 'demo': Content-Encoding 'gzip, gzip'" in got,
            "compression refused: two Content-Encoding lines are one list",
            repr(got[:400]))
    # Errors go out plain whatever the client accepts, as Triton's do:
    # tritonclient reads an error's body without decompressing it.
    status, headers, got = request(
        port, "POST", "/v2/models/demo/infer", '{"inputs": []}',
        {"Accept-Encoding": "gzip"})
    R.check(status == 400 and "Content-Encoding" not in headers and
            "needs input 'x'" in error_of(got),
            "compression: an error answer is not compressed",
            "%s %s %r" % (status, headers, got[:300]))
    from tritonclient.utils import InferenceServerException
    wrong = httpclient.InferInput("x", [1, 3, 32, 32], "INT32")
    wrong.set_data_from_numpy(np.zeros((1, 3, 32, 32), dtype=np.int32))
    try:
        client.infer("demo", [wrong], response_compression_algorithm="gzip")
        why = "answered"
    except InferenceServerException as e:
        why = e.message()
    R.check("datatype INT32, expected FP32" in why,
            "compression: tritonclient reads an error it asked gzip for",
            why)
    # A request without a body has nothing to decompress.
    status, _, got = request(port, "GET", "/v2/health/live", None,
                             {"Content-Encoding": "gzip"})
    R.check(status == 200, "compression: a GET naming a coding is answered",
            "%s %r" % (status, got[:300]))
    # An unknown model is 404 whatever the body holds, not decompressed.
    status, _, got = request(port, "POST", "/v2/models/nope/infer",
                             payload, {"Content-Encoding": "gzip"})
    R.check(status == 404 and "unknown model 'nope'" in error_of(got),
            "compression: an unknown model is 404 before the body is "
            "decompressed", "%s %r" % (status, got[:300]))


def check_logging(server):
    """The logging extension, through tritonclient: the settings read over
    HTTP and gRPC, log_verbose_level turning the per-request lines off and
    on while the server runs, and what may not change refused."""
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
    hc = httpclient.InferenceServerClient(url="127.0.0.1:%d" % server.port)
    gc = grpcclient.InferenceServerClient(
        url="127.0.0.1:%d" % server.grpc_port)
    want = {"log_file": "", "log_info": True, "log_warning": True,
            "log_error": True, "log_verbose_level": 1,
            "log_format": "default"}
    got = hc.get_log_settings()
    R.check(got == want, "logging: HTTP settings as started (--verbose)",
            str(got))
    R.check("logging" in hc.get_server_metadata().get("extensions", []),
            "logging: extension listed")

    def logged(marker):
        request(server.port, "GET", "/v2/no-such-" + marker)
        time.sleep(0.2)  # the line is written once the answer is sent
        return ("/v2/no-such-" + marker) in server.log_tail()

    got = hc.update_log_settings({"log_verbose_level": 0, "log_info": True})
    R.check(got.get("log_verbose_level") == 0,
            "logging: HTTP update answers the new settings", str(got))
    R.check(not logged("quiet"), "logging: level 0, no line per request")
    got = gc.update_log_settings({"log_verbose_level": 2}, as_json=True)
    R.check(got.get("settings", {}).get("log_verbose_level", {})
            .get("uint32_param") == 2,
            "logging: gRPC update answers the new settings", str(got))
    R.check(logged("loud"), "logging: level 2 again logs each request")
    for settings, why in (({"log_info": False}, "cannot be changed"),
                          ({"log_file": "/tmp/x.log"}, "cannot be changed"),
                          ({"log_verbose_level": -1}, "must be an integer"),
                          ({"log_level": 1}, 'unknown log setting "log_level"'),
                          ({"log_verbose_level": 0, "log_error": False},
                           "cannot be changed")):
        status, _, body = request(server.port, "POST", "/v2/logging",
                                  json.dumps(settings))
        R.check(status == 400 and why in error_of(body),
                "logging: %s refused" % json.dumps(settings),
                "%s %r" % (status, body[:200]))
    code, message = grpc_error(
        lambda: gc.update_log_settings({"log_error": False}))
    R.check(code == "StatusCode.INVALID_ARGUMENT" and
            "cannot be changed" in message,
            "logging: gRPC log_error off refused", "%s %r" % (code, message))
    R.check(hc.get_log_settings().get("log_verbose_level") == 2,
            "logging: a refused update changes nothing")
    hc.update_log_settings({"log_verbose_level": 1})
    hc.close()
    gc.close()


def check_stream(grpc_port):
    """Triton's streaming inference (ModelStreamInfer) through
    tritonclient's start_stream and async_stream_infer: every request on
    the stream answered, matched by its id, right; a bad one answered with
    its error while the stream goes on."""
    import queue
    import tritonclient.grpc as grpcclient
    x, y = demo_data()
    gc = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % grpc_port)
    answers = queue.Queue()
    gc.start_stream(callback=lambda result, error: answers.put((result,
                                                                 error)))
    inp = grpcclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    bad = grpcclient.InferInput("nope", list(x.shape), "FP32")
    bad.set_data_from_numpy(x)
    for i in range(40):
        gc.async_stream_infer("demo", [inp], request_id="s%d" % i)
        if i == 20:
            gc.async_stream_infer("demo", [bad], request_id="bad")
    got, errors, wrong = set(), [], []
    for _ in range(41):
        try:
            result, error = answers.get(timeout=60)
        except queue.Empty:
            break
        if error is not None:
            errors.append(error.message())
            continue
        rid = result.get_response().id
        got.add(rid)
        ok, why = close(result.as_numpy("softmax.tmp_0"), y)
        if not ok:
            wrong.append((rid, why))
    gc.stop_stream()
    gc.close()
    R.check(got == {"s%d" % i for i in range(40)} and not wrong,
            "stream: 40 requests on one stream, each answered right, by id",
            "%d answered, wrong %s" % (len(got), wrong[:2]))
    R.check(len(errors) == 1 and "nope" in errors[0],
            "stream: a bad request answered with its error, the stream "
            "going on", str(errors))


def check_half_precision(port, grpc_port, client, httpclient):
    """FP16 and BF16 over HTTP (JSON and binary) and gRPC, on the model of
    unittests/test_utils/half_model.h: sum = 2 * x16 + xb16, as FP32, FP16
    (sum16) and BF16 (sumb16)."""
    import ml_dtypes  # tritonclient's own dependency, for BF16
    import numpy as np
    import tritonclient.grpc as grpcclient
    md = client.get_model_metadata("half")
    types = {t["name"]: t["datatype"] for t in md["inputs"] + md["outputs"]}
    R.check(types == {"x16": "FP16", "xb16": "BF16", "sum": "FP32",
                      "sum16": "FP16", "sumb16": "BF16"},
            "half: metadata names FP16 and BF16", str(types))
    a = np.array([[1.5, -2, 0.25], [1000, 0, -0.5]], np.float16)
    b = np.array([[0.5, 3, -1], [0, -0.0, 256]], ml_dtypes.bfloat16)
    want = 2 * a.astype(np.float32) + b.astype(np.float32)
    want16 = want.astype(np.float16)
    wantb16 = want.astype(ml_dtypes.bfloat16)

    def same(res, how):
        got = res.as_numpy("sum")
        got16 = res.as_numpy("sum16")
        gotb16 = res.as_numpy("sumb16")
        ok = (got is not None and got16 is not None and gotb16 is not None and
              np.array_equal(got, want) and
              np.array_equal(got16.view(np.uint16), want16.view(np.uint16)) and
              np.array_equal(np.asarray(gotb16, ml_dtypes.bfloat16)
                             .view(np.uint16), wantb16.view(np.uint16)))
        R.check(ok, "half: FP16 and BF16 in and out, %s" % how,
                "%r %r %r" % (got, got16, gotb16))

    # tritonclient sends BF16 only as binary data over HTTP.
    for binary in (False, True):
        x16 = httpclient.InferInput("x16", list(a.shape), "FP16")
        x16.set_data_from_numpy(a, binary_data=binary)
        xb16 = httpclient.InferInput("xb16", list(b.shape), "BF16")
        xb16.set_data_from_numpy(b, binary_data=True)
        outputs = [httpclient.InferRequestedOutput("sum", binary_data=binary),
                   httpclient.InferRequestedOutput("sum16", binary_data=binary),
                   httpclient.InferRequestedOutput("sumb16", binary_data=True)]
        same(client.infer("half", [x16, xb16], outputs=outputs),
             "HTTP, FP16 and FP32 as %s" % ("binary" if binary else "JSON"))
    g = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % grpc_port)
    inputs = [grpcclient.InferInput("x16", list(a.shape), "FP16"),
              grpcclient.InferInput("xb16", list(b.shape), "BF16")]
    inputs[0].set_data_from_numpy(a)
    inputs[1].set_data_from_numpy(b)
    same(g.infer("half", inputs), "gRPC")
    g.close()
    # The protocol has no typed contents for FP16 and BF16.
    import grpc
    from tritonclient.grpc import service_pb2, service_pb2_grpc
    with grpc.insecure_channel("127.0.0.1:%d" % grpc_port) as channel:
        stub = service_pb2_grpc.GRPCInferenceServiceStub(channel)
        req = service_pb2.ModelInferRequest(model_name="half")
        t = req.inputs.add(name="x16", datatype="FP16", shape=[1, 3])
        t.contents.fp32_contents.extend([1, 2, 3])
        t = req.inputs.add(name="xb16", datatype="BF16", shape=[1, 3])
        t.contents.fp32_contents.extend([1, 2, 3])
        code, message = grpc_refusal(stub, req)
        R.check(code == grpc.StatusCode.INVALID_ARGUMENT and
                "FP16 has no typed contents" in message,
                "half: gRPC typed contents for FP16 -> INVALID_ARGUMENT",
                "%s %s" % (code, message))
    # BF16 as JSON both ways, which tritonclient does not send.
    status, _, body = post_json(port, "half", {"inputs": [
        {"name": "x16", "shape": [2, 3], "datatype": "FP16",
         "data": a.astype(np.float32).tolist()},
        {"name": "xb16", "shape": [2, 3], "datatype": "BF16",
         "data": b.astype(np.float32).tolist()}],
        "outputs": [{"name": "sumb16"}]})
    doc = json.loads(body) if status == 200 else {}
    got = (np.array(doc["outputs"][0]["data"], np.float32)
           if status == 200 else None)
    R.check(status == 200 and doc["outputs"][0]["datatype"] == "BF16" and
            np.array_equal(got, wantb16.astype(np.float32).flatten()),
            "half: BF16 as JSON in and out", body[:300])
    # A value that would narrow to infinity is refused, naming it.
    status, _, body = post_json(port, "half", {"inputs": [
        {"name": "x16", "shape": [1, 3], "datatype": "FP16",
         "data": [1, 2, 70000]},
        {"name": "xb16", "shape": [1, 3], "datatype": "BF16",
         "data": [1, 2, 3]}]})
    R.check(status == 400 and "element 2 (row major) is 70000" in
            error_of(body), "half: an FP16 value past its range -> 400",
            "%s %s" % (status, body[:300]))
    # Sums past FP16's range: infinities in JSON as Triton writes them
    # (Infinity, -Infinity), which Python's json reads back, as over gRPC.
    status, _, body = post_json(port, "half", {"inputs": [
        {"name": "x16", "shape": [1, 3], "datatype": "FP16",
         "data": [60000, -60000, 1]},
        {"name": "xb16", "shape": [1, 3], "datatype": "BF16",
         "data": [60000, -60000, 1]}],
        "outputs": [{"name": "sum16"}]})
    got = (json.loads(body)["outputs"][0]["data"] if status == 200 else None)
    R.check(status == 200 and b"[Infinity,-Infinity,3.0]" in body and
            got == [float("inf"), float("-inf"), 3.0],
            "half: infinities as JSON are Infinity and -Infinity",
            "%s %s" % (status, body[:300]))
    # And read as Triton reads them: tritonclient sends JSON data through
    # Python's json, which writes NaN, Infinity and -Infinity.
    special = np.array([[np.inf, -np.inf, np.nan]], np.float16)
    x16 = httpclient.InferInput("x16", [1, 3], "FP16")
    x16.set_data_from_numpy(special, binary_data=False)
    xb16 = httpclient.InferInput("xb16", [1, 3], "BF16")
    xb16.set_data_from_numpy(np.ones((1, 3), ml_dtypes.bfloat16),
                             binary_data=True)
    try:
        got = client.infer("half", [x16, xb16], outputs=[
            httpclient.InferRequestedOutput("sum", binary_data=True)
        ]).as_numpy("sum")
    except Exception as e:  # reported as the check's detail
        got = e
    R.check(isinstance(got, np.ndarray) and got.shape == (1, 3) and
            got[0, 0] == np.inf and got[0, 1] == -np.inf and
            np.isnan(got[0, 2]),
            "half: NaN and infinities as JSON tokens in a request", repr(got))


def check_openmp_wait_policy(server, policy, spincount):
    """The server runs with OpenMP threads that spin a bounded while, unless
    its environment said how they wait (docs/serving.md, "OpenMP
    threads")."""
    with open("/proc/%d/environ" % server.proc.pid, "rb") as f:
        env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0")
                   if b"=" in kv)
    got = (env.get(b"OMP_WAIT_POLICY"), env.get(b"GOMP_SPINCOUNT"))
    want = (policy.encode(), spincount.encode() if spincount else None)
    R.check(got == want, "OpenMP wait policy %s, spin count %s" % (
        policy, spincount), repr(got))


def check_keep_alive(port):
    """One kept-alive connection serves many requests: httplib's default
    closed it after 5, so clients reconnected every 5th request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.connect()
        sock = conn.sock
        statuses, closed = [], False
        for _ in range(20):
            conn.request("GET", "/v2/health/live")
            resp = conn.getresponse()
            resp.read()
            statuses.append(resp.status)
            closed = closed or resp.will_close or conn.sock is not sock
        R.check(statuses == [200] * 20 and not closed,
                "one kept-alive connection serves 20 requests",
                "statuses %s, closed %s" % (statuses, closed))
    finally:
        conn.close()


def server_rss_mb(server):
    with open("/proc/%d/status" % server.proc.pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return -1


def check_control_bodies(server):
    """Control calls' bodies are checked before nlohmann-json parses them
    whole (a node of tens of bytes a value): a small one for logging,
    the index and shared memory (64 KB), none nesting deeper than 32 or
    holding more than 100,000 values (a load's too), so that a few small
    requests cannot make the server take gigabytes."""
    port = server.port
    rss_before = server_rss_mb(server)
    nested = '{"a":' + "[" * 200000 + "]" * 200000 + "}"
    many = '{"a":[' + ",".join(["0"] * 150000) + "]}"
    for path, body, want, text in (
            ("/v2/logging", nested, 413, "over the 65536 it takes"),
            ("/v2/logging", '{"a":' + "[" * 40 + "]" * 40 + "}", 400,
             "nests deeper than 32"),
            ("/v2/repository/index", many, 413, "over the 65536"),
            ("/v2/repository/models/demo/load", nested, 400,
             "nests deeper than 32"),
            ("/v2/repository/models/demo/load", many, 400,
             "more than 100000 values"),
            ("/v2/systemsharedmemory/region/r/register", nested, 413,
             "over the 65536"),
            ("/v2/repository/models/demo/load",
             json.dumps({"parameters": {"x": "a" * (15 << 19)}}), 413,
             "the server decodes at once (--max-json-decoding-mb)")):
        status, _, out = request(port, "POST", path, body.encode(),
                                 {"Content-Type": "application/json"})
        R.check(status == want and text in error_of(out),
                "control call body: %s of %d bytes -> %d" % (
                    path, len(body), want),
                "got %s %r" % (status, out[:300]))
    rss_after = server_rss_mb(server)
    R.check(rss_after - rss_before < 100,
            "control call bodies: the server's RSS grew %d MB" % (
                rss_after - rss_before), "")


def check_body_budget(port, max_body):
    """Bodies' buffers grow as their bytes arrive, never ahead of them (a
    stated Content-Length is only a cap), and past the 1 MB a connection
    keeps they share a budget of 4 x --max-body-mb: a body that does not
    fit beside the others is answered 503, and the budget comes back as
    connections end."""
    def send_body(length, sent):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(("POST /v2/models/demo/infer HTTP/1.1\r\nHost: x\r\n"
                      "Content-Type: application/json\r\n"
                      "Content-Length: %d\r\n\r\n" % length).encode())
        sock.sendall(b"{" + b" " * (sent - 1))
        return sock

    def answer_of(sock):
        data = b""
        while b"\r\n\r\n" not in data:
            more = sock.recv(65536)
            if not more:
                break
            data += more
        sock.close()
        return data.decode(errors="replace")

    # A stated length takes nothing: 32 connections stating the most.
    stated = [send_body(max_body, 1) for _ in range(32)]
    time.sleep(0.3)
    probe = send_body(2 << 20, 2 << 20)
    answer = answer_of(probe)
    R.check(answer.startswith("HTTP/1.1 400"),
            "stated Content-Lengths take no memory nor budget ahead of "
            "their bytes", answer[:200])
    for sock in stated:
        sock.close()
    # Four bodies nearly whole hold the budget (8 MB each).
    held = [send_body(max_body - 1000, max_body - 1001) for _ in range(4)]
    time.sleep(0.5)
    answer = answer_of(send_body(2 << 20, 2 << 20))
    R.check(answer.startswith("HTTP/1.1 503") and "retry" in answer,
            "a body past the budget of bodies being received: 503",
            answer[:300])
    for sock in held:
        sock.close()
    time.sleep(0.5)
    answer = answer_of(send_body(2 << 20, 2 << 20))
    R.check(answer.startswith("HTTP/1.1 400"),
            "the budget comes back as the connections end", answer[:300])

    # Chunked bodies: one of the most takes no more than it (not twice),
    # and one past it, whose rest is read and dropped, holds nothing.
    def send_chunked(sent):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(b"POST /v2/models/demo/infer HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = 1 << 20
        for start in range(0, sent, chunk):
            n = min(chunk, sent - start)
            sock.sendall(b"%x\r\n" % n + b" " * n + b"\r\n")
        return sock

    held = [send_chunked(max_body) for _ in range(2)]
    held += [send_chunked(max_body + (1 << 20)) for _ in range(2)]
    time.sleep(0.5)
    answer = answer_of(send_body(2 << 20, 2 << 20))
    R.check(answer.startswith("HTTP/1.1 400"),
            "chunked bodies hold at most --max-body-mb of the budget, and "
            "none once past it", answer[:300])
    for sock in held:
        sock.close()
    # Beside Transfer-Encoding, Content-Length means nothing (the body is
    # read chunked): not refused for it.
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(b"POST /v2/models/demo/infer HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Length: 99999999999\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n"
                 b"2\r\n{}\r\n0\r\n\r\n")
    answer = answer_of(sock)
    R.check(answer.startswith("HTTP/1.1 400"),
            "a chunked body's Content-Length is ignored", answer[:300])


def check_slow_clients(server_command, tmp, env, servers):
    """A body sent slower than 500 bytes a second (over 10 s) ends its
    connection; and at SIGTERM a client sending its headers a byte at a
    time (no request yet, its bytes restarting the idle timeout) is closed
    5 s after the server stops accepting, which then exits 0 even with
    --exit-timeout-secs 0."""
    repo = one_model_repo(tmp, "repo_slow", "demo", DEMO)
    log = os.path.join(tmp, "slow.log")
    server = Server(server_command, repo, log, ["--exit-timeout-secs", "0"],
                    env=env)
    servers.append(server)
    stop = threading.Event()
    ended = {}

    def trickle(name, first, byte):
        sock = socket.create_connection(("127.0.0.1", server.port))
        start = time.time()
        try:
            sock.sendall(first)
            while not stop.is_set():
                time.sleep(1)
                sock.sendall(byte)
                sock.settimeout(0.01)
                try:
                    if not sock.recv(65536):
                        break
                except socket.timeout:
                    pass
        except OSError:
            pass
        ended[name] = time.time() - start
        sock.close()

    body = threading.Thread(target=trickle, args=(
        "body", b"POST /v2/models/demo/infer HTTP/1.1\r\nHost: x\r\n"
        b"Content-Length: 100000\r\n\r\n", b"x"))
    headers = threading.Thread(target=trickle, args=(
        "headers", b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n", b"X"))
    body.start()
    headers.start()
    body.join(timeout=30)
    status, _, _ = request(server.port, "GET", "/v2/health/live")
    R.check("body" in ended and 9 < ended["body"] < 20 and status == 200,
            "a body trickling under 500 B/s: its connection closed after "
            "%.1f s, the server serving" % ended.get("body", -1),
            str(ended))
    start = time.time()
    code = server.stop(signal.SIGTERM, timeout=30)
    took = time.time() - start
    stop.set()
    headers.join(timeout=30)
    with open(log, errors="replace") as f:
        text = f.read()
    R.check(code == 0 and took < 10 and
            "still open with no request" in text,
            "SIGTERM with a client sending its headers a byte a second: "
            "closed, exit 0 in %.1f s" % took,
            "exit %s\n%s" % (code, text[-1500:]))


def check_header_timeout(server_command, tmp, env, servers):
    """--http-header-timeout-secs 2: a connection whose request headers
    trickle in a byte a second (each restarting the 5 s idle timeout) is
    closed 2 s after it connected, or after its last answer; a request
    whose headers are in is not, though its body takes longer."""
    repo = one_model_repo(tmp, "repo_headers", "demo", DEMO)
    server = Server(server_command, repo, os.path.join(tmp, "headers.log"),
                    ["--http-header-timeout-secs", "2"], env=env)
    servers.append(server)

    def trickled(first):
        """Sends `first`, then a header byte a second: seconds until the
        server closed the connection (None: not within 10 s)."""
        sock = socket.create_connection(("127.0.0.1", server.port))
        start = time.time()
        try:
            sock.sendall(first)
            if first.endswith(b"\r\n\r\n"):  # answered first
                sock.settimeout(10)
                sock.recv(65536)
                start = time.time()
            sock.sendall(b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n")
            while time.time() - start < 10:
                sock.settimeout(1)
                try:
                    if not sock.recv(65536):
                        return time.time() - start
                except socket.timeout:
                    pass
                sock.sendall(b"X")
        except OSError:
            return time.time() - start
        finally:
            sock.close()
        return None

    took = trickled(b"")
    R.check(took is not None and 1.5 < took < 4,
            "--http-header-timeout-secs 2: headers a byte a second, closed "
            "after %s s" % (took and round(took, 1)), server.log_tail()[-800:])
    took = trickled(b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n")
    R.check(took is not None and 1.5 < took < 4,
            "--http-header-timeout-secs 2: after an answer, the next "
            "request's headers a byte a second, closed after %s s"
            % (took and round(took, 1)),
            server.log_tail()[-800:])
    # Headers in at once, the body over 3 s: answered.
    x, y = demo_data()
    body = json.dumps({"inputs": [{"name": "x", "shape": list(x.shape),
                                   "datatype": "FP32",
                                   "data": x.flatten().tolist()}]}).encode()
    sock = socket.create_connection(("127.0.0.1", server.port))
    try:
        sock.sendall(b"POST /v2/models/demo/infer HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body))
        third = len(body) // 3 + 1
        for at in range(0, len(body), third):
            time.sleep(1)
            sock.sendall(body[at:at + third])
        sock.settimeout(30)
        answer = sock.recv(100)
    except OSError as e:
        answer = repr(e).encode()
    finally:
        sock.close()
    R.check(answer.startswith(b"HTTP/1.1 200"),
            "--http-header-timeout-secs 2: a body sent over 3 s is answered",
            repr(answer))
    with open(server.log_path, errors="replace") as f:
        text = f.read()
    R.check(server.stop() == 0 and "--http-header-timeout-secs" in text,
            "--http-header-timeout-secs: logged, exit 0", text[-1500:])


def check_curl(port, tmp):
    import numpy as np
    x, y = demo_data()
    code = subprocess.run(
        ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
         "http://127.0.0.1:%d/v2/health/live" % port],
        capture_output=True, text=True, timeout=60).stdout
    R.check(code == "200", "curl live", code)
    req = os.path.join(tmp, "req.json")
    with open(req, "w") as f:
        json.dump({"inputs": [{"name": "x", "shape": list(x.shape),
                               "datatype": "FP32",
                               "data": x.flatten().tolist()}]}, f)
    out = subprocess.run(
        ["curl", "-s", "-H", "Content-Type: application/json",
         "--data-binary", "@" + req,
         "http://127.0.0.1:%d/v2/models/demo/infer" % port],
        capture_output=True, timeout=60).stdout
    try:
        o = json.loads(out)["outputs"][0]
        ok, why = close(np.array(o["data"]).reshape(o["shape"]), y)
    except (ValueError, KeyError, IndexError) as e:
        ok, why = False, "%s: %r" % (e, out[:300])
    R.check(ok, "curl JSON infer", why)
    # Binary in and out, framed by hand.
    header = json.dumps({
        "inputs": [{"name": "x", "shape": list(x.shape), "datatype": "FP32",
                    "parameters": {"binary_data_size": x.nbytes}}],
        "outputs": [{"name": "softmax.tmp_0",
                     "parameters": {"binary_data": True}}]}).encode()
    body = os.path.join(tmp, "req.bin")
    with open(body, "wb") as f:
        f.write(header + x.astype("<f4").tobytes())
    headers_file = os.path.join(tmp, "headers.txt")
    out = subprocess.run(
        ["curl", "-s", "-D", headers_file, "-H",
         "Inference-Header-Content-Length: %d" % len(header),
         "-H", "Content-Type: application/octet-stream",
         "--data-binary", "@" + body,
         "http://127.0.0.1:%d/v2/models/demo/infer" % port],
        capture_output=True, timeout=60).stdout
    with open(headers_file) as f:
        head = f.read()
    m = re.search(r"(?i)inference-header-content-length:\s*(\d+)", head)
    ok, why = False, head
    if m and "application/octet-stream" in head:
        n = int(m.group(1))
        doc = json.loads(out[:n])
        o = doc["outputs"][0]
        got = np.frombuffer(out[n:], dtype="<f4").reshape(o["shape"])
        ok, why = close(got, y)
        ok = ok and o["parameters"]["binary_data_size"] == len(out) - n
    R.check(ok, "curl binary infer", why)


def check_det_outputs(res, md, det_dir, prefix):
    """det_ppyolo_tiny's outputs against ref/; NMS boxes as sets of rows."""
    import numpy as np
    for o in md["outputs"]:
        path = ref_file(det_dir, "expected", o["name"])
        if not os.path.exists(path):
            continue
        want = np.load(path)
        got = res.as_numpy(o["name"])
        if want.ndim == 2 and want.shape[-1] == 6:
            ok, why = same_rows(got, want)
        else:
            ok, why = close(got, want)
        R.check(ok, "%sdet_ppyolo_tiny output %s matches ref" % (
            prefix, o["name"]), why)


def check_shared_models(port, client, httpclient):
    import numpy as np
    cls_dir = os.path.join(MODELS, "ppocr_cls_mobile_v2")
    det_dir = os.path.join(MODELS, "det_ppyolo_tiny")
    text_dir = os.path.join(MODELS, "textcnn_news_fluid")
    # Classifier: binary in, binary out, through tritonclient.
    x = np.load(ref_file(cls_dir, "input", "x"))
    out_name = client.get_model_metadata("cls")["outputs"][0]["name"]
    inp = httpclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x, binary_data=True)
    res = client.infer("cls", [inp])
    ok, why = close(res.as_numpy(out_name),
                    np.load(ref_file(cls_dir, "expected", out_name)))
    R.check(ok, "ppocr_cls_mobile_v2 infer matches ref", why)
    # The same as JSON both ways (the values as text, 221 KB).
    inp.set_data_from_numpy(x, binary_data=False)
    res = client.infer("cls", [inp], outputs=[
        httpclient.InferRequestedOutput(out_name, binary_data=False)])
    ok, why = close(res.as_numpy(out_name),
                    np.load(ref_file(cls_dir, "expected", out_name)))
    R.check(ok, "ppocr_cls_mobile_v2 JSON infer matches ref", why)
    # Detector: three inputs, NMS outputs compared as sets of rows.
    md = client.get_model_metadata("det")
    inputs = []
    for i in md["inputs"]:
        a = np.load(ref_file(det_dir, "input", i["name"]))
        t = httpclient.InferInput(i["name"], list(a.shape), i["datatype"])
        t.set_data_from_numpy(a, binary_data=True)
        inputs.append(t)
    check_det_outputs(client.infer("det", inputs), md, det_dir, "")
    # The same as JSON both ways (the image as text, 5.9 MB).
    for t, i in zip(inputs, md["inputs"]):
        t.set_data_from_numpy(np.load(ref_file(det_dir, "input", i["name"])),
                              binary_data=False)
    check_det_outputs(
        client.infer("det", inputs, outputs=[
            httpclient.InferRequestedOutput(o["name"], binary_data=False)
            for o in md["outputs"]]), md, det_dir, "JSON: ")
    # TextCNN: an INT64 input with a LoD, as our "lod" input parameter.
    words = np.load(ref_file(text_dir, "input", "words"))
    with open(os.path.join(text_dir, "ref", "input_words.lod.txt")) as f:
        lod = [int(v) for v in f.read().strip().split(",")]
    md = client.get_model_metadata("textcnn")
    in_name, out_name = md["inputs"][0]["name"], md["outputs"][0]["name"]
    want = np.load(ref_file(text_dir, "expected", out_name))
    status, _, body = post_json(port, "textcnn", {"inputs": [{
        "name": in_name, "shape": list(words.shape), "datatype": "INT64",
        "data": words.flatten().tolist(), "parameters": {"lod": [lod]}}]})
    ok, why = False, body[:300]
    if status == 200:
        o = json.loads(body)["outputs"][0]
        ok, why = close(np.array(o["data"]).reshape(o["shape"]), want)
    R.check(ok, "textcnn_news_fluid with a LoD matches ref", why)
    # The same with the words as binary data.
    header = json.dumps({"inputs": [{
        "name": in_name, "shape": list(words.shape), "datatype": "INT64",
        "parameters": {"lod": [lod], "binary_data_size": words.nbytes}}],
        "outputs": [{"name": out_name,
                     "parameters": {"binary_data": True}}]}).encode()
    status, headers, body = request(
        port, "POST", "/v2/models/textcnn/infer",
        header + words.astype("<i8").tobytes(),
        {"Inference-Header-Content-Length": str(len(header))})
    ok, why = False, body[:300]
    if status == 200:
        n = int(headers.get("Inference-Header-Content-Length", "0"))
        o = json.loads(body[:n])["outputs"][0]
        ok, why = close(np.frombuffer(body[n:], dtype="<f4").reshape(
            o["shape"]), want)
    R.check(ok, "textcnn_news_fluid with a LoD, binary data, matches ref",
            why)
    status, _, body = post_json(port, "textcnn", {"inputs": [{
        "name": in_name, "shape": list(words.shape), "datatype": "INT64",
        "data": words.flatten().tolist()}]})
    R.check(status == 400 and "lod" in error_of(body),
            "textcnn without a LoD is 400", body[:300])
    status, _, body = post_json(port, "textcnn", {"inputs": [{
        "name": in_name, "shape": list(words.shape), "datatype": "INT64",
        "data": words.flatten().tolist(),
        "parameters": {"lod": [[0, 5, 9999]]}}]})
    R.check(status == 400 and "lod" in error_of(body),
            "textcnn with a LoD past the rows is 400", body[:300])


def bad_requests(port, x):
    """(name, method, path, body, headers, status, text in the error)."""
    xs = x[:1]
    good = {"name": "x", "shape": [1, 3, 32, 32], "datatype": "FP32",
            "data": xs.flatten().tolist()}

    def infer(inputs, **extra):
        d = {"inputs": inputs}
        d.update(extra)
        return json.dumps(d)

    p = "/v2/models/demo/infer"
    hdr = json.dumps({"inputs": [{"name": "x", "shape": [1, 3, 32, 32],
                                  "datatype": "FP32",
                                  "parameters": {"binary_data_size":
                                                 xs.nbytes}}]}).encode()
    raw = xs.astype("<f4").tobytes()
    flat = xs.flatten().tolist()
    return [
        ("wrong datatype", p, infer([dict(good, datatype="INT64",
                                          data=[1] * xs.size)]), {},
         400, "datatype INT64, expected FP32"),
        ("ragged data", p, infer([dict(good, data=[flat[:100],
                                                   flat[100:]])]), {},
         400, "is ragged"),
        ("unsupported datatype", p, infer([dict(good, datatype="BYTES")]),
         {}, 400, "'BYTES' is not supported"),
        ("wrong rank", p, infer([dict(good, shape=[3, 32, 32])]), {},
         400, "expected rank 4"),
        ("too few elements", p, infer([dict(good, data=[1.0] * 10)]), {},
         400, "needs 3072 elements, got 10"),
        ("shape the model cannot run", p,
         infer([dict(good, shape=[1, 4, 32, 32], data=[1.0] * 4096)]), {},
         400, "model 'demo' version 1"),
        ("missing input", p, infer([]), {}, 400, "needs input 'x'"),
        ("unknown input", p, infer([good, dict(good, name="y")]), {}, 400,
         "has no input 'y'"),
        ("unknown output", p, infer([good], outputs=[{"name": "nope"}]), {},
         400, "has no output 'nope'"),
        ("output asked for twice", p,
         infer([good], outputs=[{"name": "softmax.tmp_0"}] * 2), {}, 400,
         "output 'softmax.tmp_0' asked for twice"),
        ("malformed JSON", p, '{"inputs": [', {}, 400, "not valid JSON"),
        ("strings as FP32 data", p, infer([dict(good, data=["a"] * 3072)]),
         {}, 400, "array of FP32 values"),
        ("binary sizes past the body", p, hdr + raw[:100],
         {"Inference-Header-Content-Length": str(len(hdr))}, 400,
         "runs past the end"),
        ("binary bytes left over", p, hdr + raw + b"xyz",
         {"Inference-Header-Content-Length": str(len(hdr))}, 400,
         "3 bytes after the JSON header"),
        ("header length past the body", p, hdr + raw,
         {"Inference-Header-Content-Length": str(len(hdr) + len(raw) + 1)},
         400, "Inference-Header-Content-Length"),
        # Not the JSON budget's 413: the claim is checked against the body.
        ("header length far past the body", p, hdr + raw,
         {"Inference-Header-Content-Length": "300000000"}, 400,
         "Inference-Header-Content-Length is 300000000"),
        ("header length not a number", p, hdr + raw,
         {"Inference-Header-Content-Length": "12x"}, 400,
         "is not a byte count"),
        ("header length with a sign", p, hdr + raw,
         {"Inference-Header-Content-Length": "+%d" % len(hdr)}, 400,
         "is not a byte count"),
        ("body over --max-body-mb", p, b"{" + b" " * (9 << 20) + b"}", {},
         413, "over the limit"),
        ("JSON over --max-json-decoding-mb", p,
         b'{"inputs": []' + b" " * (7 << 20) + b"}", {}, 413,
         "over the 7340032 the server decodes at once"),
        ("unknown model", "/v2/models/nope/infer", infer([good]), {}, 404,
         "unknown model 'nope'"),
        ("unknown model, body not JSON", "/v2/models/nope/infer", "{", {},
         404, "unknown model 'nope'"),
        # A name that is not UTF-8 once ended the server (its answer's
        # JSON threw).
        ("model name not UTF-8", "/v2/models/%ff%fe/infer", infer([good]),
         {}, 404, "unknown model '\ufffd\ufffd'"),
        ("version not UTF-8", "/v2/models/demo/versions/%ff/infer",
         infer([good]), {}, 404, "has no version '\ufffd'"),
        ("input name not UTF-8", p,
         infer([good]).encode().replace(b'"name": "x"', b'"name": "x\xff"'),
         {}, 400, "not valid UTF-8"),
        ("data element 3 not a number", p,
         infer([dict(good, data=[1.0, 2.0, 3.0, None] + [1.0] * 3068)]), {},
         400, "element 3 (row major) is null"),
        ("unknown version", "/v2/models/demo/versions/9/infer",
         infer([good]), {}, 404, "has no version '9'"),
        ("broken model", "/v2/models/broken/infer", infer([good]), {}, 503,
         "is not ready"),
    ]


def check_bad_inputs_with_parallel_client(port, client, httpclient):
    x, y = demo_data()
    stop = threading.Event()
    counts = {"ok": 0, "bad": 0}

    def good_client():
        # Its own client: gevent's hub belongs to the thread that made it.
        client = httpclient.InferenceServerClient(url="127.0.0.1:%d" % port)
        inp = httpclient.InferInput("x", list(x.shape), "FP32")
        inp.set_data_from_numpy(x, binary_data=True)
        while not stop.is_set():
            try:
                res = client.infer("demo", [inp])
                ok, _ = close(res.as_numpy("softmax.tmp_0"), y)
            except Exception:  # any failure of a good request counts
                ok = False
            counts["ok" if ok else "bad"] += 1
        client.close()

    thread = threading.Thread(target=good_client)
    thread.start()
    try:
        for _ in range(2):
            for name, path, body, headers, want, text in bad_requests(port, x):
                headers = dict(headers)
                headers.setdefault("Content-Type", "application/json")
                try:
                    status, _, out = request(port, "POST", path, body, headers)
                except (OSError, http.client.HTTPException) as e:
                    status, out = None, repr(e).encode()
                err = error_of(out)
                R.check(status == want and text in err,
                        "bad input: %s -> %s" % (name, want),
                        "got %s %r" % (status, out[:300]))
    finally:
        stop.set()
        thread.join()
    R.check(counts["bad"] == 0 and counts["ok"] > 0,
            "parallel good client all correct during bad inputs",
            str(counts))


def grpc_error(fn):
    """The gRPC status name of the exception `fn` raises, and its message;
    (None, "") when it succeeds."""
    from tritonclient.utils import InferenceServerException
    try:
        fn()
        return None, ""
    except InferenceServerException as e:
        return str(e.status()), e.message()


def check_grpc(port, with_shared):
    import numpy as np
    import tritonclient.grpc as grpcclient
    client = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % port)
    R.check(client.is_server_live(), "grpc: live")
    R.check(not client.is_server_ready(),
            "grpc: not ready (the broken model)")
    R.check(client.is_model_ready("demo"), "grpc: demo ready")
    R.check(not client.is_model_ready("broken"), "grpc: broken not ready")
    meta = client.get_server_metadata(as_json=True)
    R.check(meta.get("name") == "pdlite" and
            "binary_tensor_data" in meta.get("extensions", []),
            "grpc: server metadata", meta)
    md = client.get_model_metadata("demo", as_json=True)
    R.check(md["name"] == "demo" and md["versions"] == ["1"] and
            md["platform"] == "paddle" and
            md["inputs"] == [{"name": "x", "datatype": "FP32",
                              "shape": ["-1", "3", "32", "32"]}],
            "grpc: demo metadata", md)
    status, message = grpc_error(lambda: client.get_model_metadata("nope"))
    R.check(status == "StatusCode.NOT_FOUND" and "nope" in message,
            "grpc: unknown model metadata is NOT_FOUND", message)
    status, message = grpc_error(lambda: client.get_model_metadata("broken"))
    R.check(status == "StatusCode.UNAVAILABLE" and "not ready" in message,
            "grpc: broken model metadata gives the loader's error", message)

    x, y = demo_data()
    inp = grpcclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    res = client.infer("demo", [inp], request_id="g-1")
    ok, why = close(res.as_numpy("softmax.tmp_0"), y)
    R.check(ok and res.get_response().id == "g-1",
            "grpc: demo infer matches, id echoed", why)
    res = client.infer("demo", [inp], model_version="1", outputs=[
        grpcclient.InferRequestedOutput("softmax.tmp_0")])
    ok, why = close(res.as_numpy("softmax.tmp_0"), y)
    R.check(ok, "grpc: demo infer by version with an output selected", why)
    check_grpc_typed_contents(port, x, y)

    def bad(name, inputs, want, text, model="demo", **kw):
        status, message = grpc_error(
            lambda: client.infer(model, inputs, **kw))
        R.check(status == want and text in message,
                "grpc bad input: %s -> %s" % (name, want),
                "%s %r" % (status, message))

    wrong_type = grpcclient.InferInput("x", list(x.shape), "INT64")
    wrong_type.set_data_from_numpy(x.astype(np.int64))
    bad("wrong datatype", [wrong_type], "StatusCode.INVALID_ARGUMENT",
        "datatype INT64, expected FP32")
    wrong_rank = grpcclient.InferInput("x", [x.size], "FP32")
    wrong_rank.set_data_from_numpy(x.flatten())
    bad("wrong rank", [wrong_rank], "StatusCode.INVALID_ARGUMENT",
        "expected rank 4")
    unknown = grpcclient.InferInput("y", list(x.shape), "FP32")
    unknown.set_data_from_numpy(x)
    bad("unknown input", [inp, unknown], "StatusCode.INVALID_ARGUMENT",
        "has no input 'y'")
    bad("missing input", [], "StatusCode.INVALID_ARGUMENT", "needs input 'x'")
    bad("unknown output", [inp], "StatusCode.INVALID_ARGUMENT",
        "has no output 'nope'",
        outputs=[grpcclient.InferRequestedOutput("nope")])
    bad("output asked for twice", [inp], "StatusCode.INVALID_ARGUMENT",
        "output 'softmax.tmp_0' asked for twice",
        outputs=[grpcclient.InferRequestedOutput("softmax.tmp_0")] * 2)
    bad("unknown model", [inp], "StatusCode.NOT_FOUND", "unknown model 'nope'",
        model="nope")
    strings = grpcclient.InferInput("x", [1], "BYTES")
    strings.set_data_from_numpy(np.array([b"a"], dtype=np.object_))
    bad("unknown model, BYTES input", [strings], "StatusCode.NOT_FOUND",
        "unknown model 'nope'", model="nope")
    bad("unknown version", [inp], "StatusCode.NOT_FOUND",
        "has no version '9'", model_version="9")
    bad("broken model", [inp], "StatusCode.UNAVAILABLE", "is not ready",
        model="broken")
    if with_shared:
        cls_dir = os.path.join(MODELS, "ppocr_cls_mobile_v2")
        xc = np.load(ref_file(cls_dir, "input", "x"))
        out_name = client.get_model_metadata("cls", as_json=True)[
            "outputs"][0]["name"]
        ci = grpcclient.InferInput("x", list(xc.shape), "FP32")
        ci.set_data_from_numpy(xc)
        ok, why = close(client.infer("cls", [ci]).as_numpy(out_name),
                        np.load(ref_file(cls_dir, "expected", out_name)))
        R.check(ok, "grpc: ppocr_cls_mobile_v2 infer matches ref", why)
        det_dir = os.path.join(MODELS, "det_ppyolo_tiny")
        md = client.get_model_metadata("det", as_json=True)
        inputs = []
        for i in md["inputs"]:
            a = np.load(ref_file(det_dir, "input", i["name"]))
            t = grpcclient.InferInput(i["name"], list(a.shape), i["datatype"])
            t.set_data_from_numpy(a)
            inputs.append(t)
        check_det_outputs(client.infer("det", inputs), md, det_dir, "grpc: ")
    client.close()


def half_grpc_request(rows, request_id):
    """A ModelInferRequest of the half model: `rows` rows of ones, as raw
    contents (12 bytes a row in, 24 out)."""
    import numpy as np
    from tritonclient.grpc import service_pb2
    r = service_pb2.ModelInferRequest(model_name="half", id=request_id)
    x = np.ones((rows, 3), np.float16).tobytes()
    r.inputs.add(name="x16", datatype="FP16", shape=[rows, 3])
    r.inputs.add(name="xb16", datatype="BF16", shape=[rows, 3])
    r.raw_input_contents.extend([x, x])
    return r


def check_grpc_answer_too_large(grpc_port, max_bytes):
    """An answer larger than a gRPC message may hold (--max-body-mb) is
    refused naming the model and the sizes; on a stream, that request only,
    and the stream goes on. The half model answers 24 bytes a row for 12
    bytes of input."""
    import grpc
    from tritonclient.grpc import service_pb2_grpc

    request = half_grpc_request
    rows = max_bytes // 24 + 1000
    want = "more than a message may hold (%d bytes, --max-body-mb)" % max_bytes
    options = [("grpc.max_send_message_length", -1),
               ("grpc.max_receive_message_length", -1)]
    with grpc.insecure_channel("127.0.0.1:%d" % grpc_port,
                               options=options) as channel:
        stub = service_pb2_grpc.GRPCInferenceServiceStub(channel)
        try:
            stub.ModelInfer(request(rows, "big"), timeout=60)
            got = "answered"
        except grpc.RpcError as e:
            got = "%s %s" % (e.code(), e.details())
        R.check(got.startswith("StatusCode.RESOURCE_EXHAUSTED") and
                want in got and "model 'half'" in got,
                "grpc: an answer over --max-body-mb is RESOURCE_EXHAUSTED, "
                "naming the model and sizes", got)
        answers = list(stub.ModelStreamInfer(
            iter([request(rows, "big"), request(2, "small")]), timeout=60))
        by_id = {a.infer_response.id: a for a in answers}
        big, small = by_id.get("big"), by_id.get("small")
        R.check(len(answers) == 2 and big is not None and
                want in big.error_message and small is not None and
                not small.error_message and
                len(small.infer_response.raw_output_contents) == 3,
                "grpc stream: an answer over --max-body-mb fails that request "
                "only, and the stream goes on",
                str([(a.infer_response.id, a.error_message[:120])
                     for a in answers]))
        # An error echoing a model name of megabytes: its message is cut
        # (a trailer over 8 KB fails the client; on a stream, an answer
        # over --max-body-mb would end the stream).
        named = request(2, "named")
        named.model_name = "m" * (max_bytes * 5 // 8)
        try:
            stub.ModelInfer(named, timeout=60)
            got = "answered"
        except grpc.RpcError as e:
            got = "%s %s" % (e.code(), e.details())
        R.check(got.startswith("StatusCode.NOT_FOUND unknown model 'mmmm") and
                len(got) < 8192 and "bytes more)" in got,
                "grpc: an error echoing a huge model name is cut to a few KB",
                got[:300])
        # Percent-encoded in the trailer, a byte outside printable ASCII
        # takes 3: the cut counts it so.
        for text in ("\u00e9", "\u4e2d", "\x01"):
            odd = request(2, "odd")
            odd.model_name = text * (max_bytes // 8 // len(text.encode()))
            try:
                stub.ModelInfer(odd, timeout=60)
                got = "answered"
            except grpc.RpcError as e:
                got = "%s %s" % (e.code(), e.details())
            R.check(got.startswith("StatusCode.NOT_FOUND unknown model '" +
                                   text * 8) and "bytes more)" in got,
                    "grpc: an error echoing a huge model name of %r is cut "
                    "to what a trailer takes" % text, got[:300])
        answers = list(stub.ModelStreamInfer(
            iter([request(2, "a"), named, request(2, "b")]), timeout=60))
        by_id = {a.infer_response.id: a for a in answers}
        R.check(sorted(by_id) == ["a", "b", "named"] and
                "bytes more)" in by_id["named"].error_message and
                len(by_id["named"].error_message) < 8192 and
                not by_id["a"].error_message and
                not by_id["b"].error_message,
                "grpc stream: an error echoing a huge model name fits in a "
                "message, and the stream goes on",
                str([(a.infer_response.id[:20], a.error_message[:120])
                     for a in answers]))


def check_http_answer_too_large(port, max_bytes):
    """An HTTP answer over --max-body-mb is refused as gRPC's is (JSON takes
    up to ten times its tensors' bytes, and a slow reader would hold it),
    naming the model and the limit; as binary too; a smaller one is
    answered."""
    import numpy as np

    def infer(rows, binary_output):
        x = np.ones((rows, 3), np.float16).tobytes()
        header = {"inputs": [
            {"name": name, "datatype": datatype, "shape": [rows, 3],
             "parameters": {"binary_data_size": len(x)}}
            for name, datatype in (("x16", "FP16"), ("xb16", "BF16"))],
            "parameters": {"binary_data_output": binary_output}}
        head = json.dumps(header).encode()
        return request(port, "POST", "/v2/models/half/infer", head + x + x,
                       {"Inference-Header-Content-Length": str(len(head))})

    want = "more than a body may hold (--max-body-mb)"
    for binary in (False, True):
        rows = max_bytes // 24 + 1000
        status, _, body = infer(rows, binary)
        R.check(status == 503 and want in error_of(body) and
                "model 'half'" in error_of(body) and
                str(max_bytes) in error_of(body),
                "http: a %s answer over --max-body-mb is refused, naming the "
                "model and the limit" % ("binary" if binary else "JSON"),
                "%d %s" % (status, body[:300]))
    status, _, body = infer(1000, False)
    R.check(status == 200 and len(json.loads(body)["outputs"]) == 3,
            "http: a JSON answer under --max-body-mb is answered",
            "%d %s" % (status, body[:200]))


def check_framing(port):
    """A request whose body's end is unclear (RFC 9112 6.1, 6.3) is answered
    400 and its connection closed: a Transfer-Encoding other than
    "chunked", two Content-Lengths that disagree, or a header name that is
    malformed (whitespace before its colon, a folded line, '_' for '-' in a
    framing header's name). With both
    Transfer-Encoding and Content-Length it is read chunked, and the
    connection closes after the answer. A request pipelined after any of
    them is never answered."""
    live = b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n"
    body = b'{"inputs":[]}'
    cases = [
        ("Transfer-Encoding: identity", b"Transfer-Encoding: identity\r\n"
         b"Content-Length: %d\r\n" % len(body), body, "400"),
        ("Transfer-Encoding: gzip, chunked",
         b"Transfer-Encoding: gzip, chunked\r\n", b"0\r\n\r\n", "400"),
        ("two Content-Lengths that disagree",
         b"Content-Length: %d\r\nContent-Length: 5\r\n" % len(body), body,
         "400"),
        ("Transfer-Encoding: chunked with a Content-Length",
         b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
         b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body), "400"),
    ]
    # Malformed Transfer-Encoding lines (RFC 9112 5.1, 5.2), which a proxy
    # may read as chunked: libmicrohttpd framed these by Content-Length,
    # and served the request in the first chunk.
    smuggled = b"%x\r\n%s\r\n0\r\n\r\n" % (len(live), live)
    for name, line in [("a space", b"Transfer-Encoding : chunked"),
                       ("a tab", b"Transfer-Encoding\t: chunked"),
                       ("a folded line", b"Transfer-Encoding:\r\n chunked")]:
        cases.append(("Transfer-Encoding with %s before its value" % name,
                      line + b"\r\nContent-Length: 4\r\n", smuggled, "400"))
    # Spelled with '_', which some proxies and CGI gateways take for '-'.
    cases.append(("Transfer_Encoding: chunked", b"Transfer_Encoding: chunked"
                  b"\r\nContent-Length: 4\r\n", smuggled, "400"))
    cases.append(("Content_Length", b"Transfer-Encoding: chunked\r\n"
                  b"Content_Length: 4\r\n", b"0\r\n\r\n", "400"))
    post = b"POST /v2/models/demo/infer HTTP/1.1\r\nHost: x\r\n"
    cases = [(name, post, headers, payload, want)
             for name, headers, payload, want in cases]
    cases.append(("a GET with Transfer-Encoding: identity",
                  b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n",
                  b"Transfer-Encoding: identity\r\n", b"abc", "400"))
    for name, start, headers, payload, want in cases:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            sock.sendall(start + headers + b"\r\n" + payload + live)
            got = b""
            try:
                while True:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    got += chunk
            except socket.timeout:
                got += b"<timed out>"
        finally:
            sock.close()
        R.check(got.startswith(b"HTTP/1.1 " + want.encode()) and
                b"<timed out>" not in got and got.count(b"HTTP/1.1 ") == 1,
                "http: %s is answered %s, the connection closed, a pipelined "
                "request not served" % (name, want), got[:300])


def check_grpc_typed_contents(port, x, y):
    """Inputs as typed contents (fp32_contents), which tritonclient never
    sends: built with its generated messages, which are the protocol's."""
    import grpc
    import numpy as np
    from tritonclient.grpc import service_pb2, service_pb2_grpc
    with grpc.insecure_channel("127.0.0.1:%d" % port) as channel:
        stub = service_pb2_grpc.GRPCInferenceServiceStub(channel)
        req = service_pb2.ModelInferRequest(model_name="demo", id="typed")
        t = req.inputs.add(name="x", datatype="FP32", shape=list(x.shape))
        t.contents.fp32_contents.extend(x.flatten().tolist())
        res = stub.ModelInfer(req, timeout=60)
        got = np.frombuffer(res.raw_output_contents[0], dtype="<f4").reshape(
            list(res.outputs[0].shape))
        ok, why = close(got, y)
        R.check(ok and res.id == "typed", "grpc: typed fp32_contents infer "
                "matches", why)
        # Infinities and NaN are floats like any other, typed or raw.
        odd = x.copy()
        odd.flat[:3] = [np.inf, -np.inf, np.nan]
        answers = []
        for typed in (True, False):
            odd_req = service_pb2.ModelInferRequest(model_name="demo")
            t = odd_req.inputs.add(name="x", datatype="FP32",
                                   shape=list(x.shape))
            if typed:
                t.contents.fp32_contents.extend(odd.flatten().tolist())
            else:
                odd_req.raw_input_contents.append(odd.astype("<f4").tobytes())
            try:
                answers.append(stub.ModelInfer(odd_req, timeout=60)
                               .raw_output_contents[0])
            except grpc.RpcError as e:
                answers.append("%s %s" % (e.code(), e.details()))
        R.check(isinstance(answers[0], bytes) and answers[0] == answers[1],
                "grpc: inf, -inf and NaN in fp32_contents taken as in raw "
                "contents", str(answers[0])[:200])
        # Bytes that are not the call's request message (not protobuf, or
        # a string field that is not UTF-8) are INVALID_ARGUMENT, not
        # gRPC's own UNIMPLEMENTED (callback API) or INTERNAL (sync API).
        # Field 1 is a string in each request named with a string below.
        for method, cases in (
                ("ModelInfer", (("model name not UTF-8", b"\x0a\x02\xff\xfe"),
                                ("not protobuf", b"\xff" * 7))),
                ("ModelReady", (("name not UTF-8", b"\x0a\x02\xff\xfe"),
                                ("not protobuf", b"\xff" * 7))),
                ("ModelMetadata", (("name not UTF-8", b"\x0a\x01\x80"),)),
                ("ServerLive", (("not protobuf", b"\x0a\x05ab"),)),
                ("ServerReady", (("not protobuf", b"\xff" * 3),)),
                ("ServerMetadata", (("not protobuf", b"\x08"),)),
                ("ModelConfig", (("name not UTF-8", b"\x0a\x01\x80"),)),
                ("ModelStatistics", (("name not UTF-8",
                                      b"\x0a\x02\xff\xfe"),)),
                ("RepositoryIndex", (("repository name not UTF-8",
                                      b"\x0a\x02\xff\xfe"),)),
                ("RepositoryModelLoad", (("not protobuf", b"\xff" * 7),)),
                ("RepositoryModelUnload", (("model name not UTF-8",
                                            b"\x12\x02\xff\xfe"),))):
            raw_call = channel.unary_unary(
                "/inference.GRPCInferenceService/" + method,
                request_serializer=lambda b: b,
                response_deserializer=lambda b: b)
            for what, raw in cases:
                try:
                    raw_call(raw, timeout=60)
                    status, message = "OK", ""
                except grpc.RpcError as e:
                    status, message = str(e.code()), e.details() or ""
                R.check(status == "StatusCode.INVALID_ARGUMENT" and
                        ("not a %sRequest" % method) in message,
                        "grpc: a message that is not a %sRequest (%s) is "
                        "INVALID_ARGUMENT" % (method, what),
                        "%s %r" % (status, message))
        # On a stream, such a request is answered with an error that
        # echoes none of it (an id that is not UTF-8 made an answer the
        # client could not parse, and tritonclient's stream ended), and
        # the stream goes on.
        stream = channel.stream_stream(
            "/inference.GRPCInferenceService/ModelStreamInfer",
            request_serializer=lambda b: b,
            response_deserializer=(
                service_pb2.ModelStreamInferResponse.FromString))
        good = service_pb2.ModelInferRequest(model_name="demo", id="after")
        t = good.inputs.add(name="x", datatype="FP32", shape=list(x.shape))
        t.contents.fp32_contents.extend(x.flatten().tolist())
        try:
            got = [(a.infer_response.id, a.infer_response.model_name,
                    a.error_message, len(a.infer_response.raw_output_contents))
                   for a in stream(iter([b"\x0a\x04demo\x1a\x02\xff\xfe",
                                         good.SerializeToString()]),
                                   timeout=60)]
        except grpc.RpcError as e:
            got = "%s %s" % (e.code(), e.details())
        R.check(isinstance(got, list) and len(got) == 2 and
                got[0][:2] == ("", "") and
                "not a ModelInferRequest" in got[0][2] and
                got[1] == ("after", "demo", "", 1),
                "grpc stream: a request that is not a ModelInferRequest (an "
                "id not UTF-8) is answered with an error echoing none of it, "
                "and the stream goes on", str(got)[:300])
        # Typed contents and raw contents together are refused.
        req.raw_input_contents.append(x.astype("<f4").tobytes())
        code, message = grpc_refusal(stub, req)
        R.check(code == grpc.StatusCode.INVALID_ARGUMENT and
                "send one" in message,
                "grpc bad input: contents and raw contents -> "
                "INVALID_ARGUMENT", "%s %s" % (code, message))


def check_grpc_queue_full(port, http_port):
    """Over gRPC a full queue is RESOURCE_EXHAUSTED, answered at once."""
    import tritonclient.grpc as grpcclient
    x, y = demo_data()
    results = [None] * 12
    # Connected and encoded beforehand, so the twelve arrive together.
    clients = [grpcclient.InferenceServerClient(url="127.0.0.1:%d" % port)
               for _ in range(12)]
    for c in clients:
        R.check(c.is_server_live(), "grpc: client connected")
    inp = grpcclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    start = threading.Barrier(12)

    def one(i):
        start.wait()
        status, message = grpc_error(lambda: results.__setitem__(
            i, ("OK", clients[i].infer("demo", [inp]).as_numpy(
                "softmax.tmp_0"))))
        if status is not None:
            results[i] = (status, message)
        clients[i].close()

    blocker, blocked, want = occupy_the_instance(http_port)
    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads + blocker:
        t.join()
    full = [r for r in results if r[0] == "StatusCode.RESOURCE_EXHAUSTED"]
    good = [r for r in results if r[0] == "OK"]
    R.check(len(full) > 0 and all("queue is full" in r[1] for r in full),
            "grpc: full queue is RESOURCE_EXHAUSTED",
            str([r[0] for r in results]))
    R.check(len(good) + len(full) == 12 and len(good) >= 2 and
            all(close(r[1], y)[0] for r in good),
            "grpc: requests taken by the queue are answered correctly",
            str([r[0] for r in results]))
    R.check(blocked[0][0] == 200 and
            close(parse_binary_response(blocked[0][2], blocked[0][1]),
                  want)[0],
            "grpc: the request holding the instance is answered",
            str(blocked[0][0]))


def check_metrics(port):
    status, _, body = request(port, "GET", "/metrics")
    text = body.decode()
    ok = status == 200
    for needle in ('pdlite_inference_requests_total{model="demo",version="1"}',
                   'pdlite_inference_failures_total{model="demo",version="1"}',
                   'pdlite_queue_duration_seconds_bucket{model="demo"',
                   'pdlite_compute_duration_seconds_count{model="demo"',
                   'pdlite_request_duration_seconds_sum{model="demo"',
                   'pdlite_batch_size_bucket{model="demo"',
                   "pdlite_inflight_requests ",
                   "process_resident_memory_bytes "):
        if needle not in text:
            ok = False
            print("  missing in /metrics: %s" % needle)
    m = re.search(r'pdlite_inference_failures_total\{model="demo",'
                  r'version="1"\} (\d+)', text)
    R.check(ok and m and int(m.group(1)) > 0, "metrics", text[:500])


def big_binary_request(rows):
    """A demo request of `rows` rows (the two demo rows alternating)."""
    import numpy as np
    x, y = demo_data()
    xs = np.concatenate([x] * (rows // 2))
    ys = np.concatenate([y] * (rows // 2))
    header = json.dumps({
        "inputs": [{"name": "x", "shape": list(xs.shape), "datatype": "FP32",
                    "parameters": {"binary_data_size": xs.nbytes}}],
        "parameters": {"binary_data_output": True}}).encode()
    return header + xs.astype("<f4").tobytes(), len(header), ys


def parse_binary_response(body, headers):
    import numpy as np
    n = int({k.lower(): v for k, v in headers.items()}
            ["inference-header-content-length"])
    o = json.loads(body[:n])["outputs"][0]
    return np.frombuffer(body[n:], dtype="<f4").reshape(o["shape"])


def fire(port, body, n_header, n, model="demo"):
    results = [None] * n

    def one(i):
        try:
            results[i] = request(
                port, "POST", "/v2/models/%s/infer" % model, body,
                {"Inference-Header-Content-Length": str(n_header)}, timeout=300)
        except (OSError, http.client.HTTPException) as e:
            results[i] = (None, {}, repr(e).encode())

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    return threads, results


def occupy_the_instance(port, rows=4800):
    """Sends one long request (about 0.1 s on the demo model's one instance,
    59 MB, under the default --max-body-mb) and returns once it is inside
    the server: requests sent after it wait in the queue behind it, or find
    the queue full. A full queue must not depend on how fast the model
    runs against how fast clients send (twelve 39 MB requests once filled
    the queue because each took 0.2 s to run, and stopped when runs got
    three times faster)."""
    body, n_header, want = big_binary_request(rows)
    threads, results = fire(port, body, n_header, 1)
    wait_inflight(port, 1)
    return threads, results, want


def check_queue_full(port):
    blocker, blocked, want_long = occupy_the_instance(port)
    body, n_header, want = big_binary_request(2)
    threads, results = fire(port, body, n_header, 12)
    for t in threads + blocker:
        t.join()
    full = [r for r in results if r[0] == 503]
    good = [r for r in results if r[0] == 200]
    right = all(close(parse_binary_response(r[2], r[1]), want)[0]
                for r in good)
    R.check(len(full) > 0 and all("queue is full" in error_of(r[2])
                                  for r in full),
            "full queue answers 503", str([r[0] for r in results]))
    R.check(len(good) + len(full) == 12 and len(good) >= 2 and right,
            "requests taken by the queue are answered correctly",
            str([r[0] for r in results]))
    R.check(blocked[0][0] == 200 and
            close(parse_binary_response(blocked[0][2], blocked[0][1]),
                  want_long)[0],
            "the request holding the instance is answered",
            str(blocked[0][0]))


def check_timeout(port):
    """A request whose "timeout" (us) expires in the queue gets 504."""
    threads, results = occupy_the_instance(port)[:2]
    x, _ = demo_data()
    status, _, out = post_json(port, "demo", {
        "parameters": {"timeout": 1000},
        "inputs": [{"name": "x", "shape": list(x.shape), "datatype": "FP32",
                    "data": x.flatten().tolist()}]})
    for t in threads:
        t.join()
    R.check(status == 504 and "deadline exceeded" in error_of(out),
            "timeout expiring in the queue is 504", "%s %r" % (status, out))
    R.check(results[0][0] == 200, "the long request before it is answered",
            str(results[0][0]))


def check_grpc_timeout(port, http_port):
    """Over gRPC a "timeout" (us) expiring in the queue is
    DEADLINE_EXCEEDED, answered while the instance is still busy."""
    import tritonclient.grpc as grpcclient
    x, _ = demo_data()
    client = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % port)
    inp = grpcclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    threads, results = occupy_the_instance(http_port)[:2]
    status, message = grpc_error(
        lambda: client.infer("demo", [inp], timeout=1000))
    still_busy = any(t.is_alive() for t in threads)
    for t in threads:
        t.join()
    client.close()
    R.check(status == "StatusCode.DEADLINE_EXCEEDED" and
            "deadline exceeded" in (message or ""),
            "grpc: timeout expiring in the queue is DEADLINE_EXCEEDED",
            "%s %s" % (status, message))
    R.check(still_busy, "grpc: answered at its deadline, before the long "
            "request ahead of it")
    R.check(results[0][0] == 200, "grpc: the long request before it is "
            "answered", str(results[0][0]))


def check_statistics(port, grpc_port, client):
    """The statistics extension, read by tritonclient over HTTP and gRPC:
    three requests of two rows each to demo (batching on, nothing else
    sending) add 3 successes, 6 inferences and one run each."""
    import tritonclient.grpc as grpcclient
    gc = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % grpc_port)

    def http_stats():
        return client.get_inference_statistics("demo")["model_stats"][0]

    def grpc_stats():
        got = gc.get_inference_statistics("demo", as_json=True)
        return got["model_stats"][0]

    def n(stats, *keys):
        for k in keys:
            stats = stats.get(k, {})
        return int(stats) if stats != {} else 0  # as_json: uint64 as text

    before = http_stats()
    body, n_header, want = big_binary_request(2)
    for _ in range(3):
        status, headers, got = request(
            port, "POST", "/v2/models/demo/infer", body,
            {"Inference-Header-Content-Length": str(n_header)})
        R.check(status == 200 and close(parse_binary_response(got, headers),
                                        want)[0],
                "statistics: a 2-row request answered", str(status))
    for name, after in (("http", http_stats()), ("grpc", grpc_stats())):
        deltas = {k: n(after, *k) - n(before, *k) for k in (
            ("inference_count",), ("execution_count",),
            ("inference_stats", "success", "count"),
            ("inference_stats", "queue", "count"),
            ("inference_stats", "compute_infer", "count"))}
        R.check(list(deltas.values()) == [6, 3, 3, 3, 3] and
                after["name"] == "demo" and after["version"] == "1" and
                n(after, "inference_stats", "compute_infer", "ns") > 0 and
                n(after, "last_inference") > 1.7e12,
                "%s statistics: 3 requests of 2 rows counted" % name,
                "%s %s" % (deltas, after))
        sizes = {n(b, "batch_size"): n(b, "compute_infer", "count")
                 for b in after.get("batch_stats", [])}
        R.check(sizes.get(2, 0) >= 3,
                "%s statistics: runs of batch size 2 counted" % name,
                str(sizes))
    names = {m["name"] for m in
             gc.get_inference_statistics(as_json=True)["model_stats"]}
    R.check({"demo", "half"} <= names,
            "grpc statistics: every model when none is named", str(names))
    status, _, got = request(port, "GET", "/v2/models/nope/stats")
    R.check(status == 404 and "unknown model 'nope'" in error_of(got),
            "statistics: unknown model -> 404", "%s %r" % (status, got))
    code, message = grpc_error(lambda: gc.get_inference_statistics("demo",
                                                                   "9"))
    R.check(code == "StatusCode.NOT_FOUND" and "has no version '9'" in message,
            "grpc statistics: unknown version -> NOT_FOUND",
            "%s %r" % (code, message))
    R.check("statistics" in client.get_server_metadata()["extensions"],
            "statistics: extension listed")
    gc.close()


def check_model_config(port, grpc_port, client):
    """The model configuration extension, read by tritonclient over HTTP
    and gRPC: demo batches (max_batch_size 8, dims without the batch dim,
    2 instances, a 500 us delay); half does not (its dims whole), and its
    config.json's "device": "CPU" is KIND_CPU."""
    import tritonclient.grpc as grpcclient
    gc = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % grpc_port)
    want_demo = {
        "name": "demo", "max_batch_size": 8,
        "input": [("x", "TYPE_FP32", [3, 32, 32])],
        # The demo program declares no shape for its output.
        "output": [("softmax.tmp_0", "TYPE_FP32", [])],
        "instance_group": [("KIND_CPU", 2)],
        "delay": 500}
    want_half = {
        "name": "half", "max_batch_size": 0,
        "input": [("x16", "TYPE_FP16", [-1, 3]), ("xb16", "TYPE_BF16", [-1, 3])],
        "output": None, "instance_group": [("KIND_CPU", 1)], "delay": None}

    def summary(c):
        # gRPC's JSON writes 64-bit numbers as strings and leaves out zeros.
        return {
            "name": c.get("name"),
            "max_batch_size": int(c.get("max_batch_size", 0)),
            "input": [(t["name"], t["data_type"],
                       [int(d) for d in t.get("dims", [])])
                      for t in c.get("input", [])],
            "output": [(t["name"], t["data_type"],
                        [int(d) for d in t.get("dims", [])])
                       for t in c.get("output", [])],
            "instance_group": [(g.get("kind"), int(g.get("count", 0)))
                               for g in c.get("instance_group", [])],
            "delay": (int(c["dynamic_batching"].get(
                "max_queue_delay_microseconds", 0))
                if "dynamic_batching" in c else None)}

    for name, want in (("demo", want_demo), ("half", want_half)):
        for transport, got in (
                ("http", client.get_model_config(name)),
                ("grpc", gc.get_model_config(name, as_json=True)["config"])):
            s = summary(got)
            if want["output"] is None:
                s["output"] = None
            R.check(s == want, "%s model config of %s" % (transport, name),
                    "%s != %s" % (s, want))
    status, _, got = request(port, "GET", "/v2/models/broken/config")
    R.check(status == 400 and "is not ready" in error_of(got),
            "model config of a model not ready -> 400",
            "%s %r" % (status, got[:200]))
    code, message = grpc_error(lambda: gc.get_model_config("nope"))
    R.check(code == "StatusCode.NOT_FOUND" and "unknown model 'nope'" in
            message, "grpc model config of an unknown model -> NOT_FOUND",
            "%s %r" % (code, message))
    R.check("model_configuration" in
            client.get_server_metadata()["extensions"],
            "model config: extension listed")
    gc.close()


CLAS_LABELS = ["meter_clock_present", "meter_clock_visible",
               "water_usage_reading_visible"]


def expected_classes(scores, k, per_row, labels=None):
    """The classification extension's answer for `scores`, as (value,
    index, label) rows: the k highest per row (dim 0) or over the whole."""
    import numpy as np
    scores = np.asarray(scores, dtype=np.float64)
    rows = (scores.reshape(scores.shape[0], -1) if per_row
            else scores.reshape(1, -1))
    out = []
    for r in rows:
        order = sorted(range(len(r)), key=lambda i: (-r[i], i))[:k]
        out.append([(r[i], i, labels[i] if labels else None) for i in order])
    return out if per_row else out[0]


def same_classes(got, want):
    """`got`: tritonclient's BYTES answer (numpy, of bytes or str)."""
    import numpy as np
    got = np.asarray(got)
    want_shape = ((len(want), len(want[0])) if want and
                  isinstance(want[0], list) else (len(want),))
    if got.shape != want_shape:
        return False, "shape %s, expected %s" % (got.shape, want_shape)
    flat_want = ([c for row in want for c in row]
                 if isinstance(want[0], list) else want)
    for g, (value, index, label) in zip(got.flatten(), flat_want):
        # Bytes from binary data and gRPC, str from JSON.
        parts = (g.decode() if isinstance(g, bytes) else g).split(":")
        if (len(parts) != (3 if label else 2) or int(parts[1]) != index or
                abs(float(parts[0]) - value) > 1e-4 + 1e-3 * abs(value) or
                (label and parts[2] != label)):
            return False, "%r, expected value %g, index %d, label %s" % (
                g, value, index, label)
    return True, ""


def check_classification(port, grpc_port, client, httpclient, with_shared,
                         with_clas):
    """The classification extension through tritonclient's class_count:
    demo batches (each of its 2 rows ranked alone, shape [2, k]); cls does
    not (its [1, 2] output ranked whole, shape [k]); clas has labels."""
    import numpy as np
    import tritonclient.grpc as grpcclient
    gc = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % grpc_port)

    def http_classes(model, x, out_name):
        i = httpclient.InferInput("x", list(x.shape), "FP32")
        i.set_data_from_numpy(x, binary_data=True)
        return client.infer(model, [i], outputs=[
            httpclient.InferRequestedOutput(out_name, class_count=2)
        ]).as_numpy(out_name)

    R.check("classification" in client.get_server_metadata()["extensions"],
            "classification: extension listed")
    x, y = demo_data()
    inp = httpclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x, binary_data=True)
    ginp = grpcclient.InferInput("x", list(x.shape), "FP32")
    ginp.set_data_from_numpy(x)
    for k in (3, 20):  # 20: more than the 10 classes, so all 10
        want = expected_classes(y, k, per_row=True)
        for binary in (True, False):
            res = client.infer("demo", [inp], outputs=[
                httpclient.InferRequestedOutput(
                    "softmax.tmp_0", binary_data=binary, class_count=k)])
            ok, why = same_classes(res.as_numpy("softmax.tmp_0"), want)
            R.check(ok and res.get_output("softmax.tmp_0")["datatype"] ==
                    "BYTES", "classification: demo top %d over HTTP %s" % (
                        k, "binary" if binary else "JSON"), why)
        res = gc.infer("demo", [ginp], outputs=[
            grpcclient.InferRequestedOutput("softmax.tmp_0", class_count=k)])
        ok, why = same_classes(res.as_numpy("softmax.tmp_0"), want)
        R.check(ok, "classification: demo top %d over gRPC" % k, why)
    # The other outputs keep their scores; curl-style JSON shows the strings.
    status, _, body = post_json(port, "demo", {
        "inputs": [{"name": "x", "shape": list(x.shape), "datatype": "FP32",
                    "data": x.flatten().tolist()}],
        "outputs": [{"name": "softmax.tmp_0",
                     "parameters": {"classification": 1}}]})
    out = json.loads(body)["outputs"][0] if status == 200 else {}
    top = expected_classes(y, 1, per_row=True)
    R.check(status == 200 and out.get("datatype") == "BYTES" and
            out.get("shape") == [2, 1] and
            [int(s.split(":")[1]) for s in out.get("data", [])] ==
            [row[0][1] for row in top],
            "classification: JSON answer holds the strings", body[:300])
    for value in (0, -1, 1.5, "2"):
        status, _, body = post_json(port, "demo", {
            "inputs": [{"name": "x", "shape": list(x.shape),
                        "datatype": "FP32", "data": x.flatten().tolist()}],
            "outputs": [{"name": "softmax.tmp_0",
                         "parameters": {"classification": value}}]})
        R.check(status == 400 and "\"classification\" must be an integer"
                in error_of(body),
                "classification %r -> 400" % (value,), body[:300])
    code, message = grpc_error(lambda: gc.infer("demo", [ginp], outputs=[
        grpcclient.InferRequestedOutput("softmax.tmp_0", class_count=-2)]))
    R.check(code == "StatusCode.INVALID_ARGUMENT" and
            "\"classification\" must be an int64 >= 1" in message,
            "grpc: classification -2 -> INVALID_ARGUMENT", message)
    if with_shared:
        cls_dir = os.path.join(MODELS, "ppocr_cls_mobile_v2")
        xc = np.load(ref_file(cls_dir, "input", "x"))
        out_name = client.get_model_metadata("cls")["outputs"][0]["name"]
        want = expected_classes(
            np.load(ref_file(cls_dir, "expected", out_name)), 2,
            per_row=False)
        ok, why = same_classes(http_classes("cls", xc, out_name), want)
        R.check(ok, "classification: ppocr_cls_mobile_v2 (not batched) "
                "ranked whole", why)
    if with_clas:
        clas_dir = os.path.join(MODELS, "clas_mbv3_small_x0_35_3cls")
        xs = np.load(ref_file(clas_dir, "input", "x"))
        out_name = client.get_model_metadata("clas")["outputs"][0]["name"]
        scores = np.load(ref_file(clas_dir, "expected", out_name))
        want = expected_classes(scores, 2, per_row=True, labels=CLAS_LABELS)
        ok, why = same_classes(http_classes("clas", xs, out_name), want)
        R.check(ok, "classification: clas_mbv3_small_x0_35_3cls with its "
                "labels over HTTP", why)
        gi = grpcclient.InferInput("x", list(xs.shape), "FP32")
        gi.set_data_from_numpy(xs)
        res = gc.infer("clas", [gi], outputs=[
            grpcclient.InferRequestedOutput(out_name, class_count=2)])
        ok, why = same_classes(res.as_numpy(out_name), want)
        R.check(ok, "classification: clas_mbv3_small_x0_35_3cls with its "
                "labels over gRPC", why)
        # Asked for alone, the scores are the model's.
        ok, why = close(gc.infer("clas", [gi]).as_numpy(out_name), scores)
        R.check(ok, "clas_mbv3_small_x0_35_3cls infer matches ref", why)
        config = client.get_model_config("clas")
        gconfig = gc.get_model_config("clas", as_json=True)["config"]
        R.check([o.get("label_filename") for o in config["output"]] ==
                ["labels.txt"] and
                [o.get("label_filename") for o in gconfig["output"]] ==
                ["labels.txt"],
                "classification: the model config names the labels file",
                "%s %s" % (config["output"], gconfig["output"]))
    gc.close()


def check_model_control_off(port, grpc_port):
    """Without --model-control-mode explicit, loads and unloads are refused;
    the index, which changes nothing, is answered."""
    import tritonclient.grpc as grpcclient
    status, _, body = request(port, "POST", "/v2/repository/models/demo/load",
                              "{}")
    R.check(status == 400 and "--model-control-mode explicit" in
            error_of(body), "repository: load refused without model control",
            "%s %r" % (status, body))
    # Refused before its files are decoded: one that is not base64 is not
    # what the answer is about.
    status, _, body = request(
        port, "POST", "/v2/repository/models/demo/load",
        json.dumps({"parameters": {"config": "{}",
                                   "file:1/model.pdmodel": "@@@"}}))
    R.check(status == 400 and "--model-control-mode explicit" in
            error_of(body) and "base64" not in error_of(body),
            "repository: a load with files refused without model control "
            "before they are decoded", "%s %r" % (status, body))
    client = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % grpc_port)
    code, message = grpc_error(lambda: client.unload_model("demo"))
    R.check(code == "StatusCode.INVALID_ARGUMENT" and
            "--model-control-mode explicit" in message,
            "grpc repository: unload refused without model control",
            "%s %r" % (code, message))
    # Refused before its parameters are read (and their files copied), as
    # over HTTP: not for the parameters' faults.
    code, message = grpc_error(lambda: client.load_model(
        "demo", files={"1/model.pdmodel": b"x"}))
    R.check(code == "StatusCode.INVALID_ARGUMENT" and
            "--model-control-mode explicit" in message and
            "config" not in message,
            "grpc repository: a load with files refused without model "
            "control before its parameters are read",
            "%s %r" % (code, message))
    R.check("model_repository" not in
            client.get_server_metadata(as_json=True).get("extensions", []),
            "repository: extension not listed without model control")
    index = client.get_model_repository_index(as_json=True).get("models", [])
    R.check({"name": "demo", "version": "1", "state": "READY"} in index,
            "grpc repository: index answered without model control",
            str(index))
    client.close()
    R.check(request(port, "GET", "/v2/models/demo/ready")[0] == 200,
            "repository: demo still ready after refused calls")


def check_repository(server, repo):
    """Loading, reloading and unloading with --model-control-mode explicit,
    by Triton's clients over HTTP and gRPC, while another client keeps
    asking the model: each of its answers is right or a refusal."""
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
    port, grpc_port = server.port, server.grpc_port
    hc = httpclient.InferenceServerClient(url="127.0.0.1:%d" % port)
    gc = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % grpc_port)
    R.check("model_repository" in
            hc.get_server_metadata().get("extensions", []),
            "repository: extension listed with model control")
    index = hc.get_model_repository_index()
    R.check(sorted((m["name"], m.get("version"), m.get("state"))
                   for m in index) ==
            [("demo", "1", "READY"), ("slow", "1", "READY")],
            "repository: HTTP index lists every version READY", str(index))

    body, n_header, want = big_binary_request(2)
    stop = threading.Event()
    tally = {"right": 0, "refused": 0, "wrong": []}

    def keep_asking():
        while not stop.is_set():
            status, headers, got = request(
                port, "POST", "/v2/models/demo/infer", body,
                {"Inference-Header-Content-Length": str(n_header)})
            if status == 200 and close(parse_binary_response(got, headers),
                                       want)[0]:
                tally["right"] += 1
            elif status == 404:  # while unloaded; a reload refuses nothing
                tally["refused"] += 1
            else:
                tally["wrong"].append((status, got[:200]))

    asker = threading.Thread(target=keep_asking)
    asker.start()
    try:
        time.sleep(0.2)
        gc.unload_model("demo")
        code, message = grpc_error(lambda: gc.is_model_ready("demo"))
        R.check(code == "StatusCode.NOT_FOUND" and
                "model 'demo' is not loaded: unloaded" in message,
                "grpc repository: ModelReady on an unloaded model is "
                "NOT_FOUND, saying so", "%s %r" % (code, message))
        status, _, got = request(port, "POST", "/v2/models/demo/infer", body,
                                 {"Inference-Header-Content-Length":
                                  str(n_header)})
        R.check(status == 404 and
                "model 'demo' is not loaded: unloaded" in error_of(got),
                "repository: infer on an unloaded model is 404, saying so",
                "%s %r" % (status, got[:300]))
        index = gc.get_model_repository_index(as_json=True)["models"]
        R.check({"name": "demo", "state": "UNAVAILABLE",
                 "reason": "unloaded"} in index,
                "grpc repository: index shows demo unloaded", str(index))
        R.check(request(port, "GET", "/v2/health/ready")[0] == 200,
                "repository: the server stays ready with a model unloaded")
        time.sleep(0.1)
        hc.load_model("demo")
        R.check(hc.is_model_ready("demo"),
                "repository: demo ready again after an HTTP load")
        # A new version in the repository, picked up by a reload.
        os.symlink(DEMO, os.path.join(repo, "demo", "2"))
        gc.load_model("demo")
        meta = hc.get_model_metadata("demo")
        R.check(meta.get("versions") == ["1", "2"],
                "repository: a reload finds version 2", str(meta))
        # A broken new version: the load fails, the model serves as before.
        os.makedirs(os.path.join(repo, "demo", "3"))
        with open(os.path.join(repo, "demo", "3", "model.pdmodel"), "w") as f:
            f.write("not a program")
        status, _, got = request(
            port, "POST", "/v2/repository/models/demo/load", "")
        R.check(status == 400 and "serves as before: version 3:" in
                error_of(got), "repository: a failed reload keeps serving",
                "%s %r" % (status, got[:300]))
        R.check(hc.get_model_metadata("demo").get("versions") == ["1", "2"],
                "repository: versions unchanged after a failed reload")
        shutil.rmtree(os.path.join(repo, "demo", "3"))
        # The config in the request, as tritonclient sends it.
        gc.load_model("demo", config=json.dumps({"queue_limit": 3,
                                                 "instances": 2}))
        code, message = grpc_error(
            lambda: gc.load_model("demo", config='{"instance": 2}'))
        R.check(code == "StatusCode.INVALID_ARGUMENT" and
                "the load request's config: unknown key" in message,
                "grpc repository: a bad config in the request is refused",
                "%s %r" % (code, message))
        time.sleep(0.2)
    finally:
        stop.set()
        asker.join()
    R.check(not tally["wrong"] and tally["right"] > 0,
            "repository: a client asking throughout got right answers, or "
            "404 while unloaded (%d right, %d 404)" % (tally["right"],
                                                         tally["refused"]),
            str(tally["wrong"][:3]))
    # Bad calls.
    for what, path, payload, want_status, want_error in (
            ("unknown model", "/v2/repository/models/nope/load", "{}", 404,
             "no folder"),
            ("files without config", "/v2/repository/models/demo/load",
             json.dumps({"parameters": {"file:1/model.pdmodel": "eA=="}}),
             400, 'needs "config" too'),
            ("a file not in base64", "/v2/repository/models/demo/load",
             json.dumps({"parameters": {"config": "{}",
                                        "file:1/model.pdmodel": "e!=="}}),
             400, '"file:1/model.pdmodel" is not base64'),
            ("unknown parameter", "/v2/repository/models/demo/unload",
             json.dumps({"parameters": {"force": True}}), 400,
             'unknown parameter "force"'),
            ("body not JSON", "/v2/repository/models/demo/load", "{", 400,
             "not a JSON object"),
            ("index ready not a bool", "/v2/repository/index",
             '{"ready": 1}', 400, '"ready" must be true or false'),
            ("a path for a name", "/v2/repository/models/..%2Fdemo/load",
             "{}", 404, "no endpoint"),
            ("'..' for a name", "/v2/repository/models/../load", "{}", 400,
             "is not a model name"),
            # Folders the repository's listing leaves out.
            ("a hidden folder", "/v2/repository/models/.git/load", "{}", 400,
             "hidden folders and lost+found are never models"),
            ("lost+found", "/v2/repository/models/lost%2Bfound/load", "{}",
             400, "hidden folders and lost+found are never models"),
            ("a name longer than a folder's", "/v2/repository/models/%s/load"
             % ("m" * 256), "{}", 400, "at most 255 bytes")):
        status, _, got = request(port, "POST", path, payload)
        R.check(status == want_status and want_error in error_of(got),
                "repository bad call: %s -> %d" % (what, want_status),
                "%s %r" % (status, got[:300]))
    code, message = grpc_error(lambda: gc.load_model("../demo"))
    R.check(code == "StatusCode.INVALID_ARGUMENT" and
            "is not a model name" in message,
            "grpc repository: a path for a name is refused",
            "%s %r" % (code, message))
    # A numbered folder past the largest version number (19 digits) is
    # named in the error, not skipped in silence.
    long_version = os.path.join(repo, "longver", "1" + "0" * 18)
    os.makedirs(long_version)
    status, _, got = request(port, "POST",
                             "/v2/repository/models/longver/load", "{}")
    R.check(status == 400 and "no numbered version folder" in error_of(got)
            and "1%s: more than 18 digits" % ("0" * 18) in error_of(got),
            "repository: a version folder of 19 digits is named in the "
            "error", "%s %r" % (status, got[:300]))
    shutil.rmtree(os.path.join(repo, "longver"))
    R.check(request(port, "GET", "/v2/health/ready")[0] == 200,
            "repository: the server stays ready after that load failed")
    # Back as the other checks expect it: version 1, config.json.
    os.remove(os.path.join(repo, "demo", "2"))
    hc.load_model("demo")
    R.check(hc.get_model_metadata("demo").get("versions") == ["1"],
            "repository: reloaded as at the start")
    hc.close()
    gc.close()


def check_sent_files(server, temp_dir):
    """A load that sends the model's files (Triton's "file:" parameters),
    by tritonclient over HTTP (base64) and gRPC (bytes): the model serves
    from them under a name of no repository folder, answers match the
    references, bad paths are refused, and no file is left behind."""
    import numpy as np
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
    hc = httpclient.InferenceServerClient(url="127.0.0.1:%d" % server.port)
    gc = grpcclient.InferenceServerClient(
        url="127.0.0.1:%d" % server.grpc_port)

    def files_of(folder, names, version):
        out = {}
        for name in names:
            with open(os.path.join(folder, name), "rb") as f:
                out["file:%s/%s" % (version, os.path.basename(name))] = f.read()
        return out

    def left_behind():
        return [n for n in os.listdir(temp_dir) if n.startswith("pdlite-load-")]

    x, y = demo_data()
    hc.load_model("sent_demo", config="{}", files=files_of(
        DEMO, ["model.pdmodel", "model.pdiparams"], 1))
    inp = httpclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x, binary_data=True)
    res = hc.infer("sent_demo", [inp])
    ok, why = close(res.as_numpy("softmax.tmp_0"), y)
    R.check(ok, "sent files: HTTP load of the demo's files, infer matches "
            "its reference", why)
    cls_dir = os.path.join(MODELS, "ppocr_cls_mobile_v2")
    if os.path.isdir(cls_dir):
        gc.load_model("sent_cls", config=json.dumps({"instances": 2}),
                      files=files_of(cls_dir, ["inference.pdmodel",
                                               "inference.pdiparams"], 7))
        meta = gc.get_model_metadata("sent_cls", as_json=True)
        R.check(meta.get("versions") == ["7"],
                "sent files: gRPC load serves the version sent", str(meta))
        xc = np.load(ref_file(cls_dir, "input", "x"))
        out_name = meta["outputs"][0]["name"]
        ginp = grpcclient.InferInput("x", list(xc.shape), "FP32")
        ginp.set_data_from_numpy(xc)
        got = gc.infer("sent_cls", [ginp]).as_numpy(out_name)
        ok, why = close(got, np.load(ref_file(cls_dir, "expected", out_name)))
        R.check(ok, "sent files: gRPC load of ppocr_cls_mobile_v2's files, "
                "infer matches its reference", why)
        gc.unload_model("sent_cls")
    for path, why in (("../x", "is not a version number"),
                      ("1/../../x", "neither empty, '.' nor '..'"),
                      ("/etc/passwd", "is not a version number"),
                      ("model.pdmodel", "in a numbered version folder")):
        code, message = grpc_error(lambda: gc.load_model(
            "sent_bad", config="{}", files={"file:" + path: b"x"}))
        R.check(code == "StatusCode.INVALID_ARGUMENT" and why in message,
                "sent files: gRPC path %r refused" % path,
                "%s %r" % (code, message))
    status, _, got = request(server.port, "POST",
                             "/v2/repository/models/sent_bad/load",
                             json.dumps({"parameters": {
                                 "config": "{}",
                                 "file:1/model.pdmodel": "bm90IGEgbW9kZWw="}}))
    R.check(status == 400 and "file:1/model.pdmodel: not a PaddlePaddle" in
            error_of(got) and temp_dir not in error_of(got),
            "sent files: a broken file's error names it as sent",
            "%s %r" % (status, got[:300]))
    index = hc.get_model_repository_index()
    R.check({"name": "sent_demo", "version": "1", "state": "READY"} in index
            and not any(m["name"] in ("sent_cls", "sent_bad")
                        for m in index),
            "sent files: the index lists what serves, not what was unloaded "
            "or failed", str(index))
    hc.unload_model("sent_demo")
    status, _, got = request(server.port, "GET", "/v2/models/sent_demo")
    R.check(status == 404 and "unloaded" not in error_of(got),
            "sent files: unloaded, an unknown model",
            "%s %r" % (status, got[:300]))
    R.check(not left_behind(), "sent files: none left in $TMPDIR",
            str(left_behind()))
    hc.close()
    gc.close()


class ShmObjects:
    """POSIX shared-memory objects of this test (tritonclient's helpers make
    them), unlinked however the test ends."""

    def __init__(self):
        self.handles = []
        self.tag = "/pdlite_serve_test_%d_" % os.getpid()

    def make(self, name, size):
        import tritonclient.utils.shared_memory as shm
        handle = shm.create_shared_memory_region(name, self.tag + name, size)
        self.handles.append(handle)
        return handle, self.tag + name

    def path(self, key):
        return "/dev/shm" + key

    def close(self):
        import tritonclient.utils.shared_memory as shm
        for h in self.handles:
            try:
                shm.destroy_shared_memory_region(h)
            except Exception:  # already gone
                pass
        self.handles = []


def check_shared_memory(port, grpc_port, with_shared, objects):
    """The system shared-memory extension (server a runs with
    --shared-memory system) through Triton's clients over HTTP and gRPC:
    inputs and outputs in regions match the references; every bad
    reference is refused with a message while the server keeps serving."""
    import numpy as np
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
    import tritonclient.utils.shared_memory as shm
    x, y = demo_data()
    x = x.astype(np.float32)
    in_handle, in_key = objects.make("in", 64 + x.nbytes)
    out_handle, out_key = objects.make("out", 4096)
    shm.set_shared_memory_region(in_handle, [x], offset=64)
    hc = httpclient.InferenceServerClient(url="127.0.0.1:%d" % port)
    gc = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % grpc_port)
    try:
        R.check("system_shared_memory" in
                hc.get_server_metadata().get("extensions", []),
                "shm: extension listed with --shared-memory system")
        for mod, c, how in ((httpclient, hc, "http"), (grpcclient, gc, "grpc")):
            c.unregister_system_shared_memory()
            c.register_system_shared_memory("in", in_key, x.nbytes, offset=64)
            c.register_system_shared_memory("out", out_key, 4096)
            status = c.get_system_shared_memory_status(as_json=True) \
                if how == "grpc" else c.get_system_shared_memory_status()
            regions = (status.get("regions", {}).values() if how == "grpc"
                       else status)
            got = {r["name"]: (r["key"], int(r.get("offset", 0)),
                               int(r["byte_size"])) for r in regions}
            R.check(got == {"in": (in_key, 64, x.nbytes),
                            "out": (out_key, 0, 4096)},
                    "%s shm: status lists both regions" % how, str(got))
            # Input and output in regions (offsets in both).
            i = mod.InferInput("x", list(x.shape), "FP32")
            i.set_shared_memory("in", x.nbytes)
            o = mod.InferRequestedOutput("softmax.tmp_0")
            o.set_shared_memory("out", y.nbytes, offset=128)
            res = c.infer("demo", [i], outputs=[o])
            out = res.get_output("softmax.tmp_0")
            if how == "grpc":
                from google.protobuf import json_format
                out = json_format.MessageToDict(
                    out, preserving_proto_field_name=True)
                params = {k: v.get("string_param", v.get("int64_param"))
                          for k, v in out.get("parameters", {}).items()}
            else:
                params = out.get("parameters", {})
            ok, why = close(shm.get_contents_as_numpy(
                out_handle, np.float32, list(y.shape), offset=128), y)
            # No elements in the answer: over HTTP no "data", over gRPC
            # an empty raw_output_contents entry (keeping positions).
            no_elements = ("data" not in out if how == "http" else
                           list(res.get_response().raw_output_contents) ==
                           [b""])
            R.check(ok and params.get("shared_memory_region") == "out" and
                    int(params.get("shared_memory_byte_size")) == y.nbytes and
                    no_elements,
                    "%s shm: input and output in regions match ref" % how,
                    "%s %s" % (why, out))
            # Input in a region, output in the answer.
            res = c.infer("demo", [i], outputs=[
                mod.InferRequestedOutput("softmax.tmp_0")])
            ok, why = close(res.as_numpy("softmax.tmp_0"), y)
            R.check(ok, "%s shm: input in a region, output answered" % how,
                    why)

            def refused(inputs, outputs=None, model="demo"):
                if how == "grpc":
                    return grpc_error(lambda: c.infer(model, inputs,
                                                      outputs=outputs))
                try:
                    c.infer(model, inputs, outputs=outputs)
                    return None, ""
                except Exception as e:  # InferenceServerException
                    return str(e.status()), e.message()

            bad = "StatusCode.INVALID_ARGUMENT" if how == "grpc" else "400"
            cases = []
            i1 = mod.InferInput("x", list(x.shape), "FP32")
            i1.set_shared_memory("nope", x.nbytes)
            cases.append(([i1], None, "no shared-memory region 'nope'",
                          "an unregistered region"))
            i2 = mod.InferInput("x", [1, 3, 32, 16], "FP32")
            i2.set_shared_memory("in", x.nbytes)
            cases.append(([i2], None, "but shape [1,3,32,16] of FP32 needs",
                          "a byte size the shape disagrees with"))
            i3 = mod.InferInput("x", list(x.shape), "FP32")
            i3.set_shared_memory("in", x.nbytes, offset=8)
            cases.append(([i3], None, "run past the end",
                          "a range past the region"))
            o4 = mod.InferRequestedOutput("softmax.tmp_0")
            o4.set_shared_memory("out", 4)
            cases.append(([i], [o4], "more than its shared_memory_byte_size",
                          "an output larger than its share"))
            for inputs, outputs, text, what in cases:
                code, message = refused(inputs, outputs)
                R.check(code == bad and text in message and
                        ("input 'x'" in message or
                         "output 'softmax" in message),
                        "%s shm: %s is refused" % (how, what),
                        "%s %r" % (code, message))
            # Registration refusals.
            for name, key, size, offset, text, what in (
                    ("in", in_key, 8, 0, "already registered", "a name twice"),
                    ("r2", objects.tag + "none", 8, 0, "cannot open",
                     "an object that does not exist"),
                    ("r2", "/a/b", 8, 0, "POSIX shared-memory object",
                     "a key with a second '/'"),
                    ("r2", in_key, 64 + x.nbytes, 8, "fewer than",
                     "a region past the object's end")):
                try:
                    c.register_system_shared_memory(name, key, size,
                                                    offset=offset)
                    code, message = None, ""
                except Exception as e:
                    code, message = str(e.status()), e.message()
                R.check(code is not None and text in message,
                        "%s shm: registering %s is refused" % (how, what),
                        "%s %r" % (code, message))
            c.unregister_system_shared_memory("in")
            code, message = refused([i])
            R.check(code == bad and "no shared-memory region 'in'" in message,
                    "%s shm: a region unregistered since is refused" % how,
                    "%s %r" % (code, message))
            c.unregister_system_shared_memory()
            if how == "grpc":
                left = gc.get_system_shared_memory_status(
                    as_json=True).get("regions", {})
            else:
                left = hc.get_system_shared_memory_status()
            R.check(len(left) == 0, "%s shm: unregistering all leaves none" %
                    how, str(left))
        # Raw HTTP: both data and a region; a region without its size.
        for inp, text in (
                ({"data": [0.0] * 3072, "parameters": {
                    "shared_memory_region": "in",
                    "shared_memory_byte_size": x.nbytes}},
                 "send the elements one way"),
                ({"parameters": {"shared_memory_region": "in"}},
                 "go together")):
            inp.update(name="x", shape=list(x.shape), datatype="FP32")
            status, _, body = post_json(port, "demo", {"inputs": [inp]})
            R.check(status == 400 and text in error_of(body),
                    "http shm: a request with %s is 400" % text, body[:300])
        # A FIFO in /dev/shm is refused at once, not waited on (read-only
        # for its owner, so that a server not run as root opens it for
        # reading only, the open that would wait for a writer).
        fifo_key = objects.tag + "fifo"
        os.mkfifo(objects.path(fifo_key), 0o400)
        try:
            started = time.time()
            status, _, body = request(
                port, "POST", "/v2/systemsharedmemory/region/f/register",
                json.dumps({"key": fifo_key, "offset": 0, "byte_size": 8}),
                timeout=30)
            R.check(status == 400 and "not a shared-memory object" in
                    error_of(body) and time.time() - started < 10,
                    "http shm: a FIFO is refused at once", body[:300])
        finally:
            os.unlink(objects.path(fifo_key))
        # An object that shrinks after it is registered: an error, not a
        # crash (the server reads with pread, not through a mapping).
        hc.register_system_shared_memory("in", in_key, x.nbytes, offset=64)
        os.truncate(objects.path(in_key), 100)
        i = httpclient.InferInput("x", list(x.shape), "FP32")
        i.set_shared_memory("in", x.nbytes)
        try:
            hc.infer("demo", [i])
            message = ""
        except Exception as e:
            message = e.message()
        R.check("smaller than when it was registered" in message,
                "http shm: a region whose object shrank is refused", message)
        R.check(request(port, "GET", "/v2/health/live")[0] == 200,
                "shm: the server lives on after the bad references")
        hc.unregister_system_shared_memory()
        if with_shared:
            # The classifier through gRPC, its input in a region.
            cls_dir = os.path.join(MODELS, "ppocr_cls_mobile_v2")
            cx = np.load(ref_file(cls_dir, "input", "x")).astype(np.float32)
            name = gc.get_model_metadata("cls").outputs[0].name
            cls_handle, cls_key = objects.make("cls", cx.nbytes)
            shm.set_shared_memory_region(cls_handle, [cx])
            gc.register_system_shared_memory("cls", cls_key, cx.nbytes)
            i = grpcclient.InferInput("x", list(cx.shape), "FP32")
            i.set_shared_memory("cls", cx.nbytes)
            res = gc.infer("cls", [i])
            ok, why = close(res.as_numpy(name),
                            np.load(ref_file(cls_dir, "expected", name)))
            R.check(ok, "grpc shm: ppocr_cls_mobile_v2 from a region matches "
                    "ref", why)
            gc.unregister_system_shared_memory()
    finally:
        hc.close()
        gc.close()
        objects.close()


def check_shared_memory_off(port, grpc_port):
    """Without --shared-memory system, registering and naming regions are
    refused, naming the flag."""
    import tritonclient.grpc as grpcclient
    status, _, body = request(
        port, "POST", "/v2/systemsharedmemory/region/r/register",
        json.dumps({"key": "/x", "offset": 0, "byte_size": 8}))
    R.check(status == 400 and "--shared-memory system" in error_of(body),
            "shm: registering refused without --shared-memory system",
            "%s %r" % (status, body))
    status, _, body = post_json(port, "demo", {"inputs": [{
        "name": "x", "shape": [1, 3, 32, 32], "datatype": "FP32",
        "parameters": {"shared_memory_region": "r",
                       "shared_memory_byte_size": 12288}}]})
    R.check(status == 400 and "--shared-memory system" in error_of(body),
            "shm: an input in a region refused without the flag",
            "%s %r" % (status, body))
    client = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % grpc_port)
    code, message = grpc_error(
        lambda: client.get_system_shared_memory_status())
    R.check(code == "StatusCode.INVALID_ARGUMENT" and
            "--shared-memory system" in message,
            "grpc shm: status refused without the flag",
            "%s %r" % (code, message))
    R.check("system_shared_memory" not in
            client.get_server_metadata(as_json=True).get("extensions", []),
            "shm: extension not listed without the flag")
    client.close()


def check_bad_flags(server_command, repo):
    for extra, want in ((["--http-spin-us", "-1"], "bad --http-spin-us"),
                        (["--http-header-timeout-secs", "3601"],
                         "bad --http-header-timeout-secs"),
                        (["--model-control-mode", "sometimes"],
                         "--model-control-mode is none, explicit or poll"),
                        (["--repository-poll-secs", "5"],
                         "--repository-poll-secs needs --model-control-mode "
                         "poll"),
                        (["--shared-memory", "cuda"],
                         "--shared-memory is none or system"),
                        (["--exit-timeout-secs", "-1"],
                         "bad --exit-timeout-secs"),
                        (["--http-restricted-api", "models:k=v"],
                         "'models' is not a category"),
                        (["--grpc-restricted-protocol", "inference:k=v",
                          "--grpc-restricted-protocol", "inference:j=w"],
                         "'inference' is restricted twice")):
        run = subprocess.run(server_command + ["--model-repository", repo] +
                             extra, capture_output=True, timeout=60)
        R.check(run.returncode == 2 and want in run.stderr.decode(),
                "flags: %s is refused (exit 2)" % " ".join(extra),
                "exit %s: %r" % (run.returncode, run.stderr[-300:]))


def metric(port, name):
    """A counter of /metrics, read on a connection that closes (so that the
    read itself does not spin)."""
    _, _, body = request(port, "GET", "/metrics",
                         headers={"Connection": "close"})
    found = re.search(r"^%s (\d+)$" % name, body.decode(), re.M)
    return int(found.group(1)) if found else -1


def wait_inflight(port, count, seconds=60):
    """Waits until at least `count` requests are in the server; returns the
    last count seen."""
    deadline = time.time() + seconds
    inflight = 0
    while time.time() < deadline:
        inflight = metric(port, "pdlite_inflight_requests")
        if inflight >= count:
            break
        time.sleep(0.002)
    return inflight


def check_spin(port):
    """--http-spin-us (server a runs with 300): a kept-alive connection
    spins after each answer while the server is idle; one that closes
    after its answer does not."""
    # Idle first: a request still in the server (a slow one of an earlier
    # check, under a sanitizer) stops spins from starting.
    deadline = time.time() + 60
    while (metric(port, "pdlite_inflight_requests") != 0 and
           time.time() < deadline):
        time.sleep(0.01)
    before = metric(port, "pdlite_http_spins_total")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _ in range(5):
        conn.request("GET", "/v2/health/ready")
        conn.getresponse().read()
        # Past the spin (300 us), so that each is seen alone.
        time.sleep(0.01)
    conn.close()
    kept_alive = metric(port, "pdlite_http_spins_total")
    R.check(before >= 0 and kept_alive - before >= 4,
            "spin: a kept-alive connection spins after its answers",
            "%d -> %d" % (before, kept_alive))
    for _ in range(5):
        request(port, "GET", "/v2/health/ready",
                headers={"Connection": "close"})
    closing = metric(port, "pdlite_http_spins_total")
    R.check(closing == kept_alive,
            "spin: a connection that closes after its answer does not spin",
            "%d -> %d" % (kept_alive, closing))


def check_tls(server_command, tmp, env, servers):
    """--tls-cert/--tls-key: HTTPS and gRPC over TLS, by Triton's clients
    trusting a throwaway self-signed certificate; plain clients on the TLS
    ports are refused without hurting the server; bad files stop it at
    start, naming the file."""
    import ssl
    import gevent.ssl
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient

    def make_key_and_cert(name):
        key = os.path.join(tmp, name + "_key.pem")
        cert = os.path.join(tmp, name + "_cert.pem")
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
             "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
             "-out", cert, "-days", "1", "-subj", "/CN=localhost",
             "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
            check=True, capture_output=True)
        return key, cert

    key, cert = make_key_and_cert("tls")
    other_key, _ = make_key_and_cert("tls_other")
    repo = one_model_repo(tmp, "repo_tls", "demo", DEMO)

    # Files that cannot serve: refused at start, naming the file.
    encrypted_key = os.path.join(tmp, "tls_encrypted_key.pem")
    subprocess.run(["openssl", "pkey", "-in", key, "-aes256", "-passout",
                    "pass:secret", "-out", encrypted_key], check=True,
                   capture_output=True)
    garbage = os.path.join(tmp, "not_a_key.pem")
    with open(garbage, "w") as f:
        f.write("not a key")
    for what, extra, want_code, want in (
            ("a certificate without a key", ["--tls-cert", cert], 2,
             "--tls-cert and --tls-key go together"),
            ("a missing key file",
             ["--tls-cert", cert, "--tls-key", key + ".missing"], 1,
             "cannot read " + key + ".missing"),
            ("a key file that is no key",
             ["--tls-cert", cert, "--tls-key", garbage], 1,
             garbage + " holds no PEM PRIVATE KEY"),
            ("the key of another certificate",
             ["--tls-cert", cert, "--tls-key", other_key], 1,
             "do not match"),
            ("an encrypted key",
             ["--tls-cert", cert, "--tls-key", encrypted_key], 1,
             "holds an encrypted private key")):
        run = subprocess.run(
            server_command + ["--model-repository", repo, "--host",
                              "127.0.0.1", "--http-port", "0",
                              "--grpc-port", "0"] + extra,
            capture_output=True, timeout=120, env=env)
        R.check(run.returncode == want_code and
                want in run.stderr.decode(errors="replace"),
                "tls: %s stops the server at start (exit %d)" % (what,
                                                                 want_code),
                "exit %s: %s" % (run.returncode, run.stderr[-600:]))

    # Spinning too: a request GnuTLS has read is in its buffer, not the
    # socket's.
    server = Server(server_command, repo, os.path.join(tmp, "tls.log"),
                    ["--tls-cert", cert, "--tls-key", key,
                     "--http-spin-us", "300"], env=env)
    servers.append(server)
    try:
        x, y = demo_data()
        context = ssl.create_default_context(cafile=cert)
        conn = http.client.HTTPSConnection("127.0.0.1", server.port,
                                           context=context, timeout=60)
        conn.request("GET", "/v2/health/ready")
        R.check(conn.getresponse().status == 200, "tls: HTTPS ready")
        conn.close()
        hc = httpclient.InferenceServerClient(
            url="127.0.0.1:%d" % server.port, ssl=True,
            ssl_context_factory=lambda cafile=None:
                gevent.ssl.create_default_context(cafile=cert))
        inp = httpclient.InferInput("x", list(x.shape), "FP32")
        inp.set_data_from_numpy(x, binary_data=True)
        ok, why = close(hc.infer("demo", [inp]).as_numpy("softmax.tmp_0"), y)
        R.check(ok, "tls: tritonclient HTTPS infer matches", why)
        hc.close()
        ok, why = grpc_demo_infer(server.grpc_port, root_certificates=cert)
        R.check(ok, "tls: tritonclient gRPC over TLS infer matches", why)
        # Plain clients on the TLS ports: refused, the server unharmed.
        try:
            status = request(server.port, "GET", "/v2/health/ready",
                             timeout=10)[0]
        except (OSError, http.client.HTTPException):
            status = None
        R.check(status is None, "tls: plain HTTP on the HTTPS port fails",
                str(status))
        plain = grpcclient.InferenceServerClient(
            url="127.0.0.1:%d" % server.grpc_port)
        code, _ = grpc_error(lambda: plain.is_server_live(
            client_timeout=10))
        R.check(code is not None, "tls: plain gRPC on the TLS port fails",
                str(code))
        plain.close()
        conn = http.client.HTTPSConnection("127.0.0.1", server.port,
                                           context=context, timeout=60)
        conn.request("GET", "/v2/health/live")
        R.check(conn.getresponse().status == 200,
                "tls: HTTPS still served after the plain clients")
        conn.close()
        code = server.stop()
        R.check(code == 0, "tls: SIGTERM: exit 0", "exit %s" % code)
    finally:
        if server.proc.poll() is None:
            server.stop(signal.SIGKILL)
    check_mutual_tls(server_command, tmp, env, servers, repo, cert, key,
                     other_key, make_key_and_cert)


def grpc_demo_infer(grpc_port, **tls):
    """The demo model over gRPC with TLS (tritonclient's arguments):
    (matches, why)."""
    import tritonclient.grpc as grpcclient
    x, y = demo_data()
    gc = grpcclient.InferenceServerClient(
        url="127.0.0.1:%d" % grpc_port, ssl=True, **tls)
    try:
        inp = grpcclient.InferInput("x", list(x.shape), "FP32")
        inp.set_data_from_numpy(x)
        return close(gc.infer("demo", [inp]).as_numpy("softmax.tmp_0"), y)
    finally:
        gc.close()


def check_mutual_tls(server_command, tmp, env, servers, repo, cert, key,
                     other_key, make_key_and_cert):
    """--tls-client-ca: a client with a certificate the authority signed is
    served over HTTPS and gRPC; one without, or with another, is refused
    (HTTP 403 naming the flag, gRPC's handshake), and the server serves
    on."""
    import ssl
    import tritonclient.grpc as grpcclient
    ca_key, ca_cert = make_key_and_cert("ca")
    client_key = os.path.join(tmp, "client_key.pem")
    client_csr = os.path.join(tmp, "client.csr")
    client_cert = os.path.join(tmp, "client_cert.pem")
    subprocess.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                    client_key, "-out", client_csr, "-subj", "/CN=client"],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", client_csr, "-CA",
                    ca_cert, "-CAkey", ca_key, "-CAcreateserial", "-out",
                    client_cert, "-days", "1"], check=True,
                   capture_output=True)
    stranger_key, stranger_cert = make_key_and_cert("stranger")
    server = Server(server_command, repo, os.path.join(tmp, "mtls.log"),
                    ["--tls-cert", cert, "--tls-key", key,
                     "--tls-client-ca", ca_cert], env=env)
    servers.append(server)
    try:
        def https_status(chain):
            context = ssl.create_default_context(cafile=cert)
            if chain:
                context.load_cert_chain(*chain)
            conn = http.client.HTTPSConnection("127.0.0.1", server.port,
                                               context=context, timeout=60)
            try:
                conn.request("GET", "/v2/health/ready")
                resp = conn.getresponse()
                return resp.status, error_of(resp.read())
            except (OSError, http.client.HTTPException) as e:
                return None, repr(e)
            finally:
                conn.close()

        status, _ = https_status((client_cert, client_key))
        R.check(status == 200, "mtls: HTTPS with the client certificate")
        for what, chain in (("without a client certificate", None),
                            ("with a certificate of another authority",
                             (stranger_cert, stranger_key))):
            status, message = https_status(chain)
            R.check(status == 403 and "--tls-client-ca" in message,
                    "mtls: HTTPS %s is refused (403)" % what,
                    "%s %r" % (status, message))
        ok, why = grpc_demo_infer(server.grpc_port, root_certificates=cert,
                                  private_key=client_key,
                                  certificate_chain=client_cert)
        R.check(ok, "mtls: gRPC with the client certificate infers", why)
        bare = grpcclient.InferenceServerClient(
            url="127.0.0.1:%d" % server.grpc_port, ssl=True,
            root_certificates=cert)
        code, _ = grpc_error(lambda: bare.is_server_live(client_timeout=10))
        R.check(code is not None,
                "mtls: gRPC without a client certificate is refused",
                str(code))
        bare.close()
        status, _ = https_status((client_cert, client_key))
        R.check(status == 200, "mtls: still served after the refusals")
        code = server.stop()
        R.check(code == 0, "mtls: SIGTERM: exit 0", "exit %s" % code)
    finally:
        if server.proc.poll() is None:
            server.stop(signal.SIGKILL)


def check_polling_past_a_closed_folder(server_command, tmp, env, servers):
    """--model-control-mode poll, the server run as a user who may not
    open some folders: one inside a version folder (a volume's lost+found,
    owned by root) and a whole version folder (a retired version another
    user owns). The model is still watched: a new version, and then a
    config.json that serves the latest version only, are loaded (the walk
    stopped at such a folder, and the model was left as it was for good).
    Needs root, to run the server as nobody (setpriv)."""
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534",
                 "--clear-groups"]
    if os.geteuid() != 0 or shutil.which("setpriv") is None or \
            subprocess.call(as_nobody + server_command + ["--help"],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL) != 0:
        print("SKIP poll: a folder the server may not open (needs root, "
              "setpriv, and a server that nobody may run)")
        return
    # The repository where nobody can reach it (`tmp` is the test's own).
    top = tempfile.mkdtemp(prefix="pdlite_serve_test_nobody_")
    log_path = os.path.join(tmp, "poll_closed.log")

    def readable_copy(name):
        # Copied beside the repository, opened to all, then moved in: a
        # poll never sees it half copied.
        staged = os.path.join(top, name)
        shutil.copytree(DEMO, staged)
        for folder, dirs, files in os.walk(staged):
            os.chmod(folder, 0o755)
            for f in files:
                os.chmod(os.path.join(folder, f), 0o644)
        return staged

    try:
        os.chmod(top, 0o755)
        model = os.path.join(top, "repo", "m")
        os.makedirs(model)
        os.chmod(os.path.join(top, "repo"), 0o755)
        os.chmod(model, 0o755)
        os.rename(readable_copy("v1"), os.path.join(model, "1"))
        os.mkdir(os.path.join(model, "1", "lost+found"), 0o700)
        if subprocess.call(as_nobody + ["test", "-r", os.path.join(
                model, "1", "model.pdmodel")]) != 0:
            print("SKIP poll: a folder the server may not open: nobody "
                  "cannot reach %s here" % top)
            return
        server = Server(as_nobody + server_command, os.path.join(top, "repo"),
                        log_path, ["--model-control-mode", "poll",
                                   "--repository-poll-secs", "1"], env=env)
        servers.append(server)

        def versions():
            status, _, body = request(server.port, "GET", "/v2/models/m")
            return json.loads(body).get("versions") if status == 200 else None

        def wait_for(want):
            deadline = time.time() + 60
            while time.time() < deadline and versions() != want:
                time.sleep(0.1)
            return versions()
        R.check(versions() == ["1"], "poll, a closed folder: served",
                str(versions()))
        os.rename(readable_copy("v2"), os.path.join(model, "2"))
        got = wait_for(["1", "2"])
        R.check(got == ["1", "2"],
                "poll, a closed folder inside a version: a new version is "
                "still loaded", str(got))
        # Version 1 closed for good: the reload that would serve it fails,
        # saying why (it said the folder held no model), and the model
        # serves as before; then a config that serves the latest version
        # only is loaded.
        os.chmod(os.path.join(model, "1"), 0o700)

        def log():
            with open(log_path, "rb") as f:
                return f.read().decode(errors="replace")
        deadline = time.time() + 60
        while time.time() < deadline and "Permission denied" not in log():
            time.sleep(0.1)
        R.check("Cannot open folder '%s': Permission denied" %
                os.path.join(model, "1") in log() and versions() == ["1", "2"],
                "poll, a version folder closed: its reload fails saying "
                "why, and the model serves as before",
                "%s %s" % (versions(), log()[-1500:]))
        with open(os.path.join(model, "config.json"), "w") as f:
            json.dump({"version_policy": {"latest": {"num_versions": 1}}}, f)
        os.chmod(os.path.join(model, "config.json"), 0o644)
        got = wait_for(["2"])
        R.check(got == ["2"], "poll, a version folder closed for good: the "
                "model's config.json is still loaded", str(got))

        def loads():
            return log().count("model 'm' version 2 ready")
        # While nothing changes, no poll loads it again.
        before = loads()
        time.sleep(3.5)
        R.check(loads() == before, "poll, a version folder closed for good: "
                "not reloaded at every poll", "%d -> %d" % (before, loads()))
        R.check(server.stop() == 0, "poll, a closed folder: exits 0")
    finally:
        shutil.rmtree(top)


def check_polling(server_command, tmp, env, servers):
    """--model-control-mode poll: model folders added, changed and removed
    are loaded, reloaded and unloaded by the server itself; clients' loads
    are refused."""
    repo = one_model_repo(tmp, "repo_poll", "demo", DEMO)
    server = Server(server_command, repo, os.path.join(tmp, "poll.log"),
                    ["--model-control-mode", "poll",
                     "--repository-poll-secs", "1"], env=env)
    servers.append(server)
    port = server.port

    def wait_for(what, seconds=60):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if what():
                return True
            time.sleep(0.1)
        return False

    status, _, body = request(port, "POST", "/v2/repository/models/demo/load",
                              "{}")
    R.check(status == 400 and "--model-control-mode poll" in error_of(body),
            "poll: a client's load is refused", "%s %r" % (status, body))
    os.makedirs(os.path.join(repo, "late"))
    os.symlink(DEMO, os.path.join(repo, "late", "1"))
    R.check(wait_for(lambda: request(port, "GET",
                                     "/v2/models/late/ready")[0] == 200),
            "poll: a model folder added is loaded")
    with open(os.path.join(repo, "demo", "config.json"), "w") as f:
        json.dump({"max_batch_size": 4}, f)

    def batch_size():
        status, _, body = request(port, "GET", "/v2/models/demo/config")
        return json.loads(body).get("max_batch_size") if status == 200 else -1
    R.check(wait_for(lambda: batch_size() == 4),
            "poll: a changed config.json is loaded", str(batch_size()))
    x, y = demo_data()
    status, _, body = post_json(port, "demo", {"inputs": [{
        "name": "x", "shape": list(x.shape), "datatype": "FP32",
        "data": x.flatten().tolist()}]})
    R.check(status == 200, "poll: the reloaded model answers", body[:300])
    shutil.rmtree(os.path.join(repo, "late"))
    R.check(wait_for(lambda: request(port, "GET",
                                     "/v2/models/late/ready")[0] == 404),
            "poll: a model folder removed is unloaded")
    R.check(server.stop() == 0, "poll: SIGTERM, exit 0", server.log_tail())


def health_client(port):
    """gRPC's health checking service through grpcio-health-checking (the
    protocol's own Python client): (channel, stub, messages)."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    channel = grpc.insecure_channel("127.0.0.1:%d" % port)
    return channel, health_pb2_grpc.HealthStub(channel), health_pb2


def check_grpc_health(port, ready):
    """grpc.health.v1.Health: Check and Watch answer the server's
    readiness for "" and the inference service; an unknown name is
    NOT_FOUND (Check) or SERVICE_UNKNOWN (Watch)."""
    import grpc
    channel, stub, pb = health_client(port)
    want = pb.HealthCheckResponse.SERVING if ready else \
        pb.HealthCheckResponse.NOT_SERVING
    word = "SERVING" if ready else "NOT_SERVING"
    for name in ("", "inference.GRPCInferenceService"):
        got = stub.Check(pb.HealthCheckRequest(service=name), timeout=10)
        R.check(got.status == want,
                "grpc health: Check(%r) is %s" % (name, word), str(got))
    try:
        stub.Check(pb.HealthCheckRequest(service="nope"), timeout=10)
        R.check(False, "grpc health: Check of an unknown name is NOT_FOUND")
    except grpc.RpcError as e:
        R.check(e.code() == grpc.StatusCode.NOT_FOUND and
                "'nope'" in e.details() and
                "inference.GRPCInferenceService" in e.details(),
                "grpc health: Check of an unknown name is NOT_FOUND",
                "%s %s" % (e.code(), e.details()))
    for name, first in (("", want),
                        ("nope", pb.HealthCheckResponse.SERVICE_UNKNOWN)):
        watch = stub.Watch(pb.HealthCheckRequest(service=name), timeout=10)
        got = next(watch)
        R.check(got.status == first,
                "grpc health: Watch(%r) starts with %s" % (
                    name, pb.HealthCheckResponse.ServingStatus.Name(first)),
                str(got))
        watch.cancel()
    channel.close()


def watch_health(port):
    """Starts a Watch("") in a thread; returns (thread, statuses, ending):
    the statuses it got and [code, details] of how the stream ended."""
    import grpc
    channel, stub, pb = health_client(port)
    statuses, ending = [], []

    def run():
        try:
            for got in stub.Watch(pb.HealthCheckRequest(service=""),
                                  timeout=60):
                statuses.append(
                    pb.HealthCheckResponse.ServingStatus.Name(got.status))
            ending.extend(["OK", ""])
        except grpc.RpcError as e:
            ending.extend([e.code().name, e.details()])
        channel.close()
    thread = threading.Thread(target=run)
    thread.start()
    return thread, statuses, ending


def check_sigterm_drains(server, repo, loop_model):
    port = server.port
    # Requests that stay in flight through the drain: three runs of the
    # loop model on its one instance, of about 1.5 s each (timed at 100,000
    # first, since a sanitizer build counts 50 times slower). A batch
    # waiting for more requests would not do: the drain runs it at once.
    os.makedirs(os.path.join(repo, "loop"))
    os.symlink(loop_model, os.path.join(repo, "loop", "1"))
    with open(os.path.join(repo, "loop", "config.json"), "w") as f:
        json.dump({"max_loop_iterations": 0}, f)
    status, _, body = request(port, "POST", "/v2/repository/models/loop/load",
                              "")
    R.check(status == 200, "SIGTERM: the loop model loads", body[:300])

    def count_to(n):
        return json.dumps({"inputs": [
            {"name": "i", "shape": [1], "datatype": "INT64", "data": [0]},
            {"name": "n", "shape": [1], "datatype": "INT64", "data": [n]}]})

    start = time.time()
    request(port, "POST", "/v2/models/loop/infer", count_to(100000))
    took = max(time.time() - start, 1e-3)
    n = int(min(100000 * 1.5 / took, 60000000))
    # The watch first: what follows the requests must fit in their wait.
    watcher, statuses, ending = watch_health(server.grpc_port)
    deadline = time.time() + 10
    while not statuses and time.time() < deadline:
        time.sleep(0.01)
    results = [None] * 3

    def one(i):
        results[i] = _try_request(port, count_to(n))
    threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    # Wait until all three are inside the server (running or queued).
    inflight = wait_inflight(port, 3)
    R.check(inflight >= 3, "three requests in flight before SIGTERM",
            str(inflight))
    server.proc.send_signal(signal.SIGTERM)
    # gRPC stops accepting at the signal too, not once HTTP has drained:
    # a new call is refused while the HTTP requests are still in flight.
    import tritonclient.grpc as grpcclient
    from tritonclient.utils import InferenceServerException
    refused, deadline = None, time.time() + 1
    while refused is None and time.time() < deadline:
        gc = grpcclient.InferenceServerClient(
            url="127.0.0.1:%d" % server.grpc_port)
        try:
            gc.is_server_live(client_timeout=1)
            time.sleep(0.01)
        except InferenceServerException as e:
            refused = e.status()
            if refused == "StatusCode.CANCELLED" and e.message() == "CANCELLED":
                refused = "cancelled by gRPC"
        gc.close()
    draining = sum(t.is_alive() for t in threads)
    # A connection the kernel accepted just before the listener closed is
    # never served: its call ends at its deadline instead. A call whose
    # stream arrived as Shutdown() began is cancelled by gRPC itself, with
    # its bare message (the callback API's FailCallCreation): no handler
    # saw it (seen once under ASan).
    R.check(refused in ("StatusCode.UNAVAILABLE",
                        "StatusCode.DEADLINE_EXCEEDED",
                        "cancelled by gRPC") and draining == 3,
            "SIGTERM: gRPC takes no new calls (UNAVAILABLE, CANCELLED by gRPC "
            "before any handler, or none served by the call's 1 s deadline) "
            "while HTTP's requests drain",
            "refused %s, %d HTTP requests in flight" % (refused, draining))
    code = server.stop(None)
    for t in threads:
        t.join()
    watcher.join()
    # The drain takes the runs' seconds, which the watch sees.
    R.check(statuses == ["SERVING", "NOT_SERVING"] and
            ending[0] == "UNAVAILABLE" and "shutting down" in ending[1],
            "SIGTERM: a gRPC health watch goes NOT_SERVING, then ends",
            "%s %s" % (statuses, ending))
    statuses = [r[0] for r in results]
    right = all(r[0] == 200 and
                json.loads(r[2])["outputs"][0]["data"] == [n]
                for r in results)
    R.check(right, "SIGTERM: every request in flight answered correctly",
            str(statuses))
    R.check(code == 0, "SIGTERM: exit 0", "exit %s\n%s" % (
        code, server.log_tail()))
    try:
        request(port, "GET", "/v2/health/live", timeout=5)
        R.check(False, "SIGTERM: no longer accepting")
    except OSError:
        R.check(True, "SIGTERM: no longer accepting")


def check_ipv6(server_command, tmp, env):
    """--host ::1 (or [::1]): HTTP and gRPC both listen there, and say
    where as addresses write it ("[::1]:PORT"). Skipped where the host has
    no IPv6 loopback."""
    import socket
    import tritonclient.grpc as grpcclient
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError as e:
        print("SKIP --host ::1: no IPv6 loopback here (%s)" % e)
        return
    repo = one_model_repo(tmp, "repo_ipv6", "demo", DEMO)
    for host in ("::1", "[::1]"):
        proc = subprocess.Popen(
            server_command + ["--model-repository", repo, "--host", host,
                              "--http-port", "0", "--grpc-port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        try:
            lines = [proc.stdout.readline().decode() for _ in range(2)]
            m = [re.match(r"(grpc )?listening on \[::1\]:(\d+)$", l.strip())
                 for l in lines]
            got = "%r" % lines
            if all(m):
                conn = http.client.HTTPConnection("::1", int(m[0].group(2)),
                                                  timeout=30)
                conn.request("GET", "/v2/health/live")
                live = conn.getresponse().status
                conn.close()
                gc = grpcclient.InferenceServerClient(
                    url="[::1]:%s" % m[1].group(2))
                got += " HTTP live %d, gRPC live %s" % (live,
                                                         gc.is_server_live())
                gc.close()
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                code = proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
            err = proc.stderr.read().decode(errors="replace")
            proc.stdout.close()
            proc.stderr.close()
        R.check(got.endswith("HTTP live 200, gRPC live True") and code == 0,
                "--host %s: HTTP and gRPC serve on IPv6 loopback, exit 0"
                % host, "%s exit %s %s" % (got, code, err[-1000:]))


def check_restricted(server_command, tmp, env, servers):
    """--http-restricted-api and --grpc-restricted-protocol (Triton's
    flags): model control and shared memory only with the key, through
    tritonclient's headers; inference and health stay open."""
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
    from tritonclient.utils import InferenceServerException
    repo = one_model_repo(tmp, "repo_restricted", "demo", DEMO)
    server = Server(server_command, repo, os.path.join(tmp, "restricted.log"),
                    ["--model-control-mode", "explicit",
                     "--http-restricted-api",
                     "model-repository,shared-memory:Admin-Key=s3cret",
                     "--grpc-restricted-protocol",
                     "model-repository,health:admin-key=s3cret"], env=env)
    servers.append(server)
    hc = httpclient.InferenceServerClient(url="127.0.0.1:%d" % server.port)
    gc = grpcclient.InferenceServerClient(
        url="127.0.0.1:%d" % server.grpc_port)
    key = {"admin-key": "s3cret"}

    def refused(call):
        try:
            call()
            return ""
        except InferenceServerException as e:
            return "%s %s" % (e.status(), e.message())

    why = refused(lambda: hc.load_model("demo"))
    R.check("403" in why and "model-repository API is restricted" in why and
            "'admin-key'" in why and "s3cret" not in why,
            "restricted: an HTTP load without the key is 403", why)
    why = refused(lambda: hc.load_model("demo", headers={"admin-key": "no"}))
    R.check("403" in why, "restricted: an HTTP load with a wrong key is 403",
            why)
    # With a large body (a load sending model files): read to its end and
    # answered 403, rather than a connection reset while the client sends.
    big = json.dumps({"parameters": {"file:1/model.pdiparams":
                                     "A" * (4 << 20)}})
    try:
        status, headers, body = request(
            server.port, "POST", "/v2/repository/models/demo/load", big,
            {"Content-Type": "application/json"})
        got = "%d %s (Connection: %s)" % (status, error_of(body),
                                          headers.get("Connection"))
    except OSError as e:
        got = repr(e)
    R.check(got.startswith("403") and "'admin-key'" in got and
            got.endswith("(Connection: close)"),
            "restricted: a 4 MB load without the key is answered 403, and "
            "the connection closes", got)
    # In absolute form, the same path is the same category.
    answer = raw_answer(
        server.port, b"POST http://127.0.0.1/v2/repository/index HTTP/1.1\r\n"
        b"Host: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    R.check(answer.startswith(b"HTTP/1.1 403"),
            "restricted: an absolute-form target is refused as its path",
            repr(answer))
    hc.load_model("demo", headers=key)
    # The model-repository API hides the models: a 404 does not name them.
    status, _, got = request(server.port, "GET", "/v2/models/nope/ready")
    R.check(status == 404 and error_of(got) == "unknown model 'nope'",
            "restricted: an unknown model's 404 names no model",
            "%s %r" % (status, got[:300]))
    index = hc.get_model_repository_index(headers=key)
    R.check(any(m.get("name") == "demo" for m in index),
            "restricted: HTTP load and index with the key", str(index))
    why = refused(lambda: hc.get_system_shared_memory_status())
    R.check("403" in why, "restricted: HTTP shared memory without the key",
            why)
    why = refused(lambda: gc.unload_model("demo"))
    R.check("PERMISSION_DENIED" in why and "'admin-key'" in why,
            "restricted: a gRPC unload without the key is PERMISSION_DENIED",
            why)
    gc.load_model("demo", headers=key)
    x, y = demo_data()
    inp = httpclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x, binary_data=True)
    ok, why = close(hc.infer("demo", [inp]).as_numpy("softmax.tmp_0"), y)
    R.check(ok and hc.is_server_ready() and
            gc.is_model_ready("demo", headers=key),
            "restricted: inference and HTTP health stay open; gRPC health "
            "with the key", why)
    # gRPC's health checking service is of the health category too.
    import grpc
    channel, stub, pb = health_client(server.grpc_port)
    try:
        stub.Check(pb.HealthCheckRequest(service=""), timeout=10)
        why = "answered"
    except grpc.RpcError as e:
        why = "%s %s" % (e.code().name, e.details())
    R.check(why.startswith("PERMISSION_DENIED") and "'admin-key'" in why,
            "restricted: a gRPC health Check without the key is "
            "PERMISSION_DENIED", why)
    got = stub.Check(pb.HealthCheckRequest(service=""), timeout=10,
                     metadata=(("admin-key", "s3cret"),))
    R.check(got.status == pb.HealthCheckResponse.SERVING,
            "restricted: a gRPC health Check with the key is SERVING",
            str(got))
    channel.close()
    hc.close()
    gc.close()
    R.check(server.stop() == 0, "restricted: SIGTERM, exit 0",
            server.log_tail())


def check_stream_at_sigterm(server_command, tmp, env, servers):
    """SIGTERM while a client keeps a stream open: the stream is finished
    once it has answered what it took, and the server exits 0 at once,
    not after --exit-timeout-secs."""
    import queue
    import tritonclient.grpc as grpcclient
    repo = one_model_repo(tmp, "repo_stream", "demo", DEMO)
    server = Server(server_command, repo, os.path.join(tmp, "stream.log"),
                    ["--exit-timeout-secs", "60"], env=env)
    servers.append(server)
    x, y = demo_data()
    gc = grpcclient.InferenceServerClient(
        url="127.0.0.1:%d" % server.grpc_port)
    answers = queue.Queue()
    gc.start_stream(callback=lambda result, error: answers.put((result,
                                                                 error)))
    inp = grpcclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    gc.async_stream_infer("demo", [inp], request_id="open")
    result, error = answers.get(timeout=60)
    start = time.time()
    code = server.stop(signal.SIGTERM, timeout=30)
    took = time.time() - start
    try:
        _, ended = answers.get(timeout=10)
        ended = ended.message() if ended is not None else "no error"
    except queue.Empty:
        ended = "nothing"
    gc.stop_stream()
    gc.close()
    R.check(error is None and code == 0 and took < 10,
            "stream: SIGTERM with a stream open: exit 0 in %.1f s" % took,
            "error %s, exit %s\n%s" % (error, code, server.log_tail()))
    R.check("shutting down" in ended,
            "stream: the client is told the server ended the stream",
            ended)


def check_stalled_stream_at_sigterm(server_command, tmp, env, servers,
                                    half_model):
    """SIGTERM while a stream's client reads none of its answers: once every
    request it sent is answered, HTTP/2 flow control holds the answers not
    yet written; the stream is cancelled 5 s after its last write moved,
    and the server exits 0 then, not after --exit-timeout-secs."""
    import grpc
    from tritonclient.grpc import service_pb2_grpc
    repo = one_model_repo(tmp, "repo_stalled", "half", half_model)
    log = os.path.join(tmp, "stalled.log")
    server = Server(server_command, repo, log, ["--exit-timeout-secs", "60"],
                    env=env)
    servers.append(server)
    # Each answer is 2.4 MB (sum, sum16, sumb16 of 100,000 x 3): a client
    # that does not read takes a few, then its window is full.
    rows, count = 100000, 12

    def requests():
        for i in range(count):
            yield half_grpc_request(rows, "stalled%d" % i)
    channel = grpc.insecure_channel("127.0.0.1:%d" % server.grpc_port)
    stub = service_pb2_grpc.GRPCInferenceServiceStub(channel)
    call = stub.ModelStreamInfer(requests(), timeout=120)
    # Every request answered (by the server's log) before the signal.
    deadline = time.time() + 60
    while ("id=stalled%d status=OK" % (count - 1) not in server.log_tail() and
           time.time() < deadline):
        time.sleep(0.05)
    start = time.time()
    code = server.stop(signal.SIGTERM, timeout=60)
    took = time.time() - start
    try:
        for _ in call:
            pass
        ended = "OK"
    except grpc.RpcError as e:
        ended = e.code().name
    channel.close()
    with open(log, errors="replace") as f:
        text = f.read()
    m = re.search(r"read no answer for 5 s while the server stops; "
                  r"cancelling its stream with (\d+) answer", text)
    R.check(code == 0 and took < 15 and m is not None and
            int(m.group(1)) > 0 and ended != "OK",
            "stream: SIGTERM with a client that reads no answers: its "
            "stream cancelled (%s unwritten), exit 0 in %.1f s" % (
                m.group(1) if m else "none", took),
            "exit %s, stream %s\n%s" % (code, ended, server.log_tail()))


def unread_grpc_call(port, method, message=b""):
    """Opens an HTTP/2 connection that grants the server no window to send
    in (SETTINGS_INITIAL_WINDOW_SIZE 0), makes one gRPC call on it, and
    reads nothing more: the server can send the answer's headers, not its
    message. A client stopped, or one that never reads, looks the same.
    Returns the socket (to close)."""
    import struct

    def frame(kind, flags, stream, payload):
        return (struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) +
                struct.pack(">I", stream) + payload)

    def literal(name, value):  # HPACK: literal, not indexed, new name
        return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value

    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" +
                 frame(4, 0, 0, struct.pack(">HI", 4, 0)))
    # The server's SETTINGS, acknowledged as HTTP/2 asks.
    data = b""
    while True:
        while len(data) < 9:
            data += sock.recv(65536)
        length, kind, flags = (int.from_bytes(data[:3], "big"), data[3],
                               data[4])
        while len(data) < 9 + length:
            data += sock.recv(65536)
        data = data[9 + length:]
        if kind == 4 and not flags & 1:
            break
    sock.sendall(frame(4, 1, 0, b""))
    path = b"/inference.GRPCInferenceService/" + method.encode()
    headers = (literal(b":method", b"POST") + literal(b":scheme", b"http") +
               literal(b":path", path) +
               literal(b":authority", b"127.0.0.1") +
               literal(b"content-type", b"application/grpc") +
               literal(b"te", b"trailers"))
    sock.sendall(frame(1, 4, 1, headers) +  # END_HEADERS
                 frame(0, 1, 1, b"\x00" + struct.pack(">I", len(message)) +
                       message))  # END_STREAM
    return sock


def demo_grpc_request(request_id):
    """A ModelInferRequest of the demo model on its sample, as raw
    contents."""
    from tritonclient.grpc import service_pb2
    x, _ = demo_data()
    r = service_pb2.ModelInferRequest(model_name="demo", id=request_id)
    r.inputs.add(name="x", datatype="FP32", shape=list(x.shape))
    r.raw_input_contents.append(x.astype("float32").tobytes())
    return r


def check_unread_unary_at_sigterm(server_command, tmp, env, servers):
    """SIGTERM while a unary call's client reads none of its answer: once
    every call is answered, the calls still being written are cancelled
    5 s later and the server exits 0, not after --exit-timeout-secs (with
    0, never)."""
    repo = one_model_repo(tmp, "repo_unread", "demo", DEMO)
    log = os.path.join(tmp, "unread.log")
    server = Server(server_command, repo, log, ["--exit-timeout-secs", "0"],
                    env=env)
    servers.append(server)
    infer = demo_grpc_request("unread")
    sockets = [unread_grpc_call(server.grpc_port, "ServerLive"),
               unread_grpc_call(server.grpc_port, "ModelInfer",
                                infer.SerializeToString())]
    deadline = time.time() + 30
    while ("id=unread status=OK" not in server.log_tail() and
           time.time() < deadline):
        time.sleep(0.05)
    start = time.time()
    code = server.stop(signal.SIGTERM, timeout=30)
    took = time.time() - start
    for sock in sockets:
        sock.close()
    with open(log, errors="replace") as f:
        text = f.read()
    R.check(code == 0 and 4 < took < 15 and
            "answers are still unwritten while the server stops" in text,
            "grpc: SIGTERM with unary calls whose client reads nothing: "
            "cancelled after 5 s, exit 0 in %.1f s" % took,
            "exit %s\n%s" % (code, server.log_tail()))


def grpc_reset_seen(sock, timeout):
    """Whether the server reset stream 1 (RST_STREAM) on an HTTP/2
    connection of unread_grpc_call, or closed it, within `timeout` s."""
    data = b""
    until = time.time() + timeout
    while time.time() < until:
        sock.settimeout(max(0.01, until - time.time()))
        try:
            got = sock.recv(65536)
        except socket.timeout:
            return False
        except OSError:
            return True
        if not got:
            return True
        data += got
        while len(data) >= 9:
            length = int.from_bytes(data[:3], "big")
            if len(data) < 9 + length:
                break
            kind = data[3]
            stream = int.from_bytes(data[5:9], "big") & 0x7FFFFFFF
            data = data[9 + length:]
            if kind == 3 and stream == 1:
                return True
    return False


def check_unread_answers_hold_calls(server_command, tmp, env, servers):
    """An inference answer holds its --grpc-threads place until it is
    written: clients that read none of their answers, unary or on a
    stream, make the server refuse calls past that many
    (RESOURCE_EXHAUSTED) rather than hold ever more answers. A client gone
    frees its place; and with every place held, a refused call has the
    calls whose answers went unread for 5 s cancelled, so that a retry is
    served while those clients are still connected (a fresher one is
    not cut off)."""
    import grpc
    import numpy as np
    from tritonclient.grpc import service_pb2_grpc
    repo = one_model_repo(tmp, "repo_unread_slots", "demo", DEMO)
    log = os.path.join(tmp, "unread_slots.log")
    server = Server(server_command, repo, log, ["--grpc-threads", "4"],
                    env=env)
    servers.append(server)
    _, y = demo_data()
    infer = demo_grpc_request

    def unread(i):
        # Tried again while refused: the place of a call just answered is
        # free only once gRPC is done with it, which a slow server (TSan)
        # may be after its client has read the answer.
        deadline = time.time() + 30
        attempt = 0
        while True:
            tag = "id=unread%d_%d status=" % (i, attempt)
            sock = unread_grpc_call(
                server.grpc_port, ("ModelInfer", "ModelStreamInfer")[i % 2],
                infer("unread%d_%d" % (i, attempt)).SerializeToString())
            while tag not in server.log_tail() and time.time() < deadline:
                time.sleep(0.05)
            # Answered, or out of time (the checks below then say so).
            if tag + "OK" in server.log_tail() or time.time() >= deadline:
                return sock
            sock.close()
            attempt += 1
            time.sleep(0.1)
    sockets = [unread(0)]
    first_answered = time.time()
    sockets += [unread(i) for i in range(1, 4)]
    answered = time.time()
    channel = grpc.insecure_channel("127.0.0.1:%d" % server.grpc_port)
    stub = service_pb2_grpc.GRPCInferenceServiceStub(channel)

    def outcome():
        try:
            res = stub.ModelInfer(infer("next"), timeout=30)
            ok, why = close(np.frombuffer(res.raw_output_contents[0],
                                          "<f4").reshape(y.shape), y)
            return "OK" if ok else why
        except grpc.RpcError as e:
            return "%s %s" % (e.code().name, e.details())

    def until_ok(seconds):
        result = outcome()
        deadline = time.time() + seconds
        while result != "OK" and time.time() < deadline:
            time.sleep(0.2)
            result = outcome()
        return result
    held = outcome()
    # Refused before any answer was 5 s old: nothing to cancel yet.
    early = time.time() - first_answered < 4
    sockets[0].close()
    # Free once gRPC has seen the connection end.
    freed = until_ok(30)
    # Every place held again, one of them fresh: a refused call has the
    # three unread for 5 s cancelled.
    sockets[0] = unread(4)
    fresh = time.time()
    time.sleep(max(0, answered + 5.2 - time.time()))
    reclaimed = until_ok(15)
    fresh_spared = time.time() - fresh < 4
    reset = [grpc_reset_seen(sock, 10) for sock in sockets[1:]]
    fresh_reset = grpc_reset_seen(sockets[0], 0.5)
    for sock in sockets:
        sock.close()
    channel.close()
    code = server.stop()
    text = server.log_tail()
    R.check(held.startswith("RESOURCE_EXHAUSTED") and
            "--grpc-threads" in held and
            (not early or "being cancelled" not in held) and
            freed == "OK" and code == 0,
            "grpc: unwritten answers (unary and stream) hold their "
            "--grpc-threads places; a call past them is RESOURCE_EXHAUSTED, "
            "and a place is free once its client is gone",
            "while held: %s; after: %s; exit %s\n%s" % (
                held, freed, code, text))
    R.check(reclaimed == "OK" and all(reset) and
            (not fresh_spared or not fresh_reset) and
            "went unread for 5 s" in text,
            "grpc: every place held, the calls whose answers went unread "
            "for 5 s (unary and stream) are cancelled when a call is "
            "refused, and a retry is served; an answer made since is not",
            "retry: %s; reset: %s; fresh one reset: %s\n%s" % (
                reclaimed, reset, fresh_reset, text))


def check_unread_http_answers(server_command, tmp, env, servers,
                              half_model):
    """--http-threads 2, both connections taken by clients reading their
    17 MB answers at 1 MB/s (each read restarting the idle timeout): 5 s
    after an answer was handed over, its connection is closed, with a
    warning, rather than held for the 17 s it would take, and the next
    client is served. (Once one is closed the server is no longer full:
    the other, its answer handed over later, may then be spared.)"""
    import numpy as np
    repo = one_model_repo(tmp, "repo_unread_http", "half", half_model)
    server = Server(server_command, repo,
                    os.path.join(tmp, "unread_http.log"),
                    ["--http-threads", "2"], env=env)
    servers.append(server)
    rows = 200000
    # Values whose JSON is long: the answer is about 17 MB.
    values = np.random.default_rng(7).random((rows, 3), "float32")
    x16 = values.astype("float16")
    xb16 = (values.view("uint32") >> 16).astype("uint16")  # bfloat16
    header = json.dumps({"inputs": [
        {"name": "x16", "shape": [rows, 3], "datatype": "FP16",
         "parameters": {"binary_data_size": x16.nbytes}},
        {"name": "xb16", "shape": [rows, 3], "datatype": "BF16",
         "parameters": {"binary_data_size": xb16.nbytes}}]}).encode()
    body = header + x16.tobytes() + xb16.tobytes()
    infer = (b"POST /v2/models/half/infer HTTP/1.1\r\nHost: x\r\n"
             b"Inference-Header-Content-Length: %d\r\n"
             b"Content-Length: %d\r\n\r\n" % (len(header), len(body)) +
             body)
    got = [0, 0]
    ended = [None, None]

    def slow_reader(i):
        sock = socket.create_connection(("127.0.0.1", server.port))
        start = time.time()
        try:
            sock.sendall(infer)
            sock.settimeout(60)
            while time.time() - start < 60:
                want = got[i] + 500000
                while got[i] < want:
                    data = sock.recv(want - got[i])
                    if not data:
                        raise EOFError
                    got[i] += len(data)
                time.sleep(0.5)
        except (OSError, EOFError):
            pass
        ended[i] = time.time() - start
        sock.close()
    readers = [threading.Thread(target=slow_reader, args=(i,))
               for i in range(2)]
    for t in readers:
        t.start()
    for t in readers:
        t.join(timeout=90)
    status, _, _ = request(server.port, "GET", "/v2/health/live")
    code = server.stop()
    with open(server.log_path, errors="replace") as f:
        text = f.read()
    # An answer (about 17 MB of JSON) was cut short, well before a reader
    # at 1 MB/s would be done.
    R.check(all(e is not None for e in ended) and
            any(0 < g < 16000000 for g in got) and status == 200 and
            code == 0 and "went unread for 5 s" in text and
            "the connection ended before the answer was written" in text,
            "HTTP: every connection taken by slow readers, one is closed "
            "5 s after its answer was handed over, and the next client is "
            "served",
            "read %s bytes, ended after %s s, next: %s, exit %s\n%s" % (
                got, ended, status, code, text[-1500:]))


def check_exit_timeout(server_command, tmp, env, servers, loop_model):
    """A drain that outlasts --exit-timeout-secs, or a second signal, ends
    the server at once with exit 1 (the requests in flight are dropped),
    saying so in its log. The loop model, counting to 30 million with no
    loop limit, runs for seconds."""
    repo = one_model_repo(tmp, "repo_exit", "loop", loop_model,
                          {"max_loop_iterations": 0})
    body = json.dumps({"inputs": [
        {"name": "i", "shape": [1], "datatype": "INT64", "data": [0]},
        {"name": "n", "shape": [1], "datatype": "INT64",
         "data": [30000000]}]})
    for name, extra, signals, within, why in (
            ("exit timeout", ["--exit-timeout-secs", "1"], [signal.SIGTERM],
             5, "--exit-timeout-secs 1 passed: exiting with 1 request(s)"),
            ("second signal", ["--exit-timeout-secs", "0"],
             [signal.SIGTERM, signal.SIGINT], 5,
             "signal 2 again: exiting with 1 request(s)")):
        server = Server(server_command, repo,
                        os.path.join(tmp, "exit_%d.log" % len(signals)),
                        extra, env=env)
        servers.append(server)
        results = []
        client = threading.Thread(
            target=lambda: results.append(_try_request(server.port, body)))
        client.start()
        wait_inflight(server.port, 1)
        code, took, log = signal_and_wait(server, signals, within)
        client.join()
        R.check(code == 1 and why in log and results and
                results[0][0] == "dropped",
                "%s: exit 1 in %.1f s, the request in flight dropped, and "
                "the log says so" % (name, took),
                "exit %s after %.1f s\n%s" % (code, took, log[-600:]))


    # Past the timeout with nothing in flight (an idle kept-alive
    # connection is all that is left): exit 0, nothing dropped.
    server = Server(server_command, repo, os.path.join(tmp, "exit_idle.log"),
                    ["--exit-timeout-secs", "1"], env=env)
    servers.append(server)
    idle = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    idle.request("GET", "/v2/health/live")
    idle.getresponse().read()
    code, took, log = signal_and_wait(server, [signal.SIGTERM], 10)
    idle.close()
    R.check(code == 0 and took < 4 and "passed with no request in flight" in
            log, "exit timeout with an idle connection only: exit 0 in %.1f s"
            % took, "exit %s after %.1f s\n%s" % (code, took, log[-600:]))


def signal_and_wait(server, signals, within):
    """Sends `signals` 0.3 s apart and waits up to `within` s for the server
    to exit: (exit code or None, seconds taken, its log). The server is
    stopped either way."""
    start = time.time()
    for sig in signals:
        server.proc.send_signal(sig)
        time.sleep(0.3)
    try:
        code = server.proc.wait(timeout=within)
    except subprocess.TimeoutExpired:
        code = None
    took = time.time() - start
    log = server.log_tail()
    server.stop()
    forget_openmp_registration(server.proc.pid)
    return code, took, log


SANITIZER_REPORT = re.compile(
    r"WARNING: ThreadSanitizer|ERROR: AddressSanitizer|"
    r"ERROR: LeakSanitizer|runtime error: ")


def check_no_sanitizer_report(servers):
    """A server built with a sanitizer (scripts/sanitize.sh) writes its
    reports to its log: none may be there, whether or not the server's exit
    status showed it (a server killed, or stopped without its status
    checked, would not)."""
    reports = []
    for s in servers:
        try:
            with open(s.log_path, errors="replace") as f:
                log = f.read()
        except OSError:
            continue
        m = SANITIZER_REPORT.search(log)
        if m:
            reports.append("%s: %s" % (os.path.basename(s.log_path),
                                       log[m.start():m.start() + 3000]))
    R.check(not reports, "no sanitizer report in any server's log",
            "\n".join(reports))


def forget_openmp_registration(pid):
    """A server built with clang's OpenMP (libomp: the sanitizer builds)
    registers itself in /dev/shm/__KMP_REGISTERED_LIB_<pid>_<uid> and
    removes the file at a normal exit; a forced exit (std::_Exit) leaves
    it. Removed here, so that the test leaves /dev/shm as it found it."""
    for path in glob.glob("/dev/shm/__KMP_REGISTERED_LIB_%d_*" % pid):
        try:
            os.remove(path)
        except OSError:
            pass


def check_caller_gone(server_command, tmp, env, servers, loop_model):
    """A call whose client gives up while its request is queued is
    answered without running: over gRPC its deadline (tritonclient's
    client_timeout) passes, it cancels, or it cancels its stream; over
    HTTP it closes its connection. The model's statistics count the long
    request ahead of them (and the short one that timed it) as the runs,
    and the four as failures."""
    import numpy as np
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
    repo = one_model_repo(tmp, "repo_gone", "loop", loop_model,
                          {"max_loop_iterations": 0})
    server = Server(server_command, repo, os.path.join(tmp, "gone.log"), [],
                    env=env)
    servers.append(server)
    # The loop model counts from i to n. The long run should take about
    # 4 s, well past the second the requests behind it need: timed at
    # 100,000 first, since a sanitizer build counts 50 times slower.

    def count_to(n):
        return json.dumps({"inputs": [
            {"name": "i", "shape": [1], "datatype": "INT64", "data": [0]},
            {"name": "n", "shape": [1], "datatype": "INT64", "data": [n]}]})

    start = time.time()
    request(server.port, "POST", "/v2/models/loop/infer", count_to(100000))
    took = max(time.time() - start, 1e-3)
    long_body = count_to(int(min(100000 * 4.0 / took, 60000000)))
    results = []
    blocker = threading.Thread(
        target=lambda: results.append(_try_request(server.port, long_body)))
    blocker.start()
    wait_inflight(server.port, 1)
    gc = grpcclient.InferenceServerClient(
        url="127.0.0.1:%d" % server.grpc_port)

    def inputs():
        made = []
        for name, value in (("i", 0), ("n", 1)):
            inp = grpcclient.InferInput(name, [1], "INT64")
            inp.set_data_from_numpy(np.array([value], dtype=np.int64))
            made.append(inp)
        return made

    timed_out, message = grpc_error(
        lambda: gc.infer("loop", inputs(), client_timeout=0.3))
    # The server's own deadline comes a little after the client's: the
    # request must have left before the next one is counted in flight.
    hc = httpclient.InferenceServerClient(url="127.0.0.1:%d" % server.port)

    def failures():
        stats = hc.get_inference_statistics("loop")["model_stats"][0]
        return stats["inference_stats"]["fail"]["count"], stats

    deadline = time.time() + 10
    while failures()[0] < 1 and time.time() < deadline:
        time.sleep(0.01)
    answers = []
    call = gc.async_infer("loop", inputs(),
                          lambda result, error: answers.append(error))
    wait_inflight(server.port, 2)
    call.cancel()
    # Over HTTP: a client that closes its connection while its request
    # waits.
    small_body = json.dumps({"inputs": [
        {"name": "i", "shape": [1], "datatype": "INT64", "data": [0]},
        {"name": "n", "shape": [1], "datatype": "INT64", "data": [1]}]})
    leaving = socket.create_connection(("127.0.0.1", server.port))
    leaving.sendall(("POST /v2/models/loop/infer HTTP/1.1\r\n"
                     "Host: x\r\nContent-Type: application/json\r\n"
                     "Content-Length: %d\r\n\r\n%s" % (
                         len(small_body), small_body)).encode())
    inflight = [wait_inflight(server.port, 3)]
    leaving.close()
    # A stream cancelled with its request still queued.
    streamed = []
    gc.start_stream(callback=lambda result, error: streamed.append(error))
    gc.async_stream_infer("loop", inputs())
    inflight.append(wait_inflight(server.port, 4))
    gc.stop_stream(cancel_requests=True)
    still_running = blocker.is_alive()
    blocker.join()
    while not answers:
        time.sleep(0.01)
    # Answered with the run ahead of them, but counted just after.
    deadline = time.time() + 10
    while failures()[0] < 4 and time.time() < deadline:
        time.sleep(0.05)
    stats = failures()[1]
    hc.close()
    gc.close()
    R.check(timed_out == "StatusCode.DEADLINE_EXCEEDED" and
            results and results[0][0] == 200,
            "caller gone: the client's deadline passes while queued",
            "%s %s %s" % (timed_out, message, results[:1]))
    R.check(answers and "CANCELLED" in str(answers[0]),
            "caller gone: the client cancels while queued", str(answers))
    R.check(inflight[0] >= 3 and inflight[1] >= 4 and still_running,
            "caller gone: the requests queued behind the long one, which "
            "still ran when the last was cancelled",
            "%s, still running: %s" % (inflight, still_running))
    R.check(stats["inference_stats"]["success"]["count"] == 2 and
            stats["inference_stats"]["fail"]["count"] == 4 and
            stats["execution_count"] == 2,
            "caller gone: none of the four ran, only the one ahead of them",
            json.dumps(stats)[:600])
    gone = metric(server.port, re.escape(
        'pdlite_inference_callers_gone_total{model="loop",version="1"}'))
    R.check(gone == 4, "caller gone: /metrics counts the four",
            str(gone))
    R.check(server.stop() == 0, "caller gone: SIGTERM, exit 0",
            server.log_tail())


def check_grpc_control_calls(server_command, tmp, env, servers, loop_model):
    """A gRPC unload that waits for its model's request in flight holds up
    no (re)load of another model (each control call runs on a thread of
    its own; they all waited on one)."""
    import tritonclient.grpc as grpcclient
    repo = one_model_repo(tmp, "repo_control", "loop", loop_model,
                          {"max_loop_iterations": 0})
    os.makedirs(os.path.join(repo, "demo"))
    os.symlink(DEMO, os.path.join(repo, "demo", "1"))
    server = Server(server_command, repo, os.path.join(tmp, "control.log"),
                    ["--model-control-mode", "explicit"], env=env)
    servers.append(server)
    body = json.dumps({"inputs": [
        {"name": "i", "shape": [1], "datatype": "INT64", "data": [0]},
        {"name": "n", "shape": [1], "datatype": "INT64",
         "data": [6000000]}]})  # seconds
    results = []
    # Its run took over 120 s under ThreadSanitizer on busy CPUs.
    infer = threading.Thread(target=lambda: results.append(
        _try_request(server.port, body, timeout=900)))
    infer.start()
    wait_inflight(server.port, 1)
    url = "127.0.0.1:%d" % server.grpc_port
    unloaded = []

    def unload():
        gc = grpcclient.InferenceServerClient(url=url)
        gc.unload_model("loop")
        unloaded.append(time.time())
        gc.close()
    unloader = threading.Thread(target=unload)
    unloader.start()
    time.sleep(0.3)  # the unload is waiting for the loop's request
    gc = grpcclient.InferenceServerClient(url=url)
    start = time.time()
    gc.load_model("demo")
    took = time.time() - start
    ready = gc.is_model_ready("demo")
    gc.close()
    still_waiting = not unloaded and infer.is_alive()
    infer.join()
    unloader.join()
    R.check(ready and still_waiting and results and results[0][0] == 200,
            "gRPC: a load of another model is answered (%.2f s) while an "
            "unload waits for its model's request" % took,
            "ready %s, unload done first %s, infer %r" % (
                ready, not still_waiting, results[:1]))
    R.check(server.stop() == 0, "gRPC control calls: SIGTERM, exit 0",
            server.log_tail())


def _try_request(port, body, timeout=120):
    try:
        return request(port, "POST", "/v2/models/loop/infer", body,
                       timeout=timeout)
    except OSError as e:
        return ("dropped", repr(e))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--pdlite", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--half-model", required=True,
                    help="the half-precision model (unittests/CMakeLists.txt "
                         "writes it: target half_model)")
    ap.add_argument("--loop-model", required=True,
                    help="the counting loop model (unittests/CMakeLists.txt "
                         "writes it: target loop_model)")
    args = ap.parse_args()
    venv, python = ensure_venv(args.build_dir)
    if os.path.realpath(sys.prefix) != os.path.realpath(venv):
        os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])
    import tritonclient.http as httpclient

    with_shared = all(os.path.isdir(os.path.join(MODELS, m)) for m in (
        "ppocr_cls_mobile_v2", "det_ppyolo_tiny", "textcnn_news_fluid"))
    with_clas = with_shared and os.path.isdir(
        os.path.join(MODELS, "clas_mbv3_small_x0_35_3cls"))
    if not with_shared:
        print("serve_test: %s absent: only the demo model parts run" % MODELS)
    tmp = tempfile.mkdtemp(prefix="pdlite_serve_test_")
    servers = []
    shm_objects = ShmObjects()
    try:
        repo = os.path.join(tmp, "repo")

        def add(name, target, config=None):
            os.makedirs(os.path.join(repo, name))
            os.symlink(target, os.path.join(repo, name, "1"))
            if config is not None:
                with open(os.path.join(repo, name, "config.json"), "w") as f:
                    json.dump(config, f)

        add("demo", DEMO, {"instances": 2, "max_batch_size": 8,
                           "batch_delay_us": 500})
        # The device as a user may spell it: served as "cpu".
        add("half", os.path.abspath(args.half_model), {"device": "CPU"})
        if with_shared:
            add("cls", os.path.join(MODELS, "ppocr_cls_mobile_v2"))
            add("det", os.path.join(MODELS, "det_ppyolo_tiny"),
                {"threads": 2})
            add("textcnn", os.path.join(MODELS, "textcnn_news_fluid"))
        if with_clas:
            # A classifier with a labels file (the classification
            # extension), batching so that rows are ranked alone.
            add("clas", os.path.join(MODELS, "clas_mbv3_small_x0_35_3cls"),
                {"max_batch_size": 4, "labels": {
                    "save_infer_model/scale_0.tmp_0": "labels.txt"}})
            with open(os.path.join(repo, "clas", "labels.txt"), "w") as f:
                f.write("\n".join(CLAS_LABELS) + "\n")
        os.makedirs(os.path.join(repo, "broken", "1"))
        with open(os.path.join(repo, "broken", "1", "model.pdmodel"), "w") as f:
            f.write("not a program")

        openmp_unset = {k: v for k, v in os.environ.items()
                        if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
        # With --http-spin-us, so that every check below also runs with
        # connection threads that spin for the next request.
        a = Server([args.server], repo, os.path.join(tmp, "a.log"),
                   ["--max-body-mb", "8", "--max-json-decoding-mb", "7",
                    "--http-spin-us", "300", "--shared-memory", "system"],
                   env=openmp_unset)
        servers.append(a)
        client = httpclient.InferenceServerClient(
            url="127.0.0.1:%d" % a.port, concurrency=2)
        check_openmp_wait_policy(a, "ACTIVE", "20000")
        check_health_and_metadata(a.port, client, with_shared)
        check_infer_demo(a.port, client, httpclient)
        check_compression(a.port, a.grpc_port, client, httpclient)
        check_methods(a.port)
        check_logging(a)
        check_half_precision(a.port, a.grpc_port, client, httpclient)
        check_grpc_answer_too_large(a.grpc_port, 8 << 20)
        check_http_answer_too_large(a.port, 8 << 20)
        check_framing(a.port)
        check_keep_alive(a.port)
        check_control_bodies(a)
        check_body_budget(a.port, 8 << 20)
        check_curl(a.port, tmp)
        if with_shared:
            check_shared_models(a.port, client, httpclient)
        check_bad_inputs_with_parallel_client(a.port, client, httpclient)
        check_grpc(a.grpc_port, with_shared)
        check_grpc_health(a.grpc_port, ready=False)
        check_stream(a.grpc_port)
        check_metrics(a.port)
        check_spin(a.port)
        check_statistics(a.port, a.grpc_port, client)
        check_model_config(a.port, a.grpc_port, client)
        check_classification(a.port, a.grpc_port, client, httpclient,
                             with_shared, with_clas)
        check_model_control_off(a.port, a.grpc_port)
        check_shared_memory(a.port, a.grpc_port, with_shared, shm_objects)
        client.close()
        R.check(a.stop(signal.SIGINT) == 0, "SIGINT: exit 0", a.log_tail())
        with open(a.log_path, errors="replace") as f:
            log = f.read()
        R.check(re.search(r"POST /v2/models/demo/infer 200 .* ms", log) and
                re.search(r"POST /v2/models/nope/infer 404", log),
                "--verbose logs one line per request", log[-2000:])
        # A newline a client sent in its path is escaped, not a new line.
        R.check("GET /v2/models/x\\x0ay 404" in log and
                not re.search(r"^y 404", log, re.M),
                "--verbose escapes control bytes of a path",
                "\n".join(l for l in log.splitlines() if "models/x" in l))

        # One instance, a short queue; started through `pdlite serve`.
        repo_b = os.path.join(tmp, "repo_b")
        os.makedirs(os.path.join(repo_b, "demo"))
        os.symlink(DEMO, os.path.join(repo_b, "demo", "1"))
        with open(os.path.join(repo_b, "demo", "config.json"), "w") as f:
            json.dump({"queue_limit": 3}, f)
        os.makedirs(os.path.join(repo_b, "slow"))
        os.symlink(DEMO, os.path.join(repo_b, "slow", "1"))
        with open(os.path.join(repo_b, "slow", "config.json"), "w") as f:
            json.dump({"max_batch_size": 64, "batch_delay_us": 1500000}, f)
        # A wait policy the caller set is kept. Its own $TMPDIR, where the
        # files a load sends are written, to see that none stay.
        b_temp = os.path.join(tmp, "b_temp")
        os.makedirs(b_temp)
        b = Server([args.pdlite, "serve"], repo_b, os.path.join(tmp, "b.log"),
                   ["--model-control-mode", "explicit"],
                   env=dict(openmp_unset, OMP_WAIT_POLICY="PASSIVE",
                            TMPDIR=b_temp))
        servers.append(b)
        check_openmp_wait_policy(b, "PASSIVE", None)
        status, _, _ = request(b.port, "GET", "/v2/health/ready")
        R.check(status == 200, "ready when every model loaded")
        check_grpc_health(b.grpc_port, ready=True)
        check_queue_full(b.port)
        check_grpc_queue_full(b.grpc_port, b.port)
        check_timeout(b.port)
        check_grpc_timeout(b.grpc_port, b.port)
        check_repository(b, repo_b)
        check_sent_files(b, b_temp)
        check_shared_memory_off(b.port, b.grpc_port)
        check_sigterm_drains(b, repo_b, os.path.abspath(args.loop_model))
        check_tls([args.server], tmp, openmp_unset, servers)
        check_polling([args.server], tmp, openmp_unset, servers)
        check_polling_past_a_closed_folder([args.server], tmp, openmp_unset,
                                           servers)
        check_restricted([args.server], tmp, openmp_unset, servers)
        check_ipv6([args.server], tmp, openmp_unset)
        check_stream_at_sigterm([args.server], tmp, openmp_unset, servers)
        check_stalled_stream_at_sigterm([args.server], tmp, openmp_unset,
                                        servers,
                                        os.path.abspath(args.half_model))
        check_unread_unary_at_sigterm([args.server], tmp, openmp_unset,
                                      servers)
        check_unread_answers_hold_calls([args.server], tmp, openmp_unset,
                                        servers)
        check_unread_http_answers([args.server], tmp, openmp_unset, servers,
                                  os.path.abspath(args.half_model))
        check_slow_clients([args.server], tmp, openmp_unset, servers)
        check_header_timeout([args.server], tmp, openmp_unset, servers)
        check_grpc_control_calls([args.server], tmp, openmp_unset, servers,
                                 os.path.abspath(args.loop_model))
        check_caller_gone([args.server], tmp, openmp_unset, servers,
                          os.path.abspath(args.loop_model))
        check_exit_timeout([args.server], tmp, openmp_unset, servers,
                           os.path.abspath(args.loop_model))
        check_bad_flags([args.server], repo_b)
    except Exception as e:  # report, clean up, fail
        import traceback
        traceback.print_exc()
        R.check(False, "the test ran to its end", repr(e))
        for s in servers:
            print(s.log_tail())
    finally:
        for s in servers:
            if s.proc.poll() is None:
                s.stop(signal.SIGKILL)
        check_no_sanitizer_report(servers)
        shutil.rmtree(tmp, ignore_errors=True)
        shm_objects.close()
    R.check(not os.path.exists(tmp), "temporary folder removed")
    R.check(not [f for f in os.listdir("/dev/shm")
                 if f.startswith(shm_objects.tag[1:])],
            "shared-memory objects removed")
    return R.summary()


if __name__ == "__main__":
    sys.exit(main())
