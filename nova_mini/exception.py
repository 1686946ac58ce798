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

"""Domain exceptions of nova_mini: the base classes, those of the APIs'
requests and versions, the database, the message broker and the
scheduler, the compute resources and the metadata service. The bare-metal
resources' are in nova_mini.exception_baremetal.

They know nothing of HTTP: each API root maps them to its own status codes
and error format in one place (nova_mini.api.faults).
"""


class NovaMiniException(Exception):
    """Base class; ``msg_fmt`` is formatted with the keyword arguments."""

    msg_fmt = 'An unknown error occurred.'

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            message = self.msg_fmt % kwargs
        self.message = message
        super().__init__(message)

    def format_message(self):
        """Return the exception's message, as formatted from ``msg_fmt``."""
        return self.message


class Invalid(NovaMiniException):
    msg_fmt = 'Unacceptable parameters.'


class ValidationError(Invalid):
    msg_fmt = '%(detail)s'


class NotFound(NovaMiniException):
    msg_fmt = 'Resource could not be found.'


class Conflict(NovaMiniException):
    msg_fmt = 'Conflict with the current state of the resource.'


class Forbidden(NovaMiniException):
    msg_fmt = 'Forbidden.'


class PolicyNotAuthorized(Forbidden):
    msg_fmt = "Policy doesn't allow %(action)s to be performed."


class FlavorNotFound(NotFound):
    msg_fmt = 'Flavor %(flavor_id)s could not be found.'


class FlavorExtraSpecsNotFound(NotFound):
    msg_fmt = ('Flavor %(flavor_id)s has no extra specs with key '
               '%(extra_specs_key)s.')


class FlavorAccessNotFound(NotFound):
    msg_fmt = ('Flavor access not found for %(flavor_id)s / %(project_id)s '
               'combination.')


class FlavorExists(Conflict):
    msg_fmt = 'Flavor with name %(name)s already exists.'


class FlavorIdExists(Conflict):
    msg_fmt = 'Flavor with ID %(flavor_id)s already exists.'


class FlavorAccessExists(Conflict):
    msg_fmt = ('Flavor access already exists for flavor %(flavor_id)s and '
               'project %(project_id)s combination.')


class MarkerNotFound(Invalid):
    msg_fmt = 'marker [%(marker)s] not found'


class InvalidSortKey(Invalid):
    msg_fmt = 'Sort key supplied is invalid: %(sort_key)s'


class InvalidRegexFilter(Invalid):
    msg_fmt = 'Invalid regular expression for %(name)s: %(reason)s'


class RegexFilterTimeout(Invalid):
    msg_fmt = ('The regular expression filters (%(names)s) took more than '
               'their budget of %(seconds)s seconds: use simpler '
               'patterns.')


class TooManyFilterValues(Invalid):
    msg_fmt = ('Too many %(what)s in %(name)s: at most %(limit)d %(what)s '
               'are allowed.')


class MetadataLimitExceeded(Forbidden):
    # Nova's words for its metadata_items quota (403 in its API).
    msg_fmt = 'Maximum number of metadata items exceeds %(allowed)d'


class InstanceMetadataNotFound(NotFound):
    msg_fmt = 'Metadata item was not found'


class InstanceInvalidState(Conflict):
    msg_fmt = ("Cannot '%(action)s' instance %(instance_uuid)s while it is "
               "in %(attr)s %(state)s")


class DatabaseNotReady(NovaMiniException):
    msg_fmt = ('The database at %(url)s is not usable: %(reason)s')


class DatabaseBusy(NovaMiniException):
    """The database stayed busy longer than the configured bound
    (nova_mini.db.retry).
    """

    msg_fmt = ('The database is busy: the change was not made after '
               'waiting %(waited).0f seconds. Retry the request in '
               '%(retry_after)d seconds.')

    @property
    def retry_after(self):
        """The seconds after which a retry is advised."""
        return self.kwargs['retry_after']


class DatabaseUnavailable(DatabaseBusy):
    """The database could not be reached within the configured bound."""

    msg_fmt = ('The database cannot be reached: the change was not made '
               'after waiting %(waited).0f seconds. Retry the request in '
               '%(retry_after)d seconds.')


class MessagingUnreachable(NovaMiniException):
    msg_fmt = 'Cannot reach the message broker at %(url)s: %(reason)s'


class ServiceUnavailable(NovaMiniException):
    """A service the request needs does not answer now; the same request
    may succeed later (503 with Retry-After).
    """

    msg_fmt = ('A service this request needs is unavailable. Retry the '
               'request in %(retry_after)d seconds.')

    @property
    def retry_after(self):
        """The seconds after which a retry is advised."""
        return self.kwargs['retry_after']


