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

"""A flavor's extra specs: /flavors/{flavor_id}/os-extra_specs[/{key}].

From microversion 2.86 writes are checked against the extra spec registry;
the ``validation`` query parameter chooses how strictly.
"""

from oslo_log import log as logging
import pecan

from nova_mini.api.compute.schemas import flavor_extra_specs as schema
from nova_mini.api.compute import versions
from nova_mini.api import pecan_speedups
from nova_mini.api import validation
from nova_mini.api.validation.extra_specs import registry
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import flavor_extra_specs as specs_obj
from nova_mini.policies.compute import flavor_extra_specs as policies
from nova_mini import policy

LOG = logging.getLogger(__name__)

MAX_VALUE_LENGTH = 255
# POST and PUT: no validation query before 2.86 (_get_validation_mode refuses
# the parameter there).
_validate_write_query = validation.query([
    (versions.EXTRA_SPECS_VALIDATION, schema.validation_query_v286)])


def _get_stored_values(specs):
    """Return the values as stored: numbers become their text, which must
    fit too.
    """
    stored = {}
    for key, value in specs.items():
        text = value if isinstance(value, str) else str(value)
        if len(text) > MAX_VALUE_LENGTH:
            raise exception.Invalid(
                'extra_specs value has %d characters, more than %d.'
                % (len(text), MAX_VALUE_LENGTH))
        stored[key] = text
    return stored


def _get_validation_mode(req):
    """Return the validation mode asked for (the schema has checked its
    value), or None below 2.86, where nothing is validated.
    """
    if not req.since(versions.EXTRA_SPECS_VALIDATION):
        if 'validation' in req.GET:
            raise exception.Invalid(
                "The 'validation' query parameter needs microversion %s or "
                "later." % (versions.EXTRA_SPECS_VALIDATION,))
        return None
    return req.GET.get('validation', registry.STRICT)


def _check(req, flavor_id, specs):
    """Validate ``specs`` as the request's mode says; 400 for all the
    problems at once, so that nothing is stored.
    """
    mode = _get_validation_mode(req)
    if mode is None or mode == registry.DISABLED:
        return
    verdict = registry.validate(registry.get_registry(), specs, mode)
    if verdict.errors:
        raise exception.ValidationError(detail=' '.join(verdict.errors))
    if verdict.unknown:
        LOG.warning('Request %(request_id)s stored extra specs that no '
                    'definition describes on flavor %(flavor)s (validation='
                    'permissive): %(keys)s',
                    {'request_id': req.ctxt.request_id, 'flavor': flavor_id,
                     'keys': ', '.join(sorted(verdict.unknown))})
    for key, spec in verdict.deprecated:
        LOG.warning('Request %(request_id)s set deprecated extra spec '
                    '%(key)s on flavor %(flavor)s%(instead)s',
                    {'request_id': req.ctxt.request_id, 'key': key,
                     'flavor': flavor_id,
                     'instead': ('; use %s instead' % spec.support.replacement
                                 if spec.support.replacement else '')})


class FlavorExtraSpecsController(pecan_speedups.SubResourceController):
    """/flavors/{flavor_id}/os-extra_specs[/{key}]: list, show, merge, set
    and delete a flavor's extra specs.
    """

    def __init__(self, flavor_id):
        self.flavor_id = flavor_id

    def _flavor(self, context):
        return objects.Flavor.get_by_flavor_id(context, self.flavor_id)

    @wsgi.expose()
    def get_all(self):
        context = pecan.request.ctxt
        context.can(policies.INDEX, policy.own_target(context))
        return {'extra_specs': self._flavor(context).extra_specs}

    @wsgi.expose()
    def get_one(self, key):
        context = pecan.request.ctxt
        context.can(policies.SHOW, policy.own_target(context))
        flavor = self._flavor(context)
        if key not in flavor.extra_specs:
            raise exception.FlavorExtraSpecsNotFound(
                flavor_id=self.flavor_id, extra_specs_key=key)
        return {key: flavor.extra_specs[key]}

    @wsgi.expose()
    @_validate_write_query
    @validation.body([(None, schema.create),
                      (versions.EXTRA_SPECS_VALIDATION, schema.create_v286)])
    def post(self):
        req = pecan.request
        req.ctxt.can(policies.CREATE)
        body = req.json['extra_specs']
        specs = _get_stored_values(body)
        _check(req, self.flavor_id, specs)
        # Only the row id is needed, not the flavor and its specs.
        specs_obj.merge_extra_specs(req.ctxt, self.flavor_id, specs)
        # The answer echoes the request, numbers and all, as Nova's does.
        return {'extra_specs': body}

    @wsgi.expose()
    @_validate_write_query
    @validation.body([(None, schema.update),
                      (versions.EXTRA_SPECS_VALIDATION, schema.update_v286)])
    def put(self, key):
        req = pecan.request
        req.ctxt.can(policies.UPDATE)
        body = req.json
        specs = _get_stored_values(body)
        _check(req, self.flavor_id, specs)
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
