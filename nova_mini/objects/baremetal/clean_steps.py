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

"""The clean steps of a manual cleaning (API 1.15), as Ironic's conductor
checks and runs them with fake-hardware's interfaces.

The steps a node has come from its interfaces (``DRIVER_STEPS``):

* ``bios`` ``fake``: ``apply_configuration`` (argument ``settings``,
  required: a list of ``{"name": ..., "value": ...}``), which makes those
  settings the node's BIOS settings; ``factory_reset``, which deletes
  them; ``cache_bios_settings``, which does nothing (the fake BIOS has no
  settings of its own to read);
* ``vendor`` ``fake``: ``log_passthrough`` (no argument), which does
  nothing.

The fake deploy, power, management and RAID interfaces have no clean
step; ``no-bios`` and ``no-vendor`` none either. nova_mini has no firmware
interface (Ironic's fake-hardware enables ``no-firmware`` by default).

A user's steps are checked against the node's (``validate``): a step the
node does not have, arguments it does not take, and required arguments
left out are errors, reported together in Ironic's words. The steps
Ironic's conductor handles itself (``power_on``, ``power_off``,
``reboot``, ``hold``, ``wait``) are left out of the checked steps, and so
never run, as Ironic 39's manual cleaning leaves them out.
"""

from nova_mini.objects.baremetal import bios_setting
from nova_mini.objects.baremetal import deploy_steps

_SETTINGS_INFO = {
    'description': ('List of BIOS settings, each item needs to contain a '
                    'dictionary with name/value pairs'),
    'required': True}


def _step(interface, name, priority=0, argsinfo=None):
    return {'step': name, 'priority': priority, 'abortable': False,
            'argsinfo': argsinfo, 'interface': interface,
            'requires_ramdisk': True}


# (interface type, implementation) -> the clean steps it has.
DRIVER_STEPS = {
    ('bios', 'fake'): (
        _step('bios', 'apply_configuration',
              argsinfo={'settings': _SETTINGS_INFO}),
        _step('bios', 'factory_reset'),
        _step('bios', 'cache_bios_settings'),
    ),
    ('vendor', 'fake'): (
        _step('vendor', 'log_passthrough', priority=1),
    ),
}


class StepFailed(Exception):
    """A clean step failed while running; its message says why."""


def driver_steps(node):
    """Return the clean steps of ``node``'s interfaces (new copies).

    :param node: the node or its row (``driver`` and the
        ``<type>_interface`` attributes are read).
    """
    return deploy_steps.driver_steps(node, table=DRIVER_STEPS)


def _step_errors(user_step, driver_step):
    argsinfo = driver_step.get('argsinfo') or {}
    args = user_step.get('args') or {}
    errors = []
    unexpected = sorted(set(args) - set(argsinfo))
    if unexpected:
        errors.append('clean step %s has these unexpected arguments: %s'
                      % (user_step, ', '.join(unexpected)))
    missing = ['%s (%s)' % (name, info['description'])
               if info.get('description') else name
               for name, info in sorted(argsinfo.items())
               if info.get('required') and name not in args]
    if missing:
        errors.append('clean step %s is missing these required '
                      'arguments: %s' % (user_step, ', '.join(missing)))
    return errors


def validate(node, user_steps):
    """Check ``user_steps`` against ``node``'s clean steps.

    :param node: the node or its row (see driver_steps).
    :param user_steps: the steps asked for (``interface``, ``step``,
        ``args``), in their order; left as they are.
    :returns: ``(steps, errors, recorded)``: copies of the steps to run,
        each with the ``abortable`` and ``priority`` of the interface's
        step, in order; the errors, in Ironic's words, empty when every
        step may run; and every step given, those the node has with their
        ``abortable`` and ``priority`` (what Ironic records of a failed
        cleaning).
    """
    by_id = {deploy_steps.step_id(step): step
             for step in driver_steps(node)}
    steps = []
    errors = []
    recorded = []
    for user_step in user_steps:
        driver_step = by_id.get(deploy_steps.step_id(user_step))
        if user_step['step'] in deploy_steps.FLOW_STEPS:
            recorded.append(dict(user_step))
            continue
        if driver_step is None:
            errors.append('node does not support this clean step: %s'
                          % (user_step,))
            recorded.append(dict(user_step))
            continue
        # NOTE: Ironic checks the steps twice (before preparing the
        # ramdisk, and after), and its first pass has already recorded the
        # abortable and priority of each step it knows when the second
        # writes its errors: known steps are shown with them.
        step = dict(user_step, abortable=driver_step['abortable'],
                    priority=driver_step['priority'])
        errors.extend(_step_errors(step, driver_step))
        steps.append(step)
        recorded.append(step)
    return steps, errors, recorded


def _settings(value):
    """Return ``value`` as BIOS settings to store, or raise StepFailed:
    a list of objects with a name (text) and a value, values stored as
    text (numbers and booleans converted, as Ironic's string field does).
    """
    if not isinstance(value, list):
        raise StepFailed('settings must be a list of {"name": ..., '
                         '"value": ...} objects, not %r' % (value,))
    settings = []
    for item in value:
        if not isinstance(item, dict) or set(item) != {'name', 'value'}:
            raise StepFailed('each BIOS setting must be an object with '
                             'exactly the keys "name" and "value", not %r'
                             % (item,))
        name, setting = item['name'], item['value']
        if not isinstance(name, str) or not name or len(name) > 255:
            raise StepFailed('a BIOS setting name must be text of 1 to '
                             '255 characters, not %r' % (name,))
        if isinstance(setting, (dict, list)):
            raise StepFailed('the value of BIOS setting %s must be text, '
                             'a number, a boolean or null, not %r'
                             % (name, setting))
        settings.append({'name': name, 'value': None if setting is None
                         else str(setting)})
    names = [setting['name'] for setting in settings]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise StepFailed('BIOS setting names must be unique: %s given '
                         'more than once' % ', '.join(duplicates))
    return settings


def run(context, node_id, step):
    """Run the checked ``step`` on node ``node_id`` in the caller's writer
    transaction (see the module for what each step does).

    :raises StepFailed: the step failed (its arguments are wrong); it
        changed nothing.
    """
    args = step.get('args') or {}
    name = deploy_steps.step_id(step)
    if name == 'bios.apply_configuration':
        bios_setting.apply(context, node_id, _settings(args['settings']))
    elif name == 'bios.factory_reset':
        bios_setting.destroy_of_node(context, node_id)
