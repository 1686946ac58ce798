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

"""A node's states: GET /nodes/{node_ident}/states,
PUT /nodes/{node_ident}/states/provision and .../states/power, and
GET/PUT /nodes/{node_ident}/states/console, and
PUT /nodes/{node_ident}/states/raid (1.12: the target RAID configuration).
A manual cleaning (target clean, 1.15) runs its steps within the request
(objects/baremetal/node_clean.py).

A provision or power change is answered 202 with a Location of the
node's states, as Ironic does. For a fake-hardware node it is complete
when the answer is sent (its hardware is its row: see
objects/baremetal/node_power.py). A node of a conductor's hardware type
(redfish) is handed to its nova-mini-conductor over RPC
(conductor_rpc): the answer means the conductor has reserved the node
and recorded the target (``target_power_state``,
``target_provision_state``); ``power_state``, ``provision_state`` and
``last_error`` show the outcome when the BMC has answered. A node
another operation holds is 409 NodeLocked, a conductor without a free
worker or not answering 503.
"""

import re

import jsonschema
from jsonschema import exceptions as jsonschema_exc
import pecan
from pecan import rest

from nova_mini.api.baremetal import conductor_rpc
from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal.schemas import node_states as schema
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import nodes as node_views
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_configdrive
from nova_mini.objects.baremetal import node_interfaces
from nova_mini.objects.baremetal import node_power
from nova_mini.objects.baremetal import node_raid
from nova_mini.policies.baremetal import nodes as policies
from nova_mini import states

# The provision request's body may hold a config drive: it has its own
# limit, Ironic's [api] max_json_body_size_provision (in KiB), in place of
# [oslo_middleware] max_request_body_size (api_root.BodySizeLimiter).
PROVISION_BODY_LIMIT = (
    'PUT', re.compile(r'/v1/nodes/[^/]+/states/provision/?'),
    lambda conf: conf.api.max_json_body_size_provision * 1024)


def _accepted(location):
    # An empty answer with no Content-Type, as Ironic's: clients would
    # try to decode an empty "JSON" body.
    response = wsgi.json_response(None, status=202)
    del response.headers['Content-Type']
    response.location = location
    return response


class NodeConsoleController(rest.RestController):
    """/nodes/{node_ident}/states/console: its state, and enable/disable.
    """

    def __init__(self, node_ident):
        self.node_ident = node_ident

    @wsgi.expose()
    def get_all(self):
        node = lookup.get_node(self.node_ident, policies.GET_CONSOLE)
        _check_console(node)
        # Ironic's fake console has no connection details to give.
        return {'console_enabled': node.console_enabled,
                'console_info': {} if node.console_enabled else None}

    @wsgi.expose(status=202)
    @validation.body(schema.console)
    def put(self):
        req = pecan.request
        node = lookup.get_node(self.node_ident, policies.SET_CONSOLE_STATE)
        _check_console(node)
        node_power.set_console(req.ctxt, node, req.json['enabled'])
        return _accepted(node_views.NodeView(req).link(
            'nodes/%s/states/console' % self.node_ident))


def _check_console(node):
    if not node_interfaces.implemented(node, 'console'):
        raise exception_baremetal.UnsupportedDriverExtension(driver=node.driver,
                                                             extension='console')


def _check_move_from(node, target):
    """Ironic checks the node's state before a target's own arguments
    (the move checks it again): 400 if ``target`` cannot start from it.
    """
    if node.provision_state not in states.TRANSITIONS[target][0]:
        raise exception_baremetal.InvalidStateRequested(
            action=target, node=node.uuid, state=node.provision_state)


def _check_rescue_password(node, target, password):
    """Ironic's checks of ``rescue_password``, in its order: the node's
    state first (the move checks it again), then the password is given
    with target rescue only, and not blank.
    """
    _check_move_from(node, target)
    if target != states.RESCUE_TARGET:
        raise exception.Invalid(
            '"rescue_password" is only valid when setting target '
            'provision state to rescue: leave it out.')
    if not (password and password.strip()):
        raise exception.Invalid(
            'A non-empty "rescue_password" is required when setting target '
            'provision state to rescue.')


