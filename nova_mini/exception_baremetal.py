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

"""Domain exceptions of the bare-metal resources: nodes and their traits,
VIFs, states and interfaces, ports, portgroups, chassis, volumes,
allocations, deploy templates, BIOS settings and conductors.

Like those of nova_mini.exception, on whose base classes they build, they
know nothing of HTTP (nova_mini.api.faults maps them). Scheduler RPC
callers get them back as themselves (nova_mini.rpc).
"""

from nova_mini import exception


class NodeNotFound(exception.NotFound):
    msg_fmt = 'Node %(node)s could not be found.'


class VifAlreadyAttached(exception.Conflict):
    msg_fmt = ('Unable to attach VIF %(vif)s: it is already attached to node '
               '%(node)s. Detach it first to attach it again.')


class NodeTraitNotFound(exception.NotFound):
    msg_fmt = "Node %(node)s has no trait '%(trait)s'."


class NodeExists(exception.Conflict):
    msg_fmt = 'A node with UUID %(uuid)s already exists.'


class NodeNameExists(exception.Conflict):
    msg_fmt = 'A node with name %(name)s already exists.'


class InstanceAssociated(exception.Conflict):
    msg_fmt = ('Instance %(instance_uuid)s is already associated with a '
               'node, it cannot be associated with node %(node)s too.')


class NodeAssociated(exception.Conflict):
    msg_fmt = ('Node %(node)s is associated with instance '
               '%(instance_uuid)s.')


class InvalidState(exception.Conflict):
    msg_fmt = '%(reason)s'


class InvalidStateRequested(exception.Invalid):
    msg_fmt = ('The requested action "%(action)s" cannot be performed on '
               'node %(node)s while it is in state "%(state)s".')


class NodeClaimLost(exception.Invalid):
    msg_fmt = ('Node %(node)s is no longer claimed by instance '
               '%(instance)s: it cannot be deployed for it.')


class NodeClaimLostTearDown(NodeClaimLost):
    # A tear down asked for an instance the node no longer holds (freed
    # and claimed again since the caller read it).
    msg_fmt = ('Node %(node)s is no longer claimed by instance '
               '%(instance)s: it is not torn down for it.')


class NodeInMaintenance(exception.Invalid):
    msg_fmt = ('The requested action "%(action)s" cannot be performed on '
               'node %(node)s while it is in maintenance mode.')


class InstanceRescueFailure(exception.Invalid):
    # Ironic's message; it answers 500, nova_mini 400 (the caller can set
    # the node's rescue_interface).
    msg_fmt = ('Failed to rescue instance %(instance)s for node %(node)s: '
               '%(reason)s')


class TooManyTraits(exception.Invalid):
    msg_fmt = ('Node %(node)s cannot have %(count)d traits: at most '
               '%(limit)d traits per node are allowed.')


class MissingNodeTraits(exception.Invalid):
    msg_fmt = ('Node %(node)s lacks traits required by its instance_info: '
               '%(missing)s.')


class ChassisNotFound(exception.NotFound):
    msg_fmt = 'Chassis %(chassis)s could not be found.'


class ChassisExists(exception.Conflict):
    msg_fmt = 'A chassis with UUID %(uuid)s already exists.'


class ChassisNotEmpty(exception.Invalid):
    msg_fmt = ('Cannot complete the requested action because chassis '
               '%(chassis)s contains nodes: delete them or move them to '
               'another chassis first.')


class PortNotFound(exception.NotFound):
    msg_fmt = 'Port %(port)s could not be found.'


class PortExists(exception.Conflict):
    msg_fmt = 'A port with UUID %(uuid)s already exists.'


class MACAlreadyExists(exception.Conflict):
    msg_fmt = 'A port with MAC address %(mac)s already exists.'


class VolumeConnectorNotFound(exception.NotFound):
    msg_fmt = 'Volume connector %(connector)s could not be found.'


class VolumeTargetNotFound(exception.NotFound):
    msg_fmt = 'Volume target %(target)s could not be found.'


class VolumeConnectorAlreadyExists(exception.Conflict):
    msg_fmt = 'A volume connector with UUID %(uuid)s already exists.'


class VolumeConnectorTypeAndIdAlreadyExists(exception.Conflict):
    msg_fmt = ('A volume connector with type %(type)s and connector ID '
               '%(connector_id)s already exists: each connector ID belongs '
               'to one node.')


class VolumeTargetAlreadyExists(exception.Conflict):
    msg_fmt = 'A volume target with UUID %(uuid)s already exists.'


