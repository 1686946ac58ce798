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

"""Dynamic vendordata cached in a shared memcached, end to end: two
nova-mini-metadata services (two hosts, as far as the cache is concerned)
of two gunicorn workers each, on the live stack's database and one real
memcached, and one slow DynamicJSON target (a local HTTP server that
counts its calls).

32 clients read vendor_data2.json of a server nobody read before, all at
once, half from each service: every answer holds the target's document,
and the target is called once. The lock of the cold entry is held in
memcached, so the processes that lose wait for the winner's answer.
"""

import concurrent.futures
import threading
import uuid

import pytest
import requests

from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.fixtures import memcached
from nova_mini.tests.live import helpers
from nova_mini.tests.live import test_metadata as md
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
CLIENTS = 32
DOCUMENT = {'realm': 'shared.example', 'run': RUN}
VENDOR_DATA2 = '/openstack/latest/vendor_data2.json'


@pytest.fixture(scope='module')
def target():
    """A target that takes 0.5 s and lets its answer be cached a minute."""
    server = http_servers.ReplyServer(http_servers.json_reply(
        DOCUMENT, headers={'Cache-Control': 'max-age=60'}, delay=0.5))
    server.setUp()
    yield server
    server.cleanUp()


@pytest.fixture(scope='module')
def cache_server():
    server = memcached.MemcachedServer()
    server.setUp()
    yield server
    server.cleanUp()


@pytest.fixture(scope='module')
def services(stack, target, cache_server):
    """Root URLs of two metadata services of 2 workers each, sharing the
    memcached.
    """
    started, roots = [], []
    try:
        for index in range(2):
            name = 'nova-mini-metadata-shared%d-%s' % (index, RUN)
            port = util.free_port()
            extra = stack.nova.write_extra_config(name, {
                'metadata': {'bind_port': port, 'workers': 2},
                'api': {'vendordata_providers': 'DynamicJSON',
                        'vendordata_dynamic_targets': 'shared@' + target.url},
                'cache': {'enabled': 'true',
                          'backend': 'dogpile.cache.pymemcache',
                          'memcache_servers': cache_server.url}})
            stack.nova.start(nova.METADATA, name=name, port=port,
                             config_files=[stack.nova.conf_path, extra])
            started.append(name)
            roots.append('http://%s:%d' % (util.LOCALHOST, port))
        yield roots
    finally:
        for name in started:
            stack.nova.stop(name, timeout=30)


@pytest.fixture(scope='module')
def flavor(stack):
    return helpers.make_flavor(stack)


def test_a_cold_entry_is_fetched_once_by_all_workers(stack, flavor,
                                                     services, target):
    server = helpers.boot(stack, flavor, 'shared-%s' % RUN)
    try:
        headers = md.signed_headers(stack.nova.metadata_secret,
                                    server['id'], server['tenant_id'])
        start = threading.Barrier(CLIENTS)

        def read(index):
            start.wait(timeout=60)
            # A connection of its own: the requests spread over the
            # services' workers.
            return requests.get(services[index % 2] + VENDOR_DATA2,
                                headers=dict(headers, Connection='close'),
                                timeout=60)

        before = target.calls
        with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
            answers = list(pool.map(read, range(CLIENTS)))
        for resp in answers:
            assert resp.status_code == 200, resp.text
            assert resp.json() == {'shared': DOCUMENT}
        assert target.calls - before == 1
        body = target.json_bodies()[-1]
        assert body['instance-id'] == server['id']
    finally:
        helpers.delete(stack, server['id'])