def _check_clean_steps(node, target, steps):
    """Ironic's checks of ``clean_steps``, in its order: the node's state
    first (the move checks it again), then the steps are given with
    target clean only, and with it always, and match the steps schema.
    Whether the node has the steps is checked when they run (see
    objects/baremetal/node_clean.py).
    """
    _check_move_from(node, target)
    if target != states.CLEAN:
        raise exception.Invalid(
            '"clean_steps" is only valid when setting target provision '
            'state to clean: leave it out.')
    if not steps:
        raise exception.Invalid(
            '"clean_steps" is required when setting target provision state '
            'to clean: give the list of steps to run.')
    try:
        jsonschema.validate(steps, schema.clean_steps)
    except jsonschema_exc.ValidationError as e:
        raise exception.Invalid('Invalid clean_steps: %s' % e.message)


def _configdrive_error(error):
    """What is wrong with a config drive object, naming keys, never
    quoting values (they are the instance's secrets).
    """
    if error.validator == 'type':
        types = error.validator_value
        return '%s must be of type %s' % (
            '/'.join(str(part) for part in error.absolute_path),
            ', '.join(types) if isinstance(types, list) else types)
    # additionalProperties: the unexpected keys.
    return error.message


def _configdrive(req, node, target, drive):
    """Ironic's checks of ``configdrive``, in its order: the node's state
    first (the move checks it again), the target (active, and rebuild from
    1.35), the object's keys, then the versions of an object (1.56) and of
    its vendor_data (1.59); text must be an http(s) URL or gzip + base64
    of an image within the size cap (see objects/baremetal/node_configdrive.py).
    An object is built into an image here.

    :returns: the text to store.
    :raises nova_mini.exception.Invalid: (400) any of these.
    """
    _check_move_from(node, target)
    allowed = [states.DEPLOY]
    if req.since(versions.REBUILD_CONFIG_DRIVE):
        allowed.append(states.REBUILD)
    if target not in allowed:
        raise exception.Invalid(
            'Adding a config drive is only supported when setting '
            'provision state to %s' % ', '.join(allowed))
    if not isinstance(drive, dict):
        node_configdrive.check_text(drive)
        return drive
    try:
        jsonschema.validate(drive, schema.configdrive)
    except jsonschema_exc.ValidationError as e:
        raise exception.Invalid('Invalid configdrive format: %s'
                                % _configdrive_error(e))
    if not req.since(versions.BUILD_CONFIG_DRIVE):
        raise exception.Invalid(
            'Providing a JSON object for configdrive is only supported '
            'starting with API version %s' % str(versions.BUILD_CONFIG_DRIVE))
    if 'vendor_data' in drive and \
            not req.since(versions.CONFIG_DRIVE_VENDOR_DATA):
        raise exception.Invalid(
            'Providing vendor_data in configdrive is only supported '
            'starting with API version %s'
            % str(versions.CONFIG_DRIVE_VENDOR_DATA))
    return node_configdrive.build(node, drive)


# The provision targets of a conductor's node that need an interface its
# hardware type does not implement in nova_mini (the no-... ones): the
# target -> the interface type.
_INTERFACE_OF_TARGET = {
    states.INSPECT: 'inspect',
    states.RESCUE_TARGET: 'rescue',
    states.UNRESCUE: 'rescue',
}


def _conductor_provision(node, target, drive):
    """Hand the provision ``target`` of a conductor's node to its
    conductor: manage, provide and adopt (its interfaces validated and
    its power state read from the BMC), active and rebuild (a deploy,
    with the config drive), deleted (a tear down). The node's state is checked
    first, as for every node; the conductor checks it again under the
    node's reservation.
    """
    _check_move_from(node, target)
    interface = _INTERFACE_OF_TARGET.get(target)
    if interface is not None and \
            not node_interfaces.implemented(node, interface):
        raise exception_baremetal.UnsupportedDriverExtension(
            driver=node.driver, extension=interface)
    if target == states.CLEAN:
        # Cleaning needs a ramdisk agent, which nova_mini does not have.
        raise exception_baremetal.UnsupportedDriverExtension(
            driver=node.driver, extension='clean')
    if target in (states.MANAGE, states.PROVIDE, states.ADOPT):
        conductor_rpc.call('do_provisioning_action', node, target)
    elif target in (states.DEPLOY, states.REBUILD):
        conductor_rpc.call('do_node_deploy', node, node.instance_uuid,
                           configdrive=drive)
    elif target == states.UNDEPLOY:
        conductor_rpc.call('do_node_tear_down', node)
    else:
        # abort (of a wait state, which these nodes never reach) is the
        # row's move, refused while a conductor holds the node.
        conductor_rpc.check_unreserved(node)
        node.set_provision_state(target, configdrive=drive)


