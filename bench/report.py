#!/usr/bin/env python3
"""Tables (and charts) from the benchmarks' JSON output: one module for all three.

    report.py studies RESULTS.json OUTPUT_DIR [WASM_NODE.json [WASM_CHROMIUM.json]]
        bench/seed_studies's results: writes OUTPUT_DIR/seed_studies.md (also printed),
        seed_studies_headline.md (the README's short table), seed_studies.csv and the charts
        study_a, study_b_time, study_b_size (.png, .svg). Needs Debian's python3-matplotlib
        (run it with /usr/bin/python3).
    report.py codecs RESULTS.json     codec_bench's Google Benchmark JSON: Markdown tables
        with each way's time as a ratio to savekit's way of the same class.
    report.py store RESULTS.json      store_bench's Google Benchmark JSON: Markdown tables.
    report.py slots RESULTS.json      slots_bench's: the load menu and background writes.
    report.py seal RESULTS.json       seal_bench's: compression ratios and speeds, sealing costs;
                                      the chart seal_ratios (.png, .svg) beside RESULTS.json.
    report.py seal-wasm RESULTS.jsonl seal_costs' lines, native and WebAssembly: the two side by side.
    report.py wasm-gap RESULTS.jsonl  wasm_gap's lines, native and WebAssembly: each part of study A's compact round trip.
    report.py server RESULTS.jsonl    server_load's lines: savekit-server beside its database driver alone.
    report.py e2e RESULTS.json        e2e_bench: prefs and slots, each step beside its floor.
    report.py failover TIMES.jsonl    cluster_history.py --times: a primary's death to the first acknowledged write.
    report.py abi RESULTS.jsonl       abi_overhead's lines (C++, C ABI, C#, Python): each layer beside C++.
    report.py study-a-layers RESULTS.jsonl   study A from C# (bindings/StudyA.cs) beside C++ (study_a_layers).
"""
import csv
import json
import math
import os
import re
import statistics
import sys

# The seeds' own published figures (other machines, C#, Unity): ms per 10,000 operations.
SEED_A = [  # way, Windows save, Windows load, WebGL save, WebGL load
    ("non Serialize", 1463, 1001, 5542, 46),
    ("JsonUtility / JSON", 277, 268, 868, 191),
    ("Utf8Json / JSON", 189, 166, 645, 100),
    ("Utf8Json / Base64", 176, 193, 647, 118),
    ("ZeroFormatter / Base64", 189, 180, 657, 78),
    ("MessagePack-CSharp / Base64", 181, 145, 663, 67),
    ("MessagePack-CSharp / JSON", 214, 206, 764, 157),
]
SEED_B = [  # library, serialize ms, deserialize ms per 10,000; JSON size
    ("Unity JsonUtility", 63, 85, 101),
    ("LitJSON", 74, 234, 101),
    ("Json.NET", 86, 148, 101),
    ("Full Serializer", 307, 787, 101),
]


def stats(runs):
    """min, median, spread flag (runs differing by more than 10%)."""
    if not runs:
        return None
    low, mid = min(runs), statistics.median(runs)
    unstable = len(runs) > 1 and (max(runs) - low) / low > 0.10
    return low, mid, unstable


def fmt_ms(value):
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def cell(runs, per_op_divisor):
    s = stats(runs)
    if s is None:
        return "–", "–"
    low, mid, unstable = s
    flag = " ⚠" if unstable else ""
    return f"{fmt_ms(mid)} (min {fmt_ms(low)}){flag}", f"{mid * 1e6 / per_op_divisor:.0f}"


def wasm_section(data, out):
    """Study A as WebAssembly (node, Chromium) beside native figures of this same run.

    With wasm_native (bench/web/run_study_a.mjs), the three builds ran in turn, one run each
    per round: × is the median over the rounds of that round's WebAssembly ÷ native, so a
    slow spell of the machine falls on both sides of a ratio. Without it, the native
    figures are the native study's and × a ratio of medians."""
    node, chromium, native_run = data.get("wasm_node"), data.get("wasm_chromium"), data.get("wasm_native")
    if not node and not chromium:
        return
    n = data["iterations"]
    durable = {r["way"]: statistics.median(r["save_ms"]) * 1000 / data["durable_iterations"] for r in data["study_a_durable"]}
    if native_run:
        native_rounds = {w["name"]: (w["save_ns"], w["load_ns"]) for w in native_run["memory"]}
    else:
        native_rounds = {r["way"]: ([x * 1e6 / n for x in r["save_ms"]], [x * 1e6 / n for x in r["load_ms"]])
                         for r in data["study_a"]}
    runs = {name: {w["name"]: (w["save_ns"], w["load_ns"]) for w in d["memory"]}
            for name, d in (("node", node), ("chromium", chromium)) if d}

    def ratio(wasm, native):
        if native_run and len(wasm) == len(native):
            return statistics.median(w / x for w, x in zip(wasm, native))
        return statistics.median(wasm) / statistics.median(native)

    first = node or chromium
    out(f"### Study A as WebAssembly — the same code (bench/study_a_memory.hpp) built with em++, in the same run")
    out("")
    if native_run:
        out(f"In memory, {first['iterations']:,} saves and loads per run; {native_run.get('interleaved_rounds', 1)} rounds, "
            "each running the native build (g++ -O3, the same code, peers and C++ standard: bench/study_a_native.cpp), "
            "node and Chromium in turn, the order rotating; ns per operation, medians of the rounds; "
            "× = WebAssembly ÷ native, the median of the rounds' own ratios. ")
    else:
        out(f"In memory, {first['iterations']:,} saves and loads per run, median of {first['runs']} runs, ns per operation; "
            "× = WebAssembly ÷ native. ")
    lines_env = " · ".join(f"{k}: {d['environment']}" for k, d in (("node", node), ("Chromium", chromium)) if d)
    out(lines_env + ". The peers' rows (nlohmann/json, RapidJSON) show what this machine makes of WebAssembly "
        "for code savekit does not control.")
    out("")
    out("| way | native save · load | node save · load | × node | Chromium save · load | × Chromium |")
    out("|---|---:|---:|---:|---:|---:|")
    for name, (native_save, native_load) in native_rounds.items():
        row = [name, f"{statistics.median(native_save):.0f} · {statistics.median(native_load):.0f}"]
        present = False
        for env in ("node", "chromium"):
            got = runs.get(env, {}).get(name)
            if got:
                present = True
                row += [f"{statistics.median(got[0]):.0f} · {statistics.median(got[1]):.0f}",
                        f"{ratio(got[0], native_save):.2f} · {ratio(got[1], native_load):.2f}"]
            else:
                row += ["–", "–"]
        if present:
            out("| " + " | ".join(row) + " |")
    out("")
    if chromium and chromium.get("indexeddb"):
        out(f"Durable: a committed save after every save — natively the file backend (fdatasync), in Chromium the "
            f"IndexedDB backend (a readwrite transaction with durability \"strict\", awaited); "
            f"{chromium['indexeddb_iterations']} saves per way in the browser, µs per save + commit:")
        out("")
        out("| way | native file | Chromium IndexedDB |")
        out("|---|---:|---:|")
        for w in chromium["indexeddb"]:
            nat = durable.get(w["name"])
            out(f"| {w['name']} | {'–' if nat is None else f'{nat:.0f}'} | {w['save_commit_us']:.0f} |")
        out("")
    verdicts = verdict_sentences(wasm_verdicts(data))
    if verdicts:
        out("The target in each engine: every savekit row faster than every peer's, and savekit's compact form "
            "faster than the hand-written codec of the same bytes (bench/status_floor.hpp) through the same store. "
            + " ".join(verdicts))
        out("")
    out("The seed's WebGL column (Unity WebGL build, PlayerPrefs, **theirs**, other machine), ns per operation: "
        + "; ".join(f"{way} {save * 100:.0f} · {load * 100:.0f}" for way, _, _, save, load in SEED_A) + ".")
    out("")


