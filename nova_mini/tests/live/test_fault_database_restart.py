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

"""The database restarted under load.

An API (2 workers) and a scheduler on a PostgreSQL cluster of the test's
own (``postgresql.PrivateCluster``: stopping it disturbs nobody), with
clients writing through both API roots (``write_mix``: flavor creates,
extra specs, node traits, server boots and deletes) and reading (a
flavor, a node, the server list). The cluster is
stopped with ``pg_ctl stop -m fast`` (sessions ended at once) for
OUTAGE seconds, then started again. The daemons are not restarted.

* No answer is ever a 500 (or any 5xx but 503), no connection is reset.
* Requests during the outage (reads of flavors, nodes and servers among
  them) are answered 503 with a Retry-After header,
  in Nova's fault format on the compute root and Ironic's on the
  bare-metal root; no 503 outside the outage (and a short recovery).
* Shortly after the restart every kind of write is accepted again, a new
  server is built ACTIVE by the same scheduler, and every write that was
  accepted is stored (``WriteMix.check``: flavors, extra specs, traits
  within the 50-trait limit, one server per node, every server settled).
  A build the outage cut after its node was claimed leaves the node
  claimed until the schedulers' periodic clean-up frees it, once the
  build deadline has passed: the check is repeated until then.

``tools/database_restarts.py --cycles N`` runs the same clients through N
stops and starts, to find a race that one restart rarely meets.

``[database] write_wait_timeout`` is lowered to WRITE_WAIT seconds so that
a write gives up within the outage; with the default (30 s) a write
waits out a restart shorter than that and succeeds.
"""

import json
import threading
import time

import pytest
import requests

from nova_mini.tests.harness import postgresql
from nova_mini.tests.live import helpers
from nova_mini.tests.live import write_mix

pytestmark = [pytest.mark.live, pytest.mark.postgresql]

CLIENTS = 16
BEFORE = 4          # seconds of load before the stop
OUTAGE = 5          # seconds the cluster is stopped (> 2 WRITE_WAIT)
AFTER = 8           # seconds of load after the start (RECOVERY and 4)
WRITE_WAIT = 2.0    # [database] write_wait_timeout
# After the start: seconds within which the API must answer normally.
RECOVERY = 4
BOOT_NODES = 80
BUILD_DEADLINE = 15     # [DEFAULT] rpc_response_timeout
CLEANUP_INTERVAL = 2    # [filter_scheduler] cleanup_interval
# Reads among the write mix's operations, with their weights.
READS = (('flavor_read', 2), ('node_read', 2), ('server_list', 1))


