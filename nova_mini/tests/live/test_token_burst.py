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

"""A burst of requests that bring one fresh token to an API worker costs
Keystone one validation, not one a request (nova_mini.api.auth
AuthProtocol): the stack's Keystone (two sync workers) had queued a
validation for each of them, and Glance's own validation of the token
behind them, long enough on a loaded machine for the API's image checks
to time out (test_scheduler_full_fleet's 503s).
"""

import concurrent.futures
import threading

import pytest
import requests

from nova_mini_deploy import util

pytestmark = pytest.mark.live

# The requests of the burst: one worker's threads ([api]
# threads_per_worker's default), all at once.
BURST = 8
# A validation in Keystone's access log (the burst's requests call no
# other service: these are the API's).
VALIDATION = '"GET /v3/auth/tokens HTTP/1.1" 200'


def _api_validations(stack):
    with open(stack.keystone.log_path) as f:
        return sum(1 for line in f if VALIDATION in line)


def test_fresh_token_burst_is_one_validation(stack, extra_api):
    _proc, port = extra_api(workers=1, sections={
        'api': {'threads_per_worker': BURST}})
    url = 'http://127.0.0.1:%d/compute/v2.1/flavors' % port
    token = stack.token('demo')
    before = _api_validations(stack)
    barrier = threading.Barrier(BURST)

    def get(_index):
        barrier.wait(timeout=60)
        return requests.get(url, headers={'X-Auth-Token': token},
                            timeout=120).status_code

    with concurrent.futures.ThreadPoolExecutor(BURST) as pool:
        codes = list(pool.map(get, range(BURST)))
    assert codes == [200] * BURST
    # Keystone writes its access line once it has answered: the first
    # one is there (bounded wait); a late one could only hide one more.
    util.wait_until(lambda: _api_validations(stack) > before, 30,
                    'the validation in %s' % stack.keystone.log_path)
    validations = _api_validations(stack) - before
    # One; a request that starts only after it ended may miss the
    # worker's cache it went into (keystonemiddleware keeps a pool of
    # in-process caches) and ask again.
    assert validations <= 2, validations
