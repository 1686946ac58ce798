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

"""The deploy templates resource (1.55): /deploy_templates and
/deploy_templates/{uuid or name}. Before 1.55, as in Ironic, a GET is not
found (404) and the other methods are not allowed (405).

What a template does to a deploy: nova_mini.objects.baremetal.node_deploy.
"""

import collections
import re

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import pecan
from pecan import rest

from nova_mini.api.baremetal import chassis as chassis_api
from nova_mini.api.baremetal import json_patch
from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal.schemas import deploy_templates as schema
from nova_mini.api.baremetal.schemas import nodes as node_schema
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import deploy_templates as deploy_templates_views
from nova_mini.api import microversion
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects.baremetal import deploy_template as template_obj
from nova_mini.policies.baremetal import deploy_templates as policies

_check_patched = validation.value_checker(schema.patched, 'deploy template')
_PATCHABLE = ('extra', 'name', 'steps')
_reads = microversion.versioned(min_version=versions.DEPLOY_TEMPLATES)
_writes = microversion.versioned(
    min_version=versions.DEPLOY_TEMPLATES,
    refusal=exception.MethodNotAllowedForVersion)


def _get_template(ident):
    context = pecan.request.ctxt
    if uuidutils.is_uuid_like(ident):
        return objects.DeployTemplate.get_by_uuid(context, ident)
    if re.match(node_schema.NAME_PATTERN, ident) is None:
        raise exception.Invalid('Expected a logical name or UUID but '
                                'received %s.' % ident)
    return objects.DeployTemplate.get_by_name(context, ident)


def _check_template(values):
    """Refuse what Ironic refuses beyond the schema, and what nova_mini
    would not keep.
    """
    if values.get('description') is not None:
        raise exception.Invalid(
            'Deploy templates have no description here (Ironic does not '
            'keep it either): leave description out, or put it in extra.')
    counts = collections.Counter((step['interface'], step['step'])
                                 for step in values['steps'])
    duplicates = sorted(key for key, count in counts.items() if count > 1)
    if duplicates:
        raise exception_baremetal.InvalidDeployTemplate(err=(
            'Duplicate deploy steps. A template cannot have multiple deploy '
            'steps with the same interface and step. Duplicates: %s'
            % '; '.join('interface: %s, step: %s' % key
                        for key in duplicates)))


def _keep_step_secrets(stored_steps, steps):
    """Put back in the patched ``steps`` the secrets of their arguments
    that a client sent as the masks it read.

    A step is matched to the stored one of its interface and name (unique
    in a template), wherever the patch moved it; a mask in a step with no
    stored secret behind it is refused (400).
    """
    stored = {(step['interface'], step['step']): step['args']
              for step in stored_steps}
    for index, step in enumerate(steps):
        args = stored.get((step['interface'], step['step']), {})
        step['args'] = json_patch.keep_masked(
            step['args'], args, deploy_templates_views.masked_args(args),
            '/steps/%d/args' % index)


class DeployTemplatesController(rest.RestController):
    """/deploy_templates and /deploy_templates/{uuid or name}."""

    @wsgi.expose()
    @_reads
    @validation.query(schema.list_query)
    def get_all(self):
        req = pecan.request
        req.ctxt.can(policies.GET)
        view = deploy_templates_views.DeployTemplateView(req)
        fields, detail, limit, marker, sort_key, sort_dir = \
            chassis_api.list_params(req, view, template_obj.SORT_KEYS,
                                    False)
        items = objects.DeployTemplateList.get_all(
            req.ctxt, sort_key=sort_key, sort_dir=sort_dir, limit=limit,
            marker=marker)
        query = [(name, req.GET[name]) for name in req.GET
                 if name not in ('limit', 'marker', 'fields')]
        return view.collection(items.objects, limit, 'deploy_templates',
                               fields=fields, detail=detail, query=query)

    @wsgi.expose()
    @_reads
    @validation.query(schema.show_query)
    def get_one(self, ident):
        req = pecan.request
        req.ctxt.can(policies.GET)
        view = deploy_templates_views.DeployTemplateView(req)
        fields = lookup.get_fields(view)
        return view.render(_get_template(ident), fields)

    @wsgi.expose(status=201)
    @_writes
    @validation.body(schema.create)
    def post(self):
        req = pecan.request
        req.ctxt.can(policies.CREATE)
        body = dict(req.json)
        _check_template(body)
        body.pop('description', None)
        body = {name: value for name, value in body.items()
                if value is not None}
        template = objects.DeployTemplate(req.ctxt, **body)
        template.create()
        view = deploy_templates_views.DeployTemplateView(req)
        response = wsgi.json_response(view.render(template), status=201)
        response.location = view.link('deploy_templates/%s'
                                      % template.uuid)
        return response

    @wsgi.expose()
    @_writes
    @validation.body(node_schema.patch)
    def patch(self, ident):
        req = pecan.request
        req.ctxt.can(policies.UPDATE)
        json_patch.check_fields(
            req.json, _PATCHABLE,
            'Cannot patch %(path)s. Only the following can be updated: '
            '%(patchable)s')
        template = _get_template(ident)
        # Plain JSON, not the object's coercing lists and dicts: the patch
        # may put anything anywhere, the checks below judge the result.
        document = jsonutils.loads(jsonutils.dumps(
            {name: getattr(template, name) for name in _PATCHABLE}))
        patched = json_patch.apply_to(document, req.json,
                                      empty={'extra': {}})
        _check_patched(patched)
        _check_template(patched)
        # Patched from the stored template, not its masked view; but a
        # client may send back the masks it read.
        _keep_step_secrets(document['steps'], patched['steps'])
        for name, value in patched.items():
            if name == 'steps':
                value = template_obj.normalized_steps(value)
            if value != document[name]:
                setattr(template, name, value)
        template.save()
        return deploy_templates_views.DeployTemplateView(req).render(template)

    @wsgi.expose(status=204)
    @_writes
    def delete(self, ident):
        req = pecan.request
        req.ctxt.can(policies.DELETE)
        _get_template(ident).destroy()
