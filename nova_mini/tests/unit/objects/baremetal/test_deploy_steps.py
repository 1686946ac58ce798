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

"""How deploy templates' steps are matched to a node's deploy steps,
checked and ordered (nova_mini.objects.baremetal.deploy_steps and the plan of
nova_mini.objects.baremetal.node_deploy), against Ironic's rules.
"""

import types

import pytest

from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import deploy_steps
from nova_mini.objects.baremetal import node_deploy


def _template(name, *steps):
    return types.SimpleNamespace(name=name, steps=list(steps))


def _step(interface, step, priority, args=None):
    return {'interface': interface, 'step': step, 'args': args or {},
            'priority': priority}


def _node(**interfaces):
    values = {'%s_interface' % name: 'fake'
              for name in deploy_steps.INTERFACE_PRIORITY}
    values.update(interfaces)
    return types.SimpleNamespace(**values)


# Interfaces with more steps than fake-hardware has, to see the order.
_TABLE = {
    ('deploy', 'fake'): (
        {'step': 'deploy', 'priority': 100, 'abortable': False,
         'argsinfo': None, 'interface': 'deploy'},
        {'step': 'write_image', 'priority': 80, 'abortable': False,
         'argsinfo': None, 'interface': 'deploy'},
    ),
    ('bios', 'fake'): (
        {'step': 'apply_configuration', 'priority': 0, 'abortable': False,
         'argsinfo': {'settings': {'description': 'BIOS settings',
                                   'required': True}},
         'interface': 'bios'},
    ),
    ('raid', 'fake'): (
        {'step': 'apply_configuration', 'priority': 0, 'abortable': False,
         'argsinfo': {'raid_config': {'required': True},
                      'delete_existing': {'required': False}},
         'interface': 'raid'},
    ),
    ('management', 'fake'): (
        {'step': 'update_firmware', 'priority': 0, 'abortable': False,
         'argsinfo': None, 'interface': 'management'},
    ),
}


def _ids(steps):
    return [deploy_steps.step_id(step) for step in steps]


def test_fake_hardware_has_the_core_step_only():
    steps = deploy_steps.driver_steps(_node())
    assert steps == [{'step': 'deploy', 'priority': 100,
                      'abortable': False, 'argsinfo': None,
                      'interface': 'deploy'}]


def test_driver_steps_follow_the_node_interfaces():
    steps = deploy_steps.driver_steps(_node(bios_interface='no-bios'), _TABLE)
    assert _ids(steps) == ['management.update_firmware', 'deploy.deploy',
                           'deploy.write_image', 'raid.apply_configuration']


def test_driver_steps_of_interfaces_this_service_does_not_enable(conf):
    # The node's interfaces were checked against its conductors'
    # registrations: this service's options do not refuse them.
    conf.config(enabled_deploy_interfaces=['ramdisk'],
                enabled_bios_interfaces=['no-bios'])
    steps = deploy_steps.driver_steps(_node(bios_interface='fake'), _TABLE)
    assert _ids(steps) == ['management.update_firmware', 'deploy.deploy',
                           'deploy.write_image',
                           'bios.apply_configuration',
                           'raid.apply_configuration']
    # One left unset is still the default of this service's options.
    steps = deploy_steps.driver_steps(_node(bios_interface=None), _TABLE)
    assert 'bios.apply_configuration' not in _ids(steps)


def test_driver_steps_are_copies():
    steps = deploy_steps.driver_steps(_node())
    steps[0]['priority'] = 1
    assert deploy_steps.DRIVER_STEPS[('deploy', 'fake')][0]['priority'] == 100


def test_no_templates_runs_the_enabled_driver_steps_in_priority_order():
    drivers = deploy_steps.driver_steps(_node(), _TABLE)
    user = deploy_steps.check_steps([], drivers)
    assert user == []
    assert _ids(deploy_steps.ordered_steps(user, drivers)) == [
        'deploy.deploy', 'deploy.write_image']


def test_template_steps_are_ordered_by_priority():
    drivers = deploy_steps.driver_steps(_node(), _TABLE)
    templates = [
        _template('CUSTOM_A', _step('bios', 'apply_configuration', 150,
                                    {'settings': []})),
        _template('CUSTOM_B', _step('raid', 'apply_configuration', 90,
                                    {'raid_config': {}})),
    ]
    user = deploy_steps.check_steps(templates, drivers)
    steps = deploy_steps.ordered_steps(user, drivers)
    assert _ids(steps) == ['bios.apply_configuration', 'deploy.deploy',
                           'raid.apply_configuration', 'deploy.write_image']
    # The template's arguments are what runs.
    assert steps[0]['args'] == {'settings': []}


def test_ties_go_to_the_interface_ranked_higher():
    drivers = deploy_steps.driver_steps(_node(), _TABLE)
    templates = [_template(
        'CUSTOM_A',
        _step('raid', 'apply_configuration', 80, {'raid_config': {}}),
        _step('management', 'update_firmware', 80),
        _step('bios', 'apply_configuration', 80, {'settings': []}))]
    steps = deploy_steps.ordered_steps(
        deploy_steps.check_steps(templates, drivers), drivers)
    # management (5) > deploy (3) > bios (2) > raid (1) at priority 80.
    assert _ids(steps) == ['deploy.deploy', 'management.update_firmware',
                           'deploy.write_image', 'bios.apply_configuration',
                           'raid.apply_configuration']


