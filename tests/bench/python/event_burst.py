"""A rank for bench_remote: writes metric events on STUDIO_EVENTS_FD, each stamped with the time
it was written. BURST_COUNT events as fast as it can, or RATE events a second for SECONDS (to
measure how long an event takes to reach the studio). Rank 0 only; the others just wait."""
import os
import time


def main():
    if os.environ.get("RANK", "0") != "0":
        return
    out = os.fdopen(int(os.environ["STUDIO_EVENTS_FD"]), "w", buffering=1 << 20)
    count = int(os.environ.get("BURST_COUNT", "0"))
    if count:
        now = time.time()
        chunk = []
        for i in range(count):
            chunk.append('{"v":1,"kind":"metric","t":%.6f,"name":"burst","step":%d,"value":%d}\n'
                         % (now, i, i))
            if len(chunk) == 10000:
                out.write("".join(chunk))
                chunk = []
        out.write("".join(chunk))
        out.flush()
        return
    rate = float(os.environ.get("RATE", "50"))
    seconds = float(os.environ.get("SECONDS", "10"))
    for i in range(int(rate * seconds)):
        out.write('{"v":1,"kind":"metric","t":%.6f,"name":"latency","step":%d,"value":0}\n'
                  % (time.time(), i))
        out.flush()
        time.sleep(1.0 / rate)


if __name__ == "__main__":
    main()
