#!/usr/bin/env python3
"""A failover test in the Jepsen style for savekit-server on a replicated PostgreSQL.

Clients on several connections, through two servers, make a stream of writes on a few
shared slots: creates (If-None-Match: *), replaces (If-Match), deletes (If-Match) and
replays of write ids, above all of writes whose answer was a 503, a timeout or a cut
connection. Meanwhile a nemesis injects faults into the cluster scripts/cluster.sh runs:
it kills the primary (SIGKILL: Patroni and PostgreSQL), freezes it (SIGSTOP, past the
leader lease or not), stops its Patroni gracefully, kills an etcd member and kills a
standby, each brought back afterwards, one at a time, each once the cluster is whole again.

At the end the cluster is healed, every write whose outcome is unknown is sent again until
it is answered, and a checker reads every slot's kept versions and bytes and the history:

  - every acknowledged write is present with its bytes and write id, or superseded by a
    later version beyond the kept ones (lost: an acknowledged version missing or another's);
  - no version of a slot is acknowledged to two writes, and no write id to two versions;
  - every 412 names a version that exists as it said (its write id), or a deletion;
  - every slot's kept versions form one chain: distinct numbers, each made by one write this
    test sent, none above the slot's current version;
  - a replace If-Match N that was acknowledged made N + 1; no 5xx but 503.

It prints the counts and exits 1 on any anomaly. Everything is on 127.0.0.1, bounded in
time (--seconds, and every wait); only processes the cluster script started are signalled.

Usage: cluster_history.py SAVEKIT_SERVER DIR [--seconds S] [--clients N] [--seed K]
"""

import argparse
import hashlib
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, "..", "..", "scripts", "cluster.sh")
PLAYERS = ["p1", "p2", "p3", "p4"]
SLOTS_PER_PLAYER = 16
KEEP_VERSIONS = 1000
DB_TIMEOUT_S = 5
# Patroni's leader lease: shorter than cluster.sh's 20 s, so that a run sees more failovers.
LEASE_S = int(os.environ.get("SAVEKIT_CLUSTER_TTL", "10"))


def log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


# ---- the cluster ------------------------------------------------------------------------


