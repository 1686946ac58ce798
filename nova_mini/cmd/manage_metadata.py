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

"""``nova-mini-manage metadata show``: read a server's metadata as the
server itself would, through the metadata service.

The command plays the metadata proxy (Neutron's metadata agent): it reads
the server's project from the database, signs the server's id with
``[metadata] metadata_proxy_shared_secret`` and sends the three identity
headers to ``[metadata] bind_host``/``bind_port`` (or ``--url``). What
it prints is what the instance would read: JSON pretty-printed, anything
else (user_data) as it came.

With ``--config-drive`` it reads the server's config drive instead, from
its node (``manage_config_drive``): the files listed, or the one
``--path`` names printed.
"""

import json
import sys

from oslo_utils import uuidutils
import requests

from nova_mini.cmd import manage_config_drive
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini import exception
from nova_mini.metadata import identity
from nova_mini import objects

DEFAULT_PATH = 'latest/vendor_data2.json'

# A listening address that names every interface, and how to reach it.
_WILDCARDS = {'0.0.0.0': '127.0.0.1', '::': '::1', '': '127.0.0.1'}


def find_server(context, server):
    """The instance with id ``server``, or the one named ``server``.

    :raises: InstanceNotFound; ValueError when several servers have the
        name.
    """
    if uuidutils.is_uuid_like(server):
        return objects.Instance.get_by_uuid(context, server)
    named = [i for i in objects.InstanceList.get_all(context)
             if i.name == server]
    if not named:
        raise exception.InstanceNotFound(instance_id=server)
    if len(named) > 1:
        raise ValueError('%d servers are named %s: use an id (%s)' % (
            len(named), server, ', '.join(i.uuid for i in named)))
    return named[0]


def service_url(conf):
    """The metadata service's root URL, from its [metadata] options."""
    host = _WILDCARDS.get(conf.metadata.bind_host, conf.metadata.bind_host)
    if ':' in host:
        host = '[%s]' % host
    return 'http://%s:%d' % (host, conf.metadata.bind_port)


def metadata_url(root, path):
    """``root`` + ``/openstack/`` + ``path`` (which may start with
    ``/openstack/`` itself).
    """
    path = path.strip('/')
    if path == 'openstack' or path.startswith('openstack/'):
        path = path[len('openstack'):].lstrip('/')
    return '%s/openstack/%s' % (root.rstrip('/'), path)


def signed_headers(secret, instance_id, project_id):
    """The identity headers a metadata proxy sends for an instance."""
    headers = {identity.INSTANCE_ID: instance_id,
               identity.TENANT_ID: project_id}
    if secret:
        headers[identity.SIGNATURE] = identity.sign(secret, instance_id)
    return headers


def _print_body(response):
    if response.headers.get('Content-Type', '').startswith(
            'application/json'):
        try:
            print(json.dumps(response.json(), indent=2, sort_keys=True))
            return
        except ValueError:
            pass
    sys.stdout.write(response.text)
    if response.text and not response.text.endswith('\n'):
        sys.stdout.write('\n')


def show(conf):
    """The command: 0 when the service answered 200, else 1."""
    command = conf.command
    db_api.configure(conf)
    context = nm_context.get_admin_context()
    problem = None
    try:
        instance = find_server(context, command.server)
    except exception.InstanceNotFound:
        problem = 'No server with the id or name %s.' % command.server
    except ValueError as exc:
        problem = '%s.' % exc
    if problem:
        print(problem, file=sys.stderr)
        return 1
    if command.config_drive:
        return manage_config_drive.show(conf, context, instance)
    url = metadata_url(command.url or service_url(conf),
                       command.path or DEFAULT_PATH)
    headers = signed_headers(conf.metadata.metadata_proxy_shared_secret,
                             instance.uuid, instance.project_id)
    try:
        response = requests.get(url, headers=headers,
                                timeout=command.timeout)
    except requests.RequestException as exc:
        print('The metadata service did not answer at %s: %s'
              % (url, exc), file=sys.stderr)
        return 1
    if response.status_code != 200:
        print('GET %s: %d %s' % (url, response.status_code,
                                 response.reason), file=sys.stderr)
        if response.text:
            print(response.text.rstrip('\n'), file=sys.stderr)
        return 1
    _print_body(response)
    return 0


def add_parser(subparsers):
    """The ``metadata`` command and its ``show`` action."""
    metadata = subparsers.add_parser(
        'metadata', help='What instances read from the metadata service')
    actions = metadata.add_subparsers(dest='action')
    actions.required = True
    show_ = actions.add_parser(
        'show', help="Print a server's metadata as the server reads it, "
                     'through the metadata service (signed headers, as '
                     'the metadata proxy sends them)')
    show_.add_argument('server', help='Server id, or a unique name.')
    show_.add_argument('--path', default=None,
                       help='Path below /openstack/ (default: %s; e.g. '
                            'latest/meta_data.json, latest/user_data). '
                            'With --config-drive: a file of the drive '
                            '(openstack/latest/meta_data.json, or below '
                            'openstack/ as for the service); default: '
                            'list the files.' % DEFAULT_PATH)
    show_.add_argument('--config-drive', action='store_true',
                       help="Read the server's config drive, as its node "
                            'stores it, instead of the metadata service.')
    show_.add_argument('--url', default=None,
                       help='Root URL of the metadata service (default: '
                            'from [metadata] bind_host and bind_port).')
    show_.add_argument('--timeout', type=float, default=30,
                       help='Seconds to wait for the answer (30).')
