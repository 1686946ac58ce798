#!/usr/bin/env python3
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

"""Many database restarts under load: the soak behind
nova_mini/tests/live/test_fault_database_restart.py, which stops its
PostgreSQL once.

An API (2 workers) and a scheduler on a PostgreSQL cluster of their own,
the test's clients (writes and reads through both API roots) for the
whole run, and ``--cycles`` times: ``pg_ctl stop -m fast``, a pause of
0.5-2.5 s, start, 1-3 s of service. A race met once in a few hundred
stops or starts (a connection opened in the instant the server starts
or stops) shows here within minutes. Prints the answers by operation
and status, every answer in the 5xx range but 503 with the API log's
unexpected errors, and every write whose stored state differs from its
answer (``WriteMix.check``); exits 1 if there is any.

    .venv-tests/bin/python tools/database_restarts.py --cycles 50
"""

import argparse
import os
import random
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from nova_mini.tests.harness import postgresql  # noqa: E402
from nova_mini.tests.live import test_fault_database_restart as fault  # noqa: E402,E501
from nova_mini.tests.live import write_mix  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cycles', type=int, default=40)
    parser.add_argument('--clients', type=int, default=16)
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with postgresql.PrivateCluster() as cluster:
        connection = cluster.create_database('nova_mini_restarts')
        state = tempfile.mkdtemp(prefix='nova_mini-restarts.')
        deployment = fault.outage_deployment(os.path.join(state, 'state'),
                                             connection)
        with deployment:
            engine = deployment.engine()
            mix = fault.OutageMix(
                deployment.compute_url, deployment.baremetal_url, engine,
                clients=args.clients, duration=args.cycles * 5 + 6,
                boot_nodes=fault.BOOT_NODES)
            mix.setup()
            engine.dispose()
            runner = threading.Thread(target=mix.run, daemon=True)
            runner.start()
            time.sleep(3)
            for _cycle in range(args.cycles):
                cluster.stop(mode='fast')
                time.sleep(rng.uniform(0.5, 2.5))
                cluster.start()
                time.sleep(rng.uniform(1, 3))
            runner.join(write_mix.REQUEST_TIMEOUT * 3 + 60)
            result = mix.result
            # Every accepted write stored, nothing refused kept.
            _first, problems = mix.check_settled()
            print('answers:', dict(sorted(result.summary()[
                'status_counts'].items())))
            print('5xx but 503: %d; transport errors: %d'
                  % (len(result.server_errors),
                     len(result.transport_errors)))
            for error in result.server_errors + result.transport_errors:
                print('  ', error)
            for path in deployment.log_paths():
                with open(path) as log:
                    lines = [line for line in log
                             if 'Unexpected error' in line]
                print('%s: %d unexpected errors' % (path, len(lines)))
                for line in lines:
                    print('  ', line.rstrip())
            print('stored writes that differ from the answers: %d'
                  % len(problems))
            for problem in problems:
                print('  ', problem)
    return 1 if (result.server_errors or result.transport_errors
                 or problems) else 0


if __name__ == '__main__':
    sys.exit(main())