class Cluster:
    def __init__(self, directory, server_binary):
        self.dir = directory
        self.server_binary = server_binary
        self.base = int(os.environ.get("SAVEKIT_CLUSTER_PORT", "24000"))

    def start(self, servers):
        env = dict(os.environ)
        env["SAVEKIT_CLUSTER_TTL"] = str(LEASE_S)
        env["SAVEKIT_CLUSTER_SERVER_ARGS"] = (
            f"--keep-versions {KEEP_VERSIONS} --db-timeout {DB_TIMEOUT_S} --rate 100000 --burst 100000"
        )
        with open(os.path.join(self.dir, "start.log"), "w") as out:
            code = subprocess.call(
                [CLUSTER, "start", self.dir, str(servers), self.server_binary],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env)
        if code != 0:
            sys.stdout.write(open(os.path.join(self.dir, "start.log")).read())
            raise SystemExit("FAIL: the cluster did not start")
        self.env = {}
        for line in open(os.path.join(self.dir, "cluster.env")):
            key, _, value = line.strip().partition("=")
            self.env[key] = value.strip("'")
        self.servers = self.env["SAVEKIT_CLUSTER_SERVERS"].split()

    def stop(self):
        with open(os.path.join(self.dir, "stop.log"), "w") as out:
            subprocess.call([CLUSTER, "stop", self.dir], stdin=subprocess.DEVNULL, stdout=out,
                            stderr=subprocess.STDOUT)

    def script(self, *args):
        with open(os.path.join(self.dir, "nemesis.log"), "a") as out:
            return subprocess.call([CLUSTER, *args], stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=subprocess.STDOUT, timeout=120) == 0

    def members(self):
        """Patroni's view: {name: (role, state)}; {} when no member answers."""
        for n in (1, 2, 3):
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.base + 30 + n, timeout=2)
                c.request("GET", "/cluster")
                r = c.getresponse()
                body = r.read()
                c.close()
                if r.status == 200:
                    return {m["name"]: (m.get("role"), m.get("state")) for m in json.loads(body)["members"]}
            except (OSError, ValueError, KeyError, http.client.HTTPException):
                continue
        return {}

    def leader(self, members=None):
        members = self.members() if members is None else members
        return next((name for name, (role, _) in members.items() if role == "leader"), None)

    def whole(self):
        """A leader, a synchronous standby, and all three members streaming or running."""
        m = self.members()
        roles = [role for role, _ in m.values()]
        return (len(m) == 3 and "leader" in roles and "sync_standby" in roles and
                all(state in ("running", "streaming") for _, state in m.values()))

    def sql(self, n, statement):
        """Runs statement on pgN as the superuser; its output, or None."""
        command = ["psql", "-h", "127.0.0.1", "-p", str(self.base + 20 + n), "-U", "postgres", "-d", "postgres",
                   "-Atc", statement]
        if os.geteuid() == 0:
            command = ["/usr/sbin/runuser", "-u", "postgres", "--"] + command
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    def patroni_pid(self, n):
        return read_pid(os.path.join(self.dir, f"pg{n}", "patroni.pid"))

    def postmaster_pid(self, n):
        return read_pid(os.path.join(self.dir, f"pg{n}", "data", "postmaster.pid"))

    def etcd_pid(self, n):
        """Member n's etcd, the newest the script started, if it still runs."""
        pid = None
        for line in open(os.path.join(self.dir, "pids")):
            parts = line.split()
            if len(parts) == 2 and parts[0] == f"etcd{n}":
                pid = int(parts[1])
        return pid if pid and process_is(pid, self.etcd_mark(n)) else None

    # What each process's command line holds, so that a pid file's stale pid, reused by
    # another process, is never signalled.
    def etcd_mark(self, n):
        return f"--data-dir {self.dir}/etcd{n} "

    def patroni_mark(self, n):
        return f"{self.dir}/pg{n}.yml"

    def postmaster_mark(self, n):
        return f"-D {self.dir}/pg{n}/data"

    def node_processes(self, n):
        """pgN's Patroni, postmaster and the postmaster's children."""
        pids = []
        patroni = self.patroni_pid(n)
        if patroni and process_is(patroni, self.patroni_mark(n)):
            pids.append(patroni)
        postmaster = self.postmaster_pid(n)
        if postmaster and process_is(postmaster, self.postmaster_mark(n)):
            pids.append(postmaster)
            pids += children(postmaster)
        return pids


def read_pid(path):
    try:
        with open(path) as f:
            return int(f.readline().strip())
    except (OSError, ValueError):
        return None


