#!/usr/bin/env python3
"""Turns store_bench's Google Benchmark JSON into Markdown tables.

    report_store.py results.json > results/store.md
"""
import json
import sys


def main(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        rows[b.get("run_name", b["name"])] = b

    def ns(name):
        return rows[name]["real_time"] if name in rows else float("nan")

    print("### Per key and whole object (memory backend, no commit)\n")
    print("| operation | store ns/op | codec alone ns/op | store adds ns |")
    print("|---|---:|---:|---:|")
    for op in ("set", "get"):
        print(f"| {op}: per key, 11 keys (the seed's \"non Serialize\") | {ns(f'Status/{op}/per-key (11 keys)'):.0f} | – | – |")
        for fmt in ("MessagePack map", "MessagePack compact", "JSON"):
            store = ns(f"Status/{op}/object {fmt}")
            codec = ns(f"Status/{op}/codec only {fmt}")
            print(f"| {op}: object, {fmt} | {store:.0f} | {codec:.0f} | {store - codec:.0f} |")
    print()
    print("### Commit latency against store size (file backend; one small key changed, then save())\n")
    baseline_name = next((n for n in rows if n.startswith("commit/baseline")), None)
    baseline = rows[baseline_name]["real_time"] if baseline_name else float("nan")
    print("| store size (bytes on disk) | µs per commit | ratio to a raw 200 B append + fdatasync |")
    print("|---:|---:|---:|")
    for name, b in rows.items():
        if name.startswith("commit/one"):
            print(f"| {b.get('store_bytes', 0):,.0f} | {b['real_time']:.0f} | {b['real_time'] / baseline:.2f} |")
    print(f"| baseline: raw 200 B append + fdatasync | {baseline:.0f} | 1.00 |")
    print()
    print("### Open time against store size\n")
    print("| store size (prefilled bytes) | ms to open | MB/s |")
    print("|---:|---:|---:|")
    for name, b in rows.items():
        if name.startswith("open/"):
            size = int(name.split("/")[1].split("_")[0])
            print(f"| {size:,} | {b['real_time']:.2f} | {b.get('bytes_per_second', 0) / 1e6:.0f} |")


if __name__ == "__main__":
    main(sys.argv[1])
