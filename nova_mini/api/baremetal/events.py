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

"""POST /events (from 1.54; earlier 404, as Ironic's): events of other
services, a networking service's port bindings. As Ironic 39 does, each
event is validated (schemas/events.py), checked against
``baremetal:events:post`` and then only logged (at debug level): nothing
acts on them. 204.
"""

from oslo_log import log as logging
import pecan
from pecan import rest

from nova_mini.api.baremetal.schemas import events as schema
from nova_mini.api.baremetal import versions
from nova_mini.api import microversion
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini.policies.baremetal import events as policies

LOG = logging.getLogger(__name__)


class EventsController(rest.RestController):
    """/events."""

    @wsgi.expose(status=204)
    @microversion.versioned(min_version=versions.EVENTS)
    @validation.body(schema.create)
    def post(self):
        req = pecan.request
        req.ctxt.can(policies.POST, {'project_id': req.ctxt.project_id,
                                     'user_id': req.ctxt.user_id})
        for event in req.json['events']:
            LOG.debug('Received external event: %s', event)

    @wsgi.expose()
    def get_all(self):
        # Posting is the only method, as in Ironic (pecan's 405 there).
        raise exception.MethodNotAllowed(method=pecan.request.method)