def studies_report(path, out_dir, wasm_files=()):
    with open(path) as f:
        data = json.load(f)
    for key, file in wasm_files:
        if file and os.path.exists(file):
            with open(file) as f:
                data[key] = json.load(f)
    m = data["machine"]
    n, runs, durable_n = data["iterations"], data["runs"], data["durable_iterations"]
    lines = []
    out = lines.append

    out(f"Machine: {m['cpu']}, {m['cores']} cores; compiler g++ {m['compiler']}, flags `{m['flags'].strip()}`; run {m['date']}.")
    out("Libraries: " + ", ".join(f"{k} {v}" for k, v in m["libraries"].items()) + ".")
    if m.get("skipped"):
        out("Not installed when the studies were built, so without rows: " + ", ".join(m["skipped"]) + ".")
    out(f"Each figure is the median of {runs} run(s) (min in brackets); ⚠ marks rows whose runs differ by more than 10%.")
    out("")

    out(f"### Study A — save and load the seed's Status through the store ({n:,} of each per run)")
    out("")
    out("Save = serialize + encode + `prefs` set (in memory, as PlayerPrefs.SetString); load = get + decode + deserialize. "
        "Every field checked after the runs.")
    out("")
    out(f"| way | stored as | bytes | save ms / {n:,} | load ms / {n:,} | save ns/op | load ns/op | allocs/op save · load |")
    out("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in data["study_a"]:
        save, save_ns = cell(r["save_ms"], n)
        load, load_ns = cell(r["load_ms"], n)
        out(f"| {r['way']} | {r['stored_as']} | {r['stored_bytes']} | {save} | {load} | {save_ns} | {load_ns} | "
            f"{r['save_allocs_per_op']:.1f} · {r['load_allocs_per_op']:.1f} |")
    out("")
    summary_a_end = len(lines)
    seed_a_lines = ["The seed's own figures, for reference — **theirs**: C#, Unity 2018, other machines; ms per 10,000:", "",
                    "| way (seed) | Windows save | Windows load | WebGL save | WebGL load |", "|---|---:|---:|---:|---:|"]
    seed_a_lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in SEED_A] + [""]
    out(f"### Study A with a durable `save()` after every save ({durable_n:,} per run; file backend, fdatasync each time)")
    out("")
    out(f"| way | save + commit ms / {durable_n:,} | µs per save + commit | load ms / {durable_n:,} |")
    out("|---|---:|---:|---:|")
    for r in data["study_a_durable"]:
        save, _ = cell(r["save_ms"], durable_n)
        load, _ = cell(r["load_ms"], durable_n)
        mid = statistics.median(r["save_ms"]) * 1000 / durable_n
        out(f"| {r['way']} | {save} | {mid:.0f} | {load} |")
    out("")
    lines.extend(seed_a_lines)

    wasm_start = len(lines)
    wasm_section(data, out)
    wasm_end = len(lines)

    summary_b_start = len(lines)
    out(f"### Study B — the seed's SaveGame, {n:,} serializations and {n:,} deserializations per run")
    out("")
    out("Deserialize = into a new object each time, as the seed did; *reuse* = into one object kept across calls.")
    out("")
    out(f"| library | kind | size (B) | serialize ms / {n:,} | deserialize ms / {n:,} | serialize ns/op | deserialize ns/op | allocs/op serialize · deserialize · reuse |")
    out("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in data["study_b"]:
        ser, ser_ns = cell(r["serialize_ms"], n)
        des, des_ns = cell(r["deserialize_ms"], n)
        sa = "–" if r["serialize_allocs_per_op"] is None else f"{r['serialize_allocs_per_op']:.1f}"
        ra = "–" if r["deserialize_reuse_allocs_per_op"] is None else f"{r['deserialize_reuse_allocs_per_op']:.1f}"
        out(f"| {r['library']} | {r['kind']} | {r['size']} | {ser} | {des} | {ser_ns} | {des_ns} | "
            f"{sa} · {r['deserialize_allocs_per_op']:.1f} · {ra} |")
    out("")
    summary_b_end = len(lines)
    seed_b_lines = ["The seed's own figures — **theirs**: C#, Unity 5.4, macOS; ms per 10,000:", "",
                    "| library (seed) | serialize | deserialize | JSON size |", "|---|---:|---:|---:|"]
    seed_b_lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in SEED_B]
    lines.extend(seed_b_lines + [""])
    out("Each library's output and the object it read back (the seed printed them too):")
    out("")
    out("```")
    for r in data["study_b"]:
        label = "output" if r["output_encoding"] == "text" else "output (Base64 of binary)"
        out(f"{r['library']}: {label}: {r['output']}")
        out(f"{' ' * len(r['library'])}  read back: {r['deserialized']}")
    out("```")
    out("")

    out("### The large save")
    out("")
    out("| object | library | size (B) | serialize ms | deserialize ms | serialize MB/s | deserialize MB/s |")
    out("|---|---|---:|---:|---:|---:|---:|")
    for r in data["large"]:
        mb = r["size"] / 1e6
        out(f"| {r['object']} | {r['library']} | {r['size']:,} | {r['serialize_ms']:.2f} | {r['deserialize_ms']:.2f} | "
            f"{mb / (r['serialize_ms'] / 1000):.0f} | {mb / (r['deserialize_ms'] / 1000):.0f} |")
    out("")

    text = "\n".join(lines)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "seed_studies.md"), "w") as f:
        f.write("# The seeds' studies, reproduced\n\nProduced by `scripts/run.sh` (bench/seed_studies + bench/report.py).\n\n")
        f.write(text + "\n\n![Study A](study_a.svg)\n\n![Study B time](study_b_time.svg)\n\n![Study B size](study_b_size.svg)\n")
    print(text)

    # The README shows a few rows of each study; the full report has the rest.
    with open(os.path.join(out_dir, "seed_studies_headline.md"), "w") as f:
        f.write("\n".join(headline(data)) + "\n")

    with open(os.path.join(out_dir, "seed_studies.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["study", "name", "kind", "size_bytes", "save_or_serialize_ms_median", "load_or_deserialize_ms_median",
                    "iterations", "allocs_per_op_save", "allocs_per_op_load"])
        for key, count in (("study_a", n), ("study_a_durable", durable_n)):
            for r in data[key]:
                w.writerow([key, r["way"], r["stored_as"], r["stored_bytes"], statistics.median(r["save_ms"]),
                            statistics.median(r["load_ms"]), count, r["save_allocs_per_op"], r["load_allocs_per_op"]])
        for r in data["study_b"]:
            w.writerow(["study_b", r["library"], r["kind"], r["size"],
                        statistics.median(r["serialize_ms"]) if r["serialize_ms"] else "",
                        statistics.median(r["deserialize_ms"]), n, r["serialize_allocs_per_op"], r["deserialize_allocs_per_op"]])
        for r in data["large"]:
            w.writerow(["large", r["library"], r["object"], r["size"], r["serialize_ms"], r["deserialize_ms"], 1, "", ""])

    charts(data, out_dir)


