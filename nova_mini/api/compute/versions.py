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

"""The compute API's microversion history: one entry per version.

Add a version by appending one line here and naming it below if code
checks it; tests check the order, the names and the newest version.
"""

from nova_mini.api import microversion

HISTORY = [
    ('2.1', 'Initial version of the v2.1 API.'),
    ('2.2', 'Keypair type.'),
    ('2.3', 'Extended server attributes.'),
    ('2.4', 'Reserved flag of fixed IPs.'),
    ('2.5', 'IP filter on server lists for non-admins.'),
    ('2.6', 'Remote consoles API.'),
    ('2.7', 'Adding access to a public flavor answers 409.'),
    ('2.8', 'MKS consoles.'),
    ('2.9', 'Locked state in server bodies.'),
    ('2.10', 'Keypairs of other users for admins.'),
    ('2.11', 'Forced-down state of services.'),
    ('2.12', 'Network id of virtual interfaces.'),
    ('2.13', 'Project and user of server groups.'),
    ('2.14', 'Evacuate without onSharedStorage.'),
    ('2.15', 'Soft affinity server group policies.'),
    ('2.16', 'host_status of servers.'),
    ('2.17', 'Trigger a crash dump.'),
    ('2.18', 'Project id optional in URLs.'),
    ('2.19', 'Server description.'),
    ('2.20', 'Volume attach and detach for shelved servers.'),
    ('2.21', 'Actions of deleted servers.'),
    ('2.22', 'Force completion of a live migration.'),
    ('2.23', 'Migration id and type in migration bodies.'),
    ('2.24', 'Abort a live migration.'),
    ('2.25', 'Automatic block migration.'),
    ('2.26', 'Server tags.'),
    ('2.27', 'OpenStack-API-Version header.'),
    ('2.28', 'Hypervisor cpu_info as an object.'),
    ('2.29', 'Forced evacuation.'),
    ('2.30', 'Forced live migration.'),
    ('2.31', 'Serial console URL fix.'),
    ('2.32', 'Device tags on create.'),
    ('2.33', 'Paging of hypervisors.'),
    ('2.34', 'Asynchronous live migration checks.'),
    ('2.35', 'Paging of keypairs.'),
    ('2.36', 'Proxy APIs deprecated.'),
    ('2.37', 'Automatic or no networks on create.'),
    ('2.38', 'Invalid server status filter answers 400.'),
    ('2.39', 'Image metadata quota removed.'),
    ('2.40', 'Paging of usage.'),
    ('2.41', 'Aggregate uuid.'),
    ('2.42', 'Device tags on create restored.'),
    ('2.43', 'os-hosts deprecated.'),
    ('2.44', 'Network proxy actions deprecated.'),
    ('2.45', 'createImage answers with the image id in the body.'),
    ('2.46', 'Request id of instance action events.'),
    ('2.47', 'Servers show their embedded flavor.'),
    ('2.48', 'Standard server diagnostics.'),
    ('2.49', 'Tagged volume attachments.'),
    ('2.50', 'Server group quotas in quota classes.'),
    ('2.51', 'volume-extended external event.'),
    ('2.52', 'Tags on server create.'),
    ('2.53', 'Service and hypervisor UUIDs.'),
    ('2.54', 'Key pair on rebuild.'),
    ('2.55', 'Flavor description.'),
    ('2.56', 'Cold migration to a chosen host.'),
    ('2.57', 'user_data on rebuild; personality files removed.'),
    ('2.58', 'Paging of instance actions.'),
    ('2.59', 'Paging of migrations.'),
    ('2.60', 'Multi-attach volumes.'),
    ('2.61', 'Extra specs in flavor bodies.'),
    ('2.62', 'Host of instance action events.'),
    ('2.63', 'Trusted image certificates.'),
    ('2.64', 'Server group policy and rules.'),
    ('2.65', 'Abort a queued live migration.'),
    ('2.66', 'changes-before filter.'),
    ('2.67', 'Volume type in block device mappings.'),
    ('2.68', 'Forced evacuate and live migrate removed.'),
    ('2.69', 'Partial server bodies for down cells.'),
    ('2.70', 'Device tags in server and interface bodies.'),
    ('2.71', 'Server groups in server bodies.'),
    ('2.72', 'Ports with resource requests on create.'),
    ('2.73', 'Lock reason.'),
    ('2.74', 'Host and hypervisor on create.'),
    ('2.75', 'Stricter validation: unknown query parameters rejected, '
             'integer swap.'),
    ('2.76', 'power-update external event.'),
    ('2.77', 'Availability zone on unshelve.'),
    ('2.78', 'NUMA topology of a server.'),
    ('2.79', 'delete_on_termination of volume attachments.'),
    ('2.80', 'Project and user filters of migrations.'),
    ('2.81', 'Image pre-caching on aggregates.'),
    ('2.82', 'accelerator-request-bound external event.'),
    ('2.83', 'More server list filters for non-admins.'),
    ('2.84', 'Details of instance action events.'),
    ('2.85', 'Update delete_on_termination of a volume attachment.'),
    ('2.86', 'Extra specs validated on write.'),
]

