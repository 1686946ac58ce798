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

"""The endpoints a deploy or rescue ramdisk calls, from 1.22 (earlier
404, as Ironic's): ``GET /v1/lookup`` and ``POST
/v1/heartbeat/{node_ident}``. They are public (no token: see
nova_mini.api.app), guarded by the ``baremetal:driver:ipa_lookup`` and
``baremetal:node:ipa_heartbeat`` rules (anyone, by default).

A lookup finds a node in a state where Ironic expects its ramdisk
(states.LOOKUP_ALLOWED: ``rescuing``, ``rescue wait``); any other node,
and no node, is the same 404, so that a caller learns nothing. From 1.62
the lookup gives the node an agent token (objects.baremetal.node_agent), which
each heartbeat must bring back.

A heartbeat is checked as Ironic checks it and then handed to the node's
deploy interface; fake-hardware's (``fake``) does nothing with it but log
it, as Ironic's does: 202, and nothing changes.
"""

import re
import urllib.parse

from oslo_log import log as logging
from oslo_utils import netutils
from oslo_utils import uuidutils
import pecan
from pecan import rest

from nova_mini.api.baremetal.schemas import nodes as node_schema
from nova_mini.api.baremetal.schemas import ramdisk as schema
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import nodes as node_views
from nova_mini.api import microversion
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects.baremetal import node_agent
from nova_mini.objects.baremetal import node_rescue
from nova_mini.policies.baremetal import ramdisk as policies
from nova_mini import states

LOG = logging.getLogger(__name__)

_since_ramdisk = microversion.versioned(
    min_version=versions.RAMDISK_ENDPOINTS, refusal=exception.NotFound)
_NAME = re.compile(node_schema.NAME_PATTERN)
# The node fields a lookup answers with (and the node's links).
_LOOKUP_FIELDS = ['uuid', 'properties', 'instance_info',
                  'driver_internal_info']


def config(token):
    """Return the agent configuration a lookup answers with: Ironic 39's,
    with the defaults of its options (nova_mini runs no agent and has none
    of them), and the agent's token.
    """
    return {
        'metrics': {'backend': 'noop', 'prepend_host': False,
                    'prepend_uuid': False, 'prepend_host_reverse': True,
                    'global_prefix': None},
        'metrics_statsd': {'statsd_host': 'localhost', 'statsd_port': 8125},
        'heartbeat_timeout': 300,
        'agent_containers': {
            'allow_arbitrary_containers': False,
            'allowed_containers': [],
            'container_steps_file': '/etc/ironic-python-agent.d/'
                                    'mysteps.yaml',
            'runner': 'podman',
            'pull_options': [],
            'run_options': ['--rm', '--network=host'],
        },
        'agent_token': token,
        'agent_token_required': True,
        'agent_md5_checksum_enable': True,
        'disable_deep_image_inspection': False,
        'permitted_image_formats': ['raw', 'gpt', 'qcow2', 'iso'],
        # fake-hardware's management interface is not out of band.
        'agent_skip_bmc_detect': False,
        'enable_bios_bootloader_install': False,
        'tls_min_version': '1.3',
        'tls_cipher_suites': None,
    }


def _target(context):
    return {'project_id': context.project_id, 'user_id': context.user_id}


def _addresses(values):
    """The valid MAC addresses of ``addresses=`` (comma-separated, or
    repeated), in lower case; invalid ones are left out, as Ironic does.
    """
    if len(values) == 1:
        values = values[0].split(',')
    found = []
    for value in values:
        value = value.strip().lower()
        if not value or value in found:
            continue
        if netutils.is_valid_mac(value):
            found.append(value)
        else:
            LOG.warning('Lookup: ignoring the invalid MAC address %s', value)
    return found


def _accepted():
    # An empty 202 with no Content-Type, as Ironic's.
    response = wsgi.json_response(None, status=202)
    del response.headers['Content-Type']
    return response


