#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""A worker's heartbeat to the gunicorn master (its temporary file's
mtime, which the master reads): at most one per NOTIFY_INTERVAL, not one
per request (nova_mini.service.ThreadWorker.notify).
"""

import os
import time

from gunicorn import config
from gunicorn import glogging
import pytest

from nova_mini import service


class _App(object):
    """What a worker needs of the application: nothing here."""


@pytest.fixture
def make_worker():
    workers = []

    def make(timeout):
        cfg = config.Config()
        cfg.set('threads', 2)
        worker = service.ThreadWorker(
            age=1, ppid=os.getppid(), sockets=[], app=_App(),
            timeout=timeout, cfg=cfg, log=glogging.Logger(cfg))
        workers.append(worker)
        return worker

    yield make
    for worker in workers:
        worker.tmp.close()


def _beats(worker, calls, pause=0.002):
    """How many of ``calls`` notify() calls reached the master's file."""
    beats = 0
    for _ in range(calls):
        before = worker.tmp.last_update()
        time.sleep(pause)
        worker.notify()
        beats += worker.tmp.last_update() != before
    return beats


def test_one_heartbeat_per_interval(make_worker, monkeypatch):
    monkeypatch.setattr(service, 'NOTIFY_INTERVAL', 0.2)
    worker = make_worker(timeout=15)
    # The first call beats; the loop's next wake-ups within the interval
    # do not (gunicorn's worker beat on each of them).
    assert _beats(worker, 1) == 1
    assert _beats(worker, 20) == 0
    time.sleep(0.2)
    assert _beats(worker, 1) == 1


def test_the_interval_stays_within_the_timeout(make_worker, monkeypatch):
    # A worker's timeout is half the master's; it beats at least that
    # often, whatever NOTIFY_INTERVAL says.
    monkeypatch.setattr(service, 'NOTIFY_INTERVAL', 60)
    worker = make_worker(timeout=0.1)
    assert _beats(worker, 1) == 1
    time.sleep(0.06)
    assert _beats(worker, 1) == 1
    assert service.NOTIFY_INTERVAL == 60
    # The default leaves ample margin below gunicorn's default (30 s).
    monkeypatch.undo()
    assert service.NOTIFY_INTERVAL <= config.Config().timeout / 4
