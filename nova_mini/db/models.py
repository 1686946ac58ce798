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

"""SQLAlchemy models of nova_mini's database.

The alembic migrations in nova_mini/db/migrations build the same schema; a
test compares the two on every supported backend.
"""

from oslo_db.sqlalchemy import models
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy import orm


@compiler.compiles(sa.DateTime, 'mysql')
def _mysql_datetime(type_, ddl_compiler, **kw):
    # MySQL's and MariaDB's DATETIME drops the fraction of a second unless
    # asked to keep it; updated_at orders writes (metadata, claims).
    return 'DATETIME(6)'


class Base(models.TimestampMixin, models.ModelBase, orm.DeclarativeBase):
    pass


class Flavor(Base):
    __tablename__ = 'flavors'
    __table_args__ = (
        sa.UniqueConstraint('flavorid', name='uniq_flavors0flavorid'),
        sa.UniqueConstraint('name', name='uniq_flavors0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    flavorid = sa.Column(sa.String(255), nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    vcpus = sa.Column(sa.Integer, nullable=False)
    root_gb = sa.Column(sa.Integer, nullable=False)
    ephemeral_gb = sa.Column(sa.Integer, nullable=False, default=0)
    swap = sa.Column(sa.Integer, nullable=False, default=0)
    rxtx_factor = sa.Column(sa.Float, nullable=False, default=1.0)
    vcpu_weight = sa.Column(sa.Integer, nullable=True)
    is_public = sa.Column(sa.Boolean, nullable=False, default=True)
    disabled = sa.Column(sa.Boolean, nullable=False, default=False)
    description = sa.Column(sa.Text, nullable=True)

    extra_specs = orm.relationship(
        'FlavorExtraSpec', cascade='all, delete-orphan',
        passive_deletes=True, lazy='raise')
    projects = orm.relationship(
        'FlavorProject', cascade='all, delete-orphan',
        passive_deletes=True, lazy='raise')


class FlavorExtraSpec(Base):
    __tablename__ = 'flavor_extra_specs'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'key',
                            name='uniq_flavor_extra_specs0flavor_id0key'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer,
                          sa.ForeignKey('flavors.id', ondelete='CASCADE'),
                          nullable=False)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255), nullable=False)


class FlavorProject(Base):
    __tablename__ = 'flavor_projects'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'project_id',
                            name='uniq_flavor_projects0flavor_id0project_id'),
        sa.Index('flavor_projects_project_id_idx', 'project_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer,
                          sa.ForeignKey('flavors.id', ondelete='CASCADE'),
                          nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)


# The predicate of the partial index of free nodes, per dialect: as
# SQLAlchemy writes node_candidates.FREE (a boolean IS 0 / IS false).
FREE_NODE = {
    'sqlite': "provision_state = 'available' AND maintenance IS 0 "
              "AND instance_uuid IS NULL",
    'postgresql': "provision_state = 'available' AND maintenance IS false "
                  "AND instance_uuid IS NULL",
}

# The dialects with partial indexes: the free-node indexes exist there only.
PARTIAL_INDEX_DIALECTS = tuple(FREE_NODE)

# A node's resource class as its placement name without the CUSTOM_
# prefix (baremetal-gold: BAREMETAL_GOLD), as node_candidates writes it.
CLASS_KEY = ("upper(replace(replace(replace(resource_class, '-', '_'), "
             "'.', '_'), ' ', '_'))")