def process_is(pid, mark):
    """Whether process pid runs and its command line (arguments joined by spaces) holds mark."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return mark.encode() in f.read().replace(b"\0", b" ")
    except OSError:
        return False


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def children(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def wait_until(what, seconds, predicate, step=0.25):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    log(f"nemesis: {what} did not happen within {seconds} s")
    return False


# ---- the history ------------------------------------------------------------------------


class History:
    def __init__(self):
        self.lock = threading.Lock()
        self.operations = []  # every attempt, as a dict
        self.bodies = {}  # write id -> sha256 of its bytes (None: a deletion)
        self.faults = []  # (time, kind, detail)
        self.leaders = []  # (time, leader) each time the leader changed

    def add(self, op):
        with self.lock:
            self.operations.append(op)

    def fault(self, kind, detail):
        with self.lock:
            self.faults.append((time.monotonic(), kind, detail))
        log(f"nemesis: {kind} {detail}")


def etag_version(value):
    if not value or not value.startswith('"'):
        return None
    try:
        return int(value.strip('"'))
    except ValueError:
        return None


class Client(threading.Thread):
    def __init__(self, number, clients, cluster, tokens, history, deadline, seed):
        super().__init__(daemon=True)
        self.number = number
        self.clients = clients
        self.server = cluster.servers[number % len(cluster.servers)]
        self.tokens = tokens
        self.history = history
        self.deadline = deadline
        self.random = random.Random(seed * 1000 + number)
        self.known = {}  # (player, slot) -> (version, deleted) as last answered
        self.unknown = []  # requests whose outcome is not known yet: resent until answered
        self.recent = []  # requests answered 2xx: some are replayed
        self.counter = 0
        self.connection = None

    def new_write(self):
        # Mostly one of the client's own slots (a device's own games), and any one now and
        # then: the conflicts (412) two devices make.
        slots = len(PLAYERS) * SLOTS_PER_PLAYER
        if self.random.random() < 0.8:
            index = self.random.randrange(self.number % slots, slots, self.clients)
        else:
            index = self.random.randrange(slots)
        player, slot = PLAYERS[index // SLOTS_PER_PLAYER], f"s{index % SLOTS_PER_PLAYER}"
        self.counter += 1
        write_id = f"c{self.number}-{self.counter}"
        known = self.known.get((player, slot))
        roll = self.random.random()
        if known is None or known[1]:
            kind, expected = "create", None
        elif roll < 0.75:
            kind, expected = "replace", known[0]
        elif roll < 0.9:
            kind, expected = "delete", known[0]
        else:
            kind, expected = "create", None  # (a 412: the slot is there)
        body = b"" if kind == "delete" else self.random.randbytes(self.random.randrange(16, 4096))
        with self.history.lock:
            self.history.bodies[write_id] = hashlib.sha256(body).hexdigest() if kind != "delete" else None
        return {"kind": kind, "player": player, "slot": slot, "write_id": write_id, "expected": expected,
                "body": body}

    def send(self, request, replay):
        method = "DELETE" if request["kind"] == "delete" else "PUT"
        headers = {"Authorization": "Bearer " + self.tokens[request["player"]],
                   "Savekit-Write-Id": request["write_id"]}
        if request["expected"] is None:
            headers["If-None-Match"] = "*"
        else:
            headers["If-Match"] = f'"{request["expected"]}"'
        op = {"client": self.number, "kind": request["kind"], "player": request["player"],
              "slot": request["slot"], "write_id": request["write_id"], "expected": request["expected"],
              "replay": replay, "start": time.monotonic(), "status": None, "version": None, "named": None}
        host, port = self.server.replace("http://", "").split(":")
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection(host, int(port), timeout=DB_TIMEOUT_S * 4 + 10)
            self.connection.request(method, f"/v1/slots/{request['slot']}", body=request["body"], headers=headers)
            r = self.connection.getresponse()
            answer = r.read()
            op["status"] = r.status
            op["version"] = etag_version(r.getheader("ETag"))
            if r.status in (409, 412):
                try:
                    op["named"] = json.loads(answer)["error"].get("slot")
                except (ValueError, KeyError, TypeError):
                    pass
            if r.getheader("Connection", "").lower() == "close":
                self.connection.close()
                self.connection = None
        except (OSError, http.client.HTTPException) as e:
            op["error"] = type(e).__name__
            if self.connection:
                self.connection.close()
            self.connection = None
        op["end"] = time.monotonic()
        self.history.add(op)
        return op

    def learn(self, request, op):
        key = (request["player"], request["slot"])
        status = op["status"]
        if status in (200, 201) and op["version"]:
            self.known[key] = (op["version"], False)
        elif status == 204 and op["version"]:
            self.known[key] = (op["version"], True)
        elif status == 412:
            named = op["named"]
            if named is None:
                self.known[key] = (0, True)
            else:
                self.known[key] = (named["version"], bool(named.get("deleted")))

    def step(self):
        if self.unknown and self.random.random() < 0.5:
            request, replay = self.unknown[0], True
        elif self.recent and self.random.random() < 0.05:
            request, replay = self.random.choice(self.recent), True
        else:
            request, replay = self.new_write(), False
        op = self.send(request, replay)
        if op["status"] is None or op["status"] >= 500:
            if request not in self.unknown:
                self.unknown.append(request)
            time.sleep(0.2)  # (a client backs off; Retry-After says 1 s, the test hurries)
            return
        if request in self.unknown:
            self.unknown.remove(request)
        if op["status"] in (200, 201, 204):
            self.recent = (self.recent + [request])[-20:]
        self.learn(request, op)

    def run(self):
        while time.monotonic() < self.deadline:
            self.step()

    def settle(self, deadline):
        """Sends every write of unknown outcome until it is answered (after the heal)."""
        while self.unknown and time.monotonic() < deadline:
            request = self.unknown[0]
            op = self.send(request, True)
            if op["status"] is not None and op["status"] < 500:
                self.unknown.pop(0)
                self.learn(request, op)
            else:
                time.sleep(0.5)
        return not self.unknown


# ---- the nemesis ------------------------------------------------------------------------


class Nemesis(threading.Thread):
    FAULTS = ["kill-primary", "pause-primary", "hang-postgres", "restart-patroni", "kill-etcd", "kill-standby",
              "isolate-primary"]
    # The leader's Patroni loop stalled past its lease (the node frozen, or its PostgreSQL
    # hung so long): without a watchdog device (none here) Patroni documents this as
    # split-brain, and it lost acknowledged writes here (docs/server.md, "Running it
    # replicated"). Only on request, to show it.
    UNSAFE_FAULTS = ["pause-past-lease", "hang-postgres-past-lease"]

    def __init__(self, cluster, history, deadline, seed, faults):
        super().__init__(daemon=True)
        self.cluster = cluster
        self.history = history
        self.deadline = deadline
        self.random = random.Random(seed)
        self.faults = faults
        self.paused = []  # pids stopped with SIGSTOP, continued at the end whatever happens
        self.problems = []

    def run(self):
        order = []
        while time.monotonic() < self.deadline:
            if not wait_until("the cluster to be whole", 120, self.cluster.whole):
                self.problems.append("the cluster did not become whole again within 120 s")
                return
            time.sleep(self.random.uniform(1, 4))
            if time.monotonic() >= self.deadline:
                return
            if not order:  # every kind once, in a random order, then again
                order = list(self.faults)
                self.random.shuffle(order)
            getattr(self, order.pop().replace("-", "_"))()

    def node_of(self, name):
        return int(name[2:]) if name and name.startswith("pg") else None

    def kill_primary(self):
        leader = self.cluster.leader()
        n = self.node_of(leader)
        if n is None:
            return
        signal_all(self.cluster.node_processes(n), signal.SIGKILL)
        self.history.fault("kill-primary", leader)  # (its time: the death, for failover_times)
        wait_until("a new leader", 90, lambda: self.cluster.leader() not in (None, leader))
        self.bring_back(n)

    def pause_primary(self, seconds=None, what="pause-primary"):
        """The primary's node frozen, Patroni and PostgreSQL (SIGSTOP): a stall within its
        lease (10 s), so no failover; or past it, on request only (UNSAFE_FAULTS)."""
        leader = self.cluster.leader()
        n = self.node_of(leader)
        if n is None:
            return
        self.freeze(self.cluster.node_processes(n), seconds or self.random.choice([2, 4, 6]), what, leader)

    def pause_past_lease(self):
        self.pause_primary(self.random.choice([15, 25]), "pause-past-lease")

    def hang_postgres_past_lease(self):
        self.hang_postgres(self.random.choice([15, 25]), "hang-postgres-past-lease")

    def hang_postgres(self, seconds=None, what="hang-postgres"):
        """The primary's PostgreSQL hangs (SIGSTOP), its Patroni runs: within the lease, or
        past it on request only."""
        leader = self.cluster.leader()
        n = self.node_of(leader)
        postmaster = self.cluster.postmaster_pid(n) if n else None
        if not postmaster or not process_is(postmaster, self.cluster.postmaster_mark(n)):
            return
        self.freeze([postmaster] + children(postmaster), seconds or self.random.choice([2, 4, 6]), what, leader)

    def freeze(self, pids, seconds, what, leader):
        self.history.fault(what, f"{leader} for {seconds} s")
        # Patroni's parent, runuser, stops itself when Patroni stops, and is not continued
        # with it: it is continued here too, or it would never reap Patroni.
        self.paused = pids + [p for p in map(parent_of, pids) if p and process_is(p, "runuser -u postgres")]
        signal_all(pids, signal.SIGSTOP)
        time.sleep(seconds)
        signal_all(self.paused, signal.SIGCONT)
        self.paused = []

    def restart_patroni(self):
        leader = self.cluster.leader()
        n = self.node_of(leader)
        pid = self.cluster.patroni_pid(n) if n else None
        mark = self.cluster.patroni_mark(n) if n else ""
        if not pid or not process_is(pid, mark):
            return
        self.history.fault("restart-patroni", leader)
        os.kill(pid, signal.SIGTERM)  # Patroni stops its PostgreSQL and gives the lease up
        wait_until("Patroni to stop", 60, lambda: not process_is(pid, mark))
        self.bring_back(n)

    def kill_etcd(self):
        n = self.random.randrange(1, 4)
        pid = self.cluster.etcd_pid(n)
        if not pid:
            return
        self.history.fault("kill-etcd", f"e{n}")
        os.kill(pid, signal.SIGKILL)
        time.sleep(self.random.uniform(2, 6))
        if not self.cluster.script("start-etcd", self.cluster.dir, str(n)):
            self.problems.append(f"etcd member {n} did not start again")

    def kill_standby(self):
        members = self.cluster.members()
        standbys = [name for name, (role, _) in members.items() if role != "leader"]
        if not standbys:
            return
        name = self.random.choice(sorted(standbys))
        n = self.node_of(name)
        self.history.fault("kill-standby", name)
        signal_all(self.cluster.node_processes(n), signal.SIGKILL)
        time.sleep(self.random.uniform(1, 4))
        self.bring_back(n)

    def isolate_primary(self):
        """The replay trap: the replication link cut (both standbys' WAL receivers frozen:
        the standbys still answer Patroni, and the primary still names one synchronous), so
        that the primary's commits wait; an administrator cancels the waits (each such
        commit is then on the primary only, and visible); the servers give up on those
        they still wait for (503, --db-timeout); the clients replay those write ids; then
        the primary dies, and a standby is promoted without what the primary alone had."""
        members = self.cluster.members()
        leader = self.cluster.leader(members)
        n = self.node_of(leader)
        standbys = [self.node_of(name) for name in members if name != leader]
        if n is None or len(standbys) != 2:
            return
        receivers = []
        for m in standbys:
            postmaster = self.cluster.postmaster_pid(m)
            if postmaster and process_is(postmaster, self.cluster.postmaster_mark(m)):
                receivers += [pid for pid in children(postmaster) if process_is(pid, "walreceiver")]
        if not receivers:
            return
        seconds = self.random.uniform(DB_TIMEOUT_S + 2, DB_TIMEOUT_S + 8)
        self.history.fault("isolate-primary", f"{leader}: no replication for {seconds:.0f} s, then it dies")
        self.paused = receivers
        signal_all(receivers, signal.SIGSTOP)
        until = time.monotonic() + seconds
        cancelled = 0
        while time.monotonic() < until:
            time.sleep(1)
            answer = self.cluster.sql(n, "select count(pg_cancel_backend(pid)) from pg_stat_activity "
                                         "where wait_event = 'SyncRep'")
            cancelled += int(answer) if answer and answer.isdigit() else 0
        signal_all(self.cluster.node_processes(n), signal.SIGKILL)
        self.history.fault("cancel-waits", f"{cancelled} commits' waits for the standby cancelled on {leader}")
        # What the primary sent into the link meanwhile is lost with it: continued, the
        # receivers would read it from their sockets' buffers.
        signal_all(receivers, signal.SIGKILL)
        self.paused = []
        wait_until("a new leader", 90, lambda: self.cluster.leader() not in (None, leader))
        self.bring_back(n)

    def bring_back(self, n):
        # A PostgreSQL left from a killed Patroni is not ours to leave running: stopped by
        # the same pid file, then Patroni starts it again (rewinding it if it must).
        postmaster = self.cluster.postmaster_pid(n)
        mark = self.cluster.postmaster_mark(n)
        if postmaster and process_is(postmaster, mark):
            signal_all([postmaster] + children(postmaster), signal.SIGKILL)
            wait_until("the old postmaster to go", 30, lambda: not process_is(postmaster, mark))
        if not self.cluster.script("start-node", self.cluster.dir, str(n)):
            self.problems.append(f"pg{n} did not start again")


class LeaderWatch(threading.Thread):
    """Each change of leader Patroni reports: the failovers seen."""

    def __init__(self, cluster, history, stop):
        super().__init__(daemon=True)
        self.cluster, self.history, self.stop_event = cluster, history, stop

    def run(self):
        last = None
        while not self.stop_event.is_set():
            leader = self.cluster.leader()
            if leader and leader != last:
                with self.history.lock:
                    self.history.leaders.append((time.monotonic(), leader))
                last = leader
            self.stop_event.wait(0.5)


# ---- reading what the cluster kept ------------------------------------------------------


def get(server, path, token):
    host, port = server.replace("http://", "").split(":")
    for _ in range(120):  # (bounded: the heal is over; a 503 is a last failover settling)
        try:
            c = http.client.HTTPConnection(host, int(port), timeout=30)
            c.request("GET", path, headers={"Authorization": "Bearer " + token})
            r = c.getresponse()
            body = r.read()
            c.close()
            if r.status != 503:
                return r.status, body, r
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.5)
    raise SystemExit(f"FAIL: {path} was not answered after the heal")


def final_state(server, tokens):
    """{(player, slot): {"current": (version, deleted, write_id), "kept": {version: (write_id, sha)}}}"""
    state = {}
    for player in PLAYERS:
        status, body, _ = get(server, "/v1/slots?deleted=true", tokens[player])
        assert status == 200, body
        listing = json.loads(body)
        entries = [(e, False) for e in listing["slots"]] + [(e, True) for e in listing.get("deleted") or []]
        for entry, deleted in entries:
            slot = {"current": (entry["version"], deleted, entry.get("write_id")), "kept": {}}
            status, body, _ = get(server, f"/v1/slots/{entry['name']}/versions", tokens[player])
            assert status == 200, body
            for v in json.loads(body)["versions"]:
                status, data, response = get(server, f"/v1/slots/{entry['name']}/versions/{v['version']}", tokens[player])
                assert status == 200, data
                slot["kept"][v["version"]] = (response.getheader("Savekit-Write-Id"), hashlib.sha256(data).hexdigest())
            state[(player, entry["name"])] = slot
    return state


def check(history, state):
    anomalies = []
    acked_versions = {}  # (player, slot, version) -> write ids acknowledged with it
    acked_ids = {}  # write id -> versions acknowledged for it
    counts = {"acknowledged": 0, "superseded beyond the kept versions": 0, "412": 0, "unknown outcome": 0,
              "replays answered 2xx": 0, "lost": 0}
    made_by = {w: v for s in state.values() for v, (w, _) in s["kept"].items()}  # write id -> version it made
    for op in history.operations:
        key = (op["player"], op["slot"])
        slot = state.get(key, {"current": (0, True, None), "kept": {}})
        current, kept = slot["current"], slot["kept"]
        status = op["status"]
        where = f'{op["player"]}/{op["slot"]} {op["kind"]} {op["write_id"]}'
        if status is None or status == 503:
            counts["unknown outcome"] += 1
            continue
        if status >= 500:
            anomalies.append(f"{where}: {status}, a 5xx other than 503")
            continue
        if status in (200, 201, 204):
            counts["acknowledged"] += 1
            counts["replays answered 2xx"] += op["replay"]
            v = op["version"]
            acked_versions.setdefault((*key, v), set()).add(op["write_id"])
            acked_ids.setdefault(op["write_id"], set()).add(v)
            if op["kind"] in ("replace", "delete") and v != op["expected"] + 1:
                anomalies.append(f"{where}: If-Match {op['expected']} acknowledged as version {v}")
            if v > current[0]:
                anomalies.append(f"{where}: acknowledged version {v}, the slot is at {current[0]}")
                counts["lost"] += 1
            elif op["kind"] == "delete":
                if v in kept:
                    anomalies.append(f"{where}: deletion acknowledged as version {v}, which is {kept[v][0]}'s save")
                    counts["lost"] += 1
                elif v == current[0] and not (current[1] and current[2] == op["write_id"]):
                    anomalies.append(f"{where}: deletion acknowledged as the current version {v}, which is not it")
                    counts["lost"] += 1
            elif v in kept:
                if kept[v] != (op["write_id"], history.bodies[op["write_id"]]):
                    anomalies.append(f"{where}: acknowledged version {v} holds {kept[v][0]}'s save")
                    counts["lost"] += 1
            elif kept and v > min(kept) or v == current[0]:
                anomalies.append(f"{where}: acknowledged version {v} is not kept")
                counts["lost"] += 1
            else:
                counts["superseded beyond the kept versions"] += 1
        elif status == 412:
            counts["412"] += 1
            # A write that was applied is answered as the first time when it is sent again
            # (its write id is remembered), never refused.
            if op["write_id"] in made_by:
                anomalies.append(f"{where}: 412, yet the write made version {made_by[op['write_id']]}")
            named = op["named"]
            if named:
                v = named["version"]
                if v > current[0]:
                    anomalies.append(f"{where}: 412 named version {v}, the slot is at {current[0]}")
                elif v in kept and kept[v][0] != named.get("write_id"):
                    anomalies.append(f"{where}: 412 named version {v} by {named.get('write_id')}, "
                                     f"it is {kept[v][0]}'s")
                elif v not in kept and not named.get("deleted") and (not kept or v >= min(kept)):
                    anomalies.append(f"{where}: 412 named version {v}, which was never kept")
                if named.get("write_id") and named["write_id"] not in history.bodies:
                    anomalies.append(f"{where}: 412 named a write this test never sent")
        else:
            anomalies.append(f"{where}: unexpected status {status}")
    for (player, slot, v), ids in acked_versions.items():
        if len(ids) > 1:
            anomalies.append(f"{player}/{slot}: version {v} acknowledged to {sorted(ids)}")
    for write_id, versions in acked_ids.items():
        if len(versions) > 1:
            anomalies.append(f"write id {write_id} acknowledged as versions {sorted(versions)}")
    for (player, slot), s in state.items():
        made = [w for w, _ in s["kept"].values()]
        if len(set(made)) != len(made):
            anomalies.append(f"{player}/{slot}: one write id made two kept versions")
        for v, (w, sha) in s["kept"].items():
            if v > s["current"][0]:
                anomalies.append(f"{player}/{slot}: kept version {v} above the current {s['current'][0]}")
            if w not in history.bodies:
                anomalies.append(f"{player}/{slot}: version {v} made by {w}, a write this test never sent")
            elif history.bodies[w] != sha:
                anomalies.append(f"{player}/{slot}: version {v} does not hold {w}'s bytes")
    return counts, anomalies


def failover_times(history):
    """For each fault that kills the primary: the time until a write sent after it was
    acknowledged (by the new primary; the old one is gone)."""
    out = []
    for at, kind, _ in history.faults:
        if kind not in ("kill-primary", "isolate-primary"):  # (a SIGTERM'd Patroni stops in its own time)
            continue
        if kind == "isolate-primary":  # (the primary dies when the isolation ends, then this is noted)
            at = next((t for t, k, _ in history.faults if k == "cancel-waits" and t >= at), at)
        first = min((op["end"] for op in history.operations
                     if op["status"] in (200, 201, 204) and op["start"] > at), default=None)
        if first is not None:
            out.append((kind, first - at))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("server_binary")
    parser.add_argument("dir")
    parser.add_argument("--seconds", type=float, default=60, help="how long the clients write (default 60)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--faults", default=",".join(Nemesis.FAULTS))
    parser.add_argument("--times", metavar="FILE",
                        help="append each failover's time as a JSON line (bench/report.py failover)")
    args = parser.parse_args()
    faults = args.faults.split(",")
    unknown_faults = set(faults) - set(Nemesis.FAULTS) - set(Nemesis.UNSAFE_FAULTS)
    if unknown_faults:
        raise SystemExit(f"unknown faults: {sorted(unknown_faults)}")
    os.makedirs(args.dir, exist_ok=True)
    cluster = Cluster(os.path.abspath(args.dir), args.server_binary)
    log(f"seed {args.seed}: {args.clients} clients for {args.seconds:.0f} s, faults {faults}")
    nemesis = None
    try:
        cluster.start(2)
        tokens = {p: subprocess.check_output(
            [args.server_binary, "token", "--player", p, "--ttl", "2h", "--secret-file",
             cluster.env["SAVEKIT_CLUSTER_SECRET"]], text=True).strip() for p in PLAYERS}
        history = History()
        stop_watch = threading.Event()
        watch = LeaderWatch(cluster, history, stop_watch)
        watch.start()
        deadline = time.monotonic() + args.seconds
        clients = [Client(i, args.clients, cluster, tokens, history, deadline, args.seed) for i in range(args.clients)]
        nemesis = Nemesis(cluster, history, deadline, args.seed, faults)
        for c in clients:
            c.start()
        nemesis.start()
        for c in clients:
            c.join(args.seconds + DB_TIMEOUT_S * 4 + 60)
        nemesis.join(300)  # (a fault under way ends: its waits are bounded)
        signal_all(nemesis.paused, signal.SIGCONT)
        log("heal: waiting for the cluster to be whole")
        healed = wait_until("the heal", 180, cluster.whole)
        running = [c.number for c in clients if c.is_alive()]
        settle_deadline = time.monotonic() + 120
        settled = all(c.settle(settle_deadline) for c in clients if not c.is_alive())
        stop_watch.set()
        watch.join(5)
        state = final_state(cluster.servers[0], tokens)
        counts, anomalies = check(history, state)
        if not healed:
            anomalies.append("the cluster did not heal within 180 s")
        if running:
            anomalies.append(f"clients {running} were still waiting for an answer long after the end")
        if not settled:
            anomalies.append("writes of unknown outcome were still unanswered 120 s after the heal")
        anomalies += nemesis.problems
        kinds = {}
        for _, kind, _ in history.faults:
            kinds[kind] = kinds.get(kind, 0) + 1
        writes = sum(1 for op in history.operations if not op["replay"])
        print(f"requests: {len(history.operations)} ({writes} writes, "
              f"{len(history.operations) - writes} replays)")
        print("outcomes: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        print(f"faults injected: {len(history.faults)} (" +
              ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) + ")")
        print(f"failovers seen: {max(0, len(history.leaders) - 1)} "
              f"(leaders: {' '.join(name for _, name in history.leaders)})")
        for kind, seconds in failover_times(history):
            print(f"{kind}: {seconds:.1f} s from the fault to the first write acknowledged after it")
            if args.times:
                with open(args.times, "a") as out:
                    out.write(json.dumps({"fault": kind, "lease_s": LEASE_S, "seconds": round(seconds, 2)}) + "\n")
        print(f"slots checked: {len(state)}, versions kept: {sum(len(s['kept']) for s in state.values())}")
        for a in anomalies[:40]:
            print("ANOMALY", a)
        print(f"lost: {counts['lost']}, anomalies: {len(anomalies)}")
        return 1 if anomalies else 0
    finally:
        if nemesis:
            signal_all(nemesis.paused, signal.SIGCONT)
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
