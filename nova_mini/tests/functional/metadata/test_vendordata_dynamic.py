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

"""DynamicJSON against real local HTTP servers: what targets are sent,
what their replies become, failures, parallel calls and the HTTP cache."""

import email.utils
import json
import threading
import time
from unittest import mock

import pytest

from nova_mini import exception
from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.fixtures import threads
from nova_mini.tests.fixtures import vendordata as helpers

LOGGER = 'nova_mini.metadata.vendordata.dynamic_json'


# The helpers' pytest fixtures, used by the tests of this module.
vd_conf = helpers.vd_conf
load = helpers.load
make_instance = helpers.make_instance
serve = helpers.serve
dynamic = helpers.dynamic


def test_targets_get_novas_body_and_their_replies_become_keys(
        serve, dynamic, caplog):
    first = serve(http_servers.json_reply({'domain': 'ad.example.org'}))
    second = serve(http_servers.json_reply({'fancy': 'pants'}))
    providers = dynamic('ad@' + first.url, 'extra@' + second.url + 'v1')
    instance = make_instance(metadata={'role': 'web', 'tier': '1'})
    assert providers.vendor_data2(instance) == {
        'static': {}, 'ad': {'domain': 'ad.example.org'},
        'extra': {'fancy': 'pants'}}
    assert list(providers.vendor_data2(instance)) == ['static', 'ad',
                                                      'extra']
    expected = {'project-id': 'demo-project',
                'instance-id': instance.uuid,
                'image-id': '155d900f-4e14-4e4c-a73d-069cbf4541e6',
                'user-data': 'I2Nsb3VkLWNvbmZpZwo=',
                'hostname': 'web-1-example',
                'metadata': {'role': 'web', 'tier': '1'},
                'boot-roles': 'member,reader'}
    assert first.json_bodies()[0] == expected
    assert second.json_bodies()[0] == expected
    request = first.requests[0]
    assert request.method == 'POST' and request.path == '/'
    assert second.requests[0].path == '/v1'
    assert request.headers['Content-Type'] == 'application/json'
    assert request.headers['Accept'] == 'application/json'
    # No credentials configured: no token, and a warning at load.
    assert request.headers['X-Auth-Token'] is None
    assert ('[vendordata_dynamic_auth] has no auth_type: dynamic '
            'vendordata targets are called without a token.') in caplog.text


def test_no_user_data_is_sent_as_null(serve, dynamic):
    server = serve()
    providers = dynamic('ad@' + server.url)
    providers.vendor_data2(make_instance(user_data=None, metadata={},
                                         boot_roles=[]))
    body = server.json_bodies()[0]
    assert body['user-data'] is None
    assert body['metadata'] == {}
    assert body['boot-roles'] == ''


def test_the_service_token_is_sent(serve, dynamic):
    server = serve(http_servers.json_reply({'ok': True}))
    providers = dynamic('ad@' + server.url, **{
        'vendordata_dynamic_auth.auth_type': 'admin_token',
        'vendordata_dynamic_auth.token': 'service-token-123',
        'vendordata_dynamic_auth.endpoint': 'http://127.0.0.1:1/'})
    assert providers.vendor_data2(make_instance())['ad'] == {'ok': True}
    assert server.requests[0].headers['X-Auth-Token'] == 'service-token-123'


@pytest.mark.parametrize('reply', [
    http_servers.Reply(204, {}, b''),
    http_servers.Reply(200, {}, b''),
    http_servers.Reply(200, {'Content-Type': 'application/json'}, b'  \n'),
    http_servers.json_reply({}),
    http_servers.json_reply({}, status=201),
])
def test_an_empty_reply_is_an_empty_key(serve, dynamic, reply):
    server = serve(reply)
    providers = dynamic('ad@' + server.url)
    assert providers.vendor_data2(make_instance()) == {'static': {},
                                                       'ad': {}}


