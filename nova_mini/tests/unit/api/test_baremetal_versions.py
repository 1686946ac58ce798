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

"""The bare-metal API's microversions: history, names, negotiation as
Ironic's (HTTP behaviour: gabbits/baremetal-versions.yaml).
"""

import pytest
import webob

from nova_mini.api.baremetal import versions
from nova_mini.api import microversion
from nova_mini import exception

APIVersion = microversion.APIVersion
API = versions.BAREMETAL_API


def test_history_is_1_1_to_1_65_without_gaps():
    parsed = [APIVersion(text) for text, _what in versions.HISTORY]
    assert parsed[0] == (1, 1) and parsed[-1] == (1, 65)
    for previous, current in zip(parsed, parsed[1:]):
        assert current == (previous[0], previous[1] + 1)
    for text, what in versions.HISTORY:
        assert what.strip(), text


def test_named_versions():
    history = [APIVersion(text) for text, _what in versions.HISTORY]
    named = {name: value for name, value in vars(versions).items()
             if isinstance(value, APIVersion)}
    assert named['NODE_TRAITS'] == (1, 37)
    assert named['NODE_OWNER'] == (1, 50)
    assert named['NODE_LESSEE'] == (1, 65)
    assert named['NODE_NAME'] == (1, 5)
    for name, value in named.items():
        assert name.isupper(), name
        assert value in history, name


def _negotiate(headers):
    return API.negotiate(webob.Request.blank('/', headers=headers).headers)


@pytest.mark.parametrize('headers, expected', [
    ({}, '1.1'),
    ({'X-OpenStack-Ironic-API-Version': '1.20'}, '1.20'),
    ({'OpenStack-API-Version': 'baremetal 1.30'}, '1.30'),
    ({'OpenStack-API-Version': 'baremetal 1.37',
      'X-OpenStack-Ironic-API-Version': '1.20'}, '1.37'),
    ({'OpenStack-API-Version': 'baremetal LATEST'}, '1.65'),
    ({'X-OpenStack-Ironic-API-Version': 'Latest'}, '1.65'),
])
def test_negotiate(headers, expected):
    assert _negotiate(headers) == APIVersion(expected)


@pytest.mark.parametrize('text', ['abc', '1', '1.37.1', '1.x'])
def test_malformed_is_refused_not_invalid(text):
    with pytest.raises(exception.MalformedAPIVersion) as caught:
        _negotiate({'X-OpenStack-Ironic-API-Version': text})
    assert isinstance(caught.value, exception.APIVersionNotSupported)


@pytest.mark.parametrize('text', ['1.0', '1.66', '2.0'])
def test_out_of_range(text):
    with pytest.raises(exception.BaremetalAPIVersionNotSupported):
        _negotiate({'X-OpenStack-Ironic-API-Version': text})


def test_headers():
    assert dict(API.response_headers(APIVersion('1.37'))) == {
        'X-OpenStack-Ironic-API-Version': '1.37',
        'X-OpenStack-Ironic-API-Minimum-Version': '1.1',
        'X-OpenStack-Ironic-API-Maximum-Version': '1.65'}
    assert dict(API.refusal_headers('1.99')) == {
        'X-OpenStack-Ironic-API-Minimum-Version': '1.1',
        'X-OpenStack-Ironic-API-Maximum-Version': '1.65'}