class VolumeTargetBootIndexAlreadyExists(exception.Conflict):
    msg_fmt = ('A volume target with boot index \'%(boot_index)s\' for the '
               'same node already exists: choose another boot index.')


class VolumeNodeStateInvalid(exception.Invalid):
    # Ironic's wording, which its clients match.
    msg_fmt = ('The requested action "%(action)s" can not be performed on '
               'node "%(node)s" while it is in state "%(state)s".')


class DriverNotFound(exception.Invalid):
    msg_fmt = ('No valid host was found. Reason: No conductor service '
               'registered which supports driver %(driver)s. Use one of: '
               '%(drivers)s.')


class HardwareTypeNotFound(exception.NotFound):
    # Ironic's 404 for a driver path naming a hardware type no conductor
    # drives.
    msg_fmt = ('Could not find the following driver(s) or hardware type(s): '
               '%(driver)s.')


class AllocationNotFound(exception.NotFound):
    msg_fmt = 'Allocation %(allocation)s could not be found.'


class NodeAllocationNotFound(exception.NotFound):
    msg_fmt = 'Allocation for node %(node)s was not found.'


class AllocationDuplicateName(exception.Conflict):
    msg_fmt = 'An allocation with name %(name)s already exists.'


class AllocationAlreadyExists(exception.Conflict):
    msg_fmt = 'An allocation with UUID %(uuid)s already exists.'


class DeployTemplateNotFound(exception.NotFound):
    msg_fmt = 'Deploy template %(template)s could not be found.'


class DeployTemplateDuplicateName(exception.Conflict):
    msg_fmt = ('A deploy template with name %(name)s already exists: '
               'choose another name, or change that template.')


class DeployTemplateAlreadyExists(exception.Conflict):
    msg_fmt = 'A deploy template with UUID %(uuid)s already exists.'


class InvalidDeployTemplate(exception.Invalid):
    msg_fmt = 'Deploy template invalid: %(err)s.'


class DeployStepsRefused(exception.Invalid):
    # Ironic's 400 to a deploy whose deploy templates the node's
    # interfaces cannot run as written.
    msg_fmt = ('Failed to validate deploy or power info for node %(node)s: '
               '%(reason)s')


class IncompatibleInterface(exception.Invalid):
    msg_fmt = ("%(interface_type)s interface implementation "
               "'%(interface_impl)s' is not supported by hardware type "
               "%(hardware_type)s. Use one of: %(valid)s.")


class InterfaceNotFoundInEntrypoint(exception.Invalid):
    # Ironic's 400 for an implementation its [DEFAULT]
    # enabled_<type>_interfaces does not enable (%(valid)s: those it does).
    msg_fmt = ("Could not find the following interface in the "
               "'%(entrypoint)s' entrypoint: %(iface)s. Valid interfaces "
               "are %(valid)s.")


class NoValidDefaultForInterface(exception.Invalid):
    # Ironic's 400 when no implementation of a node's hardware type is
    # enabled for an interface type (%(node_info)s: '' or ' node UUID with').
    msg_fmt = ("For%(node_info)s hardware type '%(driver)s', no default "
               "value found for %(interface_type)s interface could be "
               "determined. Please ensure the interfaces are enabled.")


class InvalidBootDevice(exception.Invalid):
    msg_fmt = ('Invalid boot device %(device)s specified. The node '
               'supports: %(supported)s.')


class NodeProtected(exception.Forbidden):
    msg_fmt = ('Node %(node)s is protected and cannot be undeployed, '
               'rebuilt or deleted: unset its "protected" field first.')


class UnsupportedDriverExtension(exception.Invalid):
    msg_fmt = ('Driver %(driver)s does not support %(extension)s (disabled '
               'or not implemented): set the node\'s %(extension)s_interface '
               'to one that implements it.')


class PortgroupNotFound(exception.NotFound):
    msg_fmt = 'Portgroup %(portgroup)s could not be found.'


class PortgroupExists(exception.Conflict):
    msg_fmt = 'A portgroup with UUID %(uuid)s already exists.'


class PortgroupMACAlreadyExists(exception.Conflict):
    msg_fmt = 'A portgroup with MAC address %(mac)s already exists.'


class PortgroupDuplicateName(exception.Conflict):
    msg_fmt = 'A portgroup with name %(name)s already exists.'


class PortgroupNotEmpty(exception.Invalid):
    msg_fmt = ('Cannot complete the requested action because portgroup '
               '%(portgroup)s contains ports: delete them or move them out '
               'of the group first.')


