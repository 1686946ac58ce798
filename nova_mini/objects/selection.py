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
        return cls(node_uuid=state.uuid, node_name=state.name,
                   resource_class=state.resource_class, weight=weight)