@pytest.mark.parametrize('reply, reason', [
    (http_servers.json_reply({'error': 'no'}, status=500),
     'HTTP 500 Internal Server Error'),
    (http_servers.json_reply({'error': 'who?'}, status=401),
     'HTTP 401 Unauthorized'),
    (http_servers.json_reply({}, status=404), 'HTTP 404 Not Found'),
    (http_servers.Reply(302, {'Location': 'http://127.0.0.1:1/'}, b''),
     'HTTP 302 Found'),
    (http_servers.json_reply([1, 2]), 'the reply is a JSON list, not an '
                                      'object'),
    (http_servers.json_reply('text'), 'the reply is a JSON str, not an '
                                      'object'),
    (http_servers.Reply(200, {}, b'<html>'), 'the reply is not JSON'),
    (http_servers.Reply(304, {}, b''), 'HTTP 304 Not Modified'),
])
def test_a_failed_target_is_left_out_with_a_warning(serve, dynamic, caplog,
                                                    reply, reason):
    bad = serve(reply)
    good = serve(http_servers.json_reply({'fine': 1}))
    providers = dynamic('bad@' + bad.url, 'good@' + good.url)
    instance = make_instance()
    assert providers.vendor_data2(instance) == {'static': {},
                                                'good': {'fine': 1}}
    warnings = [record for record in caplog.records
                if record.name == LOGGER and record.levelname == 'WARNING'
                and 'failed' in record.getMessage()]
    assert len(warnings) == 1
    assert warnings[0].getMessage() == (
        'Vendordata target bad (%s) failed for instance %s: %s'
        % (bad.url, instance.uuid, reason)) or reason in (
        warnings[0].getMessage())
    assert warnings[0].getMessage().startswith(
        'Vendordata target bad (%s) failed for instance %s: '
        % (bad.url, instance.uuid))


def test_a_refused_connection_is_left_out(dynamic, caplog):
    server = http_servers.ReplyServer()
    server.setUp()
    url = server.url
    server.cleanUp()        # nothing listens there any more
    providers = dynamic('gone@' + url)
    assert providers.vendor_data2(make_instance()) == {'static': {}}
    assert 'Vendordata target gone (%s) failed' % url in caplog.text
    assert 'Connection refused' in caplog.text


def test_a_slow_target_times_out_and_is_left_out(serve, dynamic, caplog):
    slow = serve(http_servers.json_reply({'late': True}, delay=2.5))
    fast = serve(http_servers.json_reply({'fast': True}))
    providers = dynamic('slow@' + slow.url, 'fast@' + fast.url,
                        vendordata_dynamic_read_timeout=1)
    started = time.monotonic()
    assert providers.vendor_data2(make_instance()) == {
        'static': {}, 'fast': {'fast': True}}
    assert time.monotonic() - started < 2.2
    assert 'Vendordata target slow (%s) failed' % slow.url in caplog.text
    assert 'timed out' in caplog.text


def test_a_failure_is_fatal_when_configured(serve, dynamic):
    bad = serve(http_servers.json_reply({}, status=503))
    providers = dynamic('bad@' + bad.url,
                        vendordata_dynamic_failure_fatal=True)
    with pytest.raises(exception.VendorDataTargetFailed) as caught:
        providers.vendor_data2(make_instance())
    assert caught.value.kwargs == {'target': 'bad',
                                   'reason': 'HTTP 503 Service Unavailable'}
    assert str(caught.value) == ('Vendordata target bad failed: HTTP 503 '
                                 'Service Unavailable')


def test_targets_are_called_in_parallel(serve, dynamic):
    # Each target answers only once all three have been asked (a barrier,
    # not a clock): called one after the other, the first would wait in
    # vain, answer 500 and be left out.
    everyone_asked = threading.Barrier(3)

    def reply_when_all_asked(number):
        def reply(_request):
            try:
                everyone_asked.wait(timeout=10)
            except threading.BrokenBarrierError:
                return http_servers.json_reply({}, status=500)
            return http_servers.json_reply({'n': number})
        return reply

    one, two, three = (serve(reply_when_all_asked(n)) for n in (1, 2, 3))
    providers = dynamic('one@' + one.url, 'two@' + two.url,
                        'three@' + three.url,
                        vendordata_dynamic_cache_max_age=0,
                        vendordata_dynamic_read_timeout=20)

    for _call in range(2):
        assert providers.vendor_data2(make_instance()) == {
            'static': {}, 'one': {'n': 1}, 'two': {'n': 2},
            'three': {'n': 3}}
    assert (one.calls, two.calls, three.calls) == (2, 2, 2)


# The HTTP cache.

class Upstream:
    """A target's replies: a JSON document with the headers a test sets,
    and a 304 when the request's validators match.
    """

    def __init__(self, headers=None, etag=None, last_modified=None,
                 not_modified_headers=None):
        self.headers = headers or {}
        self.etag = etag
        self.last_modified = last_modified
        self.not_modified_headers = not_modified_headers or {}
        self.version = 1

    def __call__(self, request):
        if self.etag and request.headers['If-None-Match'] == self.etag:
            return http_servers.Reply(304, dict(self.not_modified_headers))
        if (self.last_modified and request.headers['If-Modified-Since']
                == self.last_modified):
            return http_servers.Reply(304, dict(self.not_modified_headers))
        headers = dict(self.headers)
        if self.etag:
            headers['ETag'] = self.etag
        if self.last_modified:
            headers['Last-Modified'] = self.last_modified
        return http_servers.json_reply({'version': self.version},
                                       headers=headers)


