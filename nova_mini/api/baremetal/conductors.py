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

"""The conductors resource (from 1.49): GET /conductors and
/conductors/{hostname}, the registry of nova_mini.objects.baremetal.conductor (the
nova-mini-api services, which do the conductors' work).
"""

import pecan
from pecan import rest

from nova_mini.api.baremetal import chassis
from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal.schemas import lists
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import conductors as conductors_views
from nova_mini.api import microversion
from nova_mini.api import pagination
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini.objects.baremetal import conductor
from nova_mini.policies.baremetal import conductors as policies


list_query = {'type': 'object', 'properties': dict(lists.PAGE),
              'additionalProperties': False}
show_query = {'type': 'object',
              'properties': {'fields': lists.PAGE['fields']},
              'additionalProperties': False}


class ConductorsController(rest.RestController):
    """/conductors and /conductors/{hostname}."""

    @wsgi.expose()
    @microversion.versioned(min_version=versions.CONDUCTOR)
    @validation.query(list_query)
    def get_all(self):
        req = pecan.request
        req.ctxt.can(policies.GET)
        view = conductors_views.ConductorView(req)
        fields, detail, limit, marker, sort_key, sort_dir = \
            chassis.list_params(req, view, conductor.SORT_KEYS, False)
        rows = conductor.get_all(req.ctxt, sort_key=sort_key,
                                 sort_dir=sort_dir, limit=limit,
                                 marker=marker)
        shown = None if detail else (fields or view.BRIEF_FIELDS)
        body = {'conductors': [view.render(row, shown) for row in rows]}
        if rows and limit and len(rows) == limit:
            body['next'] = pagination.ironic_next(
                view.link('conductors'),
                [(name, req.GET[name]) for name in req.GET
                 if name not in ('limit', 'marker')],
                limit, rows[-1].hostname)
        return body

    @wsgi.expose()
    @microversion.versioned(min_version=versions.CONDUCTOR)
    @validation.query(show_query)
    def get_one(self, hostname):
        req = pecan.request
        req.ctxt.can(policies.GET)
        view = conductors_views.ConductorView(req)
        fields = lookup.get_fields(view)
        return view.render(conductor.get(req.ctxt, hostname), fields)