class BrokerUnavailable(ServiceUnavailable):
    msg_fmt = ('The message broker does not answer, so the server could '
               'not be handed to a scheduler. Nothing was created: retry '
               'the request in %(retry_after)d seconds.')


class SchedulerUpgrading(ServiceUnavailable):
    msg_fmt = ('The schedulers cannot build servers before they are '
               'upgraded: [upgrade_levels] scheduler caps their RPC API at '
               '%(cap)s and a build needs %(version)s. Nothing was '
               'created: retry the request in %(retry_after)d seconds.')


class SchedulerNotListening(ServiceUnavailable):
    msg_fmt = ('No scheduler listens on the message broker (none has '
               'started yet, or the broker has just restarted), so the '
               'server could not be handed to one. Nothing was created: '
               'retry the request in %(retry_after)d seconds.')


# A rebuild of a server on a conductor's node not handed to a scheduler:
# its own words (the server exists and was not rebuilt).
class RebuildSchedulerUpgrading(SchedulerUpgrading):
    msg_fmt = ('The schedulers cannot rebuild servers on bare-metal nodes '
               'a nova-mini-conductor drives before they are upgraded: '
               '[upgrade_levels] scheduler caps their RPC API at %(cap)s '
               'and the rebuild needs %(version)s. The server was not '
               'rebuilt: retry the request in %(retry_after)d seconds.')


class RebuildBrokerUnavailable(BrokerUnavailable):
    msg_fmt = ('The message broker does not answer, so the rebuild could '
               'not be handed to a scheduler. The server was not rebuilt: '
               'retry the request in %(retry_after)d seconds.')


class RebuildSchedulerNotListening(SchedulerNotListening):
    msg_fmt = ('No scheduler listens on the message broker (none has '
               'started yet, or the broker has just restarted), so the '
               'rebuild could not be handed to one. The server was not '
               'rebuilt: retry the request in %(retry_after)d seconds.')


# A power action (os-stop, os-start, reboot) of a server on a conductor's
# node not handed to a scheduler: its own words (its power not changed).
class PowerSchedulerUpgrading(SchedulerUpgrading):
    msg_fmt = ('The schedulers cannot change the power of servers on '
               'bare-metal nodes a nova-mini-conductor drives before they '
               'are upgraded: [upgrade_levels] scheduler caps their RPC API '
               'at %(cap)s and the action needs %(version)s. The server\'s '
               'power was not changed: retry the request in '
               '%(retry_after)d seconds.')


class PowerBrokerUnavailable(BrokerUnavailable):
    msg_fmt = ('The message broker does not answer, so the power action '
               'could not be handed to a scheduler. The server\'s power '
               'was not changed: retry the request in %(retry_after)d '
               'seconds.')


class PowerSchedulerNotListening(SchedulerNotListening):
    msg_fmt = ('No scheduler listens on the message broker (none has '
               'started yet, or the broker has just restarted), so the '
               'power action could not be handed to one. The server\'s '
               'power was not changed: retry the request in '
               '%(retry_after)d seconds.')


class FlavorAccessPublic(Conflict):
    msg_fmt = 'Can not add access to a public flavor.'


class InvalidAPIVersion(Invalid):
    msg_fmt = ('API Version String %(version)s is of invalid format. Must '
               'be of format MajorNum.MinorNum.')


class MalformedComputeAPIVersion(InvalidAPIVersion):
    # A malformed version header: Nova's words, then what to send.
    msg_fmt = (InvalidAPIVersion.msg_fmt + ' Supported versions are '
               '%(min_version)s to %(max_version)s, or latest.')


class APIVersionNotSupported(NovaMiniException):
    msg_fmt = ('Version %(version)s is not supported by the API. Minimum is '
               '%(min_version)s and maximum is %(max_version)s.')


class VersionNotFoundForAPIMethod(NotFound):
    # A method hidden by the version is answered as if it did not exist,
    # in Nova's words; ``version`` stays in kwargs for the logs.
    msg_fmt = 'The resource could not be found.'


class ResourceNotFound(NotFound):
    msg_fmt = 'The resource could not be found.'


class MethodNotAllowed(NovaMiniException):
    msg_fmt = 'The method %(method)s is not allowed for this resource.'


class PayloadTooLarge(NovaMiniException):
    msg_fmt = 'Request is too large.'


class MalformedRequestBody(Invalid):
    # Nova's exact text: clients and tests match on it.
    msg_fmt = 'Malformed request body'


class UnsupportedMediaType(NovaMiniException):
    msg_fmt = 'Unsupported Content-Type'


