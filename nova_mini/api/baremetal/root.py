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

"""The /baremetal API root: version documents and the v1 tree.

As Ironic's, the documents are public, and negotiate the microversion
like every other path (so they carry the version headers, and refuse a
version out of range).
"""

import pecan

from nova_mini.api.baremetal import allocations
from nova_mini.api.baremetal import chassis
from nova_mini.api.baremetal import conductors
from nova_mini.api.baremetal import deploy_templates
from nova_mini.api.baremetal import drivers
from nova_mini.api.baremetal import events
from nova_mini.api.baremetal import nodes
from nova_mini.api.baremetal import portgroups
from nova_mini.api.baremetal import ports
from nova_mini.api.baremetal import ramdisk
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal import volume
from nova_mini.api import wsgi
from nova_mini import exception


def _default_version(root_url):
    api = versions.BAREMETAL_API
    return {
        'id': 'v1',
        'links': [{'href': root_url + '/v1/', 'rel': 'self'}],
        'status': 'CURRENT',
        'min_version': str(api.min_version),
        'version': str(api.max_version),
    }


def _links(root_url, name):
    return [{'href': '%s/v1/%s/' % (root_url, name), 'rel': 'self'},
            {'href': '%s/%s/' % (root_url, name), 'rel': 'bookmark'}]


class V1Controller(object):
    nodes = nodes.NodesController()
    ports = ports.PortsController()
    portgroups = portgroups.PortgroupsController()
    chassis = chassis.ChassisController()
    drivers = drivers.DriversController()
    allocations = allocations.AllocationsController()
    lookup = ramdisk.LookupController()
    heartbeat = ramdisk.HeartbeatController()
    events = events.EventsController()
    conductors = conductors.ConductorsController()
    deploy_templates = deploy_templates.DeployTemplatesController()
    volume = volume.VolumeController()

    @wsgi.expose()
    def index(self):
        if pecan.request.method not in ('GET', 'HEAD'):
            raise exception.MethodNotAllowed(method=pecan.request.method)
        root_url = pecan.request.application_url.rstrip('/')
        document = {
            'id': 'v1',
            'links': [
                {'href': root_url + '/v1/', 'rel': 'self'},
                {'href': 'https://docs.openstack.org/ironic/latest/'
                         'contributor/webapi.html',
                 'rel': 'describedby', 'type': 'text/html'},
            ],
            'media_types': {
                'base': 'application/json',
                'type': 'application/vnd.openstack.ironic.v1+json',
            },
            'nodes': _links(root_url, 'nodes'),
            'ports': _links(root_url, 'ports'),
            'chassis': _links(root_url, 'chassis'),
            'drivers': _links(root_url, 'drivers'),
            'version': _default_version(root_url),
        }
        # The collections later versions brought, from the version that
        # brought them (as Ironic links them).
        for name, version in (('portgroups', versions.PORTGROUPS),
                              ('volume', versions.VOLUME),
                              ('lookup', versions.RAMDISK_ENDPOINTS),
                              ('heartbeat', versions.RAMDISK_ENDPOINTS),
                              ('conductors', versions.CONDUCTOR),
                              ('allocations', versions.ALLOCATION),
                              ('events', versions.EVENTS),
                              ('deploy_templates',
                               versions.DEPLOY_TEMPLATES)):
            if pecan.request.since(version):
                document[name] = _links(root_url, name)
        return document


class BaremetalRootController(object):

    @wsgi.expose()
    def index(self):
        root_url = pecan.request.application_url.rstrip('/')
        version = _default_version(root_url)
        return {
            'name': 'OpenStack Ironic API',
            'description': 'Bare-metal nodes of nova_mini, served with the '
                           'Ironic API.',
            'default_version': version,
            'versions': [version],
        }

    @pecan.expose()
    def _lookup(self, first, *remainder):
        # As Ironic: a path that names no version is the default one's
        # (/baremetal/nodes is /baremetal/v1/nodes).
        return V1Controller(), (first,) + remainder


pecan.route(BaremetalRootController, 'v1', V1Controller())