def headline(data):
    """The README's short table: savekit's main ways beside the seed's per-key baseline and the
    fastest peer of each study (by save + load, or serialize + deserialize), medians."""
    n = data["iterations"]
    m = data["machine"]

    def ns(runs):
        return statistics.median(runs) * 1e6 / n if runs else None

    def show(value):
        return "–" if value is None else f"{value:.0f}"

    a = data["study_a"]
    savekit_a = [r for r in a if r["library"] == "savekit"]
    peers_a = [r for r in a if r["library"] not in ("savekit", "savekit::prefs", "hand-written")
               and not r.get("loads_only")]
    floor_a = [r for r in a if r["library"] == "hand-written"]
    baseline_a = [r for r in a if r["library"] == "savekit::prefs"]
    fastest_a = min(peers_a, key=lambda r: ns(r["save_ms"]) + ns(r["load_ms"]), default=None)
    lines = [f"Medians of {data['runs']} runs of {n:,}, ns per operation; {m['cpu']}, g++ `{m['flags'].strip()}`, "
             f"{m['date'][:10]}.", "",
             "| study A: the seed's Status through the store | stored as | save | load |", "|---|---|---:|---:|"]
    for r in baseline_a + savekit_a + floor_a + ([fastest_a] if fastest_a else []):
        label = r["way"] + (" (fastest peer)" if r is fastest_a else " (the seed's baseline)" if r in baseline_a
                            else " (the same bytes)" if r in floor_a else "")
        lines.append(f"| {label} | {r['stored_as']} | {show(ns(r['save_ms']))} | {show(ns(r['load_ms']))} |")
    lines += ["", "| study B: the seed's SaveGame | size (B) | serialize | deserialize |", "|---|---:|---:|---:|"]
    b = data["study_b"]
    for kind in ("JSON", "binary"):
        ours = [r for r in b if r["kind"] == kind and r["library"].startswith("savekit")]
        peers = [r for r in b if r["kind"] == kind and not r["library"].startswith("savekit") and r["serialize_ms"]]
        fastest = min(peers, key=lambda r: ns(r["serialize_ms"]) + ns(r["deserialize_ms"]), default=None)
        for r in ours + ([fastest] if fastest else []):
            label = r["library"] + (f" (fastest {kind} peer)" if r is fastest else "")
            lines.append(f"| {label} | {r['size']} | {show(ns(r['serialize_ms']))} | {show(ns(r['deserialize_ms']))} |")
    return lines + wasm_headline(data)


def wasm_verdicts(data):
    """Per engine measured (node, Chromium): study A's medians per way, and whether every savekit
    row saves and loads faster than every peer's, and savekit's compact form than the
    hand-written codec of the same bytes (the targets of issue 46)."""
    engines = []
    for env, label in (("node", "node"), ("chromium", "Chromium")):
        d = data.get(f"wasm_{env}")
        if not d:
            continue
        med = {w["name"]: (statistics.median(w["save_ns"]), statistics.median(w["load_ns"])) for w in d["memory"]}
        ours = {k: v for k, v in med.items() if k.startswith("savekit")}
        floor = med.get("hand-written compact codec")
        peers = {k: v for k, v in med.items()
                 if not k.startswith("savekit") and k != "hand-written compact codec" and k != "non Serialize (11 keys)"}
        compact = ours.get("savekit MessagePack compact")
        # (savekit row, save or load, the faster peer, its time) for each peer faster than a savekit row
        beaten = []
        for name, o in ours.items():
            for i, op in ((0, "save"), (1, "load")):
                faster = [(k, v[i]) for k, v in peers.items() if v[i] <= o[i]]
                if faster:
                    peer, t = min(faster, key=lambda kv: kv[1])
                    beaten.append((name, op, o[i], peer, t))
        verdict = {
            "peers": beaten if peers else None,
            "floor": (compact[0] < floor[0], compact[1] < floor[1]) if compact and floor else None,
        }
        engines.append((label, med, ours, floor, peers, verdict))
    return engines


def wasm_headline(data):
    engines = wasm_verdicts(data)
    if not engines:
        return []
    lines = ["", "| study A as WebAssembly, ns | " + " | ".join(f"{e[0]} save | {e[0]} load" for e in engines) + " |",
             "|---|" + "---:|---:|" * len(engines)]
    first = engines[0]
    fastest_peer = min(first[4], key=lambda k: sum(first[4][k]), default=None)
    names = list(first[2]) + (["hand-written compact codec"] if first[3] else []) + ([fastest_peer] if fastest_peer else [])
    for name in names:
        label = name + (" (the same bytes)" if name == "hand-written compact codec" else
                        " (fastest peer)" if name == fastest_peer else "")
        cells = []
        for e in engines:
            got = e[1].get(name)
            cells += [f"{got[0]:.0f}", f"{got[1]:.0f}"] if got else ["–", "–"]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines + [""] + verdict_sentences(engines)


def verdict_sentences(engines):
    """One sentence per engine: the targets of wasm_verdicts, met or not, and each exception."""
    lines = []
    for label, _, _, _, _, verdict in engines:
        said = []
        if verdict["peers"] is not None:
            said.append("every savekit row saves and loads faster than every peer's" +
                        ("" if not verdict["peers"] else ", **except** " + ", ".join(
                            f"{name}'s {op} ({t:.0f} ns; {peer} {pt:.0f} ns)"
                            for name, op, t, peer, pt in verdict["peers"])))
        if verdict["floor"] is not None:
            save_ok, load_ok = verdict["floor"]
            said.append("savekit's compact form " + ("saves and loads" if save_ok and load_ok else
                                                     "saves" if save_ok else "loads" if load_ok else "neither saves nor loads")
                        + " faster than the hand-written codec of the same bytes" +
                        ("" if save_ok and load_ok else " (**not** " + ("loads" if save_ok else "saves" if load_ok
                                                                         else "either") + ")"))
        lines.append(f"In {label}: " + "; ".join(said) + ".")
    return lines


def bar_chart(names, series, title, ylabel, path_base, log=False):
    import matplotlib  # imported only by the reports that draw charts

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 5.5))
    width = 0.8 / len(series)
    for i, (label, values) in enumerate(series):
        xs = [x + (i - (len(series) - 1) / 2) * width for x in range(len(names))]
        ax.bar(xs, [v if v is not None else 0 for v in values], width, label=label)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if log:
        ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)
    if len(series) > 1:
        ax.legend()
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{path_base}.{ext}", dpi=110)
    plt.close(fig)


def charts(data, out_dir):
    n = data["iterations"]
    a = data["study_a"]
    bar_chart([r["way"] for r in a],
              [("save", [statistics.median(r["save_ms"]) for r in a]), ("load", [statistics.median(r["load_ms"]) for r in a])],
              f"Study A: ms per {n:,} saves / loads of Status (lower is better)", f"ms per {n:,} (log scale)",
              os.path.join(out_dir, "study_a"), log=True)
    b = data["study_b"]
    bar_chart([r["library"] for r in b],
              [("serialize", [statistics.median(r["serialize_ms"]) if r["serialize_ms"] else None for r in b]),
               ("deserialize", [statistics.median(r["deserialize_ms"]) for r in b])],
              f"Study B: ms per {n:,} of SaveGame (lower is better)", f"ms per {n:,} (log scale)",
              os.path.join(out_dir, "study_b_time"), log=True)
    bar_chart([r["library"] for r in b], [("size", [r["size"] for r in b])], "Study B: SaveGame size per library",
              "bytes", os.path.join(out_dir, "study_b_size"))


