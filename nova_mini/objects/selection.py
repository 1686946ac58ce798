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

"""Selection: a node chosen by the scheduler for one instance.

``select_destinations`` answers one list per instance: its first Selection
is the chosen node, the others are alternates, tried in order when the
chosen node is lost to another scheduler's claim.
"""

from nova_mini.objects import base
from nova_mini.objects import fields


@base.NovaMiniObjectRegistry.register
class Selection(base.NovaMiniObject):
    """One node a scheduler selected, with the weight it gave it."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'node_uuid': fields.UUIDField(),
        'node_name': fields.StringField(nullable=True),
        'resource_class': fields.StringField(nullable=True),
        'weight': fields.FloatField(nullable=True),
    }

    @classmethod
    def from_node_state(cls, state, weight=None):
        """Return the Selection of a candidate node.

        :param state: the NodeState chosen.
        :param weight: its weight (None: not weighed).
        :returns: a Selection.
        """
        return cls(node_uuid=state.uuid, node_name=state.name,
                   resource_class=state.resource_class, weight=weight)
