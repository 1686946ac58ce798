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

"""The errors of the redfish driver, with Ironic's names and messages.

The conductor records their message in the node's ``last_error``; the
API maps them by their base classes (Invalid: 400, Conflict: 409, the
others: 500).
"""

from nova_mini import exception
from nova_mini import exception_baremetal


# nova_mini's own (they cross RPC and reach the API as themselves).
InvalidParameterValue = exception_baremetal.InvalidParameterValue
MissingParameterValue = exception_baremetal.MissingParameterValue


class RedfishError(exception.NovaMiniException):
    msg_fmt = 'Redfish exception occurred. Error: %(error)s'


class RedfishConnectionError(RedfishError):
    msg_fmt = 'Redfish connection failed for node %(node)s: %(error)s'


class PowerStateFailure(exception_baremetal.InvalidState):
    msg_fmt = 'Failed to set node power state to %(pstate)s.'


class InstanceDeployFailure(exception.NovaMiniException):
    msg_fmt = 'Failed to deploy instance: %(reason)s'


# The boot device the node's BMC does not offer: the API's own error.
InvalidBootDevice = exception_baremetal.InvalidBootDevice
