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

"""The indicators (LEDs) of a node's fake hardware, as Ironic's fake
management interface reports them: a read-only ``led-0`` on the chassis
and a settable ``led`` on the system.

Ironic's fake interface answers ``ON`` for every indicator and cannot set
one; here the state set on a settable indicator is kept in the node's
``driver_internal_info`` (``indicators``, ``{"<name>@<component>":
state}``), so the next read shows it; an indicator never set is ``ON``.
"""

from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_power

ON = 'ON'
OFF = 'OFF'
BLINKING = 'BLINKING'
UNKNOWN = 'UNKNOWN'
# Every indicator state of Ironic.
STATES = (BLINKING, OFF, ON, UNKNOWN)

# component -> indicator name -> its description.
INDICATORS = {
    'chassis': {'led-0': {'readonly': True, 'states': [OFF, ON]}},
    'system': {'led': {'readonly': False, 'states': [BLINKING, OFF, ON]}},
}
DEFAULT_STATE = ON
STATES_KEY = 'indicators'


def supported():
    """Return ``{component: {name: {'readonly': bool, 'states': [...]}}}``.
    """
    return {component: {name: dict(info, states=list(info['states']))
                        for name, info in names.items()}
            for component, names in INDICATORS.items()}


def split(ident):
    """Return ``(name, component)`` of an indicator named
    ``<name>@<component>`` (the first ``@`` splits them, as Ironic's).

    :raises nova_mini.exception_baremetal.InvalidIndicator: no ``@``.
    """
    name, sep, component = ident.partition('@')
    if not sep:
        raise exception_baremetal.InvalidIndicator(
            reason='Malformed indicator name "%s": name an indicator '
                   '<indicator>@<component>, as the list of the node\'s '
                   'indicators shows them.' % ident)
    return name, component


def _describe(ident):
    name, component = split(ident)
    if component not in INDICATORS:
        raise exception_baremetal.InvalidIndicator(
            reason='Invalid component %s specified: the node has %s.' % (
                component, ', '.join(sorted(INDICATORS))))
    if name not in INDICATORS[component]:
        raise exception_baremetal.InvalidIndicator(
            reason='Invalid indicator %s specified: component %s has %s.' % (
                name, component, ', '.join(sorted(INDICATORS[component]))))
    return INDICATORS[component][name]


def get_state(node, ident):
    """Return the state of indicator ``ident`` (``<name>@<component>``).

    :raises nova_mini.exception_baremetal.InvalidIndicator: no such indicator.
    """
    _describe(ident)
    info = node.driver_internal_info or {}
    return (info.get(STATES_KEY) or {}).get(ident, DEFAULT_STATE)


def set_state(context, node, ident, state):
    """Set indicator ``ident`` of ``node`` to ``state``, and keep it.

    :param context: the request context.
    :param node: the Node; its driver_internal_info is updated.
    :raises nova_mini.exception_baremetal.InvalidIndicator: no such indicator, a
        read-only one, or a state it does not have.
    :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
    """
    described = _describe(ident)
    if described['readonly']:
        raise exception_baremetal.InvalidIndicator(
            reason='Indicator %s is read-only: its state cannot be set.'
                   % ident)
    if state not in described['states']:
        raise exception_baremetal.InvalidIndicator(
            reason='Invalid state %s for indicator %s: use one of %s.' % (
                state, ident, ', '.join(described['states'])))
    node_power.change_internal_info(context, node, lambda info: dict(
        info, **{STATES_KEY: dict(info.get(STATES_KEY) or {},
                                  **{ident: state})}))
