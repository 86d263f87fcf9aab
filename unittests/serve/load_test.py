#!/usr/bin/env python3
"""`pdlite serve` under load (issue 15), from a second process on loopback.

  python3 unittests/serve/load_test.py --server build/tools/pdlite_server \
      --build-dir build [--seconds 30] [--clients 64] [--grpc-clients 8]

Starts the server on free loopback ports with a temporary repository of two
models: "demo" (models/demo_convnet; 2 instances, dynamic batching) and
"cls" (../shared/models/ppocr_cls_mobile_v2; 2 instances, no batching; the
demo model takes its place when ../shared/models is absent). Then 64 client
threads (most over HTTP with the binary tensor extension, one keep-alive
connection each, the rest over gRPC) send requests for --seconds, half to
each model, and every answer is compared with the model's reference output.
VmRSS of the server is read every second; after the warm-up (the first 10 s,
--warmup) it must grow less than 2% (issue 15's bound; --max-drift), the
median of the first ten samples after the warm-up against that of the last
ten: at ~1500 requests a second, a leak of 30 bytes a request grows a 66 MB
server by 2% in 30 s.

Then, with the clients still sending, the server gets SIGTERM. It must exit
0, and no request it took may be lost. What "lost" (dropped) means here,
precisely, for an HTTP request:

  * answered: a complete response came back. It must be 200 and correct,
    before and after the SIGTERM alike (a 503 or 5xx counts as a drop).
  * refused: connect() was refused, or the request went out on a keep-alive
    connection only after the SIGTERM was sent, and the server closed that
    connection without a single response byte. A stopping server no longer
    reads new requests; this is the ordinary race of HTTP/1.1 keep-alive
    (RFC 9112 section 9.3.1), and the client never had an answer started.
  * dropped: everything else: a request fully written before the SIGTERM was
    sent that got no complete response (a reset, the connection closed, a
    timeout), and a response cut off or malformed at any time.

Over gRPC a call is answered (OK, correct), refused (begun after the
SIGTERM and failed with UNAVAILABLE, gRPC's "not processed" status, or
CANCELLED, what gRPC's Shutdown() gives a call it cancels before its
handler ran; begun up to 0.1 s before the SIGTERM and cancelled that way
by gRPC itself (no message of the server's) after it; or, whenever begun,
failed after the SIGTERM because it could not connect: gRPC retries a call
on a new connection only when the server said it did not process it) or
dropped (any other failure, and any other failure of a call begun before
the SIGTERM).

tritonclient[http,grpc] and numpy come from build/serve-venv, made by
serve_test.py's ensure_venv; this script re-executes itself under it.
"""

import argparse
import collections
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

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
from serve_test import Results, close, ensure_venv  # noqa: E402
DEMO = os.path.join(ROOT, "models", "demo_convnet")
CLS = os.path.join(MODELS, "ppocr_cls_mobile_v2")

# Outcomes of one request.
OK, WRONG, REFUSED, DROPPED = "ok", "wrong", "refused", "dropped"


class ModelLoad:
    """One model's request, prepared once, and its expected output."""

    def __init__(self, name, x, want, output):
        import numpy as np
        self.name = name
        self.x = np.ascontiguousarray(x, dtype=np.float32)
        self.want = want.astype(np.float32)
        self.output = output
        header = json.dumps({
            "inputs": [{"name": "x", "shape": list(self.x.shape),
                        "datatype": "FP32",
                        "parameters": {"binary_data_size": self.x.nbytes}}],
            "outputs": [{"name": output,
                         "parameters": {"binary_data": True}}]}).encode()
        self.body = header + self.x.astype("<f4").tobytes()
        self.headers = {"Content-Type": "application/octet-stream",
                        "Inference-Header-Content-Length": str(len(header))}
        self.path = "/v2/models/%s/infer" % name

    def check_http(self, resp, body):
        """(outcome, detail) of a complete HTTP response."""
        import numpy as np
        if resp.status != 200:
            return DROPPED, "HTTP %d %r" % (resp.status, body[:200])
        try:
            n = int(resp.getheader("Inference-Header-Content-Length"))
            out = json.loads(body[:n])["outputs"][0]
            got = np.frombuffer(body[n:], dtype="<f4").reshape(out["shape"])
        except (TypeError, ValueError, KeyError, IndexError) as e:
            return DROPPED, "malformed response: %r %r" % (e, body[:200])
        if not close(got, self.want)[0]:
            return WRONG, "output differs from the reference"
        return OK, ""