# Versions that code checks, by what they changed. A range that ends
# where a change begins is written with the change's version (a
# validation schema list, or ``not req.since(X)``), never the one before.
BASE = microversion.APIVersion('2.1')
KEYPAIR_TYPE = microversion.APIVersion('2.2')
SERVER_EXTENDED_ATTRIBUTES = microversion.APIVersion('2.3')
SERVER_IP6_FILTER = microversion.APIVersion('2.5')
PUBLIC_FLAVOR_ACCESS_CONFLICT = microversion.APIVersion('2.7')
SERVER_LOCKED = microversion.APIVersion('2.9')
KEYPAIR_USER_ID = microversion.APIVersion('2.10')
SERVER_GROUP_PROJECT_USER = microversion.APIVersion('2.13')
SOFT_AFFINITY_POLICIES = microversion.APIVersion('2.15')
SERVER_DESCRIPTION = microversion.APIVersion('2.19')
INSTANCE_ACTIONS_OF_DELETED = microversion.APIVersion('2.21')
SERVER_TAGS = microversion.APIVersion('2.26')
KEYPAIR_PAGING = microversion.APIVersion('2.35')
NETWORK_QUOTAS_REMOVED = microversion.APIVersion('2.36')
SERVER_STATUS_FILTER_CHECKED = microversion.APIVersion('2.38')
IMAGE_META_LIMIT_REMOVED = microversion.APIVersion('2.39')
EMBEDDED_FLAVOR = microversion.APIVersion('2.47')
INSTANCE_ACTION_EVENTS_FOR_ALL = microversion.APIVersion('2.51')
SERVER_TAGS_ON_CREATE = microversion.APIVersion('2.52')
KEY_NAME_ON_REBUILD = microversion.APIVersion('2.54')
FLAVOR_DESCRIPTION = microversion.APIVersion('2.55')
PERSONALITY_REMOVED = microversion.APIVersion('2.57')
INSTANCE_ACTIONS_PAGING = microversion.APIVersion('2.58')
FLAVOR_EXTRA_SPECS_IN_BODY = microversion.APIVersion('2.61')
INSTANCE_ACTION_EVENT_HOST = microversion.APIVersion('2.62')
TRUSTED_IMAGE_CERTIFICATES = microversion.APIVersion('2.63')
SERVER_GROUP_POLICY_RULES = microversion.APIVersion('2.64')
SERVER_CHANGES_BEFORE_FILTER = microversion.APIVersion('2.66')
SERVER_GROUPS = microversion.APIVersion('2.71')
SERVER_LOCKED_REASON = microversion.APIVersion('2.73')
STRICT_VALIDATION = microversion.APIVersion('2.75')
SERVER_MORE_FILTERS = microversion.APIVersion('2.83')
INSTANCE_ACTION_EVENT_DETAILS = microversion.APIVersion('2.84')
EXTRA_SPECS_VALIDATION = microversion.APIVersion('2.86')

COMPUTE_API = microversion.VersionedAPI(
    service_type='compute',
    legacy_header='X-OpenStack-Nova-API-Version',
    history=HISTORY)
