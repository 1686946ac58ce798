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

"""The indicators of fake hardware: names, Ironic's fake management
interface's set, and what is read before and after a state is kept.
"""

import types

import pytest

from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_indicators


def test_the_fake_management_indicators():
    assert node_indicators.supported() == {
        'chassis': {'led-0': {'readonly': True, 'states': ['OFF', 'ON']}},
        'system': {'led': {'readonly': False,
                           'states': ['BLINKING', 'OFF', 'ON']}},
    }


def test_supported_is_a_copy():
    node_indicators.supported()['system']['led']['states'].append('X')
    assert 'X' not in node_indicators.INDICATORS['system']['led']['states']


@pytest.mark.parametrize('ident, expected', [
    ('led@system', ('led', 'system')),
    ('led-0@chassis', ('led-0', 'chassis')),
    # The first @ splits, as Ironic's.
    ('a@b@c', ('a', 'b@c')),
])
def test_split(ident, expected):
    assert node_indicators.split(ident) == expected


def test_a_name_without_at_is_malformed():
    with pytest.raises(exception_baremetal.InvalidIndicator) as caught:
        node_indicators.split('led')
    assert 'Malformed indicator name "led"' in caught.value.format_message()


def _node(info=None):
    return types.SimpleNamespace(driver_internal_info=info)


def test_on_until_set_then_as_kept():
    assert node_indicators.get_state(_node(), 'led@system') == 'ON'
    assert node_indicators.get_state(
        _node({'indicators': {'led@system': 'BLINKING'}}),
        'led@system') == 'BLINKING'
    assert node_indicators.get_state(
        _node({'indicators': {'led@system': 'OFF'}}),
        'led-0@chassis') == 'ON'


@pytest.mark.parametrize('ident, message', [
    ('led@drive', 'Invalid component drive specified'),
    ('led-1@chassis', 'Invalid indicator led-1 specified'),
])
def test_unknown_indicators(ident, message):
    with pytest.raises(exception_baremetal.InvalidIndicator) as caught:
        node_indicators.get_state(_node(), ident)
    assert message in caught.value.format_message()


@pytest.mark.parametrize('ident, state, message', [
    ('led-0@chassis', 'OFF', 'is read-only'),
    ('led@system', 'UNKNOWN', 'use one of BLINKING, OFF, ON'),
    ('led@system', 'on', 'use one of BLINKING, OFF, ON'),
])
def test_refused_changes(ident, state, message):
    with pytest.raises(exception_baremetal.InvalidIndicator) as caught:
        node_indicators.set_state(None, _node(), ident, state)
    assert message in caught.value.format_message()
