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

"""The filters of a node list request, checked as Ironic checks them
(each from its version, else 406) and turned into the filters of
objects.baremetal.node_filters.
"""

from oslo_utils import strutils

from nova_mini.api.baremetal.schemas import nodes as schema
from nova_mini.api.baremetal import versions
from nova_mini.api import validation
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.baremetal import node_conductor
from nova_mini.objects.baremetal import node_trait
from nova_mini import states

# Query parameters given to the node list as they are.
_PLAIN_FILTERS = ('provision_state', 'driver', 'resource_class', 'owner',
                  'lessee', 'conductor_group')
# Ironic's node faults; nova_mini's nodes never have one.
FAULTS = ('power failure', 'clean failure', 'rescue abort failure',
          'service failure')

_check_trait = validation.value_checker(schema.trait, 'trait')

# The most traits a trait filter lists (a node has at most
# node_trait.MAX_TRAITS_PER_NODE): a longer list is refused, as it made
# the database plan (PostgreSQL) or parse (SQLite) for seconds.
MAX_FILTER_TRAITS = 100
# The trait filters asking for all of their traits: more than a node
# holds match no node (True) or every node (False: lacks one at least).
_ALL_OF_TRAITS = {'traits': True, 'not_traits_any': False}


def query_bool(req, name):
    """The query parameter ``name`` as a bool (None: absent)."""
    value = req.GET.get(name)
    return None if value is None else strutils.bool_from_string(value)


def _given(req, name):
    """The query parameter ``name``, refused (406) before its version."""
    value = req.GET.get(name)
    if value is not None and not req.since(versions.NODE_FILTERS.get(name)):
        raise versions.not_acceptable(req)
    return value


def _never_matching(req, filters):
    """Filters no node of nova_mini passes (a fault: none has one), and
    the conductor filter: the nodes of an alive conductor, none of one
    that is not alive (see objects/baremetal/node_conductor.py).
    """
    fault = _given(req, 'fault')
    if fault is not None:
        if fault not in FAULTS:
            raise exception.Invalid(
                'Unrecognized fault "%s" is specified, allowed faults are '
                '%s.' % (fault, ', '.join(FAULTS)))
        filters['none'] = True
    hostname = _given(req, 'conductor')
    if hostname is not None:
        nodes = node_conductor.NodeConductors(req.ctxt).nodes_of(hostname)
        if nodes is None:
            filters['none'] = True
        else:
            filters['conductor_nodes'] = nodes


def filters(req):
    """Return the objects.baremetal.node_filters filters of a node list request.

    :param req: the request.
    :returns: a dict.
    :raises NotAcceptable: a filter of a later version.
    :raises Invalid: a value no node could have that Ironic refuses.
    :raises TooManyFilterValues: a trait filter of more than
        MAX_FILTER_TRAITS traits.
    :raises ChassisNotFound: ``chassis_uuid`` names no chassis.
    """
    found = {}
    for name in _PLAIN_FILTERS:
        if _given(req, name) is not None:
            found[name] = req.GET[name]
    if found.get('provision_state') not in (None,) + states.ALL:
        raise exception.Invalid('Invalid provision state %s.'
                                % found['provision_state'])
    found['maintenance'] = query_bool(req, 'maintenance')
    found['associated'] = query_bool(req, 'associated')
    found['instance_uuid'] = req.GET.get('instance_uuid')
    if _given(req, 'retired') is not None:
        found['retired'] = query_bool(req, 'retired')
    found['description_contains'] = _given(req, 'description_contains')
    if req.GET.get('chassis_uuid') is not None:
        found['chassis_id'] = objects.Chassis.get_by_uuid(
            req.ctxt, req.GET['chassis_uuid']).id
    _never_matching(req, found)
    for param, name in schema.TRAIT_FILTERS.items():
        if req.GET.get(param) is None:
            continue
        if not req.since(versions.NODE_TRAITS):
            raise versions.not_acceptable(req)
        trait_filter(found, param, name, req.GET[param])
    return found


def trait_filter(found, param, name, value):
    """Add the trait filter ``param`` (its key in objects.baremetal.node_filters:
    ``name``) to ``found``: at most MAX_FILTER_TRAITS traits, each a
    trait name.
    """
    traits = [t for t in value.split(',') if t]
    if len(traits) > MAX_FILTER_TRAITS:
        raise exception.TooManyFilterValues(
            what='traits', name=param, limit=MAX_FILTER_TRAITS)
    for trait in traits:
        _check_trait(trait)
    if len(set(traits)) > node_trait.MAX_TRAITS_PER_NODE and (
            name in _ALL_OF_TRAITS):
        # No node has them all (nor lacks none of them): the database is
        # not asked about them.
        if _ALL_OF_TRAITS[name]:
            found['none'] = True
        return
    found[name] = traits