# ---- Google Benchmark output (codec_bench, store_bench) ---------------------------------------

def benchmark_rows(path):
    """The file's context and its benchmarks by run name: medians when repeated."""
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        # (A fixed number of iterations is part of the name Google Benchmark gives: left out.)
        rows[re.sub(r"/iterations:\d+", "", b.get("run_name", b["name"]))] = b
    return data["context"], rows


BINARY = ("MessagePack", "msgpack")


def savekit_reference(way):
    if any(form in way for form in ("compact", "array", "BEVE", "floor")):
        return "savekit MessagePack compact"
    return "savekit MessagePack map" if any(b in way for b in BINARY) else "savekit JSON"


GLAZE_PAIRS = [  # (family, savekit's way, glaze's way doing the same)
    ("JSON", "savekit JSON", "glaze JSON"),
    ("MessagePack", "savekit MessagePack compact", "glaze MessagePack array"),
    ("MessagePack", "savekit MessagePack map", "glaze MessagePack map"),
]


def glaze_table(groups):
    """savekit beside glaze, case by case: ratio = glaze's time / savekit's (> 1: savekit is
    faster), with the geometric mean of each family; and the compact form against the floor."""
    lines, ratios, behind = [], {}, {}
    for (obj, op), ways in groups.items():
        for family, ours, theirs in GLAZE_PAIRS:
            if ours in ways and theirs in ways:
                ratio = ways[theirs]["real_time"] / ways[ours]["real_time"]
                ratios.setdefault(family, []).append(ratio)
                if ratio < 1:
                    behind.setdefault(family, []).append(f"{obj} {op} {ours.removeprefix('savekit ')} {ratio:.2f}")
                lines.append(f"| {obj} | {op} | {ours} | {ways[ours]['real_time']:.0f} | {theirs} | "
                             f"{ways[theirs]['real_time']:.0f} | {ratio:.2f}{'' if ratio >= 1 else ' ✗'} |")
    if not lines:
        return []
    out = ["### savekit beside glaze", "",
           "ns per operation; ratio = glaze ÷ savekit (above 1.00: savekit is faster; ✗ marks a case where it is "
           "not). glaze validates less than savekit (UTF-8 in strings, the values it skips).", "",
           "| object | operation | savekit | ns | glaze | ns | ratio |", "|---|---|---|---:|---|---:|---:|"] + lines + [""]
    for family, values in ratios.items():
        geomean = math.exp(sum(math.log(v) for v in values) / len(values))
        slower = sum(1 for v in values if v < 1)
        out.append(f"- {family}: geometric mean {geomean:.2f}× over {len(values)} cases; savekit slower in {slower}"
                   + (f" ({', '.join(behind[family])})." if slower else "."))
    floor = [(obj, op, ways["savekit MessagePack compact"]["real_time"] / ways["hand-written floor"]["real_time"])
             for (obj, op), ways in groups.items() if "hand-written floor" in ways and "savekit MessagePack compact" in ways]
    if floor:
        out.append("- The compact form against the hand-written floor (savekit ÷ floor): " +
                   "; ".join(f"{obj} {op} {ratio:.2f}×" for obj, op, ratio in floor) + ".")
    return out + [""]


