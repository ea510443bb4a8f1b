"""The Python half of bench/abi_overhead.cpp: the same calls through ctypes (savekit.Prefs).
  SAVEKIT_LIBRARY=... PYTHONPATH=bindings/python python3 bench/bindings/abi_overhead.py FOLDER [ROUNDS]
"""
import json
import statistics
import sys
import time

import savekit


def ns_per_call(n, body):
    start = time.perf_counter_ns()
    for i in range(n):
        body(i)
    return (time.perf_counter_ns() - start) / n


def main():
    folder, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
    blob = b"\x5a" * 4096
    ints, sets = [], []
    with savekit.Prefs(f"{folder}/py.prefs") as prefs:
        def int_pair(i):
            prefs.set_int("level", i)
            prefs.get_int("level")

        for r in range(rounds + 1):
            a = ns_per_call(20000, int_pair)
            b = ns_per_call(5000, lambda i: prefs.set_bytes("blob", blob))
            if r:
                ints.append(a)
                sets.append(b)
    for op, values in (("set_int+get_int", ints), ("set_bytes 4 KB", sets)):
        print(json.dumps({"layer": "Python ctypes", "op": op, "ns": round(statistics.median(values), 2)}))


if __name__ == "__main__":
    main()