def test_max_age_is_honoured(serve, dynamic):
    server = serve(Upstream({'Cache-Control': 'private, max-age=60'}))
    providers = dynamic('ad@' + server.url)
    instance = make_instance()
    for _i in range(5):
        assert providers.vendor_data2(instance)['ad'] == {'version': 1}
    assert server.calls == 1


def test_entries_expire(serve, dynamic):
    upstream = Upstream({'Cache-Control': 'max-age=1'})
    server = serve(upstream)
    providers = dynamic('ad@' + server.url)
    instance = make_instance()
    assert providers.vendor_data2(instance)['ad'] == {'version': 1}
    upstream.version = 2
    assert providers.vendor_data2(instance)['ad'] == {'version': 1}
    time.sleep(1.1)     # the clock: the 1 s lifetime runs out
    assert providers.vendor_data2(instance)['ad'] == {'version': 2}
    assert server.calls == 2


def test_expires_and_date_are_honoured(serve, dynamic):
    def reply(request):
        now = time.time()
        return http_servers.json_reply({'ok': 1}, headers={
            # The server's clock is an hour behind: only the difference
            # between Expires and Date counts.
            'Date': email.utils.formatdate(now - 3600, usegmt=True),
            'Expires': email.utils.formatdate(now - 3600 + 60,
                                              usegmt=True)})
    server = serve(reply)
    providers = dynamic('ad@' + server.url)
    instance = make_instance()
    providers.vendor_data2(instance)
    providers.vendor_data2(instance)
    assert server.calls == 1


@pytest.mark.parametrize('headers', [
    {'Cache-Control': 'no-store'},
    {'Cache-Control': 'no-store, max-age=60'},
    {},                                 # nothing says it may be reused
    {'Expires': '0'},
    {'Cache-Control': 's-maxage=60'},   # for shared caches only
])
def test_replies_that_are_not_reused(serve, dynamic, headers):
    server = serve(Upstream(headers))
    providers = dynamic('ad@' + server.url)
    instance = make_instance()
    for _i in range(3):
        providers.vendor_data2(instance)
    assert server.calls == 3
    assert all(request.headers['If-None-Match'] is None
               for request in server.requests)


def test_no_cache_revalidates_with_the_etag_every_time(serve, dynamic):
    upstream = Upstream({'Cache-Control': 'no-cache'}, etag='"v1"')
    server = serve(upstream)
    providers = dynamic('ad@' + server.url)
    instance = make_instance()
    for _i in range(3):
        assert providers.vendor_data2(instance)['ad'] == {'version': 1}
    assert server.calls == 3
    assert [request.headers['If-None-Match']
            for request in server.requests] == [None, '"v1"', '"v1"']
    # A new version: the 200 replaces the entry.
    upstream.etag = '"v2"'
    upstream.version = 2
    assert providers.vendor_data2(instance)['ad'] == {'version': 2}
    assert providers.vendor_data2(instance)['ad'] == {'version': 2}
    assert server.requests[-1].headers['If-None-Match'] == '"v2"'


def test_last_modified_revalidation(serve, dynamic):
    stamp = email.utils.formatdate(time.time() - 86400, usegmt=True)
    server = serve(Upstream({'Cache-Control': 'max-age=0'},
                            last_modified=stamp))
    providers = dynamic('ad@' + server.url)
    instance = make_instance()
    providers.vendor_data2(instance)
    assert providers.vendor_data2(instance)['ad'] == {'version': 1}
    assert server.requests[1].headers['If-Modified-Since'] == stamp
    assert server.calls == 2


def test_a_304_refreshes_the_lifetime_from_its_headers(serve, dynamic):
    server = serve(Upstream({'Cache-Control': 'max-age=1'}, etag='"v1"',
                            not_modified_headers={
                                'Cache-Control': 'max-age=60'}))
    providers = dynamic('ad@' + server.url)
    instance = make_instance()
    providers.vendor_data2(instance)
    time.sleep(1.1)     # the clock: the 1 s lifetime runs out
    assert providers.vendor_data2(instance)['ad'] == {'version': 1}
    assert server.requests[1].headers['If-None-Match'] == '"v1"'
    for _i in range(3):
        assert providers.vendor_data2(instance)['ad'] == {'version': 1}
    assert server.calls == 2


def test_lifetimes_are_capped(serve, dynamic):
    server = serve(Upstream({'Cache-Control': 'max-age=86400'}))
    providers = dynamic('ad@' + server.url,
                        vendordata_dynamic_cache_max_age=1)
    instance = make_instance()
    providers.vendor_data2(instance)
    providers.vendor_data2(instance)
    assert server.calls == 1
    time.sleep(1.1)     # the clock: the 1 s lifetime runs out
    providers.vendor_data2(instance)
    assert server.calls == 2


