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

"""The bare-metal API's side of nova-mini-conductor: which nodes go to a
conductor (those of node_interfaces.CONDUCTOR_HARDWARE_TYPES: redfish),
the check that one is alive for a node's hardware type, and the RPC
client (nova_mini.conductor.rpcapi). A call that ``[upgrade_levels]
conductor`` keeps from being sent (the conductors not upgraded yet) is
Ironic's 406, saying what was not done: nothing is sent or changed.

The hash ring is read from this process's copy, rebuilt every
``[DEFAULT] hash_ring_reset_interval`` seconds and, when it has no
conductor for a node's hardware type, once more before the answer
(hash_ring.host_for), so a conductor that has just registered is seen at
once.
"""

import pecan

from nova_mini.conductor import hash_ring
from nova_mini.conductor import rpcapi
from nova_mini import conf
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import conductor as conductor_obj
from nova_mini.objects.baremetal import node_interfaces
from nova_mini import states


def conductor_driven(node):
    """Whether ``node`` (a Node) is driven by a nova-mini-conductor."""
    return node_interfaces.conductor_driven(node.driver)


class _Target(object):
    """What the hash ring reads of a node: its uuid, hardware type and
    conductor group (a node being created has no row yet).
    """

    def __init__(self, uuid, driver, conductor_group):
        self.uuid = uuid or '00000000-0000-0000-0000-000000000000'
        self.driver = driver
        self.conductor_group = conductor_group or ''


def host_for(context, node):
    """The conductor's host of ``node`` (anything with ``uuid``,
    ``driver`` and ``conductor_group``).

    :raises nova_mini.exception_baremetal.NoValidConductor: no alive
        conductor drives its hardware type in its conductor group.
    """
    return hash_ring.host_for(context, node)


def check_conductor(context, driver, conductor_group, uuid=None):
    """Refuse a node no service drives (Ironic's 400 no valid host on
    node create and patch): of a conductor's hardware type when the hash
    ring has no conductor for it in the node's group, of any hardware
    type when no alive conductor registered it (fake-hardware: no
    nova-mini-api whose ``[DEFAULT] enabled_hardware_types`` has it).

    :returns: what the alive conductors of ``driver`` registered of its
        interfaces (objects.baremetal.conductor.Registered), which the
        node's interfaces are checked against.
    :raises nova_mini.exception_baremetal.DriverNotFound: (400) not a
        hardware type of nova_mini's.
    :raises nova_mini.exception_baremetal.NoValidConductorRequested: (400).
    """
    # A hardware type nova_mini does not know is DriverNotFound, its own
    # 400 naming those it has.
    node_interfaces.check_driver(driver)
    group = conductor_group or ''
    if node_interfaces.conductor_driven(driver):
        try:
            host_for(context, _Target(uuid, driver, group))
        except exception_baremetal.NoValidConductor as exc:
            # Ironic's API turns its 404 into a 400 here only.
            raise exception_baremetal.NoValidConductorRequested(
                **exc.kwargs) from None
    registered = conductor_obj.registered_interfaces(context, driver)
    if not registered.hosts:
        raise exception_baremetal.NoValidConductorRequested(driver=driver,
                                                            group=group)
    return registered


def api():
    """The RPC client of the conductors (one per request, as the servers
    API's scheduler client: it is cheap on the process's transport).
    """
    return rpcapi.ConductorAPI(conf.CONF)


# What a call the version pin refuses would have done, in the words of
# its refusal (ConductorUpgrading): the method -> its words; a
# provisioning action's are the action's.
_WHAT = {
    'get_supported_indicators': 'list the indicators of a node',
    'get_indicator_state': 'read the state of an indicator',
    'set_indicator_state': 'set the state of an indicator',
}
_WHAT_ACTION = {
    states.ADOPT: 'adopt a node',
}


def _what(method, args):
    if method == 'do_provisioning_action' and args:
        return _WHAT_ACTION.get(args[0], 'run the provisioning action '
                                '"%s"' % args[0])
    return _WHAT.get(method, method.replace('_', ' '))


def call(method, node, *args, **kwargs):
    """Call the conductor of ``node``.

    :raises nova_mini.exception_baremetal.ConductorUpgrading: (406)
        ``[upgrade_levels] conductor`` caps the conductors' RPC API below
        the call's version: nothing was sent.
    :raises nova_mini.exception_baremetal.NoValidConductor: (404) no alive
        conductor drives the node.
    :raises nova_mini.exception_baremetal.NodeLocked: (409).
    :raises nova_mini.exception_baremetal.NoFreeConductorWorker: (503).
    :raises nova_mini.exception_baremetal.ConductorNotResponding: (503).
    """
    try:
        return getattr(api(), method)(pecan.request.ctxt, node, *args,
                                      **kwargs)
    except exception.RPCVersionCapped as exc:
        # As Ironic's API for what its pinned services do not support
        # yet: 406, not a server error.
        raise exception_baremetal.ConductorUpgrading(
            what=_what(method, args), node=node.uuid,
            version=exc.kwargs['version'],
            cap=exc.kwargs['cap']) from None


def check_unreserved(node):
    """Refuse a change of ``node`` that its conductor is working on
    (Ironic's 409 NodeLocked: its changes take the node's lock).
    """
    if getattr(node, 'reservation', None):
        raise exception_baremetal.NodeLocked(node=node.uuid,
                                             host=node.reservation)
