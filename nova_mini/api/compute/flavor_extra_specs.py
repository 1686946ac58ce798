"""A flavor's extra specs: /flavors/{flavor_id}/os-extra_specs[/{key}]."""

import pecan
from pecan import rest

from nova_mini.api.compute.schemas import flavor_extra_specs as schema
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import objects
from nova_mini.policies import flavor_extra_specs as policies

MAX_VALUE_LENGTH = 255


def _as_strings(specs):
    """Values as stored: numbers become their text, which must fit too."""
    stored = {}
    for key, value in specs.items():
        text = value if isinstance(value, str) else str(value)
        if len(text) > MAX_VALUE_LENGTH:
            raise exception.Invalid(
                'extra_specs value has %d characters, more than %d.'
                % (len(text), MAX_VALUE_LENGTH))
        stored[key] = text
    return stored


class FlavorExtraSpecsController(rest.RestController):

    def __init__(self, flavor_id):
        self.flavor_id = flavor_id

    def _flavor(self, context):
        return objects.Flavor.get_by_flavor_id(context, self.flavor_id)

    @wsgi.expose()
    def get_all(self):
        context = pecan.request.ctxt
        context.can(policies.INDEX)
        return {'extra_specs': self._flavor(context).extra_specs}

    @wsgi.expose()
    def get_one(self, key):
        context = pecan.request.ctxt
        context.can(policies.SHOW)
        flavor = self._flavor(context)
        if key not in flavor.extra_specs:
            raise exception.FlavorExtraSpecsNotFound(
                flavor_id=self.flavor_id, extra_specs_key=key)
        return {key: flavor.extra_specs[key]}

    @wsgi.expose()
    @validation.body(schema.create)
    def post(self):
        req = pecan.request
        req.ctxt.can(policies.CREATE)
        body = req.json['extra_specs']
        specs = _as_strings(body)
        self._flavor(req.ctxt).update_extra_specs(specs)
        # The answer echoes the request, numbers and all, as Nova's does.
        return {'extra_specs': body}

    @wsgi.expose()
    @validation.body(schema.update)
    def put(self, key):
        req = pecan.request
        req.ctxt.can(policies.UPDATE)
        body = req.json
        specs = _as_strings(body)
        flavor = self._flavor(req.ctxt)
        if key not in specs:
            raise exception.Invalid('Request body and URI mismatch')
        flavor.update_extra_specs(specs)
        return body

    @wsgi.expose()
    def delete(self, key):
        context = pecan.request.ctxt
        context.can(policies.DELETE)
        self._flavor(context).delete_extra_spec(key)