class Run:
    """What the clients share: the stop flags and the SIGTERM time."""

    def __init__(self):
        self.stop_sending = threading.Event()
        self.sigterm_at = None  # time.monotonic() just before the kill
        self.records = []       # (model, proto, t_done, outcome, detail)
        self.started_at = None  # time.monotonic() as the clients start
        # Per client: (model/proto, its longest wait for an answer before
        # the SIGTERM, from its start or its previous answer, in s).
        self.longest_waits = []
        self.lock = threading.Lock()

    def finish_client(self, name, records):
        """Adds one client's records, and its longest wait."""
        with self.lock:
            self.records.extend(records)
            last, longest = self.started_at, 0.0
            for _, _, t_done, outcome, _ in records:
                if t_done > self.sigterm_at:
                    break
                if outcome == OK:
                    longest = max(longest, t_done - last)
                    last = t_done
            longest = max(longest, self.sigterm_at - last)
            self.longest_waits.append((name, longest))

    def after_sigterm(self, t):
        return self.sigterm_at is not None and t > self.sigterm_at

    def relative(self, t):
        """`t` against the SIGTERM, for the report."""
        if self.sigterm_at is None:
            return "before the SIGTERM"
        return "%+.1f ms from the SIGTERM" % (1000 * (t - self.sigterm_at))


def http_client(run, port, load):
    """Sends `load` over one keep-alive connection until told to stop, or
    until refused after the SIGTERM."""
    records = []
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    on_conn = 0  # requests sent on the current connection, for the report
    while not run.stop_sending.is_set():
        if conn.sock is None:
            on_conn = 0
            try:
                conn.connect()
            except OSError as e:
                # The server never had this request: a refusal once it is
                # stopping (whenever the attempt began), an error before.
                late = run.after_sigterm(time.monotonic())
                records.append((load.name, "http", time.monotonic(),
                                REFUSED if late else DROPPED,
                                "connect: %r" % e))
                conn.close()
                if late:
                    break
                time.sleep(0.05)
                continue
        t_sent = None
        on_conn += 1
        try:
            conn.request("POST", load.path, body=load.body,
                         headers=load.headers)
            t_sent = time.monotonic()
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException) as e:
            # No response byte (getresponse raises before the status line
            # is read, or the send itself failed).
            conn.close()
            written_before = t_sent is not None and not run.after_sigterm(
                t_sent)
            late = run.after_sigterm(t_sent or time.monotonic())
            outcome = REFUSED if late and not written_before else DROPPED
            records.append((load.name, "http", time.monotonic(), outcome,
                            "no response: %r (written %s, request %d on "
                            "its connection)" % (
                                e, run.relative(t_sent) if t_sent
                                else "in part", on_conn)))
            if outcome == REFUSED:
                break
            continue
        try:
            body = resp.read()
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            records.append((load.name, "http", time.monotonic(), DROPPED,
                            "response cut off: %r" % e))
            continue
        outcome, detail = load.check_http(resp, body)
        records.append((load.name, "http", time.monotonic(), outcome, detail))
        if resp.will_close:
            conn.close()
    conn.close()
    run.finish_client("%s/http" % load.name, records)


