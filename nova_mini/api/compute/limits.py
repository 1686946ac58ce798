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

"""The limits resource: GET /limits, the caller's project's quotas and
usage under Nova's names (``openstack limits show --absolute``), or
another project's with ``tenant_id`` (an administrator).

``rate`` is always empty, as in Nova's v2.1. As Nova, the Networking
service's and the injected files' limits leave from 2.36 and 2.57, and
``maxImageMeta`` from 2.39.
"""

import pecan
from pecan import rest

from nova_mini.api.compute.schemas import limits as schema
from nova_mini.api.compute import versions
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini.objects.compute import quota
from nova_mini.policies.compute import limits as policies

# The absolute limits of each quota, and the usage shown of some.
_LIMIT_NAMES = (
    ('ram', 'maxTotalRAMSize'),
    ('instances', 'maxTotalInstances'),
    ('cores', 'maxTotalCores'),
    ('key_pairs', 'maxTotalKeypairs'),
    ('floating_ips', 'maxTotalFloatingIps'),
    ('metadata_items', 'maxServerMeta'),
    ('metadata_items', 'maxImageMeta'),
    ('injected_files', 'maxPersonality'),
    ('injected_file_content_bytes', 'maxPersonalitySize'),
    ('security_groups', 'maxSecurityGroups'),
    ('security_group_rules', 'maxSecurityGroupRules'),
    ('server_groups', 'maxServerGroups'),
    ('server_group_members', 'maxServerGroupMembers'),
)
_USED_NAMES = (
    ('ram', 'totalRAMUsed'),
    ('cores', 'totalCoresUsed'),
    ('instances', 'totalInstancesUsed'),
    ('floating_ips', 'totalFloatingIpsUsed'),
    ('security_groups', 'totalSecurityGroupsUsed'),
    ('server_groups', 'totalServerGroupsUsed'),
)
_REMOVED_V236 = ('floating_ips', 'security_groups', 'security_group_rules')
_REMOVED_V257 = _REMOVED_V236 + ('injected_files',
                                 'injected_file_content_bytes')


def _hidden(req):
    if req.since(versions.PERSONALITY_REMOVED):
        return _REMOVED_V257
    if req.since(versions.NETWORK_QUOTAS_REMOVED):
        return _REMOVED_V236
    return ()


def absolute(req, limits, usages):
    """The ``absolute`` document of a project's limits and usage, as the
    request's microversion shows it.
    """
    hidden = _hidden(req)
    body = {}
    for resource, name in _LIMIT_NAMES:
        if resource in hidden or (
                name == 'maxImageMeta' and
                req.since(versions.IMAGE_META_LIMIT_REMOVED)):
            continue
        body[name] = limits[resource]
    for resource, name in _USED_NAMES:
        if resource not in hidden:
            body[name] = usages[resource]
    return body


class LimitsController(rest.RestController):

    @wsgi.expose()
    @validation.query([(None, schema.index_query),
                       (versions.STRICT_VALIDATION, schema.index_query_v275)])
    def get_all(self):
        req = pecan.request
        context = req.ctxt
        context.can(policies.BASE, {'project_id': context.project_id})
        project_id = context.project_id
        if 'tenant_id' in req.GET:
            project_id = req.GET.get('tenant_id')
            context.can(policies.OTHER_PROJECT, {'project_id': project_id})
        return {'limits': {'rate': [], 'absolute': absolute(
            req, quota.get_limits(context, project_id),
            quota.get_usages(context, project_id))}}