class NodeStatesController(rest.RestController):
    """/nodes/{node_ident}/states and its provision action."""

    _custom_actions = {'provision': ['PUT'], 'power': ['PUT'],
                       'raid': ['PUT']}

    def __init__(self, node_ident):
        self.node_ident = node_ident
        self.console = NodeConsoleController(node_ident)

    @wsgi.expose()
    def get_all(self):
        req = pecan.request
        node = lookup.get_node(self.node_ident, policies.GET_STATES)
        view = node_views.NodeView(req)
        names = ['power_state', 'target_power_state', 'provision_state',
                 'target_provision_state', 'provision_updated_at',
                 'last_error', 'console_enabled']
        if view.allowed('raid_config'):
            names += ['raid_config', 'target_raid_config']
        return {name: view.value(node, name) for name in names}

    @wsgi.expose(status=202)
    @validation.body(schema.power)
    def power(self):
        req = pecan.request
        target = req.json['target']
        timeout = req.json.get('timeout')
        if (target in states.SOFT_POWER_TARGETS or timeout is not None) and \
                not req.since(versions.SOFT_POWER_OFF):
            raise versions.not_acceptable(req)
        node = lookup.get_node(self.node_ident, policies.SET_POWER_STATE)
        if conductor_rpc.conductor_driven(node):
            if target not in states.POWER_TARGETS:
                raise exception_baremetal.InvalidStateRequested(
                    action=target, node=node.uuid, state=node.power_state)
            conductor_rpc.call('change_node_power_state', node, target,
                               timeout=timeout)
        else:
            node_power.set_power_state(req.ctxt, node, target)
        return _accepted(node_views.NodeView(req).link(
            'nodes/%s/states' % self.node_ident))

    @wsgi.expose(status=204)
    @validation.body(schema.target_raid_config)
    def raid(self):
        # Ironic's order: the node and its rule, then the version (406
        # before 1.12), then the configuration.
        req = pecan.request
        node = lookup.get_node(self.node_ident, policies.SET_RAID_STATE)
        if not req.since(versions.RAID_CONFIG):
            raise versions.not_acceptable(req)
        try:
            node_raid.set_target(node, req.json)
        except exception_baremetal.UnsupportedDriverExtension as e:
            # Ironic answers 404 here: RAID is an optional interface.
            raise exception.NotFound(e.format_message())

    @wsgi.expose(status=202)
    @validation.body(schema.provision)
    def provision(self):
        req = pecan.request
        target = req.json['target']
        password = req.json.get('rescue_password')
        steps = req.json.get('clean_steps')
        if not req.since(versions.PROVISION_TARGETS.get(target)):
            raise versions.not_acceptable(req)
        # Ironic checks the rule of steps only when some are given.
        rules = [policies.SET_PROVISION_STATE] + (
            [policies.SET_PROVISION_STATE_CLEAN_STEPS] if steps else [])
        node = lookup.get_node(self.node_ident, *rules)
        if node.maintenance and target in (states.DEPLOY, states.REBUILD):
            raise exception_baremetal.NodeInMaintenance(action=target, node=node.uuid)
        # As Ironic's: an empty config drive is none.
        drive = req.json.get('configdrive') or None
        if drive is not None:
            drive = _configdrive(req, node, target, drive)
        if steps or target == states.CLEAN:
            _check_clean_steps(node, target, steps)
        if password is not None or target == states.RESCUE_TARGET:
            _check_rescue_password(node, target, password)
        if node.protected and target in (states.UNDEPLOY, states.REBUILD):
            raise exception_baremetal.NodeProtected(node=node.uuid)
        if conductor_rpc.conductor_driven(node):
            _conductor_provision(node, target, drive)
        else:
            node.set_provision_state(target, rescue_password=password,
                                     clean_steps=steps, configdrive=drive)
        return _accepted(node_views.NodeView(req).link(
            'nodes/%s/states' % self.node_ident))
