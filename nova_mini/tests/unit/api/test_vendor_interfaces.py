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

"""The fake vendor interface's passthru methods: what they answer and
what they log (the HTTP side is in the baremetal-vendor-passthru gabbit).
"""

import logging

import pytest

from nova_mini.api.baremetal import vendor_interfaces as vendor
from nova_mini import exception

NODE = vendor.NODE_METHODS


@pytest.mark.parametrize('name,bar,expected', [
    ('third_method_sync', 'meow', True),
    ('third_method_sync', 'kazoo', False),
])
def test_sync_method_answers_its_result(name, bar, expected):
    assert vendor.call(NODE, 'fake', name, 'POST', {'bar': bar}) == (
        False, expected)


@pytest.mark.parametrize('name', ['second_method',
                                  'fourth_method_shared_lock',
                                  'log_passthrough'])
def test_async_methods_answer_nothing(name):
    assert vendor.call(NODE, 'fake', name, 'POST', {'bar': 'x'}) == (
        True, None)


def test_log_passthrough_logs_its_arguments(caplog):
    caplog.set_level(logging.DEBUG, logger=vendor.__name__)
    vendor.call(NODE, 'fake', 'log_passthrough', 'POST', {'a': [1, 2]})
    assert ("log_passthrough called with arguments "
            "{'a': [1, 2], 'http_method': 'POST'}") in caplog.text


@pytest.mark.parametrize('interface,name,method,body,message', [
    ('fake', 'second_method', 'POST', {}, "Parameter 'bar' not passed"),
    ('fake', 'second_method', 'POST', {'bar': 0}, "Parameter 'bar'"),
    ('fake', 'second_method', 'GET', {'bar': 'x'}, 'does not support HTTP'),
    ('fake', 'second_method', 'POST', {'bar': 'x', 'y': 1},
     'does not take argument(s) y'),
    ('fake', 'second_method', 'POST', ['x'], 'must be a JSON object'),
    ('fake', 'nope', 'POST', {}, 'No handler for method nope'),
    ('no-vendor', 'second_method', 'POST', {'bar': 'x'}, 'No handler'),
])
def test_refusals(interface, name, method, body, message):
    with pytest.raises(exception.Invalid) as error:
        vendor.call(NODE, interface, name, method, body)
    assert message in error.value.format_message()


def test_methods_metadata():
    assert NODE['fake']['fourth_method_shared_lock'].metadata() == {
        'async': True, 'attach': False, 'http_methods': ['POST'],
        'require_exclusive_lock': False,
        'description': NODE['fake']['fourth_method_shared_lock'].description}
    assert 'require_exclusive_lock' not in NODE['fake']['second_method'].metadata(
        driver_level=True)
    assert vendor.DRIVER_METHODS == {'fake': {}, 'no-vendor': {}}