class OutageMix(write_mix.WriteMix):
    """The write mix, recording every answer with its time, and taking
    503 as an answer to judge afterwards rather than as a failure.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.answers = []   # (start, end, root, operation, status, headers,
        #                      body)
        self.operations = write_mix.OPERATIONS + READS

    def check_settled(self):
        """``check()`` until it finds nothing or the clean-up has had its
        time; (the first problems, those left).

        A build that an outage cut after its claim leaves the node claimed
        ("holds X, which is on None") until the clean-up frees it: within
        the build deadline and a few clean-up rounds.
        """
        problems = first = self.check()
        end = time.monotonic() + BUILD_DEADLINE + 10 * CLEANUP_INTERVAL
        while problems and time.monotonic() < end:
            time.sleep(CLEANUP_INTERVAL)
            problems = self.check(settle_seconds=BUILD_DEADLINE * 2)
        return first, problems

    # -- the reads besides the writes

    def _flavor_read(self, index, counter, rng, own_servers):
        self._compute('flavor_read', 'GET',
                      '/flavors/%s' % rng.choice(self.spec_flavors))

    def _node_read(self, index, counter, rng, own_servers):
        self._baremetal('node_read', 'GET',
                        '/nodes/%s' % rng.choice(self.trait_nodes))

    def _server_list(self, index, counter, rng, own_servers):
        self._compute('server_list', 'GET', '/servers/detail?limit=10')

    def _call(self, operation, method, url, headers, body=None,
              expected=(200,)):
        start = time.monotonic()
        try:
            resp = self._session().request(
                method, url, json=body, headers=headers,
                timeout=write_mix.REQUEST_TIMEOUT)
        except requests.RequestException as exc:
            with self.result.lock:
                self.result.transport_errors.append(
                    (operation, method, url, repr(exc)))
            return None
        end = time.monotonic()
        root = 'baremetal' if '/baremetal/' in url else 'compute'
        with self.result.lock:
            self.answers.append((start, end, root, operation,
                                 resp.status_code, dict(resp.headers),
                                 resp.text[:500]))
            self.result.latencies.append(end - start)
            self.result.counts[(operation, resp.status_code)] += 1
            if resp.status_code == 503:
                pass                    # judged by the test
            elif resp.status_code >= 500:
                self.result.server_errors.append(
                    (operation, method, url, resp.status_code,
                     resp.text[:300]))
            elif resp.status_code not in expected:
                self.result.unexpected.append(
                    (operation, method, url, resp.status_code,
                     resp.text[:300]))
        return resp


@pytest.fixture
def cluster():
    with postgresql.PrivateCluster() as pg:
        yield pg


def outage_deployment(state_dir, connection):
    """The API (2 workers) and scheduler of this test on ``connection``,
    configured for outages (not started): also tools/database_restarts.py's.
    """
    dep = write_mix.Deployment(state_dir, connection, workers=2)
    dep.nova.extra_sections['database'].update(
        write_wait_timeout=WRITE_WAIT)
    # A build cut by the outage may leave its node claimed: the
    # schedulers' clean-up frees it once left alone for the build deadline.
    dep.nova.extra_sections['DEFAULT'] = {
        'rpc_response_timeout': BUILD_DEADLINE}
    dep.nova.extra_sections['filter_scheduler'] = {
        'cleanup_interval': CLEANUP_INTERVAL}
    return dep


@pytest.fixture
def deployment(cluster, tmp_path):
    dep = outage_deployment(str(tmp_path / 'state'),
                            cluster.create_database('nova_mini_fault'))
    with dep:
        yield dep


def _unavailable_problem(root, status, headers, body):
    """What is wrong with a 503 answer (None if it is right)."""
    retry_after = headers.get('Retry-After', '')
    if not retry_after.isdigit() or int(retry_after) < 1:
        return 'Retry-After %r' % retry_after
    try:
        doc = json.loads(body)
        if root == 'compute':
            fault = doc['serviceUnavailable']
            message = fault['message']
            assert fault['code'] == 503
        else:
            fault = json.loads(doc['error_message'])
            message = fault['faultstring']
            assert fault['faultcode'] == 'Server'
    except (ValueError, KeyError, TypeError, AssertionError):
        return 'not in the %s error format: %s' % (root, body)
    if 'Retry' not in message:
        return 'the message does not say to retry: %s' % message
    return None


def _boot_and_wait(compute_url, flavor, name, timeout=60):
    resp = requests.post(compute_url + '/servers', headers=write_mix.
                         COMPUTE_HEADERS, timeout=30, json={'server': {
                             'name': name, 'flavorRef': flavor,
                             'imageRef': helpers.IMAGE}})
    assert resp.status_code == 202, resp.text
    server_id = resp.json()['server']['id']
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        server = requests.get(compute_url + '/servers/%s' % server_id,
                              headers=write_mix.COMPUTE_HEADERS,
                              timeout=30).json()['server']
        if server['status'] != 'BUILD':
            return server
        time.sleep(0.5)
    return server


def test_database_restart_under_load(cluster, deployment):
    pids = {name: proc.pid
            for name, proc in deployment.nova.processes.items()}
    engine = deployment.engine()
    try:
        mix = OutageMix(deployment.compute_url, deployment.baremetal_url,
                        engine, clients=CLIENTS,
                        duration=BEFORE + OUTAGE + AFTER,
                        boot_nodes=BOOT_NODES)
        mix.setup()
        engine.dispose()    # its connections die with the server
        runner = threading.Thread(target=mix.run, daemon=True)
        runner.start()
        time.sleep(BEFORE)      # the behaviour under test: load, then...
        stop_called = time.monotonic()
        cluster.stop(mode='fast')
        stopped = time.monotonic()
        time.sleep(OUTAGE)      # ...an outage of that length under load
        start_called = time.monotonic()
        cluster.start()
        started = time.monotonic()
        runner.join(AFTER + write_mix.REQUEST_TIMEOUT * 3)
        assert not runner.is_alive(), 'the clients did not finish'
        first_problems, problems = mix.check_settled()
        # The clients may have taken every node: one free node for a
        # build by the scheduler that lived through the outage.
        helpers.insert_node(engine, mix.resource_class, name_prefix='after')
        after = _boot_and_wait(deployment.compute_url, mix.boot_flavor,
                               'after-restart-%s' % mix.run_id)
    finally:
        engine.dispose()
    logs = write_mix.log_tails(deployment)
    summary = mix.result.summary()

    # Never a 5xx but 503, never a reset connection.
    assert mix.result.server_errors == [], (summary, logs)
    assert mix.result.transport_errors == [], summary

    outage_window = (stop_called, started + RECOVERY)
    during = {'compute': [], 'baremetal': []}
    wrong = []
    for start, end, root, operation, status, headers, body in mix.answers:
        if status == 503:
            problem = _unavailable_problem(root, status, headers, body)
            if problem:
                wrong.append('%s %s: %s' % (root, operation, problem))
            if end < outage_window[0] or start > outage_window[1]:
                wrong.append('%s %s: 503 outside the outage (%.1f s after '
                             'the start): %s' % (root, operation,
                                                 start - started, body))
        if start > stopped and end < start_called:
            during[root].append((operation, status))
    assert wrong == [], (wrong[:10], summary, logs)
    reads = {name for name, _weight in READS}
    for root, answers in during.items():
        # Every request needs the database (a read might come from a
        # cache: 200 would do for it).
        assert answers and all(
            status == 503 or (operation in reads and status == 200)
            for operation, status in answers), (root, answers, summary)
        assert {operation for operation, status in answers
                if status == 503} - reads, (root, answers)

    # Back to normal: every kind of write accepted after the restart.
    recovered = {operation for start, _end, _root, operation, status, _h,
                 _b in mix.answers
                 if start > started + RECOVERY and status in (200, 202, 204)}
    assert recovered >= {'flavor_create', 'extra_spec', 'trait', 'boot',
                         'flavor_read', 'node_read', 'server_list'}, (
        recovered, summary)
    assert problems == [], (problems[:20], summary, logs)
    assert after['status'] == 'ACTIVE', after
    # The same daemons, never restarted.
    assert {name: proc.pid for name, proc in
            deployment.nova.processes.items()} == pids
    assert all(proc.running for proc in deployment.nova.processes.values())
    print('outage answers: %s; run: %s; servers: %s; before the '
          'clean-up: %s' % (
              {root: len(statuses) for root, statuses in during.items()},
              summary, dict(mix.statuses), first_problems))