class Node(Base):
    """A bare-metal node (Ironic's nodes table, the columns used here)."""

    __tablename__ = 'nodes'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_nodes0uuid'),
        sa.UniqueConstraint('name', name='uniq_nodes0name'),
        sa.UniqueConstraint('instance_uuid', name='uniq_nodes0instance_uuid'),
        sa.Index('nodes_provision_state_idx', 'provision_state'),
        sa.Index('nodes_resource_class_idx', 'resource_class'),
        # A project's nodes: those it owns, and those it leases.
        sa.Index('nodes_owner_idx', 'owner'),
        sa.Index('nodes_lessee_idx', 'lessee'),
        sa.Index('nodes_chassis_id_idx', 'chassis_id'),
        # A conductor's reservations, and those of dead conductors
        # (migration 0026).
        sa.Index('nodes_reservation_idx', 'reservation'),
        # The scheduler's ranking by memory (RAMWeigher), ties by id.
        sa.Index('nodes_memory_mb_idx', 'memory_mb', 'id'),
        # The same ranking of the free nodes only (what the scheduler
        # reads first, scheduler/candidates.FREE): on a full fleet it
        # does not step over the deployed ones.
        # MySQL and MariaDB have no partial index (and MariaDB no index on
        # an expression): there the scheduler reads nodes_memory_mb_idx.
        sa.Index('nodes_free_memory_mb_idx', 'memory_mb', 'id',
                 sqlite_where=sa.text(FREE_NODE['sqlite']),
                 postgresql_where=sa.text(FREE_NODE['postgresql'])).ddl_if(
                     dialect=PARTIAL_INDEX_DIALECTS),
        # ... and per resource class (its placement name without CUSTOM_),
        # for the requests naming one.
        sa.Index('nodes_free_class_memory_mb_idx',
                 sa.text(CLASS_KEY), 'memory_mb', 'id',
                 sqlite_where=sa.text(FREE_NODE['sqlite']),
                 postgresql_where=sa.text(FREE_NODE['postgresql'])).ddl_if(
                     dialect=PARTIAL_INDEX_DIALECTS),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=True)
    driver = sa.Column(sa.String(255), nullable=False)
    driver_info = sa.Column(db_types.JsonEncodedDict, nullable=True)
    resource_class = sa.Column(sa.String(80), nullable=True)
    properties = sa.Column(db_types.JsonEncodedDict, nullable=True)
    provision_state = sa.Column(sa.String(15), nullable=True)
    target_provision_state = sa.Column(sa.String(15), nullable=True)
    provision_updated_at = sa.Column(sa.DateTime, nullable=True)
    inspection_started_at = sa.Column(sa.DateTime, nullable=True)
    inspection_finished_at = sa.Column(sa.DateTime, nullable=True)
    target_raid_config = sa.Column(db_types.JsonEncodedDict, nullable=True)
    raid_config = sa.Column(db_types.JsonEncodedDict, nullable=True)
    power_state = sa.Column(sa.String(15), nullable=True)
    target_power_state = sa.Column(sa.String(15), nullable=True)
    maintenance = sa.Column(sa.Boolean, nullable=False, default=False)
    maintenance_reason = sa.Column(sa.Text, nullable=True)
    instance_uuid = sa.Column(sa.String(36), nullable=True)
    # LONGTEXT on MariaDB, as Ironic's: it holds a deploy's config drive
    # (migration 0025).
    instance_info = sa.Column(db_types.JsonEncodedDict(mysql_as_long=True),
                              nullable=True)
    extra = sa.Column(db_types.JsonEncodedDict, nullable=True)
    last_error = sa.Column(sa.Text, nullable=True)
    # The projects owning and leasing the node (Ironic 1.50 and 1.65).
    owner = sa.Column(sa.String(255), nullable=True)
    lessee = sa.Column(sa.String(255), nullable=True)
    # The size in ``properties`` as whole numbers (objects.baremetal.node.capacity_of),
    # for the scheduler's SQL: capacity checks and ranking.
    cpus = sa.Column(sa.Integer, nullable=False, server_default='0')
    memory_mb = sa.Column(sa.Integer, nullable=False, server_default='0')
    local_gb = sa.Column(sa.Integer, nullable=False, server_default='0')
    # Ironic's fields of the chassis, console, hardware interfaces and
    # the flags of later versions (migration 0011).
    chassis_id = sa.Column(sa.Integer,
                           sa.ForeignKey('chassis.id',
                                         name='nodes_chassis_id_fkey'),
                           nullable=True)
    console_enabled = sa.Column(sa.Boolean, nullable=False,
                                server_default=sa.false())
    driver_internal_info = sa.Column(db_types.JsonEncodedDict, nullable=True)
    bios_interface = sa.Column(sa.String(255), nullable=True)
    boot_interface = sa.Column(sa.String(255), nullable=True)
    console_interface = sa.Column(sa.String(255), nullable=True)
    deploy_interface = sa.Column(sa.String(255), nullable=True)
    inspect_interface = sa.Column(sa.String(255), nullable=True)
    management_interface = sa.Column(sa.String(255), nullable=True)
    network_interface = sa.Column(sa.String(255), nullable=True)
    power_interface = sa.Column(sa.String(255), nullable=True)
    raid_interface = sa.Column(sa.String(255), nullable=True)
    rescue_interface = sa.Column(sa.String(255), nullable=True)
    storage_interface = sa.Column(sa.String(255), nullable=True)
    vendor_interface = sa.Column(sa.String(255), nullable=True)
    conductor_group = sa.Column(sa.String(255), nullable=True)
    automated_clean = sa.Column(sa.Boolean, nullable=True)
    protected = sa.Column(sa.Boolean, nullable=False,
                          server_default=sa.false())
    protected_reason = sa.Column(sa.Text, nullable=True)
    description = sa.Column(sa.Text, nullable=True)
    retired = sa.Column(sa.Boolean, nullable=False,
                        server_default=sa.false())
    retired_reason = sa.Column(sa.Text, nullable=True)
    # The host of the nova-mini-conductor working on the node (Ironic's
    # reservation; nova_mini.conductor.task_manager), NULL while none is.
    reservation = sa.Column(sa.String(255), nullable=True)