def test_a_template_step_overrides_the_driver_step_priority():
    drivers = deploy_steps.driver_steps(_node(), _TABLE)
    templates = [_template('CUSTOM_A',
                           _step('deploy', 'write_image', 120))]
    steps = deploy_steps.ordered_steps(
        deploy_steps.check_steps(templates, drivers), drivers)
    assert _ids(steps) == ['deploy.write_image', 'deploy.deploy']
    assert steps[0]['priority'] == 120


def test_priority_zero_disables_a_step():
    drivers = deploy_steps.driver_steps(_node(), _TABLE)
    templates = [_template(
        'CUSTOM_A', _step('deploy', 'write_image', 0),
        _step('raid', 'apply_configuration', 0))]
    steps = deploy_steps.ordered_steps(
        deploy_steps.check_steps(templates, drivers), drivers)
    assert _ids(steps) == ['deploy.deploy']


def test_the_core_step_may_be_disabled_not_overridden():
    drivers = deploy_steps.driver_steps(_node())
    disabled = [_template('CUSTOM_OFF', _step('deploy', 'deploy', 0))]
    user = deploy_steps.check_steps(disabled, drivers)
    assert deploy_steps.ordered_steps(user, drivers) == []
    overridden = [_template('CUSTOM_ON', _step('deploy', 'deploy', 10))]
    with pytest.raises(exception.Invalid) as caught:
        deploy_steps.check_steps(overridden, drivers)
    assert ('deploy step deploy on interface deploy is a core step and '
            'cannot be overridden by user steps') in str(caught.value)
    assert 'Matching deploy templates: CUSTOM_ON. Errors: ' in str(
        caught.value)


def test_unexpected_and_missing_arguments():
    drivers = deploy_steps.driver_steps(_node(), _TABLE)
    templates = [_template(
        'CUSTOM_A', _step('bios', 'apply_configuration', 10, {'x': 1}),
        _step('raid', 'apply_configuration', 10, {'raid_config': {}}))]
    with pytest.raises(exception.Invalid) as caught:
        deploy_steps.check_steps(templates, drivers)
    message = str(caught.value)
    assert 'has these unexpected arguments: x' in message
    assert ('is missing these required arguments: settings (BIOS '
            'settings)') in message
    assert 'raid' not in message.split('Errors: ')[1]


def test_missing_arguments_of_a_disabled_step_do_not_matter():
    drivers = deploy_steps.driver_steps(_node(), _TABLE)
    templates = [_template('CUSTOM_A',
                           _step('bios', 'apply_configuration', 0))]
    assert deploy_steps.check_steps(templates, drivers) == [
        _step('bios', 'apply_configuration', 0)]


def test_a_step_the_node_lacks():
    drivers = deploy_steps.driver_steps(_node())
    templates = [_template('CUSTOM_A', _step('bios', 'apply_configuration',
                                             10, {'settings': []}))]
    # Left out when the deploy is asked for...
    assert deploy_steps.check_steps(templates, drivers,
                                    skip_missing=True) == []
    # ...refused when it runs.
    with pytest.raises(exception.Invalid) as caught:
        deploy_steps.check_steps(templates, drivers)
    assert ("node does not support this deploy step: {'interface': "
            "'bios', 'step': 'apply_configuration'") in str(caught.value)


def test_one_step_in_two_matching_templates_is_refused():
    drivers = deploy_steps.driver_steps(_node(), _TABLE)
    templates = [_template('CUSTOM_A', _step('deploy', 'write_image', 10)),
                 _template('CUSTOM_B', _step('deploy', 'write_image', 20))]
    with pytest.raises(exception.Invalid) as caught:
        deploy_steps.check_steps(templates, drivers)
    assert 'Matching deploy templates: CUSTOM_A,CUSTOM_B' in str(
        caught.value)
    assert 'Duplicate deploy steps for deploy.write_image' in str(
        caught.value)


def test_flow_steps_are_left_out():
    drivers = deploy_steps.driver_steps(_node())
    templates = [_template('CUSTOM_A', _step('power', 'reboot', 10))]
    assert deploy_steps.check_steps(templates, drivers) == []


def test_plan_refuses_what_cannot_be_taken_as_written():
    drivers = deploy_steps.driver_steps(_node())
    templates = [_template('CUSTOM_ON', _step('deploy', 'deploy', 10))]
    with pytest.raises(exception_baremetal.DeployStepsRefused) as caught:
        node_deploy.plan(templates, drivers, 'n-1')
    assert str(caught.value).startswith(
        'Failed to validate deploy or power info for node n-1: '
        'Validation of deploy steps from deploy templates')


def test_plan_fails_a_missing_step_and_an_empty_plan():
    drivers = deploy_steps.driver_steps(_node())
    missing = [_template('CUSTOM_A', _step('raid', 'apply_configuration',
                                           10, {'raid_config': {}}))]
    steps, error = node_deploy.plan(missing, drivers, 'n-1')
    assert steps is None
    assert error.startswith('Failed to validate the final deploy steps '
                            'list for node n-1: ')
    off = [_template('CUSTOM_OFF', _step('deploy', 'deploy', 0))]
    assert node_deploy.plan(off, drivers, 'n-1') == (
        None, node_deploy.NO_STEPS)


def test_plan_of_a_node_without_templates():
    drivers = deploy_steps.driver_steps(_node())
    steps, error = node_deploy.plan([], drivers, 'n-1')
    assert error is None
    assert _ids(steps) == ['deploy.deploy']
