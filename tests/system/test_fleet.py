# SPDX-License-Identifier: GPL-2.0
"""The fleet kit (fleet/): the Prometheus rules pass promtool's check and
their own unit tests, every metric the rules and the Grafana dashboard
name is one `iolens serve` exports, and every query of both runs on a real
Prometheus scraping a live serve, with the series of the device it
watches."""
import json
import math
import os
import re
import subprocess
import time

import pytest

from helpers import DirectIO, Prometheus, need, wait_idle

FLEET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fleet")
RULES = os.path.join(FLEET, "prometheus", "iolens.rules.yml")
DASHBOARD = os.path.join(FLEET, "grafana", "iolens.json")
HIST_SUFFIXES = ("_bucket", "_sum", "_count")


def dashboard():
    with open(DASHBOARD) as f:
        return json.load(f)


def dashboard_queries(d):
    """(panel title, PromQL) of every panel's targets."""
    return [(p["title"], t["expr"]) for p in d["panels"] for t in p["targets"]]


def metric_names(text):
    """The iolens_* names in PromQL or rule text, not the parts of a
    recording rule's name (level:metric:operations)."""
    return set(re.findall(r"(?<![:\w])iolens_[a-z0-9_]+(?![:\w])", text))


@pytest.mark.fast
def test_fleet_rules_promtool():
    """promtool check rules accepts the rules; promtool test rules runs
    their unit tests (alerts fire, and only, when they must)."""
    promtool = need("promtool")
    for args in (["check", "rules", RULES], ["test", "rules", "iolens.rules.test.yml"]):
        p = subprocess.run([promtool] + args, capture_output=True, text=True,
                           cwd=os.path.dirname(RULES), timeout=60)
        assert p.returncode == 0 and "SUCCESS" in p.stdout + p.stderr, p.stdout + p.stderr


@pytest.mark.fast
def test_fleet_names_are_exported(iolens, serve):
    """Every metric the rules and the dashboard name (queries, variables,
    annotations) is a family of serve's page, a histogram's _bucket,
    _sum or _count included."""
    s = serve()
    families = dict(re.findall(r"^# TYPE (\S+) (\S+)$", s.metrics(), re.M))
    with open(RULES) as f:
        named = metric_names(f.read())
    d = dashboard()
    named |= metric_names(json.dumps(d))
    assert len(named) >= 15, named
    for n in sorted(named):
        base = next((n[:-len(x)] for x in HIST_SUFFIXES if n.endswith(x)), None)
        assert n in families or families.get(base) == "histogram", (n, sorted(families))
    assert s.stop() == 0


def finite(result):
    return [r for r in result if not math.isnan(float(r["value"][1]))]


def test_fleet_queries_on_live_serve(iolens, loop, serve, tmp_path):
    """A real Prometheus scraping serve every second, with the rules
    loaded: after writes and reads on the loop device, every dashboard
    query and every recording rule returns the device's series with a
    number (the failure panels: none, and no error, as nothing failed); the
    rules are healthy and no alert is pending or firing."""
    s = serve(["-d", loop.name])
    prom = Prometheus(s.port, str(tmp_path), rules=RULES)
    try:
        # serve has a disk's series from its start only if it did I/O
        # since boot: one first, scraped, so that a rate over the run sees
        # it grow.
        for n in (1, 400):
            io = DirectIO(loop.dev)
            try:
                for i in range(n):
                    io.write(i % 64 * 65536, 4096)
                    io.read(i % 32 * 65536, 65536)
            finally:
                io.close()
            wait_idle(loop)
            # The collector's next read, the next scrape, the next rule
            # evaluation: each a second, and slack for two loaded cores.
            time.sleep(5)
        at = time.time()
        empty = {"Failed requests"}
        d = dashboard()
        for title, expr in dashboard_queries(d):
            q = (expr.replace("$__rate_interval", "30s").replace("$instance", ".*")
                 .replace("$device", loop.name))
            res = prom.query(q, at)
            if title in empty:
                assert res == [], (title, q, res)
                continue
            assert finite(res), (title, q, res)
            assert {r["metric"].get("device", loop.name) for r in res} == {loop.name}, (title, res)
        for v in d["templating"]["list"]:
            if v["type"] == "query":
                q = re.sub(r"label_values\((.*), (\w+)\)$", r"group by (\2) (\1)", v["query"]["query"])
                res = prom.query(q.replace("$instance", ".*"), at)
                assert res, (v["name"], q)

        rules = [x for g in prom.api("/api/v1/rules")["groups"] for x in g["rules"]]
        assert len(rules) >= 14 and all(x["health"] == "ok" for x in rules), rules
        for x in rules:
            if x["type"] == "alerting":
                assert x["state"] == "inactive", x
            elif "failed" in x["name"]:
                assert prom.query(x["name"], at) == [], x
            else:
                res = prom.query(x["name"], at)
                assert finite(res) and {r["metric"]["device"] for r in res} == {loop.name}, (x, res)
    finally:
        prom.stop()
    assert s.stop() == 0