class Chassis(Base):
    """A chassis grouping bare-metal nodes (Ironic's chassis table)."""

    __tablename__ = 'chassis'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    description = sa.Column(sa.String(255), nullable=True)
    extra = sa.Column(db_types.JsonEncodedDict, nullable=True)


class Allocation(Base):
    """A request for a bare-metal node, and the node it got (Ironic's
    allocations). The node is the one whose ``instance_uuid`` is the
    allocation's uuid; ``node_id`` records it.
    """

    __tablename__ = 'allocations'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_allocations0uuid'),
        sa.UniqueConstraint('name', name='uniq_allocations0name'),
        sa.Index('allocations_node_id_idx', 'node_id'),
        sa.Index('allocations_owner_idx', 'owner'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=True)
    node_id = sa.Column(sa.Integer, nullable=True)
    state = sa.Column(sa.String(15), nullable=False)
    owner = sa.Column(sa.String(255), nullable=True)
    last_error = sa.Column(sa.Text, nullable=True)
    resource_class = sa.Column(sa.String(80), nullable=True)
    traits = sa.Column(db_types.JsonEncodedList, nullable=True)
    candidate_nodes = sa.Column(db_types.JsonEncodedList, nullable=True)
    extra = sa.Column(db_types.JsonEncodedDict, nullable=True)