def grpc_client(run, port, load):
    import tritonclient.grpc as grpcclient
    from tritonclient.utils import InferenceServerException
    records = []
    client = grpcclient.InferenceServerClient(url="127.0.0.1:%d" % port)
    inp = grpcclient.InferInput("x", list(load.x.shape), "FP32")
    inp.set_data_from_numpy(load.x)
    outputs = [grpcclient.InferRequestedOutput(load.output)]
    while not run.stop_sending.is_set():
        t_start = time.monotonic()
        try:
            res = client.infer(load.name, [inp], outputs=outputs,
                               client_timeout=120)
            got = res.as_numpy(load.output)
            ok = got is not None and close(got, load.want)[0]
            records.append((load.name, "grpc", time.monotonic(),
                            OK if ok else WRONG,
                            "" if ok else "output differs from the reference"))
        except InferenceServerException as e:
            status = str(e.status())
            late = run.after_sigterm(t_start)
            # A call begun after the SIGTERM may be turned away unprocessed:
            # UNAVAILABLE (port closed, GOAWAY), or CANCELLED when gRPC's
            # Shutdown() cancels it before its handler ran. One that could
            # not connect once the server was stopping never reached it,
            # whenever it began (as an HTTP connect() refused): gRPC moves
            # a call to a new connection only when the server has said,
            # by GOAWAY or REFUSED_STREAM, that it did not process it.
            # Nor did a unary call begun just before the SIGTERM that gRPC
            # cancelled itself after it (CANCELLED with gRPC's bare
            # message, none of the server's): its stream reached the server
            # as Shutdown() began, and the callback API cancels a call it
            # can no longer hand to a handler (its request matcher's
            # FailCallCreation). The server's Shutdown() has no deadline,
            # so it cancels no unary call a handler took (its stall watch
            # cancels only streams, which look the same to a client). Seen
            # once in eight runs: begun 0.7 ms before the SIGTERM.
            ended_late = run.after_sigterm(time.monotonic())
            never_taken = ended_late and (
                (status == "StatusCode.UNAVAILABLE" and
                 "failed to connect" in e.message()) or
                (status == "StatusCode.CANCELLED" and
                 e.message() == "CANCELLED" and
                 run.after_sigterm(t_start + 0.1)))
            refused = never_taken or (late and status in (
                "StatusCode.UNAVAILABLE", "StatusCode.CANCELLED"))
            records.append((load.name, "grpc", time.monotonic(),
                            REFUSED if refused else DROPPED,
                            "%s %s (begun %s)" % (
                                status, e.message(),
                                run.relative(t_start))))
            if late:
                break
            time.sleep(0.05)
    try:
        client.close()
    except Exception:  # closing a channel whose server is gone
        pass
    run.finish_client("%s/grpc" % load.name, records)


def vm_rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            m = re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M)
        return int(m.group(1)) if m else None
    except OSError:
        return None