class ManagementActionUnsupported(exception.Invalid):
    # Ironic's 400 for an action its fake management interface lacks.
    msg_fmt = ('Driver %(driver)s does not support %(extension)s (disabled '
               'or not implemented): no management interface of this '
               'hardware type can do it.')


class InvalidIndicator(exception.Invalid):
    msg_fmt = '%(reason)s'


class BIOSSettingNotFound(exception.NotFound):
    msg_fmt = ("Node %(node)s doesn't have a BIOS setting '%(name)s': list "
               "the node's BIOS settings to see those it has.")


class ConductorNotFound(exception.NotFound):
    msg_fmt = ('Conductor %(conductor)s could not be found: list the '
               'conductors to see their host names.')


class ConductorAlreadyRegistered(exception.Conflict):
    # Ironic's name: the host's row is alive, held by a service of the
    # other kind (nova-mini-api for fake-hardware, nova-mini-conductor
    # for the real hardware types), whose heartbeat would keep it alive.
    msg_fmt = ('Conductor %(conductor)s already registered by another '
               'service (drivers %(drivers)s): nova-mini-api and '
               'nova-mini-conductor need a [DEFAULT] host of their own.')


class NodeLocked(exception.Conflict):
    # Ironic's 409: a nova-mini-conductor holds the node's reservation.
    msg_fmt = ('Node %(node)s is locked by host %(host)s, please retry '
               'after the current operation is completed.')


# The seconds a client is told to wait (Retry-After) when a conductor had
# no free worker: about the time of a power change.
NO_FREE_WORKER_RETRY_AFTER = 5


class NoFreeConductorWorker(exception.ServiceUnavailable):
    # Ironic's 503: every worker of the node's conductor is busy.
    msg_fmt = ('Requested action cannot be performed due to lack of free '
               'conductor workers.')

    def __init__(self, message=None, **kwargs):
        kwargs.setdefault('retry_after', NO_FREE_WORKER_RETRY_AFTER)
        super().__init__(message, **kwargs)


class InvalidParameterValue(exception.Invalid):
    # Ironic's: a node's driver_info or instance_info a driver cannot use
    # (the drivers' own, nova_mini.drivers.redfish.errors, are these).
    msg_fmt = '%(err)s'


class MissingParameterValue(InvalidParameterValue):
    msg_fmt = '%(err)s'


class InvalidDeployInfo(exception.Invalid):
    # Ironic's InstanceDeployFailure (with its 400) of a deploy whose
    # power or deploy information does not validate.
    msg_fmt = ('Failed to validate deploy or power info for node '
               '%(node)s. Error: %(msg)s')


class InvalidTearDownInfo(exception.Invalid):
    # Ironic's InstanceDeployFailure (400) of a tear down whose power
    # information does not validate.
    msg_fmt = ('Failed to validate power driver interface. Can not delete '
               'instance. Error: %(msg)s')


class NoValidConductor(exception.NotFound):
    # Ironic's NoValidHost (a NotFound: 404) of a node whose hardware type
    # no alive conductor drives in its conductor group.
    msg_fmt = ('No valid host was found. Reason: No conductor service '
               'registered which supports driver %(driver)s for conductor '
               'group "%(group)s".')


class NoValidConductorRequested(exception.Invalid):
    # The same on node create and patch, where Ironic's API makes it 400:
    # the client asked for a driver or group no conductor serves.
    msg_fmt = NoValidConductor.msg_fmt


class ConductorShuttingDown(exception.ServiceUnavailable):
    # A request reached a nova-mini-conductor that is stopping: another
    # one takes the node once its heartbeat times out.
    msg_fmt = ('Conductor %(host)s is shutting down and takes no new work: '
               'retry the request in %(retry_after)d seconds.')


class ConductorUpgrading(exception.NotAcceptable):
    # Ironic's answer (406) to what its API could accept but its
    # conductors cannot take yet: here a call [upgrade_levels] conductor
    # does not let the API send during a rolling upgrade.
    msg_fmt = ('The nova-mini-conductor services cannot %(what)s until '
               'they are upgraded: [upgrade_levels] conductor caps their '
               'RPC API at %(cap)s and this request needs %(version)s. '
               'Nothing was done to node %(node)s: retry once the '
               'conductors run the new release and the cap is raised.')


class ConductorNotResponding(exception.ServiceUnavailable):
    # The node's conductor is registered alive but did not answer within
    # rpc_response_timeout (just killed: its heartbeat has not timed out).
    msg_fmt = ('Conductor %(host)s did not answer: retry the request in '
               '%(retry_after)d seconds.')
