"""Playouts on a local Dask cluster give exactly the local results (issue 12: the optional ``dask`` extra,
installed by .ci/run)."""

from __future__ import annotations

from typing import Any

import pytest

from heatlog.analysis import information_set
from heatlog.analysis.executors import dask_executor
from heatlog.analysis.playout import playouts
from heatlog.engine import HeatlogError
from heatlog.simulate import simulate_race

distributed = pytest.importorskip("distributed", reason="the dask extra: pip install 'heatlog[dask]'")


@pytest.fixture(scope="module")
def cluster() -> Any:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    ) as c:
        yield c


def test_playouts_on_a_dask_cluster_equal_the_local_ones(cluster: Any) -> None:
    events = simulate_race(None, track="usa", cars=3, seed=2)[1]
    info = information_set(events[: len(events) // 2])
    local = playouts(info, 40, seed=6)
    with dask_executor(cluster.scheduler_address) as ex:
        remote = playouts(info, 40, seed=6, executor=ex)
    assert remote.outcomes == local.outcomes and not remote.partial


def test_an_unreachable_scheduler_is_a_clear_error() -> None:
    with (
        pytest.raises(HeatlogError, match="cannot reach the Dask scheduler"),
        dask_executor("tcp://127.0.0.1:9", timeout="1s"),
    ):
        pass


def test_a_review_on_a_dask_cluster_spreads_its_decisions_and_equals_the_local_one(cluster: Any) -> None:
    """Issue 28, item 8: ``review --dask-scheduler`` reviewed one decision at a time (parallel 1); the executor
    now says the cluster's width, and the review is the same as in this process."""
    from heatlog.analysis.executors import width
    from heatlog.review import Settings, review_race

    events = simulate_race(None, track="usa", cars=2, seed=2)[1]
    settings = Settings(seed=1, screen=4, keep=1, max_playouts=8)
    local = review_race(events, ["Red"], settings=settings, rounds={3}).to_dict()
    with dask_executor(cluster.scheduler_address) as ex:
        assert width(ex) == 2
        remote = review_race(events, ["Red"], settings=settings, rounds={3}, executor=ex, parallel=width(ex))
    got = remote.to_dict()
    local.pop("seconds"), got.pop("seconds")
    assert got == local and local["cars"][0]["decisions"]