class NotAcceptable(NovaMiniException):
    # Ironic's answer (406) to a request its version does not allow.
    msg_fmt = ('The requested version of the API (%(version)s) does not '
               'support this request.')


class MalformedAPIVersion(APIVersionNotSupported):
    msg_fmt = ('Invalid value %(version)r for the %(header)s header; the '
               'supported range is [%(min_version)s, %(max_version)s], or '
               'latest.')


class BaremetalAPIVersionNotSupported(APIVersionNotSupported):
    msg_fmt = ('Version %(version)s is not supported by this service; the '
               'supported range is [%(min_version)s, %(max_version)s].')


class MethodNotAllowedForVersion(MethodNotAllowed):
    # Ironic's answer (405) to some methods of versions before theirs.
    msg_fmt = ('The method is not allowed for this resource at version '
               '%(version)s.')


class InvalidRequestSpec(Invalid):
    msg_fmt = 'Invalid request spec: %(reason)s'


class InstanceNotFound(NotFound):
    msg_fmt = 'Instance %(instance_id)s could not be found.'


class RequestSpecNotFound(NotFound):
    msg_fmt = 'RequestSpec not found for instance %(instance_uuid)s.'


class ServerGroupNotFound(NotFound):
    # Nova's words (it calls server groups instance groups).
    msg_fmt = 'Instance group %(group_uuid)s could not be found.'


class ServerGroupLimitExceeded(Forbidden):
    msg_fmt = 'Quota exceeded, too many server groups.'


class GroupMemberLimitExceeded(Forbidden):
    msg_fmt = 'Quota exceeded, too many servers in group'


class TooManyInstances(Forbidden):
    # Nova's words for its instances, cores and ram quotas (403 in its
    # API); each field lists the resources over their quota, in order.
    msg_fmt = ('Quota exceeded for %(overs)s: Requested %(req)s, but '
               'already used %(used)s of %(allowed)s %(overs)s')


class NoValidHost(NovaMiniException):
    msg_fmt = 'No valid host was found. %(reason)s'


class RPCVersionCapped(NovaMiniException):
    msg_fmt = ('%(api)s RPC API %(version)s is needed but [upgrade_levels] '
               '%(api)s caps it at %(cap)s.')


# Metadata and vendordata

class VendorDataConfigError(NovaMiniException):
    """A vendordata provider is misconfigured; found when it is loaded."""

    msg_fmt = 'Invalid vendordata configuration: %(reason)s'


class VendorDataTargetFailed(NovaMiniException):
    """A dynamic vendordata target failed and failures are fatal."""

    msg_fmt = 'Vendordata target %(target)s failed: %(reason)s'


class MetadataConfigError(NovaMiniException):
    """The metadata service cannot start with this configuration."""

    msg_fmt = '%(reason)s'


class MetadataRequestInvalid(Invalid):
    """A metadata request without the identity headers it needs."""

    msg_fmt = '%(reason)s'


class MetadataSignatureInvalid(Forbidden):
    msg_fmt = 'Invalid proxy request signature.'


# Config drives

class ConfigDriveInvalid(Invalid):
    """A config drive that is not gzip + base64 of an image."""

    msg_fmt = 'Invalid config drive: %(reason)s'


class InvalidImageConfigDrive(Invalid):
    msg_fmt = "Image's config drive option '%(config_drive)s' is invalid"


class ConfigDriveVendorDataFailed(ServiceUnavailable):
    """A fatal vendordata target failed while a rebuild built the config
    drive; the reason stays in the log (it may name internal URLs).
    """

    msg_fmt = ('Failed to build configdrive: vendordata target %(target)s '
               'failed. Nothing was changed: retry the request in '
               '%(retry_after)d seconds.')


class ConfigDriveTooLarge(Invalid):
    msg_fmt = ('The config drive has %(size)d bytes, over the limit of '
               '%(cap)d bytes.')


class KeypairNotFound(NotFound):
    msg_fmt = 'Keypair %(name)s not found for user %(user_id)s'


class KeyPairExists(Conflict):
    msg_fmt = "Key pair '%(key_name)s' already exists."


class InvalidKeypair(Invalid):
    msg_fmt = 'Keypair data is invalid: %(reason)s'


class KeypairLimitExceeded(Forbidden):
    msg_fmt = 'Quota exceeded, too many key pairs.'


class InstanceActionNotFound(NotFound):
    msg_fmt = ('Action for request_id %(request_id)s on instance '
               '%(instance_uuid)s not found')


class InstanceIsLocked(Conflict):
    msg_fmt = 'Instance %(instance_uuid)s is locked'
