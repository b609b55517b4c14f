"""The anchor of bench_kernel_roundtrip: jupyter_client's own BlockingKernelClient timing the
execute-to-idle round trip of `1+1` on a kernel that the bench started (same connection file).

A round is what the bench times for the studio's client (jupyter-protocol.md section 6): from
sending execute_request until both the request's idle status on IOPub and its execute_reply on
shell have arrived, the way jupyter_client's execute_interactive waits.

Protocol on stdin/stdout (one JSON object per line on stdout):
  start     -> {"ready": true, "jupyter_client": "<version>"}
  "run N\n" -> {"times": [seconds per round], "ok": true|false, "error": "..."}
  "quit\n" or end of input -> exit
Run with Debian's /usr/bin/python3 (python3-jupyter-client).
"""

import json
import queue
import sys
import time

import jupyter_client
from jupyter_client import BlockingKernelClient

TIMEOUT = 60.0


def drain_iopub(kc):
    """Reads what the other client's rounds left in our IOPub queue, untimed."""
    while True:
        try:
            kc.get_iopub_msg(timeout=0.05)
        except queue.Empty:
            return


def one_round(kc):
    """Times one execute of 1+1 to its idle status and reply; checks the result is 2."""
    start = time.perf_counter()
    msg_id = kc.execute("1+1")
    result = None
    while True:
        msg = kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "execute_result":
            result = msg["content"]["data"].get("text/plain")
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    while True:
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    elapsed = time.perf_counter() - start
    ok = result == "2" and reply["content"]["status"] == "ok"
    return elapsed, ok


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: jupyter_client_roundtrip.py CONNECTION_FILE")
    kc = BlockingKernelClient(connection_file=sys.argv[1])
    kc.load_connection_file()
    kc.start_channels()
    kc.wait_for_ready(timeout=TIMEOUT)
    print(json.dumps({"ready": True, "jupyter_client": jupyter_client.__version__}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        if words[0] != "run" or len(words) != 2:
            print(json.dumps({"ok": False, "error": "unknown command: " + line.strip()}),
                  flush=True)
            continue
        drain_iopub(kc)
        times, ok, error = [], True, ""
        try:
            for _ in range(int(words[1])):
                elapsed, good = one_round(kc)
                times.append(elapsed)
                ok = ok and good
        except queue.Empty:
            ok, error = False, "no reply within %d s" % TIMEOUT
        print(json.dumps({"times": times, "ok": ok, "error": error}), flush=True)
    kc.stop_channels()


if __name__ == "__main__":
    main()