def codecs_report(path):
    context, rows = benchmark_rows(path)
    groups = {}  # (object, operation) -> {way: benchmark}
    for name, b in rows.items():
        obj, op, way = name.split("/", 2)
        groups.setdefault((obj, op), {})[way] = b
    # A fixed order (repetitions run interleaved, so the file's order is random).
    objects = ["SaveGame", "Status", "SaveGame10k", "World"]
    operations = ["write", "read", "read-reuse"]
    rank = lambda key, order: (order.index(key), key) if key in order else (len(order), key)
    groups = dict(sorted(groups.items(), key=lambda kv: (rank(kv[0][0], objects), rank(kv[0][1], operations))))

    print(f"Machine: {context.get('host_name', '?')}, {context.get('num_cpus')} x {context.get('mhz_per_cpu')} MHz; "
          f"run {context.get('date')}.")
    print("Times are real time per operation (median of repetitions when repeated). Ratio: this way's time over "
          "savekit's of the same class — above 1.00 means slower than savekit.\n")
    summary = glaze_table(groups)
    for line in summary:
        print(line)
    # The geometric means and the cases behind, for the README (bench/run.sh embeds it).
    with open(os.path.join(os.path.dirname(path), "codecs_headline.md"), "w") as f:
        f.write("\n".join(line for line in summary if line.startswith("- ")) + "\n")
    for (obj, op), ways in groups.items():
        print(f"### {obj} — {op}\n")
        print("| way | ns/op | ratio | MB/s | size (B) | allocs/op | bytes alloc/op |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for way, b in sorted(ways.items(), key=lambda kv: kv[1]["real_time"]):
            ref = ways.get(savekit_reference(way))
            ratio = b["real_time"] / ref["real_time"] if ref else float("nan")
            mbps = b.get("bytes_per_second", 0) / 1e6
            print(f"| {way} | {b['real_time']:.0f} | {ratio:.2f} | {mbps:.0f} | {b.get('size', 0):.0f} | "
                  f"{b.get('allocs_per_op', 0):.1f} | {b.get('alloc_bytes_per_op', 0):.0f} |")
        print()


def store_report(path):
    _, rows = benchmark_rows(path)

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


def slots_report(path):
    _, rows = benchmark_rows(path)

    def time_of(prefix, arg):
        for name, b in rows.items():  # (…/1048576 is not …/10485760)
            if name == f"{prefix}/{arg}" or name.startswith(f"{prefix}/{arg}/"):
                return b
        return None

    print("### The load menu: list() over 100 slots (headers and metadata only)\n")
    print("| payload per slot (MessagePack bytes) | µs per list() | ratio to the smallest |")
    print("|---:|---:|---:|")
    smallest = None
    for arg in (1024, 1048576):
        b = time_of("list/100 slots", arg)
        if b is None:
            continue
        smallest = smallest or b["real_time"]
        print(f"| {b.get('payload_bytes', 0):,.0f} | {b['real_time']:.0f} | {b['real_time'] / smallest:.2f} |")
    print()
    print("### The calling thread: write() against write_async() (the snapshot only)\n")
    print("| payload (MessagePack bytes) | write() ms | write_async() ms | write_async ÷ write |")
    print("|---:|---:|---:|---:|")
    for arg in (10240, 1048576, 10485760):
        sync, background = time_of("write/caller", arg), time_of("write_async/caller", arg)
        if sync is None or background is None:
            continue
        print(f"| {sync.get('payload_bytes', 0):,.0f} | {sync['real_time']:.3f} | {background['real_time']:.3f} | "
              f"{100 * background['real_time'] / sync['real_time']:.1f}% |")


def e2e_report(path):
    """e2e_bench: each step of a save beside its floor (benchmarks named GROUP/CASE/WAY)."""
    _, rows = benchmark_rows(path)
    unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}

    suffixes = ("", "/real_time", "/manual_time")  # (Google Benchmark names the timing it used)

    def ns(group, case, way):
        b = next((rows[n] for n in (f"{group}/{case}/{way}{x}" for x in suffixes) if n in rows), None)
        return b["real_time"] * unit[b.get("time_unit", "ns")] if b else None

    def cases(group):
        seen = []
        for name in rows:
            for x in suffixes[1:]:
                name = name[:-len(x)] if name.endswith(x) else name
            g, _, rest = name.partition("/")
            case = rest.rpartition("/")[0]
            if g == group and case not in seen:
                seen.append(case)

        def size_first(case):  # "1 KB" … "10 MB" by size, then the rest by name
            number, _, unit = case.partition(" ")
            scale = {"KB": 1 << 10, "MB": 1 << 20}.get(unit)
            return (0, int(number) * scale, "") if number.isdigit() and scale else (1, 0, case)
        return sorted(seen, key=size_first)

    print("### The store: an object set and read, beside the codec alone into a reused buffer\n")
    print("| operation | savekit ns | codec alone ns | savekit adds ns | target |")
    print("|---|---:|---:|---:|---|")
    for group, target in (("prefs set", 20), ("prefs get", 10)):
        for case in cases(group):
            mine, floor = ns(group, case, "savekit"), ns(group, case, "floor")
            if mine and floor:
                added = mine - floor
                print(f"| {group[6:]} {case[7:]} | {mine:.1f} | {floor:.1f} | {added:.1f} | "
                      f"≤ {target} {'met' if added <= target else '**missed**'} |")
    print("\n### Durable steps, beside the system calls they need, made by hand on the same disk\n")
    print("| step | savekit µs | floor µs | savekit ÷ floor | target |")
    print("|---|---:|---:|---:|---|")
    steps = [("prefs save", "one write + fdatasync of the same record", 1.1),
             ("slots write", "new file written, fsync, rename, fsync of the folder", 1.15),
             ("slots list", "readdir, and each newest header and metadata read", 1.3)]
    encodings_seen = []
    for group, floor_text, target in steps:
        for case in cases(group):
            mine, floor = ns(group, case, "savekit"), ns(group, case, "floor")
            if mine and floor:
                ratio = mine / floor
                print(f"| {group} {case} (floor: {floor_text}) | {mine / 1e3:,.1f} | {floor / 1e3:,.1f} | "
                      f"{ratio:.2f} | ≤ {target} {'met' if ratio <= target else '**missed**'} |")
                encoded = ns(group, case, "encode")
                if encoded:
                    encodings_seen.append((case, mine, encoded, floor))
    if encodings_seen:
        print("\nA slot write encodes the save, which the floor does not; without the encoding:\n")
        print("| save | encoding µs | write − encoding µs | floor µs | (write − encoding) ÷ floor |")
        print("|---|---:|---:|---:|---:|")
        for case, mine, encoded, floor in encodings_seen:
            print(f"| {case} | {encoded / 1e3:,.1f} | {(mine - encoded) / 1e3:,.1f} | {floor / 1e3:,.1f} | "
                  f"{(mine - encoded) / floor:.2f} |")
    asynchronous = [(case, ns("slots write_async", case, "caller"), ns("slots write", case, "savekit"))
                    for case in cases("slots write_async")]
    if asynchronous:
        print("\n### write_async: the game's thread, beside write()\n")
        print("The game keeps its object (`write_async(name, save, ...)`: the save is copied on its thread), "
              "or hands it over (`write_async(name, std::move(save), ...)`: moved).\n")
        print("| save | write µs | copied µs | the copy alone µs | share | target | moved µs | share |")
        print("|---|---:|---:|---:|---:|---|---:|---:|")
        for case, background, sync in asynchronous:
            if background and sync:
                share = background / sync
                copy = ns("slots write_async", case, "the copy alone")
                moved = ns("slots write_async", case, "caller, moved")
                copy_text = f"{copy / 1e3:,.1f}" if copy else "–"
                moved_text = f"{moved / 1e3:,.1f} | {100 * moved / sync:.2f}%" if moved else "– | –"
                print(f"| {case} | {sync / 1e3:,.1f} | {background / 1e3:,.1f} | {copy_text} | {100 * share:.1f}% | "
                      f"≤ 5% {'met' if share <= 0.05 else '**missed**'} | {moved_text} |")

        def counter(case, way, name):
            b = next((rows[n] for n in (f"slots write_async/{case}/{way}{x}" for x in suffixes) if n in rows), None)
            return b.get(name) if b else None
        tails = [(case, way) for case, _, _ in asynchronous for way in ("caller", "caller, moved")
                 if counter(case, way, "slowest_us") is not None]
        if tails:
            print("\nThe game's thread call by call (each repetition's 90th percentile and slowest call; "
                  "the median of the repetitions):\n")
            print("| save | way | 90% of calls within µs | slowest call µs |")
            print("|---|---|---:|---:|")
            for case, way in tails:
                name = "copied" if way == "caller" else "moved"
                print(f"| {case} | {name} | {counter(case, way, 'p90_us'):,.1f} | "
                      f"{counter(case, way, 'slowest_us'):,.1f} |")
        frame_ways = [("frames, no write", "no write"),
                      ("frames, write_async in flight", "savekit's `write_async` in flight"),
                      ("frames, the floor's write in flight", "a plain thread's floor system calls in flight")]
        frames = [case for case, _, _ in asynchronous
                  if ns("slots write_async", case, "frames, no write") and
                  ns("slots write_async", case, "frames, write_async in flight")]
        if frames:
            print("\nThe game's frames while a save is written in the background: a fixed frame of work (a "
                  "particle update) run from the frame in which the write starts — its call inside that frame — "
                  "until the write is done, by savekit (`write_async` of the save handed over) or, as the floor, "
                  "by a plain thread of the program (default policy) making the floor's system calls for a file "
                  "of the same size; beside the same frame with no write. Mean frame per write, and the 90th "
                  "percentile and slowest of every frame of a repetition (medians of the repetitions):\n")
            print("| save | frames with | frames per write | mean µs | ÷ no write | 90% within µs | slowest µs |")
            print("|---|---|---:|---:|---:|---:|---:|")
            for case in frames:
                alone = ns("slots write_async", case, "frames, no write")
                for way, text in frame_ways:
                    t = ns("slots write_async", case, way)
                    if t and counter(case, way, "p90_us") is not None:
                        print(f"| {case} | {text} | {counter(case, way, 'frames_per_write'):.1f} | {t / 1e3:,.1f} | "
                              f"{t / alone:.2f} | {counter(case, way, 'p90_us'):,.1f} | "
                              f"{counter(case, way, 'slowest_us'):,.1f} |")