class DeployTemplate(Base):
    """A named list of deploy steps (Ironic's deploy templates). The name is
    a custom trait; a deploy whose instance asks for that trait runs the
    steps. ``steps`` is the ordered list of {interface, step, args,
    priority}, stored whole so that a change replaces it at once.
    """

    __tablename__ = 'deploy_templates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_deploytemplates0uuid'),
        sa.UniqueConstraint('name', name='uniq_deploytemplates0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    steps = sa.Column(db_types.JsonEncodedList, nullable=False)
    extra = sa.Column(db_types.JsonEncodedDict, nullable=True)


class Conductor(Base):
    """A service doing the conductors' work (Ironic's conductors table):
    an API service's host, registered while it runs. ``updated_at`` is
    its last heartbeat; ``online`` is false once it stopped cleanly.
    """

    __tablename__ = 'conductors'
    __table_args__ = (
        sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    hostname = sa.Column(sa.String(255), nullable=False)
    conductor_group = sa.Column(sa.String(255), nullable=False)
    online = sa.Column(sa.Boolean, nullable=False)
    drivers = sa.Column(db_types.JsonEncodedList, nullable=True)


class ConductorHardwareInterface(Base):
    """An implementation a conductor enables for an interface type of a
    hardware type it drives (Ironic's conductor_hardware_interfaces);
    ``default`` on the one nodes naming none get (migration 0027).
    """

    __tablename__ = 'conductor_hardware_interfaces'
    __table_args__ = (
        sa.UniqueConstraint('conductor_id', 'hardware_type',
                            'interface_type', 'interface_name',
                            name='uniq_conductorhardwareinterfaces0'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    conductor_id = sa.Column(
        sa.Integer,
        sa.ForeignKey('conductors.id',
                      name='conductor_hardware_interfaces_ibfk_1'),
        nullable=False)
    hardware_type = sa.Column(sa.String(255), nullable=False)
    interface_type = sa.Column(sa.String(16), nullable=False)
    interface_name = sa.Column(sa.String(255), nullable=False)
    default = sa.Column(sa.Boolean, nullable=False, server_default=sa.false())


class Port(Base):
    """A network port of a bare-metal node, by MAC address (unique)."""

    __tablename__ = 'ports'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_ports0uuid'),
        sa.UniqueConstraint('address', name='uniq_ports0address'),
        sa.Index('ports_node_id_idx', 'node_id'),
        sa.Index('ports_portgroup_id_idx', 'portgroup_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    address = sa.Column(sa.String(18), nullable=False)
    node_id = sa.Column(sa.Integer,
                        sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                        nullable=False)
    extra = sa.Column(db_types.JsonEncodedDict, nullable=True)
    local_link_connection = sa.Column(db_types.JsonEncodedDict,
                                      nullable=True)
    pxe_enabled = sa.Column(sa.Boolean, nullable=False, default=True)
    physical_network = sa.Column(sa.String(64), nullable=True)
    internal_info = sa.Column(db_types.JsonEncodedDict, nullable=True)
    portgroup_id = sa.Column(sa.Integer,
                             sa.ForeignKey('portgroups.id',
                                           name='ports_portgroup_id_fkey'),
                             nullable=True)


class Portgroup(Base):
    """A group of ports of a node bonded together (Ironic's portgroups)."""

    __tablename__ = 'portgroups'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_portgroups0uuid'),
        sa.UniqueConstraint('address', name='uniq_portgroups0address'),
        sa.UniqueConstraint('name', name='uniq_portgroups0name'),
        sa.Index('portgroups_node_id_idx', 'node_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=True)
    address = sa.Column(sa.String(18), nullable=True)
    node_id = sa.Column(sa.Integer,
                        sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                        nullable=False)
    extra = sa.Column(db_types.JsonEncodedDict, nullable=True)
    internal_info = sa.Column(db_types.JsonEncodedDict, nullable=True)
    standalone_ports_supported = sa.Column(sa.Boolean, nullable=False,
                                           default=True)
    mode = sa.Column(sa.String(255), nullable=True)
    properties = sa.Column(db_types.JsonEncodedDict, nullable=True)


class VolumeConnector(Base):
    """How a node connects to remote volumes: one iSCSI initiator name, IP,
    MAC, FC WWNN/WWPN, port or port group (Ironic's volume connectors).
    A (type, connector_id) pair belongs to one node only.
    """

    __tablename__ = 'volume_connectors'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_volumeconnectors0uuid'),
        sa.UniqueConstraint('type', 'connector_id',
                            name='uniq_volumeconnectors0type0connector_id'),
        sa.Index('volume_connectors_node_id_idx', 'node_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    node_id = sa.Column(sa.Integer,
                        sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                        nullable=False)
    type = sa.Column(sa.String(32), nullable=False)
    connector_id = sa.Column(sa.String(255), nullable=False)
    extra = sa.Column(db_types.JsonEncodedDict, nullable=True)


class VolumeTarget(Base):
    """A remote volume attached to a node (Ironic's volume targets); the
    one with boot index 0 is the node's boot volume. Boot indexes are
    unique per node; the unique constraint's leading node_id serves the
    per-node lookups.
    """

    __tablename__ = 'volume_targets'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_volumetargets0uuid'),
        sa.UniqueConstraint('node_id', 'boot_index',
                            name='uniq_volumetargets0node_id0boot_index'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    node_id = sa.Column(sa.Integer,
                        sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                        nullable=False)
    volume_type = sa.Column(sa.String(64), nullable=False)
    properties = sa.Column(db_types.JsonEncodedDict, nullable=True)
    boot_index = sa.Column(sa.Integer, nullable=False)
    volume_id = sa.Column(sa.String(36), nullable=False)
    extra = sa.Column(db_types.JsonEncodedDict, nullable=True)


class NodeTrait(Base):
    """One trait of a node. The index on (trait, node_id) answers "which
    nodes have this trait" from the index alone, for list filters.
    """

    __tablename__ = 'node_traits'
    __table_args__ = (
        sa.Index('node_traits_idx', 'trait', 'node_id'),
    )

    node_id = sa.Column(sa.Integer,
                        sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                        primary_key=True, nullable=False)
    trait = sa.Column(sa.String(255), primary_key=True, nullable=False)


class BIOSSetting(Base):
    """One BIOS setting of a node, as the fake BIOS interface's clean
    steps store it (Ironic's bios_settings, without the registry fields
    of API 1.74). The primary key keeps one setting of a name per node.
    """

    __tablename__ = 'bios_settings'

    node_id = sa.Column(sa.Integer,
                        sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                        primary_key=True, nullable=False)
    name = sa.Column(sa.String(255), primary_key=True, nullable=False)
    value = sa.Column(sa.Text, nullable=True)


class Instance(Base):
    """A server. ``flavor`` is the instance's own copy of its flavor (a
    serialized Flavor object), ``fault`` the last error (message, code,
    details, created) as a JSON document.
    """

    __tablename__ = 'instances'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_instances0uuid'),
        # Server lists: a project's (or every project's) newest first, a
        # name prefix, and a project's builds gone overdue
        # (objects/compute/instance_build.py; migration 0024 says why both
        # equalities are in one index).
        sa.Index('instances_project_id_created_at_idx', 'project_id',
                 'created_at', 'id'),
        sa.Index('instances_created_at_idx', 'created_at', 'id'),
        sa.Index('instances_project_id_name_idx', 'project_id', 'name',
                 postgresql_ops={'name': 'text_pattern_ops'}),
        sa.Index('instances_vm_state_project_id_created_at_idx',
                 'vm_state', 'project_id', 'created_at'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=True)
    project_id = sa.Column(sa.String(255), nullable=True)
    user_id = sa.Column(sa.String(255), nullable=True)
    flavor = sa.Column(sa.Text, nullable=False)
    image_ref = sa.Column(sa.String(255), nullable=True)
    vm_state = sa.Column(sa.String(16), nullable=False)
    node_uuid = sa.Column(sa.String(36), nullable=True)
    fault = sa.Column(db_types.JsonEncodedDict, nullable=True)
    # What the compute API was given at boot (Nova's columns of the same
    # meaning): the user data as the base64 text received, the
    # description, the access addresses and whether a config drive was
    # asked for.
    user_data = sa.Column(sa.Text, nullable=True)
    description = sa.Column(sa.Text, nullable=True)
    access_ip_v4 = sa.Column(sa.String(45), nullable=True)
    access_ip_v6 = sa.Column(sa.String(45), nullable=True)
    config_drive = sa.Column(sa.Boolean, nullable=False,
                             server_default=sa.false())
    # The place of the instance in its multi-create request (0..).
    launch_index = sa.Column(sa.Integer, nullable=False, server_default='0')
    # The roles of the user who booted it (vendordata sends them).
    boot_roles = sa.Column(db_types.JsonEncodedList, nullable=True)
    # When its build finished (updated_at moves with every change).
    launched_at = sa.Column(sa.DateTime, nullable=True)
    # What server lists filter and sort on, kept in step by the Instance
    # object: the host name derived from the name, and the flavor id of
    # the snapshot in ``flavor``.
    hostname = sa.Column(sa.String(255), nullable=True)
    flavorid = sa.Column(sa.String(255), nullable=True)
    # The key pair it was booted with: its name and public key (kept
    # when the key pair is deleted).
    key_name = sa.Column(sa.String(255), nullable=True)
    key_data = sa.Column(sa.Text, nullable=True)
    # Nova's task state (rebooting, powering-off ...) while an action
    # runs, the power state (Nova's numbers) and who locked it, why.
    task_state = sa.Column(sa.String(255), nullable=True)
    power_state = sa.Column(sa.Integer, nullable=True)
    locked_by = sa.Column(sa.String(255), nullable=True)
    locked_reason = sa.Column(sa.Text, nullable=True)
    # OS-DCF:diskConfig AUTO (True) or MANUAL (False): what the deploy
    # writes of the root partition into the node's instance_info.
    auto_disk_config = sa.Column(sa.Boolean, nullable=False, default=False,
                                 server_default=sa.false())
    # The vcpus and memory_mb of ``flavor`` (Nova's columns): what the
    # project's cores and ram quotas sum up (objects/compute/quota.py).
    vcpus = sa.Column(sa.Integer, nullable=False, server_default='0')
    memory_mb = sa.Column(sa.Integer, nullable=False, server_default='0')


class RequestSpec(Base):
    """What an instance was booted with: the persistable part of its
    RequestSpec (nova_mini.objects.request_spec), serialized, one row per
    instance, deleted with it.
    """

    __tablename__ = 'request_specs'
    __table_args__ = (
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_request_specs0instance_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(
        sa.String(36), sa.ForeignKey('instances.uuid', ondelete='CASCADE'),
        nullable=False)
    spec = sa.Column(sa.Text, nullable=False)


class InstanceMetadata(Base):
    """One item of a server's metadata (the compute API's ``metadata``)."""

    __tablename__ = 'instance_metadata'
    __table_args__ = (
        sa.UniqueConstraint('instance_uuid', 'key',
                            name='uniq_instance_metadata0instance_uuid0key'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(
        sa.String(36), sa.ForeignKey('instances.uuid', ondelete='CASCADE'),
        nullable=False)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255), nullable=False)


class InstanceTag(Base):
    """One tag of a server. The index on ``tag`` serves the tag filters
    of server lists, as Nova's ``tags_tag_idx``.
    """

    __tablename__ = 'instance_tags'
    __table_args__ = (
        sa.Index('instance_tags_tag_idx', 'tag'),
    )

    instance_uuid = sa.Column(
        sa.String(36), sa.ForeignKey('instances.uuid', ondelete='CASCADE'),
        primary_key=True, nullable=False)
    tag = sa.Column(sa.String(60), primary_key=True, nullable=False)


class ServerGroup(Base):
    """A server group: its placement policy (Nova's instance group
    policies: affinity, anti-affinity, soft-affinity, soft-anti-affinity)
    and the policy's rules (``max_server_per_host``).
    """

    __tablename__ = 'server_groups'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_server_groups0uuid'),
        # A project's groups in creation order; the groups quota.
        sa.Index('server_groups_project_id_idx', 'project_id', 'id'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    policy = sa.Column(sa.String(255), nullable=False)
    rules = sa.Column(db_types.JsonEncodedDict, nullable=True)


class ServerGroupMember(Base):
    """A server's membership of a group: at most one group per server,
    deleted with the server or with the group.
    """

    __tablename__ = 'server_group_members'
    __table_args__ = (
        sa.Index('server_group_members_group_id_idx', 'group_id'),
    )

    instance_uuid = sa.Column(
        sa.String(36), sa.ForeignKey('instances.uuid', ondelete='CASCADE'),
        primary_key=True, nullable=False)
    group_id = sa.Column(
        sa.Integer, sa.ForeignKey('server_groups.id', ondelete='CASCADE'),
        nullable=False)


class KeyPair(Base):
    """A user's key pair (``ssh`` or ``x509``): one name per user."""

    __tablename__ = 'key_pairs'
    __table_args__ = (
        sa.UniqueConstraint('user_id', 'name',
                            name='uniq_key_pairs0user_id0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    fingerprint = sa.Column(sa.String(255), nullable=False)
    public_key = sa.Column(sa.Text, nullable=False)
    type = sa.Column(sa.String(16), nullable=False, server_default='ssh')


class InstanceAction(Base):
    """One action on a server (create, reboot, stop ...) by one request;
    kept after the server is deleted.
    """

    __tablename__ = 'instance_actions'
    __table_args__ = (
        sa.Index('instance_actions_instance_uuid_idx', 'instance_uuid',
                 'created_at'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    action = sa.Column(sa.String(255), nullable=False)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    request_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=True)
    project_id = sa.Column(sa.String(255), nullable=True)
    start_time = sa.Column(sa.DateTime, nullable=True)
    finish_time = sa.Column(sa.DateTime, nullable=True)
    message = sa.Column(sa.String(255), nullable=True)


class InstanceActionEvent(Base):
    """A step of an instance action, with its result."""

    __tablename__ = 'instance_actions_events'
    __table_args__ = (
        sa.Index('instance_actions_events_action_id_idx', 'action_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    action_id = sa.Column(
        sa.Integer,
        sa.ForeignKey('instance_actions.id', ondelete='CASCADE'),
        nullable=False)
    event = sa.Column(sa.String(255), nullable=False)
    start_time = sa.Column(sa.DateTime, nullable=True)
    finish_time = sa.Column(sa.DateTime, nullable=True)
    result = sa.Column(sa.String(255), nullable=True)
    traceback = sa.Column(sa.Text, nullable=True)
    host = sa.Column(sa.String(255), nullable=True)
    details = sa.Column(sa.Text, nullable=True)


class Quota(Base):
    """A project's own limit of one resource (Nova's ``quotas`` table),
    set by ``PUT /os-quota-sets/{project_id}``; without one the project
    has ``[quota]``'s default.
    """

    __tablename__ = 'quotas'
    __table_args__ = (
        sa.UniqueConstraint('project_id', 'resource',
                            name='uniq_quotas0project_id0resource'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer, nullable=False)


class QuotaLock(Base):
    """One row per project that has booted servers: a boot updates it
    first thing in its transaction, so that the boots of one project take
    turns at counting what it uses (objects/compute/quota.py).
    """

    __tablename__ = 'quota_locks'

    project_id = sa.Column(sa.String(255), primary_key=True)
