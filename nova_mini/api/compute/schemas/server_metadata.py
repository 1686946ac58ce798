"""Request schemas of a server's metadata (/servers/{id}/metadata)."""

import copy

from nova_mini.api.compute.schemas import servers

# POST (merge) and PUT (replace all) of the whole metadata.
create = {
    'type': 'object',
    'properties': {'metadata': servers.metadata},
    'required': ['metadata'],
    'additionalProperties': False,
}
update_all = copy.deepcopy(create)

# PUT of one item: {"meta": {key: value}}, exactly one.
_one_item = copy.deepcopy(servers.metadata)
_one_item.update({'minProperties': 1, 'maxProperties': 1})
update = {
    'type': 'object',
    'properties': {'meta': _one_item},
    'required': ['meta'],
    'additionalProperties': False,
}