def seal_report(path):
    _, rows = benchmark_rows(path)
    data_names = ["Status (seed A)", "SaveGame (seed B)", "1,000 saves of ~1 KB", "world"]
    codecs = ["zstd 1", "zstd 3", "zstd 19", "zstd 3 + dictionary", "zlib 6", "lz4"]

    def row(kind, *args):
        return rows.get(f"{kind}/" + "/".join(str(a) for a in args))

    def mb_s(b):
        return b.get("bytes_per_second", 0) / 1e6 if b else 0

    print("### Compression: each save compressed on its own (JSON in)\n")
    print("| data | bytes | codec | ratio | compress MB/s | decompress MB/s |")
    print("|---|---:|---|---:|---:|---:|")
    for d, data in enumerate(data_names):
        for c, codec in enumerate(codecs):
            packed, unpacked = row("compress", c, d), row("decompress", c, d)
            if not packed or packed.get("error_occurred"):
                continue
            print(f"| {data} | {packed.get('original_bytes', 0):,.0f} | {codec} | {packed.get('ratio', 0):.2f} | "
                  f"{mb_s(packed):,.0f} | {mb_s(unpacked):,.0f} |")
    ratios = [(codec, [(row("compress", c, d) or {}).get("ratio") for d in range(len(data_names))])
              for c, codec in enumerate(codecs)]
    bar_chart(data_names, ratios, "Sealed saves: compression ratio, each save on its own (higher is better)",
              "original bytes ÷ compressed bytes", os.path.join(os.path.dirname(path), "seal_ratios"))
    print("![Compression ratios of each codec on each kind of save](bench/results/seal_ratios.svg)\n")
    plain, with_dict = row("compress", 1, 2), row("compress", 3, 2)
    if plain and with_dict:
        print(f"\nOn the corpus of small saves a trained dictionary gives "
              f"**{with_dict['ratio'] / plain['ratio']:.2f}×** the ratio of zstd 3 without one "
              f"({with_dict['ratio']:.2f} against {plain['ratio']:.2f}; target ≥ 3×).\n")
    print("### Sealing: seal and unseal against libsodium alone on the same bytes\n")
    print("| bytes | way | seal MB/s | unseal MB/s | seal time ÷ libsodium's on the body | "
          "÷ libsodium's on the bytes the tag covers |")
    print("|---:|---|---:|---:|---:|---:|")
    mac_ways, aead_ways = (0, 5, 6), (1, 2, 7)
    ways = {0: "seal: MAC", 1: "seal: AEAD", 2: "seal: zstd 3 + AEAD", 5: "seal: zstd 3 with a dictionary + MAC",
            6: "seal_into: MAC (a reused string)", 7: "seal_into: AEAD (a reused string)"}
    floors_named = ((3, "libsodium XChaCha20-Poly1305 alone"), (4, "libsodium keyed BLAKE2b alone"),
                    (8, "libsodium XChaCha20-Poly1305, header and context as associated data"),
                    (9, "libsodium keyed BLAKE2b over header, context and body"))
    fixed_cost = {}
    for size in (100, 1024, 10 * 1024, 1024 * 1024):
        for w, way in ways.items():
            sealed, opened = row("seal", w, size), row("unseal", w, size)
            if not sealed:
                continue
            body_floor = row("seal", 4 if w in mac_ways else 3, size)
            covered_floor = row("seal", 9 if w in mac_ways else 8, size)
            ratios = [sealed["real_time"] / f["real_time"] if f else None for f in (body_floor, covered_floor)]
            if w in (6, 7):
                fixed_cost[(w, size)] = ratios
            cells = " | ".join(f"{r:.2f}" if r else "–" for r in ratios)
            print(f"| {size:,} | {way} | {mb_s(sealed):,.0f} | {mb_s(opened):,.0f} | {cells} |" if opened else
                  f"| {size:,} | {way} | {mb_s(sealed):,.0f} | | {cells} |")
        for w, name in floors_named:
            b = row("seal", w, size)
            if b:
                print(f"| {size:,} | {name} | {mb_s(b):,.0f} | | | |")
    small = [(name, fixed_cost.get((w, 100))) for w, name in ((7, "AEAD"), (6, "MAC"))]
    if all(r and r[1] for _, r in small):
        print("\nA 100-byte seal into a reused string (target ≤ 1.25× of libsodium on the same bytes): " +
              "; ".join(f"{name} **{r[1]:.2f}×** of libsodium on the bytes the tag covers ({r[0]:.2f}× of "
                        f"libsodium on the body alone)" for name, r in small) + ".")


