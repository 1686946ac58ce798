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

"""How a manual cleaning's steps are checked against a node's clean steps
(nova_mini.objects.baremetal.clean_steps), in Ironic's words, and how the BIOS
settings of ``bios.apply_configuration`` are checked.
"""

import types

import pytest

from nova_mini.objects.baremetal import clean_steps

SETTINGS_MISSING = (
    'settings (List of BIOS settings, each item needs to contain a '
    'dictionary with name/value pairs)')


def _node(**interfaces):
    values = {'driver': 'fake-hardware', 'bios_interface': 'fake',
              'vendor_interface': 'fake'}
    values.update(interfaces)
    return types.SimpleNamespace(**values)


def test_fake_hardware_steps():
    steps = {(step['interface'], step['step']): step
             for step in clean_steps.driver_steps(_node())}
    assert sorted(steps) == [
        ('bios', 'apply_configuration'), ('bios', 'cache_bios_settings'),
        ('bios', 'factory_reset'), ('vendor', 'log_passthrough')]
    assert steps['vendor', 'log_passthrough']['priority'] == 1
    assert steps['bios', 'apply_configuration']['argsinfo']['settings'][
        'required'] is True
    assert all(step['abortable'] is False for step in steps.values())


def test_no_bios_and_no_vendor_have_none():
    assert clean_steps.driver_steps(
        _node(bios_interface='no-bios', vendor_interface='no-vendor')) == []


def test_valid_steps_are_returned_in_order_with_their_priority():
    user = [{'interface': 'vendor', 'step': 'log_passthrough'},
            {'interface': 'bios', 'step': 'factory_reset', 'args': {}}]
    steps, errors, recorded = clean_steps.validate(_node(), user)
    assert errors == []
    assert recorded == steps
    assert steps == [
        {'interface': 'vendor', 'step': 'log_passthrough',
         'abortable': False, 'priority': 1},
        {'interface': 'bios', 'step': 'factory_reset', 'args': {},
         'abortable': False, 'priority': 0}]
    # The user's steps are left as they were.
    assert user[0] == {'interface': 'vendor', 'step': 'log_passthrough'}


@pytest.mark.parametrize('name', ['power_on', 'power_off', 'reboot',
                                  'hold', 'wait'])
def test_flow_steps_are_left_out(name):
    steps, errors, recorded = clean_steps.validate(
        _node(), [{'interface': 'deploy', 'step': name}])
    assert (steps, errors) == ([], [])
    assert recorded == [{'interface': 'deploy', 'step': name}]


def test_unknown_steps():
    steps, errors, _recorded = clean_steps.validate(
        _node(bios_interface='no-bios'),
        [{'interface': 'bios', 'step': 'factory_reset'},
         {'interface': 'raid', 'step': 'delete_configuration'}])
    assert steps == []
    assert errors == [
        "node does not support this clean step: {'interface': 'bios', "
        "'step': 'factory_reset'}",
        "node does not support this clean step: {'interface': 'raid', "
        "'step': 'delete_configuration'}"]


def test_unexpected_and_missing_arguments():
    step = {'interface': 'bios', 'step': 'apply_configuration',
            'args': {'b': 1, 'a': 2}}
    _steps, errors, recorded = clean_steps.validate(_node(), [step])
    shown = ("{'interface': 'bios', 'step': 'apply_configuration', "
             "'args': {'b': 1, 'a': 2}, 'abortable': False, 'priority': 0}")
    assert errors == [
        'clean step %s has these unexpected arguments: a, b' % shown,
        'clean step %s is missing these required arguments: %s'
        % (shown, SETTINGS_MISSING)]
    assert recorded == [dict(step, abortable=False, priority=0)]


def test_arguments_of_a_step_taking_none():
    _steps, errors, _recorded = clean_steps.validate(
        _node(), [{'interface': 'vendor', 'step': 'log_passthrough',
                   'args': {'x': 1}}])
    assert len(errors) == 1
    assert errors[0].endswith('has these unexpected arguments: x')


def test_settings_stored_as_text():
    assert clean_steps._settings([
        {'name': 'a', 'value': 'on'}, {'name': 'b', 'value': 3},
        {'name': 'c', 'value': True}, {'name': 'd', 'value': None}]) == [
        {'name': 'a', 'value': 'on'}, {'name': 'b', 'value': '3'},
        {'name': 'c', 'value': 'True'}, {'name': 'd', 'value': None}]


@pytest.mark.parametrize('settings, why', [
    ({'name': 'a', 'value': 'b'}, 'settings must be a list'),
    (['a'], 'must be an object with exactly'),
    ([{'name': 'a'}], 'must be an object with exactly'),
    ([{'name': 'a', 'value': 1, 'x': 2}], 'must be an object with exactly'),
    ([{'name': '', 'value': 1}], 'name must be text'),
    ([{'name': 1, 'value': 1}], 'name must be text'),
    ([{'name': 'a' * 256, 'value': 1}], 'name must be text'),
    ([{'name': 'a', 'value': {'x': 1}}], 'value of BIOS setting a'),
    ([{'name': 'a', 'value': 1}, {'name': 'a', 'value': 2}],
     'names must be unique: a given more than once'),
])
def test_bad_settings_fail_the_step(settings, why):
    with pytest.raises(clean_steps.StepFailed, match=why):
        clean_steps._settings(settings)
