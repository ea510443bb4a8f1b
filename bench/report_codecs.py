#!/usr/bin/env python3
"""Turns codec_bench's Google Benchmark JSON into a Markdown table with ratios.

    report_codecs.py results.json > results/codecs.md

For each object and operation, each way's time is shown with its ratio to savekit's
way of the same class (JSON peers against savekit JSON, binary peers against savekit
MessagePack map form), MB/s, encoded size and heap allocations per operation.
"""
import json
import sys

BINARY = ("MessagePack", "msgpack")


def savekit_reference(way):
    return "savekit MessagePack map" if any(b in way for b in BINARY) else "savekit JSON"


def main(path):
    with open(path) as f:
        data = json.load(f)
    context = data["context"]
    rows = {}
    order = []
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"])
        obj, op, way = name.split("/", 2)
        key = (obj, op)
        if key not in rows:
            rows[key] = {}
            order.append(key)
        rows[key][way] = b

    print(f"Machine: {context.get('host_name', '?')}, {context.get('num_cpus')} x {context.get('mhz_per_cpu')} MHz; "
          f"run {context.get('date')}.")
    print("Times are real time per operation (median of repetitions when repeated). Ratio: this way's time over "
          "savekit's of the same class — above 1.00 means slower than savekit.\n")
    for obj, op in order:
        print(f"### {obj} — {op}\n")
        print("| way | ns/op | ratio | MB/s | size (B) | allocs/op | bytes alloc/op |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        ways = rows[(obj, op)]
        for way, b in sorted(ways.items(), key=lambda kv: kv[1]["real_time"]):
            ref = ways.get(savekit_reference(way))
            ratio = b["real_time"] / ref["real_time"] if ref else float("nan")
            mbps = b.get("bytes_per_second", 0) / 1e6
            print(f"| {way} | {b['real_time']:.0f} | {ratio:.2f} | {mbps:.0f} | {b.get('size', 0):.0f} | "
                  f"{b.get('allocs_per_op', 0):.1f} | {b.get('alloc_bytes_per_op', 0):.0f} |")
        print()


if __name__ == "__main__":
    main(sys.argv[1])
