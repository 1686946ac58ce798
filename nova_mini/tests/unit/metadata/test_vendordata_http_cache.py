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

"""The HTTP caching rules of dynamic vendordata (RFC 9111), as pure
functions of headers and times."""

import email.utils

import pytest

from nova_mini.metadata.vendordata import http_cache

NOW = 1_800_000_000.0
CAP = 3600


def date(offset):
    return email.utils.formatdate(NOW + offset, usegmt=True)


@pytest.mark.parametrize('value, parsed', [
    ('max-age=60', {'max-age': '60'}),
    ('Private, MAX-AGE="30", no-cache', {'private': None, 'max-age': '30',
                                         'no-cache': None}),
    ('max-age=10, max-age=20', {'max-age': '10'}),
    ('no-cache="Set-Cookie"', {'no-cache': 'Set-Cookie'}),
    (' , ,', {}),
    (None, {}),
])
def test_parse_cache_control(value, parsed):
    assert http_cache.parse_cache_control(value) == parsed


@pytest.mark.parametrize('headers, lifetime', [
    ({'Cache-Control': 'max-age=60'}, 60),
    ({'Cache-Control': 'private, max-age=60'}, 60),
    ({'Cache-Control': 'public, max-age=60'}, 60),
    # s-maxage is for shared caches: ignored, max-age rules.
    ({'Cache-Control': 's-maxage=600, max-age=60'}, 60),
    ({'Cache-Control': 's-maxage=600'}, 0),
    # max-age wins over Expires.
    ({'Cache-Control': 'max-age=60', 'Expires': date(600)}, 60),
    ({'Expires': date(120), 'Date': date(0)}, 120),
    # Expires is relative to the server's Date, not to our clock.
    ({'Expires': date(-3480), 'Date': date(-3600)}, 120),
    ({'Expires': date(90)}, 90),
    ({'Expires': '0'}, 0),
    ({'Expires': date(-10), 'Date': date(0)}, 0),
    ({'Cache-Control': 'max-age=60', 'Age': '20'}, 40),
    ({'Cache-Control': 'max-age=60', 'Age': '90'}, 0),
    ({'Cache-Control': 'max-age=banana'}, 0),
    ({'Cache-Control': 'max-age=-5'}, 0),
    ({'Cache-Control': 'no-cache, max-age=60'}, 0),
    ({'Cache-Control': 'max-age=999999'}, CAP),
    ({'Expires': date(86400), 'Date': date(0)}, CAP),
    ({}, 0),
    ({'Cache-Control': 'no-store, max-age=60'}, None),
    ({'Cache-Control': 'max-age=60', 'Vary': '*'}, None),
])
def test_freshness(headers, lifetime):
    assert http_cache.freshness(headers, NOW, CAP) == lifetime


def test_an_entry_keeps_the_value_and_the_headers_that_matter():
    entry = http_cache.make_entry(
        {'a': 1}, {'Cache-Control': 'max-age=60', 'ETag': '"v1"',
                   'Content-Type': 'application/json', 'Server': 'x'},
        NOW, CAP)
    assert entry == {'value': {'a': 1},
                     'headers': {'Cache-Control': 'max-age=60',
                                 'ETag': '"v1"'},
                     'fresh_until': NOW + 60}
    assert http_cache.is_fresh(entry, NOW + 59.9)
    assert not http_cache.is_fresh(entry, NOW + 60)
    assert not http_cache.is_fresh(None, NOW)


@pytest.mark.parametrize('headers', [
    {'Cache-Control': 'no-store, max-age=60', 'ETag': '"v1"'},
    # Stale at once and nothing to revalidate with: of no use.
    {'Cache-Control': 'no-cache'},
    {},
])
def test_replies_that_are_not_stored(headers):
    assert http_cache.make_entry({}, headers, NOW, CAP) is None


def test_a_cap_of_zero_stores_nothing():
    assert http_cache.make_entry({}, {'Cache-Control': 'max-age=60',
                                      'ETag': '"v"'}, NOW, 0) is None


@pytest.mark.parametrize('headers, conditional', [
    ({'Cache-Control': 'no-cache', 'ETag': '"v1"'},
     {'If-None-Match': '"v1"'}),
    ({'Last-Modified': date(-60)}, {'If-Modified-Since': date(-60)}),
    ({'ETag': 'W/"v2"', 'Last-Modified': date(-60)},
     {'If-None-Match': 'W/"v2"', 'If-Modified-Since': date(-60)}),
])
def test_stale_entries_with_validators_are_stored_for_revalidation(
        headers, conditional):
    entry = http_cache.make_entry({'a': 1}, headers, NOW, CAP)
    assert entry['fresh_until'] == NOW
    assert not http_cache.is_fresh(entry, NOW)
    assert http_cache.conditional_headers(entry) == conditional


def test_no_conditional_headers_without_an_entry():
    assert http_cache.conditional_headers(None) == {}


def test_a_304_refreshes_the_lifetime_from_its_own_headers():
    entry = http_cache.make_entry(
        {'a': 1}, {'Cache-Control': 'max-age=60', 'ETag': '"v1"',
                   'Date': date(0)}, NOW, CAP)
    later = NOW + 100
    refreshed = http_cache.revalidated_entry(
        entry, {'Cache-Control': 'max-age=30', 'ETag': '"v1"'}, later, CAP)
    assert refreshed['value'] == {'a': 1}
    assert refreshed['fresh_until'] == later + 30
    # Without freshness headers, the stored Cache-Control counts anew.
    refreshed = http_cache.revalidated_entry(entry, {'ETag': '"v1"'},
                                             later, CAP)
    assert refreshed['fresh_until'] == later + 60
    assert 'Date' not in refreshed['headers']


def test_a_304_with_expires_and_date():
    entry = http_cache.make_entry({}, {'Expires': date(10), 'Date': date(0),
                                       'ETag': '"e"'}, NOW, CAP)
    refreshed = http_cache.revalidated_entry(
        entry, {'Expires': date(1000 + 45), 'Date': date(1000)},
        NOW + 1000, CAP)
    assert refreshed['fresh_until'] == NOW + 1000 + 45


def test_a_304_saying_no_store_drops_the_entry():
    entry = http_cache.make_entry({}, {'Cache-Control': 'max-age=60',
                                       'ETag': '"v"'}, NOW, CAP)
    assert http_cache.revalidated_entry(
        entry, {'Cache-Control': 'no-store'}, NOW, CAP) is None


def test_a_304_lifetime_is_capped():
    entry = http_cache.make_entry({}, {'Cache-Control': 'no-cache',
                                       'ETag': '"v"'}, NOW, 100)
    refreshed = http_cache.revalidated_entry(
        entry, {'Cache-Control': 'max-age=100000'}, NOW, 100)
    assert refreshed['fresh_until'] == NOW + 100


@pytest.mark.parametrize('value', ['', 'yesterday', None,
                                   'Mon, 99 Foo 2020 00:00:00 GMT'])
def test_invalid_http_dates(value):
    assert http_cache.parse_http_date(value) is None