def test_a_max_age_of_zero_turns_the_cache_off(serve, dynamic):
    server = serve(Upstream({'Cache-Control': 'max-age=60'}, etag='"v"'))
    providers = dynamic('ad@' + server.url,
                        vendordata_dynamic_cache_max_age=0)
    instance = make_instance()
    for _i in range(3):
        providers.vendor_data2(instance)
    assert server.calls == 3
    assert server.requests[-1].headers['If-None-Match'] is None


def test_entries_are_per_instance_and_per_target(serve, dynamic):
    first = serve(Upstream({'Cache-Control': 'max-age=60'}))
    second = serve(Upstream({'Cache-Control': 'max-age=60'}))
    providers = dynamic('a@' + first.url, 'b@' + second.url)
    one, two = make_instance(), make_instance()
    for _i in range(3):
        providers.vendor_data2(one)
        providers.vendor_data2(two)
    assert (first.calls, second.calls) == (2, 2)
    assert {body['instance-id'] for body in first.json_bodies()} == {
        one.uuid, two.uuid}


@pytest.mark.parametrize('change', [
    {'image_ref': 'f0e1d2c3-0000-4000-8000-000000000001'},   # rebuilt
    {'metadata': {'role': 'db'}},
    {'user_data': 'IyEvYmluL3NoCg=='},
    {'name': 'renamed'},
    {'boot_roles': ['admin']},
])
def test_a_changed_instance_never_gets_a_stale_entry(serve, dynamic,
                                                     change):
    server = serve(Upstream({'Cache-Control': 'max-age=600'}))
    providers = dynamic('ad@' + server.url)
    instance = make_instance()
    providers.vendor_data2(instance)
    providers.vendor_data2(instance)
    assert server.calls == 1
    for field, value in change.items():
        setattr(instance, field, value)
    providers.vendor_data2(instance)
    assert server.calls == 2
    assert server.json_bodies()[-1]['instance-id'] == instance.uuid


def test_failures_are_not_cached(serve, dynamic):
    replies = [http_servers.json_reply({}, status=500,
                                       headers={'Cache-Control':
                                                'max-age=60'}),
               http_servers.json_reply({'ok': 1}, headers={
                   'Cache-Control': 'max-age=60'})]
    server = serve(lambda request: replies.pop(0) if len(replies) > 1
                   else replies[0])
    providers = dynamic('ad@' + server.url)
    instance = make_instance()
    assert 'ad' not in providers.vendor_data2(instance)
    assert providers.vendor_data2(instance)['ad'] == {'ok': 1}
    assert providers.vendor_data2(instance)['ad'] == {'ok': 1}
    assert server.calls == 2


def test_a_cold_entry_is_fetched_once_by_concurrent_requests(serve,
                                                             dynamic):
    server = serve(http_servers.json_reply(
        {'ok': 1}, headers={'Cache-Control': 'max-age=60'}, delay=0.3))
    providers = dynamic('ad@' + server.url)
    instance = make_instance()
    results = []

    def read(_index):
        results.append(providers.vendor_data2(instance))

    assert threads.race(read, 16) == []
    assert results == [{'static': {}, 'ad': {'ok': 1}}] * 16
    assert server.calls == 1


def test_in_process_cache_is_bounded(serve, dynamic):
    server = serve(Upstream({'Cache-Control': 'max-age=60'}))
    providers = dynamic('ad@' + server.url,
                        vendordata_dynamic_cache_size=2)
    instances = [make_instance() for _i in range(3)]
    for instance in instances:
        providers.vendor_data2(instance)
    # The least recently used (the first) was dropped, the others kept.
    providers.vendor_data2(instances[2])
    providers.vendor_data2(instances[1])
    assert server.calls == 3
    providers.vendor_data2(instances[0])
    assert server.calls == 4


def test_only_json_is_stored_in_process(serve, dynamic):
    server = serve(Upstream({'Cache-Control': 'max-age=60'}, etag='"e"'))
    providers = dynamic('ad@' + server.url)
    instance = make_instance()
    providers.vendor_data2(instance)
    dynamic_json = dict(providers.providers)['DynamicJSON']
    cache_dict = dynamic_json.store.region.actual_backend._cache
    (stored,) = [cache_dict[key] for key in cache_dict]
    assert isinstance(stored, bytes)
    metadata, _sep, payload = stored.partition(b'|')
    assert json.loads(payload) == {
        'value': {'version': 1},
        'headers': {'Cache-Control': 'max-age=60', 'ETag': '"e"',
                    'Date': mock.ANY},
        'fresh_until': pytest.approx(time.time() + 60, abs=5)}
    assert set(json.loads(metadata)) == {'ct', 'v'}