def start_server(server, repo, log_path, http_threads):
    log = open(log_path, "wb")
    args = [server, "--model-repository", repo, "--host", "127.0.0.1",
            "--http-port", "0", "--grpc-port", "0"]
    if http_threads is not None:
        args += ["--http-threads", str(http_threads)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log)
    ports = []
    for pattern in (r"listening on 127\.0\.0\.1:(\d+)",
                    r"grpc listening on 127\.0\.0\.1:(\d+)"):
        line = proc.stdout.readline().decode()
        m = re.match(pattern, line)
        if not m:
            proc.kill()
            proc.wait()
            log.close()
            with open(log_path, errors="replace") as f:
                raise RuntimeError("server did not start: %r\n%s" % (
                    line, f.read()[-3000:]))
        ports.append(int(m.group(1)))
    return proc, log, ports[0], ports[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", required=True, help="pdlite_server binary")
    ap.add_argument("--build-dir", required=True,
                    help="where build/serve-venv is (or is made)")
    ap.add_argument("--seconds", type=float, default=30,
                    help="load duration before the SIGTERM (default 30)")
    ap.add_argument("--warmup", type=float, default=10,
                    help="RSS warm-up, seconds (default 10)")
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--grpc-clients", type=int, default=8,
                    help="how many of --clients use gRPC (default 8)")
    ap.add_argument("--http-threads", type=int, default=None,
                    help="the server's --http-threads (default: its own)")
    ap.add_argument("--max-drift", type=float, default=0.02,
                    help="the most VmRSS may grow after the warm-up, as a "
                    "fraction (default 0.02)")
    ap.add_argument("--max-wait", type=float, default=10.0,
                    help="the longest a client may wait for an answer")
    args = ap.parse_args()

    venv, python = ensure_venv(args.build_dir)
    if os.path.realpath(sys.prefix) != os.path.realpath(venv):
        os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])
    import numpy as np

    C = Results()
    with_shared = os.path.isdir(CLS)
    if not with_shared:
        print("load_test: %s absent: the demo model serves as both" % CLS)
    demo_x = np.load(os.path.join(DEMO, "input_x.npy"))
    demo_y = np.load(os.path.join(DEMO, "expected_softmax.tmp_0.npy"))
    loads = [ModelLoad("demo", demo_x, demo_y, "softmax.tmp_0")]
    if with_shared:
        out = "save_infer_model/scale_0.tmp_1"
        loads.append(ModelLoad(
            "cls", np.load(os.path.join(CLS, "ref", "input_x.npy")),
            np.load(os.path.join(CLS, "ref", "expected_%s.npy" %
                                 out.replace("/", "__"))), out))
    else:
        loads.append(ModelLoad("cls", demo_x, demo_y, "softmax.tmp_0"))

    tmp = tempfile.mkdtemp(prefix="pdlite_load_test_")
    proc = log = None
    try:
        repo = os.path.join(tmp, "repo")
        # Two instances each; dynamic batching on for the demo model only,
        # so both paths of the model code are under load.
        for name, target, config in (
                ("demo", DEMO, {"instances": 2, "max_batch_size": 8,
                                "batch_delay_us": 500}),
                ("cls", CLS if with_shared else DEMO, {"instances": 2})):
            os.makedirs(os.path.join(repo, name))
            os.symlink(target, os.path.join(repo, name, "1"))
            with open(os.path.join(repo, name, "config.json"), "w") as f:
                json.dump(config, f)
        log_path = os.path.join(tmp, "server.log")
        proc, log, port, grpc_port = start_server(
            args.server, repo, log_path, args.http_threads)
        pid = proc.pid
        n_grpc = min(args.grpc_clients, args.clients)
        print("load_test: server pid %d, HTTP %d, gRPC %d; %d clients "
              "(%d HTTP binary keep-alive, %d gRPC) in one process, "
              "%.0f s, models %s" % (
                  pid, port, grpc_port, args.clients, args.clients - n_grpc,
                  n_grpc, args.seconds,
                  ", ".join("%s %s" % (l.name, list(l.x.shape))
                            for l in loads)))

        run = Run()
        threads = []
        assigned = set()  # model/protocol pairs with a client
        for i in range(args.clients):
            load = loads[i % 2]
            assigned.add("%s/%s" % (load.name,
                                    "grpc" if i < n_grpc else "http"))
            if i < n_grpc:
                t = threading.Thread(target=grpc_client,
                                     args=(run, grpc_port, load))
            else:
                t = threading.Thread(target=http_client,
                                     args=(run, port, load))
            threads.append(t)

        t0 = time.monotonic()
        run.started_at = t0
        for t in threads:
            t.start()
        # Once a second: VmRSS, and (from the records so far) throughput.
        rss = []  # (second, kB)
        deadline = t0 + args.seconds
        tick = t0
        while True:
            tick += 1.0
            time.sleep(max(0.0, min(tick, deadline) - time.monotonic()))
            if time.monotonic() >= deadline - 1e-3:
                break
            kb = vm_rss_kb(pid)
            if kb is not None:
                rss.append((tick - t0, kb))
            if proc.poll() is not None:
                break
        final_kb = vm_rss_kb(pid)
        if final_kb is not None:
            rss.append((time.monotonic() - t0, final_kb))

        # SIGTERM with the clients still sending.
        run.sigterm_at = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            code = None
        stopped_at = time.monotonic()
        # Clients end by themselves once refused; the rest stop here.
        grace = time.monotonic() + 10
        for t in threads:
            t.join(max(0.0, grace - time.monotonic()))
        run.stop_sending.set()
        for t in threads:
            t.join(150)
        alive = sum(t.is_alive() for t in threads)

        # ---- the report ----
        sigterm_s = run.sigterm_at - t0
        per_second = collections.defaultdict(collections.Counter)
        during, after = collections.Counter(), collections.Counter()
        problems = []
        for model, proto, t_done, outcome, detail in run.records:
            s = int(t_done - t0)
            if outcome == OK:
                per_second[s]["%s/%s" % (model, proto)] += 1
            before = t_done <= run.sigterm_at
            (during if before else after)[outcome] += 1
            if outcome in (WRONG, DROPPED) and len(problems) < 20:
                problems.append("  %.3f s %s/%s %s: %s" % (
                    t_done - t0, model, proto, outcome, detail))
        kinds = sorted({k for c in per_second.values() for k in c})
        print("\nthroughput (correct answers per second):")
        print("  s    " + " ".join("%12s" % k for k in kinds) + "        all")
        for s in sorted(per_second):
            c = per_second[s]
            mark = "  <- SIGTERM" if s == int(sigterm_s) else ""
            print("  %-4d " % s + " ".join("%12d" % c[k] for k in kinds) +
                  " %10d%s" % (sum(c.values()), mark))
        n_load = sum(during.values())
        print("\ntotals before the SIGTERM (%.1f s): %d requests, %d correct, "
              "%d wrong, %d dropped, %.1f req/s" % (
                  sigterm_s, n_load, during[OK], during[WRONG],
                  during[DROPPED] + during[REFUSED],
                  during[OK] / max(sigterm_s, 1e-9)))
        print("after the SIGTERM: %d answered correctly, %d wrong, %d "
              "refused, %d dropped; server exited %s after %.2f s" % (
                  after[OK], after[WRONG], after[REFUSED], after[DROPPED],
                  code, stopped_at - run.sigterm_at))
        print("RSS series (s: MB): " + ", ".join(
            "%.0f: %.1f" % (t, kb / 1024.0) for t, kb in rss))
        if problems:
            print("first problems:\n" + "\n".join(problems))

        C.check(n_load > 0 and during[OK] == n_load,
                "%d clients for %.0f s: zero errors, every answer correct" % (
                    args.clients, args.seconds),
                "%s" % dict(during))
        for kind in sorted(assigned):
            C.check(sum(per_second[s][kind] for s in per_second) > 0,
                    "%s answered under load" % kind)
        # Every client, not only every kind: kept-alive HTTP clients beyond
        # the server's handler threads once waited for good while the
        # others were answered.
        worst = max(run.longest_waits, key=lambda w: w[1],
                    default=("none", float("inf")))
        C.check(len(run.longest_waits) == len(threads) and
                worst[1] < args.max_wait,
                "every client answered all through: longest wait %.2f s "
                "(%s; < %.0f s)" % (worst[1], worst[0], args.max_wait),
                "%d of %d clients reported" % (len(run.longest_waits),
                                               len(threads)))
        after_warmup = [kb for t, kb in rss if t >= args.warmup]
        if len(after_warmup) >= 2:
            # drift = (last - first) / first, first and last each the median
            # of (up to) ten one-second samples: a single sample moves by
            # 1-2% with the requests in flight at that instant. Without any
            # growth the medians still wander as glibc's heaps settle: up to
            # +3.8% between windows of one 2-core run before the server held
            # malloc to one arena per core (serve/main.cc), -0.4% to +1.1%
            # in six runs since (2026-12-06, 64-66 MB). So the bound is
            # issue 15's 2%.
            n = max(1, min(10, len(after_warmup) // 3))
            first = sorted(after_warmup[:n])[n // 2]
            last = sorted(after_warmup[-n:])[n // 2]
            drift = (last - first) / float(first)
            C.check(drift < args.max_drift,
                    "RSS flat after %.0f s warm-up: %.1f -> %.1f MB, drift "
                    "%+.2f%% (< %.0f%%)" % (args.warmup, first / 1024.0,
                                           last / 1024.0, 100 * drift,
                                           100 * args.max_drift),
                    "")
        else:
            C.check(False, "RSS sampled after the warm-up",
                    "only %d samples past %.0f s: run longer (--seconds)" % (
                        len(after_warmup), args.warmup))
        C.check(after[WRONG] == 0 and after[DROPPED] == 0 and
                during[DROPPED] == 0,
                "SIGTERM with requests in flight: none dropped, every "
                "answer correct (%d answered, %d refused)" % (
                    after[OK], after[REFUSED]), "%s" % dict(after))
        C.check(code == 0, "SIGTERM: server exits 0", "exit %s" % code)
        C.check(alive == 0, "every client thread ended", "%d alive" % alive)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            C.check(False, "no longer listening after exit")
        except OSError:
            C.check(True, "no longer listening after exit")
        if C.failed:
            log.flush()
            with open(log_path, errors="replace") as f:
                print("server log tail:\n" + f.read()[-3000:])
    except Exception as e:  # report, clean up, fail
        import traceback
        traceback.print_exc()
        C.check(False, "the test ran to its end", repr(e))
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc is not None:
            proc.stdout.close()
        if log is not None:
            log.close()
        shutil.rmtree(tmp, ignore_errors=True)
    C.check(not os.path.exists(tmp), "temporary folder removed")
    return C.summary()


if __name__ == "__main__":
    sys.exit(main())
