#!/usr/bin/python3
"""Test scripts/cost_model.py against every measured row (docs/scaling.md, "Cost model"):

  - bytes per step and rank: every multi-rank row of docs/scaling.csv (Zen5-2) and
    docs/scaling-xeon16.csv within BYTES_TOLERANCE of the model;
  - step time: every row at 1-4 ranks within TIME_TOLERANCE; the Xeon-16 rows at 8-16 ranks, which
    the model does not explain (docs/scaling.md), at least the model's time (it is a lower bound there);
  - the alpha-beta collectives: bench_collectives' allreduces, which the fit did not see, and every
    kind at the step's message sizes (>= 256 KB) within COLLECTIVE_TOLERANCE of the model;
  - that the checks can fail: the bytes check with the encoder gradient's exchange dropped from the
    model, the collectives check with its bandwidth halved. (Dropping the collectives' time alone
    moves the 2-rank rows by 1-5%, inside the time tolerance: the time check cannot see it.)

Plain asserts, no pytest: /usr/bin/python3 tests/tools/test_cost_model.py; exits non-zero on failure.
"""
import dataclasses
import importlib.util
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BYTES_TOLERANCE = 0.01
TIME_TOLERANCE = 0.30
COLLECTIVE_TOLERANCE = 0.30


def load_model():
    spec = importlib.util.spec_from_file_location("cost_model", os.path.join(REPO, "scripts", "cost_model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bytes_errors(m):
    return [(r, r["model_bytes"] / float(r["bytes_per_step_per_rank"]) - 1) for r in m.validation_rows()
            if int(r["ranks"]) > 1]


def check_bytes(m):
    errors = bytes_errors(m)
    assert len(errors) == 6 + 8, len(errors)  # every multi-rank row of both files
    for r, e in errors:
        assert abs(e) <= BYTES_TOLERANCE, (r["machine"], r["mode"], r["ranks"], r["d"], e)


def check_time(m):
    rows = m.validation_rows()
    assert len(rows) == 12 + 10, len(rows)
    for r in rows:
        measured, model = float(r["seconds_per_step"]), r["model_seconds"]
        where = (r["machine"], r["mode"], r["ranks"], r["d"], measured, model)
        if int(r["ranks"]) <= 4:
            assert abs(model / measured - 1) <= TIME_TOLERANCE, where
        else:
            assert r["machine"] == "Xeon-16" and model <= measured, where


def collective_errors(m):
    out = []
    for r in m.read_csv(os.path.join(REPO, "docs", "collectives-zen5-2.csv")):
        n, kind = float(r["bytes"]), r["collective"]
        if kind == "allreduce" or n >= 256 * 1024:
            model = m.collective_seconds({"allgatherv": "allgather", "allgather_slices": "allgather"}.get(kind, kind),
                                         n, int(r["ranks"]), m.ZEN5_2)
            out.append((kind, n, model / float(r["seconds"]) - 1))
    return out


def check_collectives(m):
    errors = collective_errors(m)
    assert len(errors) >= 14, len(errors)
    for kind, n, e in errors:
        if kind == "allreduce" and 512 <= n < 256 * 1024:
            continue  # eager-to-rendezvous switch of shared memory: no single alpha fits it (documented)
        assert abs(e) <= COLLECTIVE_TOLERANCE, (kind, n, e)


def must_fail(check, m, what):
    try:
        check(m)
    except AssertionError:
        return
    raise AssertionError(f"{check.__name__} passed with {what}")


def main():
    m = load_model()
    check_bytes(m)
    check_time(m)
    check_collectives(m)

    dropped = load_model()
    full = dropped.step_collectives
    dropped.step_collectives = lambda *a, **k: [c for c in full(*a, **k) if c[0] != "encoder gradient"]
    must_fail(check_bytes, dropped, "the encoder gradient's exchange dropped")

    slow = load_model()
    slow.ZEN5_2 = dataclasses.replace(slow.ZEN5_2, shm=slow.Link(slow.SHM.alpha, 2 * slow.SHM.beta))
    must_fail(check_collectives, slow, "half the shared-memory bandwidth")
    print("cost model: bytes, step times and collectives within tolerance")


if __name__ == "__main__":
    main()
