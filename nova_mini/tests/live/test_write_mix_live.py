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

"""64 clients writing at once through a nova-mini-api of 2 workers, on the
default SQLite database and on PostgreSQL: flavor creates, extra-spec
writes, node trait writes racing past the 50-trait limit, server boots
and deletes (write_mix.py), for DURATION seconds. No 5xx, no unexpected
refusal, every accepted write stored as accepted, no node over 50 traits,
no node holding two servers, every server settled.

The API and its scheduler run on a RabbitMQ virtual host and a database
of their own (``write_mix.Deployment``), with noauth2.
"""

import pytest

from nova_mini.tests.harness import postgresql
from nova_mini.tests.live import write_mix

pytestmark = pytest.mark.live

CLIENTS = 64
DURATION = 8
BOOT_NODES = 150


@pytest.fixture(params=['sqlite', pytest.param(
    'postgresql', marks=pytest.mark.postgresql)])
def deployment(request, tmp_path):
    pg = None
    if request.param == 'sqlite':
        connection = 'sqlite:///%s' % (tmp_path / 'nova_mini.sqlite')
    else:
        pg = postgresql.TemporaryDatabase(prefix='nova_mini_mix')
        connection = pg.url
    try:
        with write_mix.Deployment(str(tmp_path / 'state'), connection,
                                  workers=2) as dep:
            yield dep
    finally:
        if pg is not None:
            pg.drop()


def test_concurrent_write_mix_loses_nothing(deployment):
    engine = deployment.engine()
    try:
        mix = write_mix.WriteMix(deployment.compute_url,
                                 deployment.baremetal_url, engine,
                                 clients=CLIENTS, duration=DURATION,
                                 boot_nodes=BOOT_NODES)
        mix.setup()
        result = mix.run()
        problems = mix.check()
    finally:
        engine.dispose()
    summary = result.summary()
    assert problems == [], '%s\n%s\n%s' % (
        summary, '\n'.join(problems[:20]),
        write_mix.log_tails(deployment))
    assert result.server_errors == []
    # Every kind of write was accepted during the run.
    accepted = {op for (op, status), n in result.counts.items()
                if status in (200, 202, 204)}
    assert accepted >= {'flavor_create', 'extra_spec', 'trait', 'boot',
                        'delete'}, summary
    assert result.flavors and result.specs and result.booted, summary
