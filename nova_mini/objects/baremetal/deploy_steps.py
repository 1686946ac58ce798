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

"""The deploy steps of a deploy, as Ironic's conductor works them out.

A node's interfaces have deploy steps (``DRIVER_STEPS``); the deploy
templates named after traits of the node's instance
(``instance_info['traits']``) add theirs, or change the priority of the
interfaces' own (priority 0 disables a step). The deploy runs the enabled
steps (priority above 0), highest priority first; between steps of equal
priority, the interface ranked higher in INTERFACE_PRIORITY goes first.

Template steps are checked against the interfaces' steps: arguments the
step does not take, required arguments missing, the core step
``deploy.deploy`` given a priority, or two matching templates naming the
same step refuse the deploy; a step no interface of the node has fails it
(``check_steps``).

Ironic's fake-hardware interfaces have one deploy step, ``deploy.deploy``
(priority 100, no arguments) of the ``fake`` deploy interface: its BIOS
and RAID interfaces have clean steps only. The redfish hardware type's
``ramdisk`` deploy interface has the same core step.
"""

import collections

from nova_mini import exception
from nova_mini.objects.baremetal import node_interfaces

# The interfaces that have deploy steps, and how a tie of priorities is
# broken (higher first), as in Ironic.
INTERFACE_PRIORITY = {
    'vendor': 7,
    'power': 6,
    'management': 5,
    'firmware': 4,
    'deploy': 3,
    'bios': 2,
    'raid': 1,
}

# Steps Ironic's conductor runs itself rather than an interface; it takes
# them out of a template's steps without checking them.
FLOW_STEPS = ('power_on', 'power_off', 'reboot', 'hold', 'wait')

# (interface type, implementation) -> the deploy steps it has.
DRIVER_STEPS = {
    ('deploy', 'fake'): (
        {'step': 'deploy', 'priority': 100, 'abortable': False,
         'argsinfo': None, 'interface': 'deploy'},
    ),
    # The redfish hardware type's ramdisk deploy: its core step only, as
    # Ironic's (the boot from virtual media; no agent, no further steps).
    ('deploy', 'ramdisk'): (
        {'step': 'deploy', 'priority': 100, 'abortable': False,
         'argsinfo': None, 'interface': 'deploy'},
    ),
}


def step_id(step):
    """Return ``interface.step``, the name of a step."""
    return '%s.%s' % (step['interface'], step['step'])


def driver_steps(node, table=None):
    """Return the deploy steps of ``node``'s interfaces (enabled or not).

    :param node: the node (its ``<type>_interface`` attributes are read).
    :param table: the steps per (type, implementation), DRIVER_STEPS if
        None.
    :returns: a list of step dicts (``step``, ``priority``, ``abortable``,
        ``argsinfo``, ``interface``), new copies.
    """
    table = DRIVER_STEPS if table is None else table
    # An interface left unset (a row written before the interfaces were
    # recorded, or by hand) is the hardware type's default, as everywhere.
    # Those set are taken as they are: the node has them, whatever this
    # service's options enable.
    impls = node_interfaces.fill_defaults(
        getattr(node, 'driver', None) or node_interfaces.FAKE_HARDWARE,
        {field: getattr(node, field, None)
         for field in node_interfaces.FIELDS})
    steps = []
    for interface in INTERFACE_PRIORITY:
        field = '%s_interface' % interface
        impl = impls.get(field, getattr(node, field, None))
        steps.extend(dict(step) for step in table.get((interface, impl), ()))
    return steps


def template_steps(templates):
    """Return the steps of ``templates``, in their order, as user steps
    (``interface``, ``step``, ``args``, ``priority``).
    """
    return [{'interface': step['interface'], 'step': step['step'],
             'args': step['args'], 'priority': step['priority']}
            for template in templates for step in template.steps]


def _step_errors(user_step, driver_step):
    errors = []
    argsinfo = driver_step.get('argsinfo') or {}
    args = user_step.get('args') or {}
    unexpected = sorted(set(args) - set(argsinfo))
    if unexpected:
        errors.append('deploy step %s has these unexpected arguments: %s'
                      % (user_step, ', '.join(unexpected)))
    if user_step['priority'] > 0:
        missing = []
        for name, info in sorted(argsinfo.items()):
            if info.get('required') and name not in args:
                missing.append('%s (%s)' % (name, info['description'])
                               if info.get('description') else name)
        if missing:
            errors.append('deploy step %s is missing these required '
                          'arguments: %s' % (user_step, ', '.join(missing)))
        if driver_step['interface'] == 'deploy' and \
                driver_step['step'] == 'deploy':
            errors.append('deploy step %s on interface %s is a core step '
                          'and cannot be overridden by user steps. It may '
                          'be disabled by setting the priority to 0'
                          % (user_step['step'], user_step['interface']))
    return errors


def check_steps(templates, drivers, skip_missing=False):
    """Check the steps of the matching ``templates`` against the node's.

    :param templates: the DeployTemplates whose names are traits of the
        node's instance.
    :param drivers: the node's deploy steps (driver_steps).
    :param skip_missing: leave out, rather than refuse, a step the node
        does not have (the check made when the deploy is asked for, as
        Ironic's, which may learn more steps from its agent later).
    :returns: the template steps checked, in order (flow steps left out).
    :raises nova_mini.exception.Invalid: what is wrong with them, all of
        it, in Ironic's words.
    """
    by_id = {step_id(step): step for step in drivers}
    errors = []
    result = []
    for user_step in template_steps(templates):
        if user_step['step'] in FLOW_STEPS:
            continue
        driver_step = by_id.get(step_id(user_step))
        if driver_step is None:
            if not skip_missing:
                errors.append('node does not support this deploy step: %s'
                              % user_step)
            continue
        errors.extend(_step_errors(user_step, driver_step))
        result.append(user_step)
    counts = collections.Counter(step_id(step) for step in result)
    duplicates = sorted(name for name, count in counts.items() if count > 1)
    if duplicates:
        errors.append("deploy steps from all deploy templates matching this "
                      "node's instance traits cannot have the same "
                      "interface and step. Duplicate deploy steps for %s"
                      % ', '.join(duplicates))
    if errors:
        raise exception.Invalid(
            "Validation of deploy steps from deploy templates matching this "
            "node's instance traits failed. Matching deploy templates: %s. "
            "Errors: %s" % (','.join(t.name for t in templates),
                            '; '.join(errors)))
    return result


def _sort_key(step):
    return step['priority'], INTERFACE_PRIORITY[step['interface']]


def ordered_steps(user_steps, drivers):
    """Return the steps a deploy runs, in the order it runs them.

    :param user_steps: the checked template steps (check_steps).
    :param drivers: the node's deploy steps (driver_steps).
    :returns: the enabled interface steps no template step names, and the
        template steps of priority above 0, highest priority first (ties:
        by INTERFACE_PRIORITY, then in the order given).
    """
    named = {step_id(step) for step in user_steps}
    steps = [step for step in drivers
             if step['priority'] > 0 and step_id(step) not in named]
    steps.extend(step for step in user_steps if step['priority'] > 0)
    return sorted(steps, key=_sort_key, reverse=True)