def server_report(path):
    """server_load's JSON lines: savekit-server beside the same writes through its database driver."""
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    by = {(r["backend"], r["way"], r["mix"], r["bytes"], r["players"]): r for r in rows}
    print("| database | save | players | PUT/s over HTTP | p50 ms | p99 ms | PUT/s direct | p99 ms | HTTP ÷ direct | "
          "GET+PUT/s over HTTP | p99 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for backend in ("sqlite", "postgresql", "replicated"):
        for size in sorted({r["bytes"] for r in rows if r["mix"] != "list-100"}):
            for players in sorted({r["players"] for r in rows}):
                put = by.get((backend, "http", "put", size, players))
                direct = by.get((backend, "direct", "put", size, players))
                mixed = by.get((backend, "http", "get+put", size, players))
                if not put or not direct:
                    continue
                ratio = put["per_second"] / direct["per_second"] if direct["per_second"] else 0
                print(f"| {backend} | {size // 1024} KB | {players} | {put['per_second']:,.0f} | {put['p50_ms']:.2f} | "
                      f"{put['p99_ms']:.2f} | {direct['per_second']:,.0f} | {direct['p99_ms']:.2f} | {ratio:.2f} | "
                      f"{mixed['per_second']:,.0f} | {mixed['p99_ms']:.2f} |" if mixed else "")
    lists = [r for r in rows if r["mix"] == "list-100"]
    if lists:
        print()
        print("| database | players | GET /v1/slots (100 slots) per s | p50 ms | p99 ms |")
        print("|---|---:|---:|---:|---:|")
        for r in lists:
            print(f"| {r['backend']} | {r['players']} | {r['per_second']:,.0f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} |")
    single = by.get(("postgresql", "http", "put", 4096, 64))
    replicated = by.get(("replicated", "http", "put", 4096, 64))
    if single and replicated and single["per_second"]:
        print()
        print(f"4 KB PUTs at 64 players on the replicated cluster (a commit waits for a synchronous standby): "
              f"**{replicated['per_second'] / single['per_second']:.2f}×** the throughput of one PostgreSQL, "
              f"p99 {replicated['p99_ms']:.1f} ms beside {single['p99_ms']:.1f} ms.")
    errors = sum(r["errors"] for r in rows)
    print()
    print(f"Every request was checked ({errors} errors in {sum(r['operations'] for r in rows):,} operations). "
          "HTTP: a client thread and a keep-alive connection per player, each player writing its own slot "
          "(`If-Match` with the version it last wrote); direct: the same compare-and-set transaction through "
          "the server's own driver (server/slot_store.hpp) in this process, no HTTP. Both commit durably "
          "(SQLite WAL with synchronous=FULL; PostgreSQL's default fsync at commit).")
    targets = [(r, by.get((r["backend"], "direct", "put", r["bytes"], r["players"]))) for r in rows
               if r["way"] == "http" and r["mix"] == "put" and r["bytes"] == 4096]
    worst = min((p["per_second"] / d["per_second"] for p, d in targets if d and d["per_second"]), default=0)
    p99 = max((r["p99_ms"] for r in rows if r["way"] == "http" and r["players"] == 64 and r["bytes"] == 4096),
              default=0)
    p99_large = max((r["p99_ms"] for r in rows if r["way"] == "http" and r["players"] == 64 and r["bytes"] > 4096),
                    default=0)
    if targets:
        print(f"\nTargets: 4 KB PUT throughput over HTTP at least 0.50 of direct — lowest here **{worst:.2f}**; "
              f"p99 at most 50 ms with 64 players (4 KB saves) — highest here **{p99:.1f} ms** "
              f"({p99_large:.0f} ms with 256 KB saves: compare the direct p99 beside it).")


def failover_report(path):
    """cluster_history.py --times lines: from a primary's death to the first write acknowledged after it."""
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    print("| Patroni lease | fault | failovers | fastest s | median s | slowest s |")
    print("|---:|---|---:|---:|---:|---:|")
    for lease, fault in sorted({(r["lease_s"], r["fault"]) for r in rows}):
        times = sorted(r["seconds"] for r in rows if (r["lease_s"], r["fault"]) == (lease, fault))
        print(f"| {lease} s | {fault} | {len(times)} | {times[0]:.1f} | {statistics.median(times):.1f} | "
              f"{times[-1]:.1f} |")


def cloud_report(path):
    """cloud_bench's JSON lines: the sync beside the same requests by libcurl alone."""
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    med = {}
    for case in ("first_sync", "curl_puts", "idle_sync", "curl_list", "run_async"):
        mine = [r for r in rows if r["case"] == case]
        if mine:
            med[case] = (statistics.median(r["ns"] for r in mine), statistics.median(r["requests"] for r in mine),
                         max(r["ns"] for r in mine))
    slots, size = rows[0]["slots"], rows[0]["bytes"]
    print("| case | requests | median | floor (libcurl alone) | sync ÷ floor |")
    print("|---|---:|---:|---:|---:|")
    first, puts = med["first_sync"], med["curl_puts"]
    print(f"| first sync of {slots} slots of {size // 1024} KB | {first[1]:.0f} | {first[0] / 1e6:.1f} ms | "
          f"{puts[0] / 1e6:.1f} ms ({puts[1]:.0f} PUTs) | {first[0] / puts[0]:.2f} |")
    idle, listed = med["idle_sync"], med["curl_list"]
    print(f"| a sync with nothing changed | {idle[1]:.0f} | {idle[0] / 1e6:.2f} ms | {listed[0] / 1e6:.2f} ms (1 GET) | "
          f"{idle[0] / listed[0]:.2f} |")
    run_async = med["run_async"]
    print(f"| `run_async` on the game's thread | — | {run_async[0] / 1e3:.1f} µs (max {run_async[2] / 1e3:.1f} µs) | — | — |")
    print()
    print(f"Targets: the first sync at least 0.50 of libcurl's PUT rate (sync ÷ floor ≤ 2.00) — here "
          f"**{first[0] / puts[0]:.2f}**; a sync with nothing changed makes 1 request — here **{idle[1]:.0f}**; "
          f"`run_async` ≤ 1 ms on the game's thread — here at most **{run_async[2] / 1e3:.0f} µs**. "
          "The floor sends the very PUTs the sync sent (recorded), for another player, on one kept-alive "
          "handle, without `Expect: 100-continue`; the sync's time includes opening its state, the list, and "
          "keeping its outbox and state durable (an fsync per batch of up to 32 changes).")


def medians_by(path, fields):
    """The median "ns" of a file's JSON lines, per distinct tuple of the given fields."""
    times = {}
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                r = json.loads(line)
                times.setdefault(tuple(r[k] for k in fields), []).append(r["ns"])
    return {k: statistics.median(v) for k, v in times.items()}


def wasm_gap_report(path):
    """wasm_gap's JSON lines from both builds: medians per case, WebAssembly beside native."""
    median = medians_by(path, ("target", "op", "way"))
    harness = ("call", "nothing (the harness)")
    lone = sorted({k[1:] for k in median if (("wasm" if k[0] == "native" else "native"),) + k[1:] not in median})
    if lone:
        sys.exit(f"wasm_gap: cases measured in one build only: {lone}")
    print("| op | way | native ns | wasm ns | wasm ÷ native | less the harness: native | wasm | wasm ÷ native |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for (target, op, way), native in median.items():
        if target != "native":
            continue
        wasm = median[("wasm", op, way)]
        net = ["–", "–", "–"]
        if (op, way) != harness:
            net_native = native - median[("native",) + harness]
            net_wasm = wasm - median[("wasm",) + harness]
            net = [f"{net_native:.1f}", f"{net_wasm:.1f}", f"{net_wasm / net_native:.2f}"]
        print(f"| {op} | {way} | {native:.1f} | {wasm:.1f} | {wasm / native:.2f} | {' | '.join(net)} |")
    print()
    print("The hand-written rows read and write the same bytes with the least code that still checks")
    print("every byte: what the engine makes of the simplest code for the job. The last three columns")
    print("take away the harness's own call (the row \"nothing\") from each build's time.")


def plain_loop_report(path):
    """plain_loop_caller's JSON lines, both standards: medians per way, beside savekit and the floor."""
    median = medians_by(path, ("std", "way"))
    sizes = {}
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                r = json.loads(line)
                sizes[r["way"]] = r["bytes"]
    standards = sorted({k[0] for k in median})
    ways = sorted({k[1] for k in median}, key=lambda w: median[(standards[0], w)])
    print("| way | bytes | " + " | ".join(f"{s} ns | ÷ savekit | ÷ floor" for s in standards) + " |")
    print("|---|---:|" + "---:|---:|---:|" * len(standards))
    for way in ways:
        cells = []
        for s in standards:
            ns = median.get((s, way))
            if ns is None:
                sys.exit(f"plain_loop_caller: {way} measured under {s} only")
            cells += [f"{ns:.1f}", f"{ns / median[(s, 'savekit compact')]:.2f}",
                      f"{ns / median[(s, 'hand-written floor')]:.2f}"]
        print(f"| {way} | {sizes[way]} | " + " | ".join(cells) + " |")
    print()
    print("SaveGame written in a plain loop into a reused buffer, its size stored into a volatile, "
          "compiled -O2 in a program of its own per C++ standard (bench/plain_loop_caller.cpp): "
          "the caller a game is, beside Google Benchmark's above. msgpack-cxx's array form writes "
          "the same bytes as savekit's compact form (checked before timing).")


def browser_e2e_report(path):
    """bench/web/run_browser_e2e.mjs's JSON: savekit beside the same IndexedDB requests made by
    JavaScript (medians), then the slots' open beside a getAll of the same records."""
    with open(path) as f:
        d = json.load(f)
    saves, med = d["saves"], lambda v: statistics.median(v)
    print(f"{d['environment']}; {d['rounds']} rounds, savekit and the floor taking turns; medians, ms.")
    print()
    print("| from the call to the transaction's complete | savekit | floor | ÷ floor | target |")
    print("|---|---:|---:|---:|---|")
    for label, ours, floor in (("store `save_async` of one changed key (the seed's Status)", "store_save", "store_floor"),
                               ("slot `write_async` of a 100 KB save (put, and the oldest generation deleted)",
                                "slot_write", "slot_floor")):
        r = med(saves[ours]) / med(saves[floor])
        print(f"| {label} | {med(saves[ours]):.2f} | {med(saves[floor]):.2f} | {r:.2f} | ≤ 1.2: "
              f"{'met' if r <= 1.2 else '**missed**'} |")
    if "slot_floor_heads" in saves:
        r = med(saves["slot_write"]) / med(saves["slot_floor_heads"])
        print(f"| the same slot write beside the floor with the head records savekit's slots keep "
              f"(a put of the file's first 4 KB beside it, and its delete) | {med(saves['slot_write']):.2f} | "
              f"{med(saves['slot_floor_heads']):.2f} | {r:.2f} | – |")
    print()
    print(f"Of the slot write, `write()` itself (encoding, checksums, the file in memory) takes "
          f"{med(saves['slot_write_in_memory']):.2f} ms; the rest is the browser's transaction. The floor is a "
          "put of a record of the generation file's size (incompressible bytes, as the save's: Chromium "
          "compresses what it stores) and the delete of the oldest, in one readwrite transaction with durability "
          "\"strict\", made by the page's own JavaScript.")
    print()
    fill, floor, ours = d["fill"], d["open_floor"], d["open_savekit"]
    mb = fill["slots"] * fill["generations"] * fill["bytes"] / 1e6
    print(f"Opening slots that hold {fill['slots']} slots × {fill['generations']} generations of "
          f"{fill['bytes'] / 1e6:.1f} MB ({mb:.0f} MB; written in {fill['fill_ms'] / 1000:.1f} s), "
          f"each open in a fresh page, {len(ours)} of each in turn:")
    print()
    print("| | ms to the load menu | JavaScript heap after | WebAssembly heap after |")
    print("|---|---:|---:|---:|")
    print(f"| a plain `getAll` of the same records (the floor) | {med([r['open_ms'] for r in floor]):,.0f} | "
          f"{med([r['js_heap_bytes'] for r in floor]) / 1e6:,.0f} MB | – |")
    print(f"| `open_slots` + `list()` | {med([r['open_and_list_ms'] for r in ours]):,.0f} | "
          f"{med([r['js_heap_bytes'] for r in ours]) / 1e6:,.0f} MB | {med([r['heap_bytes'] for r in ours]) / 1e6:,.0f} MB |")
    if all("load_ms" in r for r in ours):
        print(f"| then one slot's save: `load_async` + `read` | {med([r['load_ms'] for r in ours]):,.1f} + "
              f"{med([r['read_ms'] for r in ours]):,.1f} | {med([r['js_heap_after_read_bytes'] for r in ours]) / 1e6:,.0f} MB | – |")
    print()
    held = med([r['js_heap_bytes'] for r in ours]) < med([r['js_heap_bytes'] for r in floor]) / 4
    print(f"The target: the menu well under 100 ms, holding the headers and at most the newest generation "
          f"of the slots read — "
          f"{'met' if med([r['open_and_list_ms'] for r in ours]) < 100 and held else '**missed**'}.")


def seal_wasm_report(path):
    """seal_costs' JSON lines from both builds: medians per case, WebAssembly beside native."""
    median = medians_by(path, ("target", "op", "way", "bytes"))
    floors = {"seal: MAC": "libsodium keyed BLAKE2b alone", "seal: AEAD": "libsodium AEAD alone",
              "seal: zstd 3 + AEAD": "libsodium AEAD alone"}
    print("| bytes | way | native µs | wasm µs | wasm ÷ native | seal ÷ libsodium alone: native | wasm |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    sizes = sorted({k[3] for k in median})
    for size in sizes:
        for op, way in [("seal", w) for w in floors] + [("unseal", w) for w in floors] + \
                       [("seal", "libsodium keyed BLAKE2b alone"), ("seal", "libsodium AEAD alone")]:
            native, wasm = median.get(("native", op, way, size)), median.get(("wasm", op, way, size))
            if native is None or wasm is None:
                continue
            label = way if way.startswith("libsodium") else f"{op}: {way.split(': ', 1)[1]}"
            over = ["–", "–"]
            if op == "seal" and way in floors:
                over = [f"{median[(t, 'seal', way, size)] / median[(t, 'seal', floors[way], size)]:.2f}"
                        for t in ("native", "wasm")]
            print(f"| {size:,} | {label} | {native / 1000:,.2f} | {wasm / 1000:,.2f} | {wasm / native:.2f} | "
                  f"{over[0]} | {over[1]} |")
    print()
    print("The last two columns: a seal's time over libsodium's own primitive on the same bytes in "
          "the same build (zstd + AEAD includes the compression). libsodium and zstd are built "
          "from Debian's sources with emcc -O3 and without SIMD or assembly (scripts/build-wasm-deps.sh); "
          "natively they are Debian's packages, with their assembly and CPU dispatch.")


def abi_report(path):
    """abi_overhead's JSON lines from the four layers: medians per case, each beside C++."""
    median = medians_by(path, ("layer", "op"))
    layers = ["C++", "C ABI", "C# P/Invoke", "Python ctypes"]
    ops = sorted({op for _, op in median}, key=lambda op: (op != "set_int+get_int", op))
    missing = [(layer, op) for layer in layers for op in ops if (layer, op) not in median]
    if missing:
        sys.exit(f"abi_overhead: cases not measured: {missing}")
    print("| layer | " + " | ".join(f"{op}: ns | ÷ C++ | over C++, ns" for op in ops) + " |")
    print("|---|" + "---:|---:|---:|" * len(ops))
    for layer in layers:
        cells = []
        for op in ops:
            ns, cpp = median[(layer, op)], median[("C++", op)]
            cells += [f"{ns:,.1f}", f"{ns / cpp:.2f}", f"{ns - cpp:,.1f}"]
        print(f"| {layer} | " + " | ".join(cells) + " |")
    print()
    print("set_int+get_int is one set and one get of the same key (two calls); set_bytes is one call "
          "with a 4 KB value. Each layer has a store of its own in the same folder; nothing is saved "
          "to disk in the loops (Save() is the same fsync in every layer).")


def study_a_layers_report(path):
    """Study A's rows from C# and C++: ms per 10,000 saves and loads, the mean of the runs
    (as the seed reports them)."""
    runs = {}
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                r = json.loads(line)
                runs.setdefault((r["layer"], r["way"], r["durable"]), []).append((r["save_ms"], r["load_ms"]))
    print("| layer | way | save, ms per 10,000 | load, ms per 10,000 | save + durable Save(), ms per 10,000 |")
    print("|---|---|---:|---:|---:|")
    for layer, way in sorted({(k[0], k[1]) for k in runs}, key=lambda k: (k[0] != "C#", k[1] != "per key", k)):
        plain, durable = runs.get((layer, way, False)), runs.get((layer, way, True))
        if not plain or not durable:
            sys.exit(f"study A: {layer} {way} is missing a case")
        mean = lambda values: statistics.mean(values)
        print(f"| {layer} | {way} | {mean([s for s, _ in plain]):,.1f} | {mean([l for _, l in plain]):,.1f} | "
              f"{mean([s for s, _ in durable]):,.0f} |")
    print()
    print("Per key is the seed's baseline: its eleven fields, one SetInt / SetString (set_int / "
          "set_string) each. The object row stores one JSON text: in C# the runtime's own "
          "DataContractJsonSerializer through SetString, in C++ savekit's reflection. The durable "
          "column adds Save() (an fsync) after every save, over fewer iterations scaled to 10,000.")


if __name__ == "__main__":
    command, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 2 else ("", [])
    if command == "studies" and len(args) >= 2:
        extra = args[2:5] + [None, None, None]
        studies_report(args[0], args[1],
                       (("wasm_node", extra[0]), ("wasm_chromium", extra[1]), ("wasm_native", extra[2])))
    elif command == "codecs" and len(args) == 1:
        codecs_report(args[0])
    elif command == "store" and len(args) == 1:
        store_report(args[0])
    elif command == "slots" and len(args) == 1:
        slots_report(args[0])
    elif command == "e2e" and len(args) == 1:
        e2e_report(args[0])
    elif command == "seal" and len(args) == 1:
        seal_report(args[0])
    elif command == "seal-wasm" and len(args) == 1:
        seal_wasm_report(args[0])
    elif command == "browser-e2e" and len(args) == 1:
        browser_e2e_report(args[0])
    elif command == "plain-loop" and len(args) == 1:
        plain_loop_report(args[0])
    elif command == "wasm-gap" and len(args) == 1:
        wasm_gap_report(args[0])
    elif command == "study-a-layers" and len(args) == 1:
        study_a_layers_report(args[0])
    elif command == "abi" and len(args) == 1:
        abi_report(args[0])
    elif command == "cloud" and len(args) == 1:
        cloud_report(args[0])
    elif command == "server" and len(args) == 1:
        server_report(args[0])
    elif command == "failover" and len(args) == 1:
        failover_report(args[0])
    else:
        sys.exit(__doc__)