class LookupController(rest.RestController):
    """/lookup: the node a ramdisk runs on."""

    @wsgi.expose()
    @_since_ramdisk
    @validation.query(schema.lookup_query)
    def get_all(self):
        req = pecan.request
        context = req.ctxt
        context.can(policies.LOOKUP, _target(context))
        addresses = _addresses(req.GET.getall('addresses'))
        node_uuid = req.GET.get('node_uuid')
        if node_uuid is not None and not uuidutils.is_uuid_like(node_uuid):
            raise exception.Invalid('Expected UUID for node_uuid: %s'
                                    % node_uuid)
        if not addresses and not node_uuid:
            raise exception.Invalid("At least one of 'addresses' and "
                                    "'node_uuid' parameters is required")
        try:
            if not node_uuid:
                node_uuid = node_agent.node_uuid_by_addresses(context,
                                                              addresses)
            node = objects.Node.get_by_uuid(context, node_uuid)
        except exception_baremetal.NodeNotFound as exc:
            LOG.error('Lookup: no node found: %s', exc)
            raise exception.NotFound()
        if node.provision_state not in states.LOOKUP_ALLOWED:
            LOG.error('Lookup: node %(node)s is in provision state '
                      '%(state)s, where no ramdisk looks it up',
                      {'node': node.uuid, 'state': node.provision_state})
            raise exception.NotFound()
        if req.since(versions.AGENT_TOKEN):
            token = node_agent.issue_token(context, node)
        else:
            token = (node.driver_internal_info or {}).get(
                node_rescue.AGENT_TOKEN)
        return {'node': node_views.NodeView(req).render(node, _LOOKUP_FIELDS),
                'config': config(token)}


class HeartbeatController(rest.RestController):
    """/heartbeat/{node_ident} (or /heartbeat, the node in the body's
    ``node_ident``): a ramdisk's heartbeat.
    """

    @wsgi.expose(status=202)
    @_since_ramdisk
    @validation.body(schema.heartbeat)
    def post(self, node_ident=None):
        req = pecan.request
        body = req.json
        context = req.ctxt
        node_ident = _heartbeat_node(node_ident, body.get('node_ident'))
        if body.get('agent_version') and \
                not req.since(versions.AGENT_VERSION):
            raise exception.Invalid('Field "agent_version" not recognised')
        # Ironic's from 1.72.
        if body.get('agent_status') or body.get('agent_status_message'):
            raise exception.Invalid('Fields "agent_status" and '
                                    '"agent_status_message" not recognised.')
        context.can(policies.HEARTBEAT, _target(context))
        # Ironic's from 1.68.
        if body.get('agent_verify_ca') is not None:
            raise exception.Invalid('Field "agent_verify_ca" not recognised '
                                    'in this version')
        node = _load_node(context, node_ident)
        _check_heartbeat(node, body)
        LOG.warning('Got heartbeat message from node %(node)s, but the '
                    'driver %(driver)s does not support heartbeating',
                    {'node': node.uuid, 'driver': node.driver})
        return _accepted()


def _heartbeat_node(in_path, in_body):
    """The node a heartbeat names, in its path or its body."""
    if in_path is not None and in_body is not None and in_path != in_body:
        raise exception.Invalid('The heartbeat names node %s in its path '
                                'and %s in its body: name one.'
                                % (in_path, in_body))
    ident = in_path if in_path is not None else in_body
    if ident is None:
        raise exception.Invalid('Missing mandatory parameter: node_ident')
    return ident


def _load_node(context, ident):
    """The node of a heartbeat, by uuid or name (no policy on the node:
    the ramdisk has no project).
    """
    if uuidutils.is_uuid_like(ident):
        return objects.Node.get_by_uuid(context, ident)
    if not _NAME.match(ident):
        raise exception.Invalid('Expected a logical name or UUID but '
                                'received %s.' % ident)
    return objects.Node.get_by_name(context, ident)


def _callback_url(text):
    """The callback URL as Ironic reads it: an http(s) URL, or empty
    (a one-way heartbeat).
    """
    try:
        parsed = urllib.parse.urlparse(text)
        if 'http' not in parsed.scheme:
            raise ValueError(text)
        return parsed.geturl()
    except ValueError:
        if text != '':
            raise exception.Invalid('An issue with the supplied '
                                    '"callback_url" has been detected.')
        return text


def _check_heartbeat(node, body):
    """Ironic's checks of a heartbeat, in its order (the API's, then its
    conductor's).

    :raises nova_mini.exception.Invalid: one fails.
    """
    callback_url = _callback_url(body['callback_url'])
    known_url = (node.driver_internal_info or {}).get(node_rescue.AGENT_URL)
    if known_url is not None and known_url != callback_url:
        LOG.error('Heartbeat of node %(node)s with callback URL %(url)s, '
                  'not the one it had: ignored',
                  {'node': node.uuid, 'url': callback_url})
        raise exception.Invalid('Detected change in ramdisk provided '
                                '"callback_url"')
    token = body.get('agent_token')
    if token is None:
        raise exception.Invalid('Agent token is required for heartbeat '
                                'processing.')
    if body.get('agent_version') is None:
        raise exception.Invalid('Agent did not transmit a version, and a '
                                'version is required. Please update the '
                                'agent being used.')
    if not node_agent.token_valid(node, token):
        LOG.error('Invalid or missing agent token received for node %s',
                  node.uuid)
        raise exception.Invalid('Invalid or missing agent token received.')
